#!/usr/bin/env python3
"""What the link inventory costs a `commscope run`, with each MPI library of `make flavours`.

A short run, `commscope run latency --np 2 --no-store -- -i 20 -x 2`, is timed with the
inventory and without it (the same harness with the inventory replaced by a constant, see
WITHOUT), A B A B, --rounds times; once on this host alone (the inventory is read in
process) and once with `--hosts localhost` (one extra launch of one process per host reads
it, as for a run across nodes). Then the inventory itself, in this process: this host's
/sys, and with a stand-in nvidia-smi on PATH (tests/support/fixtures/links' recorded tool,
the four H100s' matrix): asked every time (`fresh`) and kept for the boot.

    .venv/bin/python performance/inventory/run.py [--rounds 5] [--mpi mpich,openmpi] [--commscope PROG] [--no-runs]

First the parts alone, in this process (this checkout's code): the inventory launch through
each flavour's launcher, and the inventory itself. The whole runs' difference of medians is
what a user sees, but on a loaded machine a second's noise hides a millisecond's cost: the
parts say it.
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(REPO / "performance"))
from timing import add_programs_option, heading, programs, summary, timed  # noqa: E402

FLAVOURS = REPO / "build" / "flavours.txt"
RUN = ["run", "latency", "--np", "2", "--no-store"]
CORE_FLAGS = ["--", "-i", "20", "-x", "2"]
#: The harness with the inventory replaced by a constant: this host's links not read, no
#: inventory launch. Run as `python -c WITHOUT commscope ARGS`.
WITHOUT = """
import sys
from commscope.execute import pairs, runner
from commscope.execute.host_inventory import HostsLinks
STUB = {"host": "stub", "adapters": [], "cpu": {}, "gpus": {"available": False, "devices": [], "pairs": []}}
pairs.host_links = runner.host_links = lambda: STUB
runner.every_host = lambda local, *args, **kwargs: HostsLinks({local["host"]: local})
from commscope.cli.main import main
sys.argv = sys.argv[1:]
main()
"""


def flavours(names: list[str]) -> list[tuple[str, Path, str]]:
    """(name, core, launcher) of each MPI library built by `make flavours`."""
    if not FLAVOURS.exists():
        sys.exit("inventory: no build/flavours.txt: run `make flavours` first")
    found = []
    for line in FLAVOURS.read_text().splitlines():
        name, build, launcher = line.split()
        if name in names:
            found.append((name, Path(build) / "commscope-bench", launcher))
    return found


def python_of(program: str) -> str:
    """The Python interpreter beside a commscope program (its virtual environment's)."""
    return str(Path(program).parent / "python")


def time_runs(program: str, name: str, core: Path, launcher: str, where: list[str], rounds: int) -> list[str]:
    env = {**os.environ, "COMMSCOPE_BENCH": str(core)}
    argv = [*RUN, "--launcher", launcher, *where, *CORE_FLAGS]
    sides = {
        "with the inventory": [program, *argv],
        "without": [python_of(program), "-c", WITHOUT, program, *argv],
    }
    measured: dict[str, list[tuple[float, float]]] = {side: [] for side in sides}
    for _ in range(rounds):
        for side, command in sides.items():
            wall, cpu, done = timed(command, env, capture_output=True, text=True)
            if done.returncode != 0:
                sys.exit(f"inventory: {' '.join(command)} failed ({done.returncode}):\n{done.stderr[-2000:]}")
            measured[side].append((wall, cpu))
    lines = [summary(f"{name} {' '.join(where) or 'this host'}, {side}", values) for side, values in measured.items()]
    walls = {side: statistics.median(wall for wall, _ in values) for side, values in measured.items()}
    added = walls["with the inventory"] - walls["without"]
    lines.append(f"{name} {' '.join(where) or 'this host'}: the inventory adds {added:+.3f} s (medians)")
    return lines


def time_launch(name: str, launcher: str, repeats: int) -> str:
    """The inventory launch itself, timed in this process as `run --hosts localhost` starts it:
    one process on the one host, through the flavour's launcher."""
    sys.path.insert(0, str(REPO / "python"))
    from commscope.execute.host_inventory import every_host, inventory
    from commscope.execute.launchers import LaunchSpec, resolve_launcher
    from commscope.execute.signals import StopSignals

    chosen = resolve_launcher(launcher, name)
    spec = LaunchSpec(np=1, hosts=("localhost",), known_nodes=1, core_flavour=name, as_root=os.geteuid() == 0)
    local, seconds = inventory(), []
    with StopSignals() as signals:
        for _ in range(repeats):
            start = time.perf_counter()
            found = every_host(local, chosen, spec, signals)
            seconds.append(time.perf_counter() - start)
            if found.not_inventoried:
                sys.exit(f"inventory: the launch failed: {found.not_inventoried}")
    fastest, median = min(seconds), statistics.median(seconds)
    return f"{name}: the inventory launch alone (--hosts localhost): fastest {fastest:.3f} s, median {median:.3f} s"


def time_inventory(repeats: int = 20) -> list[str]:
    """The inventory in this process: this host's /sys, and with a stand-in nvidia-smi."""
    sys.path.insert(0, str(REPO / "python"))
    from commscope.execute.host_inventory import inventory

    def median_ms(**options) -> float:
        seconds = []
        for _ in range(repeats):
            start = time.perf_counter()
            inventory(**options)
            seconds.append(time.perf_counter() - start)
        return statistics.median(seconds) * 1000

    lines = [f"inventory of this host's /sys, no nvidia-smi: median {median_ms():.1f} ms"]
    recording = REPO / "tests" / "support" / "fixtures" / "links" / "h100-4gpu-nvlink"
    with tempfile.TemporaryDirectory() as folder:
        shutil.copy(recording / "topo-m.txt", folder)
        (Path(folder) / "nvidia-smi").symlink_to(recording.parent / "recorded-nvidia-smi")
        environ = {**os.environ, "PATH": f"{folder}{os.pathsep}{os.environ['PATH']}"}
        environ.pop("COMMSCOPE_NVIDIA_SMI", None)
        lines.append(
            f"with a stand-in nvidia-smi, asked every time: median {median_ms(environ=environ, fresh=True):.1f} ms"
        )
        lines.append(f"with a stand-in nvidia-smi, kept for the boot: median {median_ms(environ=environ):.1f} ms")
    return lines


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--mpi", default="mpich,openmpi", help="flavours to time (default: mpich,openmpi)")
    parser.add_argument("--no-runs", action="store_true", help="time the inventory and its launch alone")
    add_programs_option(parser)
    args = parser.parse_args()
    print(heading(f"{args.rounds} rounds", " ".join([*RUN, *CORE_FLAGS])))
    for name, _, launcher in flavours(args.mpi.split(",")):
        print(time_launch(name, launcher, max(args.rounds, 5)), flush=True)
    for line in time_inventory():
        print(line, flush=True)
    if args.no_runs:
        return 0
    for program in programs(args):
        print(f"## {program}")
        for name, core, launcher in flavours(args.mpi.split(",")):
            for where in ([], ["--hosts", "localhost"]):
                for line in time_runs(program, name, core, launcher, where, args.rounds):
                    print(line, flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
