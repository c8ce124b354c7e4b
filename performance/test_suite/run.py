#!/usr/bin/env python3
"""How long does the test command take, as CI runs it, at two commits side by side?

Each round clones this repository into a fresh folder per revision (nothing built, as a
clean clone in CI), runs README's test command (`make test`) there with the variables
.ci/run exports, and records its wall time and each pytest summary line. Rounds
interleave the revisions (A, B, A, B, ...) so a slow spell of the shared machine falls
on both. It needs what .ci/run installs (both MPI libraries, Chromium, Slurm, ...).

    .venv/bin/python performance/test_suite/run.py REV [REV ...] [--rounds 1] [--save FILE]

e.g. `performance/test_suite/run.py 1ce32ab HEAD` (before and after a change). The
virtual cluster is one per machine: run nothing else that uses it meanwhile.

pytest reports every test's time (`--durations=0` through PYTEST_ADDOPTS), so the summary
also says what the tests all revisions have in common took at each, and what the tests
only one has: a suite that grew is told apart from tests that got slower.
"""

from __future__ import annotations

import argparse
import datetime
import json
import os
import platform
import re
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
#: Clones and logs go here, not under /tmp: each virtual cluster host has a /tmp of its
#: own, and the cluster tests run the clone's programs on those hosts.
WORK = REPO / "build" / "test-suite"
#: `export NAME=VALUE` lines of .ci/run (the one place that says what CI sets)
CI_EXPORT = re.compile(r'^export (\w+)=("[^"]*"|\S+)', re.M)
PYTEST_SUMMARY = re.compile(r"^=+ (.*(?:passed|failed).* in [\d.]+s.*?) =+$", re.M)
#: What a summary says of tests that did not pass
FAILED = re.compile(r"\b(failed|errors?)\b")
#: How make -i says a recipe failed (a build, a pytest step)
IGNORED = re.compile(r"Error \d+ \(ignored\)")
#: A line of pytest's --durations report: seconds, phase, test id
DURATION = re.compile(r"^([\d.]+)s (?:setup|call|teardown)\s+(\S+)$", re.M)


def test_seconds(log: str) -> dict[str, float]:
    """Seconds per test id (its setup, call and teardown) over both of make test's steps."""
    seconds: dict[str, float] = {}
    for value, test in DURATION.findall(log):
        seconds[test] = seconds.get(test, 0.0) + float(value)
    return seconds


def ci_environment() -> dict[str, str]:
    text = (REPO / ".ci" / "run").read_text()
    return {name: value.strip('"') for name, value in CI_EXPORT.findall(text)}


def resolve(rev: str) -> str:
    return subprocess.run(
        ["git", "-C", str(REPO), "rev-parse", "--short", rev], capture_output=True, text=True, check=True
    ).stdout.strip()


def one_round(commit: str, env: dict[str, str], log_dir: Path) -> dict:
    with tempfile.TemporaryDirectory(prefix=f"{commit}-", dir=WORK) as folder:
        clone = Path(folder) / "commscope"
        # the tests read the public pages they quote from the checkout's sibling shared/ (../shared, as CI's
        # clone has it); without it the tests of SJTU's job scripts skip
        if (REPO.parent / "shared").is_dir():
            (Path(folder) / "shared").symlink_to(REPO.parent / "shared")
        subprocess.run(["git", "clone", "--quiet", str(REPO), str(clone)], check=True)
        subprocess.run(["git", "-C", str(clone), "checkout", "--quiet", commit], check=True)
        # what .ci/run prepares before `make test`, untimed as there: Slurm's scrontab
        if (clone / "scripts" / "build-scrontab").exists():
            subprocess.run([str(clone / "scripts" / "build-scrontab")], check=True, stdout=subprocess.DEVNULL)
        began = time.monotonic()
        timed = {**env, "PYTEST_ADDOPTS": f"{env.get('PYTEST_ADDOPTS', '')} --durations=0 --durations-min=0".strip()}
        # DURATIONS=0: every test's time (make pytest prints the 30 slowest otherwise); -i: a
        # failed test in the first step does not stop make before the second, so every round
        # times the whole command (what failed is in the summaries and the log)
        done = subprocess.run(
            ["make", "-i", "test", "DURATIONS=0"], cwd=clone, env=timed, capture_output=True, text=True
        )
        seconds = time.monotonic() - began
    log = log_dir / f"{commit}-{int(time.time())}.log"
    log.write_text(done.stdout + done.stderr)
    summaries = PYTEST_SUMMARY.findall(done.stdout)
    # make -i exits 0 whatever failed: a round passed when both steps ran and none failed
    failed = IGNORED.search(done.stderr) or any(FAILED.search(line) for line in summaries)
    passed = len(summaries) == 2 and not failed
    return {
        "commit": commit,
        "exit": 0 if passed else 1,
        "wall_s": round(seconds, 1),
        "pytest": summaries,
        "tests": test_seconds(done.stdout),
        "log": str(log),
    }


def shared_and_own(results: list[dict]) -> list[str]:
    """Per revision: the summed test time of the tests every revision ran, and of its own."""
    common = set.intersection(*(set(result["tests"]) for result in results))
    lines = [f"{len(common)} tests in every revision"]
    for result in results:
        own = set(result["tests"]) - common
        shared_s = sum(result["tests"][test] for test in common)
        own_s = sum(result["tests"][test] for test in own)
        lines.append(
            f"{result['commit']} (round {result['round']}): those {shared_s:.0f} s of test time; "
            f"its {len(own)} other tests {own_s:.0f} s"
        )
    return lines


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("revs", nargs="+", help="commits to compare (anything git rev-parse takes)")
    parser.add_argument("--rounds", type=int, default=1)
    parser.add_argument("--save", type=Path, help="write the results as JSON")
    args = parser.parse_args()
    if shutil.which("make") is None:
        sys.exit("make is not on PATH")
    commits = [resolve(rev) for rev in args.revs]
    env = {**os.environ, **ci_environment()}
    WORK.mkdir(parents=True, exist_ok=True)
    log_dir = Path(tempfile.mkdtemp(prefix="logs-", dir=WORK))
    results = []
    for round_index in range(args.rounds):
        for commit in commits:
            result = one_round(commit, env, log_dir)
            results.append({"round": round_index, **result})
            print(f"{commit}: make test exit {result['exit']}, {result['wall_s']:.0f} s", flush=True)
            for line in result["pytest"]:
                print(f"    pytest: {line}", flush=True)
    if all(result["tests"] for result in results):
        for line in shared_and_own(results):
            print(line, flush=True)
    if args.save:
        args.save.write_text(
            json.dumps(
                {
                    "date": datetime.date.today().isoformat(),
                    "machine": f"{platform.node()}, {os.cpu_count()} cores",
                    "results": results,
                },
                indent=2,
            )
        )
    return 0 if all(r["exit"] == 0 for r in results) else 1


if __name__ == "__main__":
    sys.exit(main())
