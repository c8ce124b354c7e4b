"""`commscope run hpl`: HPL through Debian's hpcc (HPC Challenge, which runs HPL and its
other tests) or a user's xhpl, started by the same launchers as commscope-bench.

The input file is written from the machine: N from the memory fraction
(N = sqrt(F * memory / 8), rounded down to a multiple of NB), a near-square grid
P x Q = ranks with P <= Q. The program runs in a temporary folder (hpcc reads
hpccinf.txt and appends to hpccoutf.txt there, xhpl reads HPL.dat and writes
HPL.out); the folder goes away afterwards, its output is kept as the run's raw
output. Reading the output is the ingest readers' job; judging it and storing the runs
(kept as files when the store cannot take them) is this module's.
"""

from __future__ import annotations

import math
import os
import tempfile
from dataclasses import dataclass, field
from pathlib import Path

from commscope import ui
from commscope.errors import UsageError
from commscope.execute.core import MPICH, OPENMPI, core_mpi_flavour
from commscope.execute.keep import Destination, Stored, storing
from commscope.execute.launchers import LaunchSpec, hostfile_nodes, resolve_launcher
from commscope.execute.process import Finished, run_program
from commscope.execute.provenance import default_system, job_id
from commscope.execute.signals import StopSignals
from commscope.execute.tools import find_program, machine_provenance, memory_bytes
from commscope.ingest.importer import point_from_parsed
from commscope.ingest.parse import ParseError
from commscope.ingest.parse.hpl import read_hpcc, read_hpl_out
from commscope.ingest.parse.model import check_values
from commscope.ingest.parse.text import decode, split_lines
from commscope.records.benchmarks import HPL_BENCHMARK
from commscope.records.invocation import now
from commscope.records.run import Run

HPCC_PACKAGE = "hpcc"
DEFAULT_MEMORY_FRACTION = 0.8
DEFAULT_NB = 192
#: Beyond hpcc's 31 HPL lines: PTRANS sizes and blocks (none extra).
_HPCC_EXTRA = [
    "0                      Number of additional problem sizes for PTRANS",
    "1200 10000 30000       values of N",
    "0                      number of additional blocking sizes for PTRANS",
    "40 9 8 13 13 20 16 32 64   values of NB",
]


@dataclass
class HplRequest:
    np: int = 1
    memory_fraction: float = DEFAULT_MEMORY_FRACTION
    n: int | None = None
    nb: int = DEFAULT_NB
    grid: tuple[int, int] | None = None
    xhpl: str | None = None
    launcher: str = "auto"
    hosts: tuple[str, ...] = ()
    hostfile: str | None = None
    timeout: float | None = None


@dataclass
class HplPlan:
    program: Path
    kind: str  # "hpcc" or "xhpl"
    n: int
    nb: int
    p: int
    q: int
    nodes: int
    memory_per_node: int
    argv: list[str]
    env: dict[str, str]
    input_name: str
    input_text: str

    @property
    def output_name(self) -> str:
        return "hpccoutf.txt" if self.kind == "hpcc" else "HPL.out"


@dataclass
class HplOutcome:
    plan: HplPlan
    finished: Finished
    output: bytes  # hpccoutf.txt or HPL.out; b"" when the program wrote none
    started_at: str
    ended_at: str
    provenance: dict = field(default_factory=dict)


def parse_grid(text: str) -> tuple[int, int]:
    """'2x4' -> (2, 4); ValueError with a message otherwise."""
    p, sep, q = text.lower().partition("x")
    if not sep or not p.strip().isdigit() or not q.strip().isdigit() or int(p) < 1 or int(q) < 1:
        raise ValueError(f"{text!r} is not a process grid such as 2x4 (P x Q, P <= Q)")
    return int(p), int(q)


def near_square_grid(ranks: int) -> tuple[int, int]:
    """P x Q = ranks with P <= Q as close as possible (HPL runs best on square-ish grids)."""
    p = max(d for d in range(1, math.isqrt(ranks) + 1) if ranks % d == 0)
    return p, ranks // p


def problem_size(memory: int, fraction: float, nb: int) -> int:
    """N = sqrt(F * memory / 8) rounded down to a multiple of NB (the matrix is N x N doubles)."""
    n = int(math.sqrt(fraction * memory / 8)) // nb * nb
    if n < nb:
        raise UsageError(
            f"--memory-fraction {fraction:g} of {memory / 2**30:.1f} GiB gives a matrix smaller "
            f"than one block (NB={nb}); give a larger fraction or a smaller --nb"
        )
    return n


def check_fits(n: int, memory_per_node: int, nodes: int) -> None:
    """Refuse a matrix larger than the nodes' memory before anything starts: hpcc and xhpl
    would fail to allocate it late, or end without a result."""
    matrix, memory = n * n * 8, memory_per_node * nodes
    if matrix > memory:
        raise UsageError(
            f"--n {n}: the matrix takes N² x 8 bytes = {matrix / 2**30:,.1f} GiB, more than the "
            f"{memory / 2**30:,.1f} GiB of memory of {nodes} node(s) ({memory_per_node / 2**30:,.1f} GiB each); "
            f"give an --n of at most {math.isqrt(memory // 8)}, or --memory-fraction"
        )


def input_text(n: int, nb: int, p: int, q: int, kind: str) -> str:
    """HPL.dat (xhpl) or hpccinf.txt (hpcc): one problem, one NB, one grid; HPL's usual
    algorithm choices (those of hpcc's example file)."""
    output = ("HPL.out      output file name (if any)", "8            device out (6=stdout,7=stderr,file)")
    lines = [
        "HPLinpack benchmark input file",
        "written by commscope",
        *output,
        "1            # of problems sizes (N)",
        f"{n:<12d} Ns",
        "1            # of NBs",
        f"{nb:<12d} NBs",
        "0            PMAP process mapping (0=Row-,1=Column-major)",
        "1            # of process grids (P x Q)",
        f"{p:<12d} Ps",
        f"{q:<12d} Qs",
        "16.0         threshold",
        "1            # of panel fact",
        "2            PFACTs (0=left, 1=Crout, 2=Right)",
        "1            # of recursive stopping criterium",
        "4            NBMINs (>= 1)",
        "1            # of panels in recursion",
        "2            NDIVs",
        "1            # of recursive panel fact.",
        "1            RFACTs (0=left, 1=Crout, 2=Right)",
        "1            # of broadcast",
        "1            BCASTs (0=1rg,1=1rM,2=2rg,3=2rM,4=Lng,5=LnM)",
        "1            # of lookahead depth",
        "1            DEPTHs (>=0)",
        "2            SWAP (0=bin-exch,1=long,2=mix)",
        "64           swapping threshold",
        "0            L1 in (0=transposed,1=no-transposed) form",
        "0            U  in (0=transposed,1=no-transposed) form",
        "1            Equilibration (0=no,1=yes)",
        "8            memory alignment in double (> 0)",
    ]
    if kind == "hpcc":
        lines += ["##### This line (no. 32) is ignored (it serves as a separator). ######", *_HPCC_EXTRA]
    return "\n".join(lines) + "\n"


def _nodes(request: HplRequest) -> int:
    if request.hosts:
        return len(request.hosts)
    if request.hostfile:
        return hostfile_nodes(request.hostfile)
    allocation = os.environ.get("SLURM_JOB_NUM_NODES") or os.environ.get("SLURM_NNODES") or ""
    return int(allocation) if allocation.isdigit() else 1


def plan_hpl(request: HplRequest) -> HplPlan:
    if request.hosts and request.hostfile:
        raise UsageError("give hosts either with --hosts or with --hostfile, not both")
    nodes = _nodes(request)
    memory = memory_bytes()
    n = request.n or problem_size(memory * nodes, request.memory_fraction, request.nb)
    check_fits(n, memory, nodes)
    if request.xhpl:
        program, kind = find_program("xhpl", "(none: build HPL from netlib)", "--xhpl", request.xhpl), "xhpl"
    else:
        program, kind = find_program("hpcc", HPCC_PACKAGE, "--xhpl"), "hpcc"
    p, q = request.grid or near_square_grid(request.np)
    if p > q:
        raise UsageError(f"--grid {p}x{q}: HPL wants P <= Q; use {q}x{p}")
    if p * q > request.np:
        raise UsageError(f"--grid {p}x{q} needs {p * q} ranks but --np is {request.np}")
    flavour = core_mpi_flavour(program)
    launcher = resolve_launcher(request.launcher, flavour)
    if flavour and launcher.flavour in (OPENMPI, MPICH) and launcher.flavour != flavour:
        ui.warn(
            f"{program} is linked with {flavour} but {launcher.program} is {launcher.summary}; "
            "its ranks will probably not find each other"
        )
    spec = LaunchSpec(
        np=request.np,
        hosts=tuple(request.hosts),
        hostfile=request.hostfile,
        local_cores=len(os.sched_getaffinity(0)),
        known_nodes=nodes if nodes > 1 else None,
        core_flavour=flavour,
        as_root=os.geteuid() == 0,
    )
    command = launcher.command(spec, [str(program)])
    name = "hpccinf.txt" if kind == "hpcc" else "HPL.dat"
    return HplPlan(
        program,
        kind,
        n,
        request.nb,
        p,
        q,
        nodes,
        memory,
        command.argv,
        command.env,
        name,
        input_text(n, request.nb, p, q, kind),
    )


def run_hpl(plan: HplPlan, timeout: float | None, signals: StopSignals) -> HplOutcome:
    """Run the planned HPL in a temporary folder, removed afterwards whatever stopped it."""
    with tempfile.TemporaryDirectory(prefix="commscope-hpl-") as folder:
        (Path(folder) / plan.input_name).write_text(plan.input_text)
        started = now()
        finished = run_program(plan.argv, signals, cwd=Path(folder), env=plan.env, timeout=timeout)
        output_path = Path(folder) / plan.output_name
        output = output_path.read_bytes() if output_path.exists() else b""
        return HplOutcome(plan, finished, output, started, now(), machine_provenance(plan.program))


def hpl_runs(outcome: HplOutcome, request: HplRequest, destination: Destination) -> list[Run]:
    """The runs of an HPL launch: hpl and hpcc's other tests from the output file, or one hpl
    run saying why there are none (failed, or incomplete when a stop signal ended it)."""
    plan, finished = outcome.plan, outcome.finished
    raw = {
        "stdout": finished.stdout,
        "stderr": finished.stderr,
        plan.output_name: outcome.output,
        plan.input_name: plan.input_text.encode(),
    }
    hosts = [{"name": host.split(":")[0]} for host in request.hosts] or None
    base = dict(
        flags=[f"N={plan.n}", f"NB={plan.nb}", f"P={plan.p}", f"Q={plan.q}"],
        ranks=request.np,
        nodes=plan.nodes,
        label=destination.label,
        started_at=outcome.started_at,
        ended_at=outcome.ended_at,
        launcher_argv=plan.argv,
        cpu_model=outcome.provenance.get("cpu_model"),
        job_id=job_id(),
        system=destination.system or default_system(),
        hosts=hosts,
        mpi_library={OPENMPI: "Open MPI", MPICH: "MPICH"}.get(outcome.provenance.get("mpi_flavour")),
        options={
            "memory_fraction": request.memory_fraction if not request.n else None,
            "memory_per_node_GB": round(plan.memory_per_node / 1e9, 1),
            "n": plan.n,
            "nb": plan.nb,
            "grid": f"{plan.p}x{plan.q}",
        },
        provenance=dict(outcome.provenance),
        raw=raw,
    )
    interrupted = finished.stopped is not None and finished.stopped.startswith("interrupted")
    problem = None
    if finished.stopped:
        problem = finished.stopped if interrupted else f"{plan.kind} {finished.stopped}"
    elif finished.returncode != 0:
        problem = f"{plan.kind} exited with status {finished.returncode}: {finished.stderr_tail(3) or 'no message'}"
    parsed = []
    if outcome.output and not interrupted:  # a stopped HPL has reported nothing yet
        lines = split_lines(decode(outcome.output))
        try:
            parsed = check_values(
                read_hpcc(lines, plan.output_name) if plan.kind == "hpcc" else read_hpl_out(lines, plan.output_name)
            )
        except ParseError as exc:
            problem = problem or f"its output cannot be read: {exc}"
    elif problem is None:
        problem = f"{plan.kind} wrote no {plan.output_name}: {finished.stderr_tail(3) or 'no message'}"
    if not parsed:
        status = "incomplete" if interrupted else "failed"
        return [Run(benchmark=HPL_BENCHMARK, status=status, status_reason=problem, tool_name=plan.kind, **base)]
    runs = []
    if not any(item.benchmark == HPL_BENCHMARK for item in parsed):  # hpcc skipped HPL, ran the rest
        reason = problem or f"{plan.kind} gave no HPL result: {_hpl_error(outcome.output, finished)}"
        runs.append(Run(benchmark=HPL_BENCHMARK, status="failed", status_reason=reason, tool_name=plan.kind, **base))
    for item in parsed:
        run = Run(
            benchmark=item.benchmark,
            description=item.title,
            tool_name=item.tool,
            tool_version=item.tool_version,
            notes=item.notes or None,
            points=[point_from_parsed(point, None) for point in item.points],
            **base,
        )
        run.provenance = {**run.provenance, **item.provenance}
        failed = [str(point.size) for point in run.points if point.validation == "Fail"]
        if problem:
            run.status, run.status_reason = "failed", problem
        elif failed:
            run.status, run.status_reason = "failed", f"residual check FAILED at N={', '.join(failed)}"
        elif item.provenance.get("hpcc_success") == "0":
            run.status, run.status_reason = "failed", "hpcc's summary says Success=0"
        runs.append(run)
    return runs


def _hpl_error(output: bytes, finished: Finished) -> str:
    """HPL's own error (">>> [0,0] Memory allocation failed ... <<<"), else stderr's last lines."""
    for line in split_lines(decode(output)):
        if line.startswith(">>>") and line.rstrip().endswith("<<<"):
            return line.strip()[3:-3].strip()
    return finished.stderr_tail(3) or "no message"


def execute_hpl(plan: HplPlan, request: HplRequest, destination: Destination) -> Stored:
    """Run the planned HPL and store its runs (kept as files if the store cannot take them);
    a stop signal stops it as it stops `commscope run`."""
    with storing(destination, "run") as stored, StopSignals() as signals:
        for run in hpl_runs(run_hpl(plan, request.timeout, signals), request, destination):
            stored.add(run)
        stored.stopped_by = signals.received[0] if signals.received else None
    return stored
