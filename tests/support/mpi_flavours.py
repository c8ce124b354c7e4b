"""The MPI builds of commscope-bench that tests run under, and how to launch them.

`make test` builds one tree per MPI library it finds (build/mpich, build/openmpi, or
build/default for an MPI from PyPI) and lists them in build/flavours.txt as
"NAME BUILD_DIR LAUNCHER". COMMSCOPE_REQUIRE_MPI="mpich openmpi" turns a missing
library into a failure instead of a skip (CI sets it).
"""

from __future__ import annotations

import functools
import os
import shutil
import subprocess
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path

import pytest

from paths import REPO

FLAVOURS_FILE = Path(os.environ.get("COMMSCOPE_FLAVOURS_FILE", REPO / "build" / "flavours.txt"))
KNOWN = ("mpich", "openmpi")
CORES = len(os.sched_getaffinity(0))
#: Other test workers run beside this one (make pytest's parallel step).
SHARED_CORES = int(os.environ.get("PYTEST_XDIST_WORKER_COUNT", "1")) > 1

#: The network Open MPI's ranks of one machine use between them (tests/mpi), and MPICH's
#: UCX device for it.
LOOPBACK = "127.0.0.0/8"
LOOPBACK_DEVICE = "lo"

#: Open MPI's matching transports (MTLs) for InfiniBand-era fabrics, left out of the tests'
#: launches: Debian's Open MPI 4.1 opens PSM and PSM2 at every MPI_Init to offer its cm
#: PML, which cannot run without their hardware (ob1 with self, vader and tcp is chosen
#: either way), and that costs about 0.15 s of each launch's ~0.6 s here. OFI is left out
#: as Debian's openmpi-mca-params.conf leaves it out (this setting replaces that one).
UNUSED_MTLS = "^ofi,psm,psm2"


def shell_rank(script: str) -> list[str]:
    """A rank that runs a shell script and stays half a second after it: MPICH 4.0.2's
    mpiexec, on a loaded machine, writes to a proxy whose ranks ended before it finished
    setting them up and dies by SIGPIPE with none of their output (11 launches in 60 of
    `-n 3 sh -c 'echo ...'` beside three busy processes; with SIGPIPE ignored it says
    "error writing to control socket"). An MPI rank talks to the proxy first; a shell one
    does not, so it waits."""
    return ["sh", "-c", f"{script}; sleep 0.5"]


@functools.cache
def yield_when_idle(directory: Path = REPO / "build" / "test-support") -> Path:
    """yield_when_idle.c built into `directory`: LD_PRELOADed into Debian MPICH's ranks
    where more of them run than there are cores (the source says why)."""
    directory.mkdir(parents=True, exist_ok=True)
    library = directory / "yield_when_idle.so"
    with tempfile.NamedTemporaryFile(dir=directory, suffix=".so", delete=False) as partial:
        source = Path(__file__).with_name("yield_when_idle.c")
        built = subprocess.run(
            ["cc", "-O2", "-shared", "-fPIC", "-o", partial.name, str(source), "-ldl"], capture_output=True, text=True
        )
        assert built.returncode == 0, built.stderr
        os.replace(partial.name, library)  # whole or not at all, for a reader elsewhere
    return library


def waiting(openmpi: bool, directory: Path = REPO / "build" / "test-support") -> dict[str, str]:
    """The environment of ranks that share the cores with more ranks than there are: Open
    MPI's yield when idle; Debian MPICH, which has no such setting, gets yield_when_idle.c
    (`directory`: where its ranks' hosts see it). Not Open MPI's: its opal_progress says
    nothing of what it found, and a poll that yielded is no idle one over TCP (libevent's
    events are not counted), so the sleeps slowed its healthy pairs across the veths."""
    return {"OMPI_MCA_mpi_yield_when_idle": "1"} if openmpi else {"LD_PRELOAD": str(yield_when_idle(directory))}


@functools.cache
def hwloc_topology(directory: Path = REPO / "build" / "test-support") -> Path | None:
    """This machine's hardware topology as hwloc XML, written by lstopo into `directory` once
    per test process (so never another machine's), or None without lstopo (Debian's
    hwloc-nox). Open MPI's daemon and each of its ranks read it instead of sensing the
    machine: a third of a 4-rank launch's CPU time (0.24 s to 0.16 s) goes, and CPU is what
    launches beside other test workers wait for."""
    lstopo = shutil.which("lstopo-no-graphics") or shutil.which("lstopo")
    if lstopo is None:
        return None
    directory.mkdir(parents=True, exist_ok=True)
    topology = directory / "topology.xml"
    with tempfile.NamedTemporaryFile(dir=directory, suffix=".xml", delete=False) as partial:
        written = subprocess.run([lstopo, "--of", "xml", "-f", partial.name], capture_output=True, text=True)
    if written.returncode != 0:
        os.unlink(partial.name)
        return None
    os.replace(partial.name, topology)  # whole or not at all, for a reader elsewhere
    return topology


@dataclass(frozen=True)
class Flavour:
    name: str
    build: Path
    launcher: str

    @property
    def bench(self) -> Path:
        return self.build / "commscope-bench"

    @property
    def compat(self) -> Path:
        return self.build / "compat"

    @property
    def is_openmpi(self) -> bool:
        return self.name == "openmpi"

    def argv(self, np: int, program: str | Path, *args: str) -> list[str]:
        cmd = [self.launcher, "-n", str(np)]
        if self.is_openmpi:
            cmd.append("--oversubscribe")
        return cmd + [str(program), *args]

    def env(self, np: int = 1) -> dict[str, str]:
        """The launch environment of `np` ranks."""
        env = dict(os.environ)
        if self.is_openmpi:
            env.update(OMPI_ALLOW_RUN_AS_ROOT="1", OMPI_ALLOW_RUN_AS_ROOT_CONFIRM="1")
            # this machine's ranks reach each other over loopback: in make pytest the virtual
            # cluster's bridge comes and goes beside them, and Open MPI's TCP took its
            # address (10.213.0.1) at start, then found it gone ("Cannot assign requested
            # address", a launch that never starts)
            env.update(OMPI_MCA_btl_tcp_if_include=LOOPBACK, OMPI_MCA_oob_tcp_if_include=LOOPBACK)
            env.setdefault("OMPI_MCA_mtl", UNUSED_MTLS)
        else:
            # the same for MPICH's UCX, which opens every network device at MPI_Init: one
            # that went away meanwhile failed the launch ("init_worker ... No such device")
            env.setdefault("UCX_NET_DEVICES", LOOPBACK_DEVICE)
        return self._read_topology(self._waiting(env, np))

    def _waiting(self, env: dict[str, str], np: int) -> dict[str, str]:
        """Ranks that share cores with more ranks than there are cores, this launch's own or
        those of other test workers (make pytest), wait by yielding: a rank busy-polling
        for a message holds the core its peer needs to send it, and each exchange costs a
        time slice. They compute the same; tests that judge speeds run alone (`timing`)."""
        if np > CORES or SHARED_CORES:
            env.update(waiting(self.is_openmpi))
        if SHARED_CORES and self.is_openmpi:
            # Open MPI pins up to two ranks to a core each unless the launch says otherwise;
            # a pinned rank waits for its core while another worker holds it, even with the
            # other core idle (a 2-rank check: 0.4 s alone, 5 s beside one busy process)
            env["OMPI_MCA_hwloc_base_binding_policy"] = "none"
        return env

    def _read_topology(self, env: dict[str, str]) -> dict[str, str]:
        """Open MPI's launches beside other test workers (make pytest), their ranks unbound
        (_waiting), read the machine's topology from a file (hwloc_topology)."""
        if SHARED_CORES and self.is_openmpi and (topology := hwloc_topology()) is not None:
            env.setdefault("OMPI_MCA_hwloc_base_topo_file", str(topology))
        return env

    def run(
        self, np: int, *args: str, program: str | Path | None = None, timeout: float = 180, cwd: Path | None = None
    ) -> subprocess.CompletedProcess:
        return subprocess.run(
            self.argv(np, program or self.bench, *args),
            env=self.env(np),
            capture_output=True,
            text=True,
            timeout=timeout,
            cwd=cwd,
        )

    def commscope(
        self, db: Path, *args: str, timeout: float = 300, env: dict[str, str] | None = None
    ) -> subprocess.CompletedProcess:
        """`commscope ARGS` on database `db` with this build as its core (for `run`, add
        --launcher self.launcher); the caller's COMMSCOPE_* and SLURM_* settings are left out
        (`env` adds the test's own)."""
        own = env or {}
        env = {key: value for key, value in os.environ.items() if not key.startswith(("COMMSCOPE_", "SLURM_"))}
        env.update(COMMSCOPE_BENCH=str(self.bench), COMMSCOPE_DB=str(db), PYTHONPATH=str(REPO / "python"), **own)
        if self.is_openmpi:
            env.setdefault("OMPI_MCA_mtl", UNUSED_MTLS)
        return subprocess.run(
            [sys.executable, "-m", "commscope", *args],
            env=self._waiting(env, 2),
            capture_output=True,
            text=True,
            timeout=timeout,
        )


def load_flavours() -> dict[str, Flavour]:
    found: dict[str, Flavour] = {}
    if FLAVOURS_FILE.exists():
        for line in FLAVOURS_FILE.read_text().splitlines():
            if line.strip():
                name, build, launcher = line.split()
                found[name] = Flavour(name, Path(build), launcher)
    return found


def required() -> set[str]:
    return set(os.environ.get("COMMSCOPE_REQUIRE_MPI", "").split())


def flavour_params() -> list:
    """pytest params for every MPI library: present ones run, missing ones skip or fail."""
    found = load_flavours()
    names = list(dict.fromkeys([*KNOWN, *found]))
    params = []
    for name in names:
        if name in found:
            params.append(pytest.param(found[name], id=name, marks=pytest.mark.mpi))
        elif name in required():
            params.append(pytest.param(None, id=name, marks=pytest.mark.mpi))
        else:
            params.append(
                pytest.param(
                    None,
                    id=name,
                    marks=[
                        pytest.mark.mpi,
                        pytest.mark.skip(
                            reason=f"no {name} build in {FLAVOURS_FILE} (make test builds one when {name} is installed)"
                        ),
                    ],
                )
            )
    return params


def need(flavour: Flavour | None) -> Flavour:
    if flavour is None:
        pytest.fail(f"COMMSCOPE_REQUIRE_MPI asks for an MPI library that has no build in {FLAVOURS_FILE}")
    return flavour


def rows(stdout: str) -> list[list[str]]:
    """The data rows of an OSU table (comment lines left out), split into cells."""
    return [line.split() for line in stdout.splitlines() if line and not line.startswith("#")]


def sizes_of(stdout: str) -> list[int]:
    """The message sizes of an OSU table, in order."""
    return [int(r[0]) for r in rows(stdout)]


# The CUDA builds (make cuda-build: build/cuda/NAME, listed in build/cuda/flavours.txt).
CUDA_FLAVOURS_FILE = Path(os.environ.get("COMMSCOPE_CUDA_FLAVOURS_FILE", REPO / "build" / "cuda" / "flavours.txt"))


def nvcc() -> str | None:
    from shutil import which

    return which("nvcc") or ("/usr/local/cuda/bin/nvcc" if Path("/usr/local/cuda/bin/nvcc").exists() else None)


def cuda_flavour_params() -> list:
    """pytest params for the CUDA build of every MPI library: where nvcc exists `make test`
    builds them, so a missing one fails; without nvcc they skip."""
    found: dict[str, Flavour] = {}
    if CUDA_FLAVOURS_FILE.exists():
        for line in CUDA_FLAVOURS_FILE.read_text().splitlines():
            if line.strip():
                name, build, launcher = line.split()
                found[name] = Flavour(name, Path(build), launcher)
    params = []
    for name in dict.fromkeys([*KNOWN, *found]):
        if name in found:
            params.append(pytest.param(found[name], id=f"cuda-{name}", marks=pytest.mark.mpi))
        elif nvcc() and name in (required() | set(load_flavours())):
            params.append(pytest.param(None, id=f"cuda-{name}", marks=pytest.mark.mpi))
        else:
            params.append(
                pytest.param(
                    None,
                    id=f"cuda-{name}",
                    marks=[
                        pytest.mark.mpi,
                        pytest.mark.skip(
                            reason=f"no CUDA build of {name} in {CUDA_FLAVOURS_FILE} (make cuda-build, needs nvcc)"
                        ),
                    ],
                )
            )
    return params
