"""What a sweep mode is: the protocol every mode of `commscope sweep` answers, and the
options a mode may take of its own.

A mode says everything that differs between modes, so that nothing else asks a mode its
name: its words (`--help`, the group's list, each shared option's help), the hosts it
measures (how many at least, its rule for them), how its launch is laid out (one rank per
host, or ranks pinned to the cores of one host), the core's schedule, its own options and
how each sets the request, and how it runs. The command line is generated from these
(cli/sweep.py): a subcommand per mode, its options, and the other modes' options refused
by name.

This module stays light: `commscope sweep --help` builds every mode's command from it
without loading the analysis, so the modes import what measures only when they run.
"""

from __future__ import annotations

import dataclasses
import sys
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, ClassVar

from commscope.errors import UsageError

if TYPE_CHECKING:
    from commscope.analysis.sweep import Policy
    from commscope.records.run import Run
    from commscope.records.topology import Topology
    from commscope.sweep.outcome import SweepOutcome

# How an option's value is read (cli/sweep.py turns each into a click type).
FLAG, INT, FLOAT, TEXT, FILE, DIR = "flag", "int", "float", "text", "file", "dir"
#: A stored link sweep's run id, read from the store before anything measures (cli).
STORED_SWEEP = "stored sweep"
#: A topology.conf, or where none is given the site's own (`scontrol show topology`): cli.
TOPOLOGY = "topology"


def _own(request: SweepRequest, dest: str, value: Any) -> SweepRequest:
    """The default: the value kept among the request's mode-own values, by its name."""
    return dataclasses.replace(request, own={**request.own, dest: value})


@dataclass(frozen=True)
class Option:
    """An option of one or more modes: `flag` (and its parameter `dest`), how its value is
    read (`kind`, with `low`/`high` bounds for numbers), its help, and how a value given
    sets the sweep's request (`apply`; default: `request.own[dest]`)."""

    flag: str
    dest: str
    kind: str
    help: str
    metavar: str | None = None
    low: float | None = None
    high: float | None = None
    apply: Callable[[SweepRequest, Any], SweepRequest] | None = None

    def applied(self, request: SweepRequest, value: Any) -> SweepRequest:
        if self.apply is not None:
            return self.apply(request, value)
        return _own(request, self.dest, value)


@dataclass(frozen=True)
class Layout:
    """How a mode's launch is laid out: `np` ranks, on a hostfile of the sweep's hosts (one
    rank a host: thousands of names never go on a command line) or on `hosts` given on the
    launcher's command line (none: this machine), the binding, and the environment that pins
    ranks where the launcher does not."""

    np: int
    placement: str  # "intra-node" | "inter-node", as a suite entry says it
    bind: str
    hosts: tuple[str, ...] = ()
    hostfile: bool = True
    env: Mapping[str, str] = field(default_factory=dict)


class SweepMode:
    """The protocol of a sweep mode, with what most modes share as defaults.

    A mode answers, without measuring anything: its `name`, its `summary` (one line, the
    group's list) and `description` (its `--help`), the help of the shared options as it
    means them (`metric_help`, `json_help`, `timeout_help`, `hosts_help`), its `epilog`
    (the exit statuses), `least_hosts`, its `options`, `drains` (its verdict names bad
    nodes `--drain` can take out of service), `family` (the modes refusing an option are
    told whose it is), `why_not` (why an option of another mode is not its own), and its
    rule for the hosts (`pick_hosts`). Once asked to measure: `layout` of its launches,
    `schedule` of the core, `recorded` (what the stored run keeps beyond the rules),
    `lines_after` (what it prints after the verdict), and `run`."""

    name: ClassVar[str]
    summary: ClassVar[str]
    description: ClassVar[str]
    family: ClassVar[str]
    epilog: ClassVar[str]
    metric_help: ClassVar[str]
    json_help: ClassVar[str]
    timeout_help: ClassVar[str]
    hosts_help: ClassVar[str] = "The hosts; one rank runs on each."
    least_hosts: ClassVar[int] = 2
    options: ClassVar[tuple[Option, ...]] = ()
    drains: ClassVar[bool] = False
    #: Why `--nodes` cannot apply (None: the hosts may be Slurm's nodes).
    no_nodes: ClassVar[str | None] = None
    why_not: ClassVar[Mapping[str, str]] = {}
    #: What --metric is when not given (None: every metric a pair measures), and whether
    #: the mode judges one metric only.
    default_metrics: ClassVar[str | None] = None
    one_metric: ClassVar[bool] = False
    schedule: ClassVar[str] = "all-pairs"

    def metrics(self, given: str | None, known: Sequence[str]) -> tuple[str, ...]:
        """--metric's names, checked against `known` and the mode's one-metric rule."""
        text = given or self.default_metrics or ",".join(known)
        chosen = tuple(name.strip() for name in text.split(",") if name.strip())
        if not chosen or any(name not in known for name in chosen):
            raise UsageError(f"--metric {text}: choose from {', '.join(known)}")
        if self.one_metric and len(chosen) != 1:
            raise UsageError(f"--metric {text}: {self.name} judges one metric: {', '.join(known[:-1])} or {known[-1]}")
        return chosen

    def pick_hosts(self, request: SweepRequest, hosts: list[str], given: list[str]) -> list[str]:
        """The hosts measured, in rank order, from the distinct `hosts` of the `given`
        names; a usage error naming the problem where they do not fit the mode."""
        if len(hosts) < self.least_hosts:
            got = f", got {len(hosts)}" if hosts else ""
            raise UsageError(f"{self.name} needs at least {self.least_hosts} hosts{got}{self.too_few(hosts)}")
        return hosts

    def too_few(self, hosts: Sequence[str]) -> str:
        return " (--hosts H1,H2,..., --hostfile FILE or --nodes N)"

    def layout(self, request: SweepRequest, hosts: Sequence[str]) -> Layout:
        """One rank a host, on a hostfile of them."""
        return Layout(np=len(hosts), placement="inter-node", bind=request.bind)

    def launches(self, request: SweepRequest) -> int:
        """The launches of the core the mode plans, which share a --time-limit: the sweep and
        its retest."""
        return 2 if request.retest else 1

    def recorded(self, run: Run) -> dict:
        """What the stored sweep run's entry keeps beyond the rules, the retest and the
        topology (analysis.sweep_verdicts.sweep_record's keywords)."""
        return {}

    def lines_after(self, run: Run) -> str:
        """What the mode prints after the verdict's lines."""
        return ""

    def run(self, request: SweepRequest, db: Path) -> SweepOutcome:
        raise NotImplementedError


def _every_metric() -> tuple[str, ...]:
    from commscope.analysis.sweep import PAIR_METRICS

    return PAIR_METRICS


def _default_policy() -> Policy:
    from commscope.analysis.sweep import Policy

    return Policy()


@dataclass
class SweepRequest:
    """What one sweep is asked to do, the mode's own options among it."""

    mode: SweepMode
    hosts: tuple[str, ...] = ()
    hostfile: str | None = None
    nodes: int | None = None  # --nodes: the hosts are a Slurm allocation's (workflow/sweep.py fills them in)
    partition: str | None = None  # salloc's, when --nodes asks Slurm for the nodes
    time: str | None = None
    metrics: tuple[str, ...] = field(default_factory=_every_metric)
    policy: Policy = field(default_factory=_default_policy)
    launcher: str = "auto"
    bind: str = "core"  # a mode that pins every rank (intra) says so in its layout
    label: str | None = None
    system: str | None = None
    timeout: float | None = None
    #: --time-limit: seconds the sweep's launches may take together (execute/time_limit.py)
    time_limit: float | None = None
    #: How many times a launch stopped at its timeout or failed at start is started again.
    retries: int = 1
    retest: bool = True
    baseline: Run | None = None  # a stored link sweep, read before measuring (cli/sweep.py)
    json_out: Path | None = None
    plot: Path | None = None
    core_flags: Sequence[str] = ()
    argv: Sequence[str] = field(default_factory=lambda: list(sys.argv))
    #: The fabric's switches (--topology FILE, or scontrol inside an allocation; workflow/sweep.py)
    topology: Topology | None = None
    #: The Slurm job the launches are steps of (srun --jobid), where the workflow took the
    #: allocation itself (salloc --no-shell) and this process does not run inside it.
    job_id: str | None = None
    #: The values of the mode's own options that no field above holds, by name (`--from`,
    #: `--np`, `--oracle`...: sweep/modes/base.Option).
    own: Mapping[str, Any] = field(default_factory=dict)
    #: Entries the caller adds to the stored sweep run's provenance (the nightly loop: its role).
    provenance: Mapping[str, Any] = field(default_factory=dict)
