"""Batch job scripts for `commscope submit`, rendered from templates/job.sh.j2.

The job runs `commscope run ... --no-store --output-dir FOLDER/runs` on the
allocation: the same runner as an interactive run (srun inside the allocation,
the transport variables, the core's JSONL followed as it is written), but
nothing is written to the result database on the compute nodes. Each launch
leaves meta.json, the core's JSONL, stdout and stderr in its own folder as it
runs, so a job that is cancelled or times out half-way still holds every size
it measured; `commscope collect` stores them later, on the machine that owns
the database. (SQLite's WAL mode needs a local file system, which a database
shared by login and compute nodes rarely is.)

Everything a user passes reaches the script quoted: shell words through
shlex.quote (the `q` and `qjoin` filters), and #SBATCH values, which sbatch
reads without a shell, are refused when they hold a space, a quote or a line
break, so nothing can add a line to the script.
"""

from __future__ import annotations

import functools
import math
import re
import shlex
import sys
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

from commscope import __version__
from commscope.errors import UsageError
from commscope.execute.allocation import uses_every_rank
from commscope.records.suite import Entry

TEMPLATE = "job.sh.j2"
#: Allocation shapes after the job scripts of SJTU's OSU page: two ranks on one node
#: (intra-node), one rank on each of two nodes (inter-node, their `-n 2 --ntasks-per-node=1`),
#: and N nodes of K ranks for collectives.
PRESETS = {"intra-node": (1, 2), "inter-node": (2, 1), "collective": (2, 1)}
LAUNCHERS = ("auto", "srun", "mpirun", "mpiexec")

# An #SBATCH value is read by sbatch, not a shell: it must be one word on one line.
_DIRECTIVE_VALUE = re.compile(r"[^\s'\"\\`]+")
_ENV_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")


@dataclass
class JobRequest:
    """Everything the job script is made from."""

    targets: Sequence[str]  # suite names, suite files (absolute), benchmark names
    folder: Path  # the job's folder: slurm-%j.out, runs/, exit-status
    nodes: int
    ntasks_per_node: int
    partition: str | None = None
    account: str | None = None
    qos: str | None = None
    time: str | None = None
    constraint: str | None = None
    exclusive: bool = False
    modules: Sequence[str] = ()
    env: Sequence[tuple[str, str]] = ()
    sbatch_lines: Sequence[str] = ()
    setup: Sequence[str] = ()
    launcher: str = "auto"
    transport: str | None = None
    label: str | None = None
    np: int | None = None
    repeat: int = 1
    timeout: float | None = None
    time_limit: float | None = None
    core_flags: Sequence[str] = ()
    #: A tool run instead of benchmarks (`run hpl`, `run storage`): its name and options.
    tool: Sequence[str] = ()
    commscope: Sequence[str] = field(default_factory=lambda: [sys.executable, "-m", "commscope"])
    submitted_at: str = ""
    #: The targets that are benchmarks named directly (not suites), for the script's note of their ranks.
    benchmarks: Sequence[str] = ()

    def ranks_note(self) -> str | None:
        """Which ranks the benchmarks named directly run on: every task of the allocation for
        one that uses every rank, two for point-to-point (execute/allocation.py), unless --np."""
        if not self.benchmarks or self.tool:
            return None
        if self.np is not None:
            return f"{' '.join(self.benchmarks)}: {self.np} ranks (--np)"
        tasks = self.nodes * self.ntasks_per_node
        every = [name for name in self.benchmarks if uses_every_rank(name)]
        pairs = [name for name in self.benchmarks if not uses_every_rank(name)]
        parts = [f"{' '.join(every)}: every task of the allocation, {tasks} ranks"] if every else []
        parts += [f"{' '.join(pairs)}: {Entry.ranks} ranks (point-to-point)"] if pairs else []
        return "; ".join(parts)

    @property
    def runs_dir(self) -> Path:
        return self.folder / "runs"

    def run_command(self) -> list[str]:
        """The `commscope run` command line the job runs."""
        if self.tool:
            return self._tool_command()
        argv = [
            *self.commscope,
            "run",
            *self.targets,
            "--no-store",
            "--output-dir",
            str(self.runs_dir),
            "--launcher",
            self.launcher,
        ]
        for flag, value in (
            ("--transport", self.transport),
            ("--label", self.label),
            ("--np", self.np),
            ("--timeout", self.timeout),
            ("--time-limit", self.time_limit),
        ):
            if value is not None:
                argv += [flag, f"{value:g}" if isinstance(value, float) else str(value)]
        if self.repeat > 1:
            argv += ["--repeat", str(self.repeat)]
        if self.core_flags:
            argv += ["--", *self.core_flags]
        return argv

    def _tool_command(self) -> list[str]:
        """`commscope run hpl|storage OPTIONS` on every task of the allocation, its runs kept
        in runs/ for `commscope collect`."""
        name, *options = self.tool
        argv = [*self.commscope, "run", name, *options, "--no-store", "--output-dir", str(self.runs_dir)]
        argv += ["--launcher", self.launcher, "--np", str(self.np or self.nodes * self.ntasks_per_node)]
        for flag, value in (("--label", self.label), ("--timeout", self.timeout)):
            if value is not None:
                argv += [flag, f"{value:g}" if isinstance(value, float) else str(value)]
        return argv


def shape(
    entries: Sequence[Entry], placement: str | None, nodes: int | None, ntasks_per_node: int | None
) -> tuple[int, int]:
    """(nodes, tasks per node) of the allocation: the flags where given, else the
    --placement preset, else what the suite's entries need: every rank of an intra-node
    entry on one node, inter-node pairs on two nodes."""
    if placement is not None:
        preset_nodes, preset_tasks = PRESETS[placement]
    else:
        intra = max((entry.ranks for entry in entries if entry.placement == "intra-node"), default=0)
        inter = [entry.ranks for entry in entries if entry.placement == "inter-node"]
        other = max((entry.ranks for entry in entries if entry.placement == "any"), default=0)
        if inter:
            preset_nodes = 2
            preset_tasks = max(intra, *(math.ceil(ranks / 2) for ranks in inter), math.ceil(other / 2))
        else:
            preset_nodes, preset_tasks = 1, max(intra, other, 1)
    return nodes or preset_nodes, ntasks_per_node or preset_tasks


def check_directive(flag: str, value: str | None) -> None:
    if value is not None and not _DIRECTIVE_VALUE.fullmatch(value):
        raise UsageError(
            f"{flag} {value!r}: an #SBATCH value must be one word without spaces, quotes, backslashes or line breaks"
        )


def check_env(pairs: Sequence[tuple[str, str]]) -> None:
    for name, _ in pairs:
        if not _ENV_NAME.fullmatch(name):
            raise UsageError(f"--env {name!r}: a variable name is letters, digits and _ (not starting with a digit)")


def check(request: JobRequest) -> None:
    """Refuse what could change the script's meaning, naming the flag and value."""
    for flag, value in (
        ("--partition", request.partition),
        ("--account", request.account),
        ("--qos", request.qos),
        ("--time", request.time),
        ("--constraint", request.constraint),
        ("--output-dir", str(request.folder)),
    ):
        check_directive(flag, value)
    for line in request.sbatch_lines:
        if "\n" in line or "\r" in line:
            raise UsageError(f"sbatch line {line!r} of the configuration holds a line break")
    check_env(request.env)
    if request.launcher not in LAUNCHERS:
        raise UsageError(f"--launcher {request.launcher!r}: choose one of {', '.join(LAUNCHERS)}")


def job_name(targets: Sequence[str]) -> str:
    """commscope-<first target>, reduced to characters every scheduler accepts."""
    first = Path(targets[0]).stem if targets else "quick"
    return "commscope-" + (re.sub(r"[^A-Za-z0-9_.-]+", "_", first)[:40] or "job")


@functools.cache
def _environment():
    import jinja2

    env = jinja2.Environment(
        loader=jinja2.PackageLoader("commscope.cluster", "templates"),
        undefined=jinja2.StrictUndefined,
        trim_blocks=True,
        lstrip_blocks=True,
        keep_trailing_newline=True,
        autoescape=False,
    )
    env.filters["q"] = lambda value: shlex.quote(str(value))
    env.filters["qjoin"] = lambda values: shlex.join(str(value) for value in values)
    return env


def render(request: JobRequest) -> str:
    """The job script. Raises UsageError for a value that cannot go into it safely."""
    check(request)
    directives = [
        f"--{name}={value}"
        for name, value in (
            ("partition", request.partition),
            ("account", request.account),
            ("qos", request.qos),
            ("time", request.time),
            ("constraint", request.constraint),
        )
        if value
    ]
    if request.exclusive:
        directives.append("--exclusive")
    description = (
        f"{' '.join(request.targets) or 'quick'} on {request.nodes} node(s) x {request.ntasks_per_node} task(s)"
    )
    return (
        _environment()
        .get_template(TEMPLATE)
        .render(
            description=" ".join(description.split()),
            version=__version__,
            submitted_at=request.submitted_at,
            job_name=job_name(request.targets),
            nodes=request.nodes,
            ntasks_per_node=request.ntasks_per_node,
            folder=str(request.folder),
            directives=directives,
            sbatch_lines=list(request.sbatch_lines),
            setup=list(request.setup),
            modules=list(request.modules),
            env=list(request.env),
            command=request.run_command(),
            ranks_note=request.ranks_note(),
        )
    )
