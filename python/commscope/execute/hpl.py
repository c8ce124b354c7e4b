"""`commscope run hpl`: HPL through Debian's hpcc (HPC Challenge, which runs HPL and its
other tests) or a user's xhpl, started by the same launchers as commscope-bench.

The input file is written from the machine: N from the memory fraction
(N = sqrt(F * memory / 8), rounded down to a multiple of NB), a near-square grid
P x Q = ranks with P <= Q. The program runs in a temporary folder (hpcc reads
hpccinf.txt and appends to hpccoutf.txt there, xhpl reads HPL.dat and writes
HPL.out); the folder goes away afterwards, its output is kept as the run's raw
output. Reading the output is the ingest readers' job.
"""

from __future__ import annotations

import math
import os
import subprocess
import tempfile
from dataclasses import dataclass, field
from pathlib import Path

from commscope import ui
from commscope.errors import UsageError
from commscope.execute.core import MPICH, OPENMPI, core_mpi_flavour
from commscope.execute.launchers import LaunchSpec, hostfile_nodes, resolve_launcher
from commscope.execute.tools import (
    Finished,
    cpu_model,
    debian_package_of,
    find_program,
    memory_bytes,
    run_program,
    shared_libraries,
)
from commscope.records.invocation import now

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
_BLAS_NAMES = ("libblas", "libopenblas", "libblis", "libmkl", "libatlas", "libflexiblas", "libsci")


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
    if request.xhpl:
        program, kind = find_program("xhpl", "(none: build HPL from netlib)", "--xhpl", request.xhpl), "xhpl"
    else:
        program, kind = find_program("hpcc", HPCC_PACKAGE, "--xhpl"), "hpcc"
    p, q = request.grid or near_square_grid(request.np)
    if p > q:
        raise UsageError(f"--grid {p}x{q}: HPL wants P <= Q; use {q}x{p}")
    if p * q > request.np:
        raise UsageError(f"--grid {p}x{q} needs {p * q} ranks but --np is {request.np}")
    nodes = _nodes(request)
    memory = memory_bytes()
    n = request.n or problem_size(memory * nodes, request.memory_fraction, request.nb)
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


def blas_provenance(program: Path) -> dict[str, str]:
    """Which BLAS the program really uses: the library ldd resolves, the Debian alternative
    it goes through (libblas.so.3 is switched by update-alternatives) and its package."""
    for name, path in shared_libraries(program).items():
        if not name.startswith(_BLAS_NAMES):
            continue
        info = {"blas_soname": name, "blas_library": os.path.realpath(path)}
        link = path
        while os.path.islink(link):  # /lib/.../libblas.so.3 -> /etc/alternatives/NAME -> the real file
            target = os.readlink(link)
            link = target if os.path.isabs(target) else os.path.join(os.path.dirname(link), target)
            if os.path.dirname(link) == "/etc/alternatives":
                info["blas_alternative"] = os.path.basename(link)
        package = debian_package_of(path)
        if package:
            info["blas_package"] = package
        return info
    return {}


def mpi_of(program: Path) -> dict[str, str]:
    flavour = core_mpi_flavour(program)
    info = {"mpi_flavour": flavour} if flavour else {}
    for name, path in shared_libraries(program).items():
        if name.startswith(("libmpi", "libmpich")):
            package = debian_package_of(path)
            info["mpi_library_file"] = os.path.realpath(path)
            if package:
                info["mpi_package"] = package
            break
    return info


def machine_provenance(program: Path) -> dict:
    return {
        "cpu_model": cpu_model(),
        "cores": os.cpu_count(),
        "memory_bytes": memory_bytes(),
        "program": str(program),
        "program_package": debian_package_of(str(program)),
        **blas_provenance(program),
        **mpi_of(program),
    }


def run_hpl(plan: HplPlan, timeout: float | None) -> HplOutcome:
    """Run the planned HPL in a temporary folder; Ctrl-C stops it (KeyboardInterrupt passes
    through after the ranks are gone and the folder is removed)."""
    with tempfile.TemporaryDirectory(prefix="commscope-hpl-") as folder:
        (Path(folder) / plan.input_name).write_text(plan.input_text)
        started = now()
        finished = run_program(plan.argv, cwd=Path(folder), env=plan.env, timeout=timeout)
        output_path = Path(folder) / plan.output_name
        output = output_path.read_bytes() if output_path.exists() else b""
        return HplOutcome(plan, finished, output, started, now(), machine_provenance(plan.program))


def launcher_version(program: str) -> str | None:
    try:
        done = subprocess.run(
            [program, "--version"], capture_output=True, text=True, timeout=20, stdin=subprocess.DEVNULL
        )
    except (OSError, subprocess.TimeoutExpired):
        return None
    return (done.stdout.strip().splitlines() or [None])[0]
