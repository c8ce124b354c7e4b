"""One all-pairs sweep job against a launch per pair and benchmark (a one-to-every-node table's way), on the
virtual cluster, with each MPI library built by `make flavours`.

The sweep is `commscope sweep all-pairs --no-retest` (harness start, store and table
included); the launches are one `mpirun`/`mpiexec` of `bw` and one of `bibw` per pair,
with the same core flags. Launches run alternately with the sweep, `--rounds` times, so
that a machine's slow moment falls on both sides. A launch that does not end within
`--launch-timeout` seconds is stopped and counted as hung: the time it took is still
part of the per-pair total (a user running such a table's script waits for it too).

    scripts/vcluster up 4
    .venv/bin/python performance/sweep/launches.py [--rounds 3] [--mpi mpich,openmpi]
    scripts/vcluster down
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from itertools import combinations
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
VCLUSTER = REPO / "scripts" / "vcluster"
RSH = REPO / "scripts" / "vcluster-rsh"
LAUNCHERS = {"mpich": "mpiexec.mpich", "openmpi": "mpirun.openmpi"}
#: small enough for a slow virtual link in seconds, large enough to be a bandwidth
CORE_FLAGS = ["-W", "16", "-i", "10", "-x", "2"]
SIZE = "64K"


def cluster_env() -> tuple[dict[str, str], list[str]]:
    done = subprocess.run([str(VCLUSTER), "env", "--json"], capture_output=True, text=True)
    if done.returncode != 0:
        sys.exit(f"launches: no virtual cluster ({done.stderr.strip()}); start one with `scripts/vcluster up 4`")
    info = json.loads(done.stdout)
    return info["env"], [host["name"] for host in info["hosts"]]


def sweep_seconds(env: dict[str, str], hosts: list[str], launcher: str, folder: Path) -> float:
    start = time.monotonic()
    done = subprocess.run(
        [sys.executable, "-m", "commscope", "sweep", "all-pairs", "--hosts", ",".join(hosts)]
        + ["--metric", "bw,bibw", "--launcher", launcher, "--no-retest", "--json", str(folder / "sweep.json")]
        + ["--", "--bw-size", SIZE, *CORE_FLAGS],
        capture_output=True,
        text=True,
        env=env,
    )
    seconds = time.monotonic() - start
    if not (folder / "sweep.json").exists():
        sys.exit(f"launches: the sweep failed ({done.returncode}):\n{done.stderr}")
    return seconds


def launches_seconds(env: dict[str, str], hosts: list[str], name: str, core: Path, timeout: float) -> tuple[float, int]:
    """Seconds for every pair's bw and bibw launch, and how many of them hung."""
    hung = 0
    start = time.monotonic()
    for a, b in combinations(hosts, 2):
        for bench in ("bw", "bibw"):
            where = ["--host", f"{a}:1,{b}:1"] if name == "openmpi" else ["-hosts", f"{a}:1,{b}:1"]
            argv = [LAUNCHERS[name], "-n", "2", *where, str(core), bench, "-m", f"{SIZE}:{SIZE}", *CORE_FLAGS]
            try:
                done = subprocess.run(argv, capture_output=True, text=True, timeout=timeout, env=env)
            except subprocess.TimeoutExpired:
                hung += 1
                continue
            if done.returncode != 0:
                sys.exit(f"launches: {' '.join(argv)} failed ({done.returncode}):\n{done.stderr}")
    return time.monotonic() - start, hung


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--mpi", default="mpich,openmpi", help="comma-separated: mpich, openmpi")
    parser.add_argument("--launch-timeout", type=float, default=60.0)
    args = parser.parse_args()
    cluster, hosts = cluster_env()
    print(f"{len(hosts)} hosts; bw and bibw at {SIZE}, {' '.join(CORE_FLAGS)}; {args.rounds} rounds")
    print("| MPI | one sweep (median) | launches (median) | ratio | launches that hung |")
    print("|---|---:|---:|---:|---:|")
    for name in args.mpi.split(","):
        core = REPO / "build" / name / "commscope-bench"
        if not core.exists() or shutil.which(LAUNCHERS[name]) is None:
            sys.exit(f"launches: {core} or {LAUNCHERS[name]} missing (make flavours)")
        folder = Path(tempfile.mkdtemp(prefix=f"launches-{name}-", dir=REPO / "build"))
        env = {
            **os.environ,
            **cluster,
            "COMMSCOPE_BENCH": str(core),
            "COMMSCOPE_DB": str(folder / "results.db"),
            "COMMSCOPE_SWEEP_TMP": str(folder),
            "OMPI_MCA_plm_rsh_agent": str(RSH),
            "HYDRA_LAUNCHER": "ssh",
            "HYDRA_LAUNCHER_EXEC": str(RSH),
            # more hosts than cores: Open MPI ranks waiting at a barrier yield them
            "OMPI_MCA_mpi_yield_when_idle": "1",
            "PYTHONPATH": str(REPO / "python"),
        }
        sweeps, launches, hung = [], [], 0
        for _ in range(args.rounds):
            sweeps.append(sweep_seconds(env, hosts, shutil.which(LAUNCHERS[name]), folder))
            seconds, stuck = launches_seconds(env, hosts, name, core, args.launch_timeout)
            launches.append(seconds)
            hung += stuck
        one, many = statistics.median(sweeps), statistics.median(launches)
        count = len(hosts) * (len(hosts) - 1) * args.rounds
        print(f"| {name} | {one:.1f} s | {many:.1f} s | {one / many:.2f} | {hung} of {count} |", flush=True)
        shutil.rmtree(folder, ignore_errors=True)


if __name__ == "__main__":
    main()
