"""A command inside a Slurm allocation of N nodes: `commscope sweep --nodes N`.

A sweep is one MPI job whose table and verdicts the user reads at once, so it runs the
way an interactive job does: outside an allocation, commscope asks Slurm for the
nodes with `salloc` (partition, account, QOS, time, constraint and --exclusive from
the flags or the site configuration of `commscope submit`) and runs the same command
line again inside it; inside one (a job script, an salloc shell), the command takes
the allocation's nodes, and `--launcher auto` starts the ranks with srun.
"""

from __future__ import annotations

import os
import shlex
import subprocess
from collections.abc import Mapping, Sequence

from commscope import ui
from commscope.cluster import slurm
from commscope.cluster.config import SiteConfig
from commscope.errors import EXIT_INTERRUPTED, CommscopeError, UsageError


def in_allocation(environ: Mapping[str, str] = os.environ) -> bool:
    return bool(environ.get("SLURM_JOB_ID") and environ.get("SLURM_JOB_NODELIST"))


def allocation_hosts(nodes: int, environ: Mapping[str, str] = os.environ) -> list[str]:
    """The first `nodes` host names of the allocation this process runs in."""
    nodelist = environ["SLURM_JOB_NODELIST"]
    done = slurm.run_slurm(["scontrol", "show", "hostnames", nodelist])
    if done.returncode != 0:
        raise CommscopeError(f"scontrol cannot expand the job's node list {nodelist!r}: {done.stderr.strip()}")
    hosts = done.stdout.split()
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


def run_in_allocation(salloc: Sequence[str], command: Sequence[str]) -> int:
    """`salloc FLAGS -- COMMAND`, its output the user's; the command's exit status.

    salloc prints its own notes (job granted, relinquished) on stderr, and releases the
    nodes when the command ends or is interrupted."""
    program = slurm.command_path(salloc[0])
    argv = [program, *salloc[1:], "--", *command]
    ui.note(f"asking Slurm for the nodes: {shlex.join(argv)}")
    try:
        return subprocess.run(argv, stdin=subprocess.DEVNULL).returncode
    except KeyboardInterrupt:
        return EXIT_INTERRUPTED
