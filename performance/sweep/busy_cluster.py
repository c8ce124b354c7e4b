"""`commscope sweep locate` with the defaults on six virtual hosts under Slurm, beside busy
loops on the machine's cores (a shared login node, a noisy neighbour, OS jitter): how often a
healthy host or switch is named, and how often a throttled host is.

Per MPI library: HEALTHY sweeps of the six hosts, then THROTTLED sweeps with one host's link
throttled (`scripts/vcluster throttle HOST RATE`), each `commscope sweep locate --nodes 6
--bind none` with the default rules; BUSY loops (`nice -n 0 sh -c 'while :; do :; done'`)
run beside them, outside the virtual hosts' namespaces. Each sweep's --json and a database
of every run are kept in --out, so a false accusation can be replayed from its rounds.

Needs the virtual cluster's prerequisites and root; hold the cluster lock:

    flock /run/lock/commscope-cluster-session.lock \\
        .venv/bin/python performance/sweep/busy_cluster.py [--healthy 6] [--throttled 3] [--out DIR]
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(REPO / "tests" / "support"))
from mpi_flavours import yield_when_idle  # noqa: E402  (Debian MPICH's ranks beside busy loops)

VCLUSTER = REPO / "scripts" / "vcluster"
RSH = REPO / "scripts" / "vcluster-rsh"
HOSTS = 6
MPI = {"mpich": "mpiexec.mpich", "openmpi": "mpirun.openmpi"}
#: 6 MiB a pair, as the cluster tests measure: a quarter of a second through 200 Mbit/s
CORE_FLAGS = ["--bw-size", "64K", "-W", "8", "-i", "10", "-x", "2"]
SHARED = REPO / "build" / "vcluster-tests"


def vcluster(*args: str, check: bool = True) -> subprocess.CompletedProcess:
    done = subprocess.run([str(VCLUSTER), *args], capture_output=True, text=True, timeout=300)
    if check and done.returncode != 0:
        sys.exit(f"busy_cluster: vcluster {' '.join(args)} failed:\n{done.stdout}{done.stderr}")
    return done


def environment(name: str, db: Path) -> dict[str, str]:
    info = json.loads(vcluster("env", "--json").stdout)
    preload = {"LD_PRELOAD": str(yield_when_idle(SHARED))} if name == "mpich" else {}
    return {
        **os.environ,
        **info["env"],
        "COMMSCOPE_BENCH": str(REPO / "build" / name / "commscope-bench"),
        "COMMSCOPE_DB": str(db),
        "COMMSCOPE_SWEEP_TMP": str(SHARED),
        "OMPI_MCA_plm_rsh_agent": str(RSH),
        "OMPI_MCA_mpi_yield_when_idle": "1",
        "COMMSCOPE_FINALIZE_GRACE": "5",
        "PYTHONPATH": str(REPO / "python"),
        **preload,
    }


def busy_loops(count: int) -> list[subprocess.Popen]:
    return [
        subprocess.Popen(["nice", "-n", "0", "sh", "-c", "while :; do :; done"], start_new_session=True)
        for _ in range(count)
    ]


def one_sweep(name: str, out: Path, label: str, extra: list[str]) -> dict:
    """One `sweep locate --nodes 6` with the defaults; what it named."""
    json_out = out / f"{label}.json"
    db = out / f"{name}.db"
    start = time.monotonic()
    done = subprocess.run(
        [sys.executable, "-m", "commscope", "sweep", "locate", "--nodes", str(HOSTS), "--bind", "none"]
        + ["--timeout", "120", "--retries", "3", "--json", str(json_out), *extra, "--", *CORE_FLAGS],
        capture_output=True,
        text=True,
        env=environment(name, db),
        timeout=900,
    )
    (out / f"{label}.stderr").write_text(done.stderr)
    found = {"label": label, "exit": done.returncode, "seconds": round(time.monotonic() - start, 1)}
    if json_out.exists():
        document = json.loads(json_out.read_text())
        found |= {
            "run_id": document["run_id"],
            "rounds": document["rounds"],
            "named": [node["host"] for node in document["bad_nodes"]],
            "switches": [switch["switch"] for switch in document["bad_switches"]],
            "undecided": document["undecided"],
            "stop": document["stop"],
        }
    return found


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--healthy", type=int, default=6, help="healthy sweeps per MPI library")
    parser.add_argument("--throttled", type=int, default=3, help="sweeps per MPI library with --host throttled")
    parser.add_argument("--host", default="vnode4")
    parser.add_argument("--rate", default="200mbit")
    parser.add_argument("--busy", type=int, default=2, help="busy loops beside the sweeps")
    parser.add_argument("--mpi", default="openmpi,mpich")
    parser.add_argument("--out", type=Path, default=SHARED / "busy-cluster")
    parser.add_argument("locate_args", nargs="*", help="more `sweep locate` options (after --)")
    args = parser.parse_args()
    if args.out.exists():
        shutil.rmtree(args.out)
    args.out.mkdir(parents=True)
    vcluster("up", str(HOSTS), "--slurm")
    loops = busy_loops(args.busy)
    results = []
    try:
        for name in args.mpi.split(","):
            for k in range(args.healthy):
                results.append(
                    {
                        "mpi": name,
                        "throttled": None,
                        **one_sweep(name, args.out, f"{name}-healthy-{k + 1}", args.locate_args),
                    }
                )
                print(json.dumps(results[-1]), flush=True)
            vcluster("throttle", args.host, args.rate)
            try:
                for k in range(args.throttled):
                    label = f"{name}-throttled-{k + 1}"
                    results.append(
                        {"mpi": name, "throttled": args.host, **one_sweep(name, args.out, label, args.locate_args)}
                    )
                    print(json.dumps(results[-1]), flush=True)
            finally:
                vcluster("unthrottle", args.host, check=False)
    finally:
        for loop in loops:
            os.killpg(loop.pid, signal.SIGTERM)
            loop.wait()
        vcluster("down", check=False)
    (args.out / "results.json").write_text(json.dumps(results, indent=1) + "\n")


if __name__ == "__main__":
    main()
