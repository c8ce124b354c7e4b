"""`commscope sweep recheck`'s side of Slurm: the maintenance reservation that holds the drained
nodes and their partners, the allocation asked for inside it, and the partners chosen
(the workflow, workflow/recheck.py, measures and judges).

Slurm allocates no drained node, not even to root. The way it allows is a maintenance
reservation: `scontrol create reservation ReservationName=commscope-recheck Nodes=...
Flags=MAINT,IGNORE_JOBS Users=ME StartTime=now Duration=MIN` holds the drained nodes and a
few idle good partners for this user alone, so the drained nodes can be resumed inside it
without another job landing on them; `salloc --reservation=commscope-recheck` allocates
them there.
"""

from __future__ import annotations

import contextlib
import getpass
from collections.abc import Iterator, Sequence

from commscope import ui
from commscope.cluster import slurm
from commscope.cluster.drain import DrainRefused, NodeState, shown, update_argv
from commscope.errors import CommscopeError

RESERVATION = "commscope-recheck"
#: A node Slurm may give the recheck as a known-good partner: idle and in no other state.
GOOD_STATES = ("IDLE",)


def reservation_argv(hosts: Sequence[str], minutes: int, user: str) -> list[str]:
    return [
        "scontrol",
        "create",
        "reservation",
        f"ReservationName={RESERVATION}",
        f"Nodes={','.join(hosts)}",
        "Flags=MAINT,IGNORE_JOBS",
        f"Users={user}",
        "StartTime=now",
        f"Duration={minutes}",
    ]


def salloc_argv(hosts: Sequence[str], minutes: int, partition: str | None) -> list[str]:
    """The allocation of `hosts` inside the reservation, one task a node, for `minutes`."""
    return [
        "salloc",
        f"--reservation={RESERVATION}",
        f"--nodelist={','.join(hosts)}",
        f"--nodes={len(hosts)}",
        "--ntasks-per-node=1",
        f"--time={minutes}",
        *([f"--partition={partition}"] if partition else []),
    ]


def resume(host: str) -> list[str]:
    return update_argv(host, "RESUME")


@contextlib.contextmanager
def maintenance(hosts: Sequence[str], minutes: int) -> Iterator[None]:
    """The reservation over `hosts` while the block runs; deleted after, whatever happens."""
    argv = reservation_argv(hosts, minutes, getpass.getuser())
    done = slurm.run_slurm(argv)
    if done.returncode != 0:
        raise DrainRefused(f"recheck: `{shown(argv)}` failed ({done.said()})")
    try:
        yield
    finally:
        try:
            done = slurm.run_slurm(["scontrol", "delete", f"ReservationName={RESERVATION}"])
            said = done.said() if done.returncode != 0 else None
        except CommscopeError as exc:
            said = str(exc)
        if said is not None:
            ui.warn(f"recheck: cannot delete reservation {RESERVATION}: {said}; it ends after {minutes} minutes")


def partners_of(states: dict[str, NodeState], count: int) -> list[str]:
    """The first `count` idle nodes that are in service (by name), as known-good partners."""
    return sorted(name for name, state in states.items() if state.state.upper() in GOOD_STATES)[:count]
