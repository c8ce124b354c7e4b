"""The Slurm nodes a workflow runs on (`sweep --nodes N`, `sweep recheck`, the nightly loop's
locate): the job this process runs in, or an allocation taken for it.

A sweep is one MPI job whose table and verdicts the user reads at once, so it runs the
way an interactive job does, but in this process: outside an allocation, commscope asks
Slurm for the nodes with `salloc --no-shell` (partition, account, QOS, time, constraint
and --exclusive from the flags or the site configuration of `commscope submit`), which
returns once they are granted and leaves the job running; the launches are then steps of
that job (`srun --jobid`), and the job is cancelled (scancel) on every way out: the end,
an error, a stop signal. Inside one (a job script, an salloc shell, a scrontab entry), the
workflow takes the job's nodes and releases nothing.
"""

from __future__ import annotations

import contextlib
import os
import re
import shlex
import sys
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass

from commscope import ui
from commscope.cluster import slurm
from commscope.cluster.config import SiteConfig
from commscope.errors import CommscopeError, Interrupted, UsageError
from commscope.execute.signals import StopSignals

#: salloc's flag that returns once the nodes are granted, the job left running.
NO_SHELL = "--no-shell"
#: How salloc names the job it asked for, once queued and once granted.
_JOB = re.compile(r"(?:Pending|Granted) job allocation (\d+)")


@dataclass(frozen=True)
class Allocation:
    """The nodes a workflow runs on: `job_id`, its first `hosts`, and whether this process
    `took` it (then its launches are steps started with `srun --jobid`; it is released after)."""

    job_id: str
    hosts: tuple[str, ...]
    took: bool

    @property
    def step_of(self) -> str | None:
        """The job the launches are steps of, where they do not run inside it already."""
        return self.job_id if self.took else None


def in_allocation(environ: Mapping[str, str] = os.environ) -> bool:
    return bool(environ.get("SLURM_JOB_ID") and environ.get("SLURM_JOB_NODELIST"))


def expand(nodelist: str) -> list[str]:
    """A Slurm node list (`vnode[1-4]`) as host names, by `scontrol show hostnames`."""
    done = slurm.run_slurm(["scontrol", "show", "hostnames", nodelist])
    if done.returncode != 0:
        raise CommscopeError(f"scontrol cannot expand the node list {nodelist!r}: {done.said()}")
    return done.stdout.split()


def allocation_hosts(nodes: int, environ: Mapping[str, str] = os.environ) -> list[str]:
    """The first `nodes` host names of the allocation this process runs in."""
    hosts = expand(environ["SLURM_JOB_NODELIST"])
    if len(hosts) < nodes:
        raise UsageError(
            f"--nodes {nodes}: this Slurm job ({environ['SLURM_JOB_ID']}) has {len(hosts)} node"
            f"{'s' if len(hosts) != 1 else ''} ({', '.join(hosts)})"
        )
    return hosts[:nodes]


def salloc_argv(nodes: int, config: SiteConfig, partition: str | None = None, time: str | None = None) -> list[str]:
    """salloc's own flags: one task per node, the site's defaults under the flags."""
    argv = ["salloc", f"--nodes={nodes}", "--ntasks-per-node=1"]
    for flag, value in (
        ("--partition", partition or config.partition),
        ("--account", config.account),
        ("--qos", config.qos),
        ("--time", time or config.time),
        ("--constraint", config.constraint),
    ):
        if value:
            argv.append(f"{flag}={value}")
    if config.exclusive:
        argv.append("--exclusive")
    return argv


@contextlib.contextmanager
def allocation(nodes: int, salloc: Sequence[str], signals: StopSignals) -> Iterator[Allocation]:
    """The first `nodes` nodes of the job this process runs in; outside one, an allocation
    taken with `salloc ... --no-shell` (`salloc`: its command line) and released with
    scancel whatever happens. A stop signal while Slurm has not granted it (of `signals`,
    entered by the caller) ends the wait: Interrupted, the request withdrawn."""
    if in_allocation():
        yield Allocation(os.environ["SLURM_JOB_ID"], tuple(allocation_hosts(nodes)), took=False)
        return
    argv = [*salloc, NO_SHELL]
    ui.note(f"asking Slurm for the nodes: {shlex.join(argv)}")
    done = slurm.run_slurm(argv, timeout=None, signals=signals)
    sys.stderr.write(done.stderr)  # salloc's own notes: granted, or why not
    job = _JOB.findall(done.stderr)
    try:
        if signals.received:
            raise Interrupted(f"interrupted by {signals.received[0]} while Slurm had not granted the nodes")
        if done.returncode != 0 or not job:
            raise CommscopeError(f"salloc did not grant the nodes ({done.said()})")
        yield Allocation(job[-1], tuple(expand(_nodelist(job[-1]))[:nodes]), took=True)
    finally:
        if job:
            release(job[-1])


def _nodelist(job: str) -> str:
    infos = slurm.scontrol_jobs([job])
    node_list = infos[job].node_list if job in infos else None
    if not node_list:
        raise CommscopeError(f"Slurm granted job {job} but names none of its nodes")
    return node_list


def release(job: str) -> None:
    """Cancel the job an allocation was taken as; a failure is said (the job then ends at its
    time limit)."""
    done = slurm.run_slurm(["scancel", job])
    if done.returncode != 0:
        ui.warn(f"cannot release job allocation {job}: {done.said()}; it ends at its time limit")
    else:
        ui.note(f"released job allocation {job}")
