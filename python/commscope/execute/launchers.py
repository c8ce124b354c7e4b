"""MPI launchers: small registered classes that turn a launch request into an argv list.

Nothing here starts a benchmark; `run.py` does. Each launcher only builds
command lines, so they are tested by comparing lists.

Placement hints map onto each launcher's own way of placing ranks:
``intra-node`` puts every rank on one host, ``inter-node`` spreads the ranks in
blocks over the hosts (ranks 0..k-1 on the first host, k..2k-1 on the next),
which is what pair benchmarks need so that rank i and rank i+np/2 sit on
different nodes; ``any`` leaves placement to the MPI library.
"""

from __future__ import annotations

import functools
import math
import os
import shlex
import shutil
import subprocess
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import ClassVar

from commscope.errors import CommscopeError, UsageError
from commscope.execute.core import MPICH, OPENMPI
from commscope.records.hostfile import read_hostfile

SLURM = "slurm"
LAUNCHER_CHOICES = ("auto", "mpirun", "mpiexec", "srun")


@dataclass(frozen=True)
class LaunchSpec:
    """What one benchmark launch needs, independent of the launcher."""

    np: int
    hosts: tuple[str, ...] = ()  # "name" or "name:slots"
    hostfile: str | None = None
    placement: str = "any"
    local_cores: int = 1  # cores of this machine, for oversubscription
    known_nodes: int | None = None  # nodes a hostfile or Slurm allocation offers
    core_flavour: str | None = None  # MPI the core was built with, if known
    as_root: bool = False
    bind: str = "core"  # --bind (cli.common.bind_option): what the user asked for
    cpus: tuple[int, ...] = ()  # rank i bound to CPU cpus[i] (core pairs of a node); () the launcher's choice
    #: The Slurm job whose nodes the launch runs on, as a step (srun --jobid), where commscope
    #: took the allocation itself (salloc --no-shell) and so does not run inside it.
    job_id: str | None = None


@dataclass(frozen=True)
class Binding:
    """The binding a launch asks its launcher for, and why, when it is not the one requested."""

    asked: str  # "core" or "none"
    requested: str
    reason: str | None = None


def binding(spec: LaunchSpec, slots: int | None = None) -> Binding:
    """Ranks are pinned to cores unless told not to, or unless there are fewer cores (this
    machine's, or the `slots` a launcher counted) than ranks: then pinning would stack
    several busy-polling ranks on one core (Open MPI refuses it outright), and leaving
    them to the scheduler is the lesser harm."""
    if spec.bind == "none":
        return Binding("none", "none", "--bind none")
    if slots is None and not spec.hosts and not spec.hostfile and spec.known_nodes is None:
        slots = spec.local_cores
    if slots is not None and spec.np > slots:
        return Binding("none", spec.bind, f"oversubscribed: {spec.np} ranks on {slots} core(s)")
    return Binding("core", spec.bind)


@dataclass(frozen=True)
class Command:
    """A program to start: argv plus the variables to add to the inherited environment."""

    argv: list[str]
    env: dict[str, str] = field(default_factory=dict)

    def with_args(self, *args: str) -> Command:
        return Command([*self.argv, *args], self.env)

    def shell(self) -> str:
        """The command as one line a user can paste into a shell."""
        assignments = [f"{key}={shlex.quote(value)}" for key, value in self.env.items()]
        return " ".join([*assignments, shlex.join(self.argv)])


def split_host(entry: str) -> tuple[str, int | None]:
    """'node1:4' -> ('node1', 4); 'node1' -> ('node1', None)."""
    name, sep, slots = entry.rpartition(":")
    if sep and slots.isdigit() and name:
        return name, int(slots)
    return entry, None


def host_slots(spec: LaunchSpec) -> list[tuple[str, int]]:
    """The hosts to name on the command line, each with the ranks it should take."""
    hosts = [split_host(entry) for entry in spec.hosts]
    if any(slots is not None for _, slots in hosts):
        return [(name, slots or 1) for name, slots in hosts]  # the user chose the counts
    if spec.placement == "intra-node":
        return [(hosts[0][0], spec.np)]
    per_host = math.ceil(spec.np / len(hosts))
    return [(name, per_host) for name, _ in hosts]


def ranks_per_node(spec: LaunchSpec) -> int | None:
    """Ranks per node for a placement when the nodes come from a hostfile or allocation."""
    if spec.placement == "intra-node":
        return spec.np
    if spec.placement == "inter-node" and spec.known_nodes:
        return math.ceil(spec.np / spec.known_nodes)
    return None


def _hosts_argv(
    spec: LaunchSpec, hosts_flag: str, hostfile_flag: str, per_node_argv: Callable[[int], list[str]]
) -> list[str]:
    """Where mpirun or Hydra's mpiexec start the ranks: HOSTS_FLAG with each host's ranks
    (name:count,...), or HOSTFILE_FLAG FILE and per_node_argv(ranks) where the placement
    fixes the ranks per node; nothing without hosts."""
    if spec.hosts:
        return [hosts_flag, ",".join(f"{name}:{count}" for name, count in host_slots(spec))]
    if spec.hostfile:
        per_node = ranks_per_node(spec)
        return [hostfile_flag, spec.hostfile, *(per_node_argv(per_node) if per_node else [])]
    return []


def hostfile_nodes(path: str) -> int:
    """Number of distinct hosts in a hostfile (records/hostfile.py reads it)."""
    return len(set(read_hostfile(path)))


class Launcher:
    """One way of starting MPI programs. Subclasses register with @register_launcher."""

    name: ClassVar[str]
    flavour: ClassVar[str]
    summary: ClassVar[str]
    #: Program names to look for on PATH, best first; a candidate is used only if
    #: it turns out to be of this launcher's flavour.
    programs: ClassVar[tuple[str, ...]]

    def __init__(self, program: str) -> None:
        self.program = program

    def argv(self, spec: LaunchSpec) -> list[str]:
        raise NotImplementedError

    def env(self, spec: LaunchSpec) -> dict[str, str]:
        return {}

    def binding(self, spec: LaunchSpec) -> Binding:
        """The binding argv asks for (recorded with every run)."""
        return binding(spec)

    def command(self, spec: LaunchSpec, program_argv: Sequence[str]) -> Command:
        return Command([*self.argv(spec), *program_argv], self.env(spec))

    @classmethod
    def find(cls, path: str | None = None) -> str | None:
        for name in cls.programs:
            found = shutil.which(name, path=path)
            if found and program_flavour(found) == cls.flavour:
                return found
        return None


LAUNCHERS: dict[str, type[Launcher]] = {}


def register_launcher(name: str):
    def register(cls: type[Launcher]) -> type[Launcher]:
        cls.name = name
        LAUNCHERS[name] = cls
        return cls

    return register


@register_launcher("mpirun")
class OpenMpiLauncher(Launcher):
    flavour = OPENMPI
    summary = "Open MPI's mpirun"
    programs = ("mpirun", "mpiexec", "mpirun.openmpi", "mpiexec.openmpi")

    @staticmethod
    def _slots(spec: LaunchSpec) -> int | None:
        """The slots Open MPI will count: this machine's cores, the hosts' counts, or None
        where a hostfile's slot counts decide."""
        if spec.hosts:
            return sum(count for _, count in host_slots(spec))
        return None if spec.hostfile else spec.local_cores

    def argv(self, spec: LaunchSpec) -> list[str]:
        hosts = _hosts_argv(spec, "--host", "--hostfile", lambda per_node: ["--map-by", f"ppr:{per_node}:node"])
        argv = [self.program, "-np", str(spec.np), *hosts]
        # Open MPI refuses more ranks than slots; benchmarks on a small machine
        # (or 4 ranks on 2 cores in CI) must still start.
        slots = self._slots(spec)
        if slots is not None and spec.np > slots:
            argv.append("--oversubscribe")
        if spec.cpus:  # Open MPI 4.1 takes the list in ascending order whatever it is given
            return [*argv, "--cpu-list", ",".join(map(str, sorted(spec.cpus))), "--bind-to", "cpu-list:ordered"]
        # Open MPI binds to core by default only up to two ranks; say it either way
        return [*argv, "--bind-to", self.binding(spec).asked]

    def binding(self, spec: LaunchSpec) -> Binding:
        return binding(spec, self._slots(spec))

    def env(self, spec: LaunchSpec) -> dict[str, str]:
        # Open MPI refuses to run as root unless told twice; the variables do that
        # without a flag that other Open MPI versions might not know.
        if spec.as_root:
            return {"OMPI_ALLOW_RUN_AS_ROOT": "1", "OMPI_ALLOW_RUN_AS_ROOT_CONFIRM": "1"}
        return {}


@register_launcher("mpiexec")
class HydraLauncher(Launcher):
    flavour = MPICH
    summary = "MPICH's mpiexec (Hydra)"
    programs = ("mpiexec", "mpirun", "mpiexec.hydra", "mpiexec.mpich", "mpirun.mpich")

    def argv(self, spec: LaunchSpec) -> list[str]:
        hosts = _hosts_argv(spec, "-hosts", "-f", lambda per_node: ["-ppn", str(per_node)])
        # Hydra binds nothing unless asked; user:A,B binds rank i to CPU i of the list
        bind = f"user:{','.join(map(str, spec.cpus))}" if spec.cpus else self.binding(spec).asked
        # Hydra ends every rank when one dies, but its banner names no rank: the exit codes
        # of all, per host, say which one died (execute/outcome.py)
        return [self.program, "-n", str(spec.np), "-print-all-exitcodes", *hosts, "-bind-to", bind]


#: srun's flag that ends a step when one of its tasks dies by a signal or exits non-zero.
KILL_ON_BAD_EXIT = "--kill-on-bad-exit=1"


@register_launcher("srun")
class SrunLauncher(Launcher):
    flavour = SLURM
    summary = "Slurm's srun"
    programs = ("srun",)
    #: The PMI each MPI library is known to start under with Slurm.
    PMI = {OPENMPI: "pmix", MPICH: "pmi2"}

    def argv(self, spec: LaunchSpec) -> list[str]:
        # Slurm leaves the other tasks running when one dies (KillOnBadExit=0 by default):
        # they would wait for it in MPI_Init or a collective until the time limit. Open MPI's
        # mpirun and Hydra end them by themselves.
        argv = [
            self.program,
            *([f"--jobid={spec.job_id}"] if spec.job_id else []),
            "-n",
            str(spec.np),
            KILL_ON_BAD_EXIT,
        ]
        if spec.core_flavour in self.PMI:
            argv.append(f"--mpi={self.PMI[spec.core_flavour]}")
        nodes = spec.known_nodes
        if spec.hosts:
            names = [name for name, _ in host_slots(spec)]
            argv += ["-w", ",".join(names)]
            nodes = len(names)
        elif spec.hostfile:
            # srun reads the node list from a file when the argument contains a "/".
            argv += ["-w", os.path.abspath(spec.hostfile)]
        if spec.placement == "intra-node":
            argv += ["-N", "1"]
        elif spec.placement == "inter-node" and nodes:
            argv += ["-N", str(min(spec.np, nodes))]  # srun's default block distribution
        if spec.cpus:
            argv.append(f"--cpu-bind=map_cpu:{','.join(map(str, spec.cpus))}")
        else:
            argv.append("--cpu-bind=cores" if self.binding(spec).asked == "core" else "--cpu-bind=none")
        return argv

    def binding(self, spec: LaunchSpec) -> Binding:
        # Slurm knows its CPUs and refuses to overcommit them unless told: only --bind counts
        return Binding(spec.bind, spec.bind, "--bind none" if spec.bind == "none" else None)


_FLAVOUR_LAUNCHER = {cls.flavour: cls for cls in LAUNCHERS.values()}

# A program's name often says what it is (Debian's alternatives); otherwise its
# --version output does. Open MPI 4 prints "mpirun (OpenRTE) 4.1.4", Open MPI 5
# "mpirun (Open MPI) 5.0.x", MPICH "HYDRA build details".
_NAME_HINTS = (
    (".openmpi", OPENMPI),
    ("orterun", OPENMPI),
    ("prterun", OPENMPI),
    (".mpich", MPICH),
    (".hydra", MPICH),
    ("srun", SLURM),
)
_VERSION_HINTS = (
    ("Open MPI", OPENMPI),
    ("OpenRTE", OPENMPI),
    ("open-mpi.org", OPENMPI),
    ("HYDRA", MPICH),
    ("MPICH", MPICH),
    ("Intel(R) MPI", MPICH),
    ("slurm", SLURM),
)


@functools.lru_cache(maxsize=None)
def program_flavour(program: str) -> str | None:
    """ "openmpi", "mpich" or "slurm" for a launcher program path; None if it cannot be told."""
    path = Path(program)
    for name in (path.name, path.resolve().name):
        for hint, flavour in _NAME_HINTS:
            if hint in name:
                return flavour
    try:
        done = subprocess.run(
            [program, "--version"], capture_output=True, text=True, timeout=20, stdin=subprocess.DEVNULL
        )
    except (OSError, subprocess.TimeoutExpired):
        return None
    text = done.stdout + done.stderr
    for hint, flavour in _VERSION_HINTS:
        if hint in text:
            return flavour
    return None


def resolve_launcher(choice: str, core_flavour: str | None, environ: Mapping[str, str] = os.environ) -> Launcher:
    """The launcher for `--launcher CHOICE`: a registered name, `auto`, or a program path."""
    path = environ.get("PATH")
    if os.sep in choice:
        if not (os.path.isfile(choice) and os.access(choice, os.X_OK)):
            raise UsageError(f"launcher {choice} is not an executable file")
        cls = _FLAVOUR_LAUNCHER.get(program_flavour(choice))
        if cls is None:
            raise UsageError(
                f"cannot tell whether {choice} is Open MPI's mpirun, MPICH's mpiexec "
                "or srun (its name and --version do not say)"
            )
        return cls(choice)
    if choice == "auto":
        return _auto_launcher(core_flavour, environ)
    cls = LAUNCHERS.get(choice)
    if cls is None:
        raise UsageError(
            f"unknown launcher {choice!r}; choose one of {', '.join(LAUNCHER_CHOICES)} "
            "or give the path of a launcher program"
        )
    return _found(cls, path, f"no {cls.summary} found on PATH (looked for {', '.join(cls.programs)})")


def _found(cls: type[Launcher], path: str | None, missing: str) -> Launcher:
    """The launcher with its program from PATH; `missing` says what is not there."""
    program = cls.find(path)
    if program is None:
        raise CommscopeError(f"{missing}; give its path with --launcher /path/to/program")
    return cls(program)


def _auto_launcher(core_flavour: str | None, environ: Mapping[str, str]) -> Launcher:
    path = environ.get("PATH")
    if environ.get("SLURM_JOB_ID"):
        program = SrunLauncher.find(path)
        if program:
            return SrunLauncher(program)
    if core_flavour in _FLAVOUR_LAUNCHER:
        cls = _FLAVOUR_LAUNCHER[core_flavour]
        return _found(cls, path, f"commscope-bench is built with {core_flavour} but no {cls.summary} is on PATH")
    # The core's MPI is unknown: trust the first mpiexec/mpirun on PATH.
    for name in ("mpiexec", "mpirun"):
        program = shutil.which(name, path=path)
        cls = _FLAVOUR_LAUNCHER.get(program_flavour(program)) if program else None
        if cls is not None and cls is not SrunLauncher:
            return cls(program)
    raise CommscopeError(
        "no MPI launcher found: put mpirun (Open MPI) or mpiexec (MPICH) on PATH, or give one with --launcher"
    )
