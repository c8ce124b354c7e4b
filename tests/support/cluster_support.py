"""Helpers of the cluster tests: driving scripts/vcluster (see conftest.py for the fixtures).

The tests need root, iproute2, util-linux, Slurm and munge. Without them they skip;
with COMMSCOPE_REQUIRE_CLUSTER=1 (CI) they fail instead. A cluster that is already up
in the same state folder ($COMMSCOPE_VCLUSTER_DIR) is replaced.
"""

from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

import pytest

from commscope.cluster.slurm import parse_scontrol_jobs
from commscope.store.db import Store

REPO = Path(__file__).resolve().parents[2]
VCLUSTER = REPO / "scripts" / "vcluster"
RSH = REPO / "scripts" / "vcluster-rsh"
#: Seconds a launch may sit in MPI_Finalize after its complete results before the cluster
#: tests stop it: Debian MPICH's known hang there (docs/reliability.md) would otherwise
#: cost commscope's default 30 s (COMMSCOPE_FINALIZE_GRACE) or a job's whole time limit.
FINALIZE_GRACE_S = 5
REQUIRED = os.environ.get("COMMSCOPE_REQUIRE_CLUSTER") == "1"
TOOLS = (
    "ip",
    "tc",
    "unshare",
    "nsenter",
    "munged",
    "slurmctld",
    "slurmd",
    "sinfo",
    "srun",
    "sbatch",
    "scontrol",
    "squeue",
    "scancel",
)
HOSTS = ("vnode1", "vnode2")
#: The quick suite submitted to both hosts, one task each (run for real, and as a dry run).
SUBMIT_QUICK_ON_TWO_NODES = ("submit", "quick", "--nodes", "2", "--ntasks-per-node", "1")

#: The cluster cases `make test` leaves out: combinations whose behaviour does not vary
#: from one it runs (another MPI library, another sweep mode over the same launches), run
#: once and recorded in the docs. COMMSCOPE_CLUSTER_FULL=1 runs them.
FULL_RUN = os.environ.get("COMMSCOPE_CLUSTER_FULL") == "1"
FULL = pytest.mark.skipif(not FULL_RUN, reason="run once and recorded; COMMSCOPE_CLUSTER_FULL=1 runs it")


def unavailable(reason: str):
    """Skip, or fail when the cluster tests are required."""
    if REQUIRED:
        pytest.fail(f"{reason} (COMMSCOPE_REQUIRE_CLUSTER=1)", pytrace=False)
    pytest.skip(reason)


def missing_prerequisite() -> str | None:
    if os.geteuid() != 0:
        return "the virtual cluster needs root (network namespaces, a bridge, Slurm daemons)"
    missing = [tool for tool in TOOLS if shutil.which(tool) is None]
    if missing:
        return f"missing for the virtual cluster: {' '.join(missing)} (Debian: iproute2 slurm-wlm munge)"
    return None


def shared_dir() -> Path:
    """A folder every host sees (their /tmp is their own), for programs and job output."""
    folder = REPO / "build" / "vcluster-tests"
    if str(folder.resolve()).startswith("/tmp/"):
        unavailable(f"{folder} is under /tmp, which every virtual host replaces with its own")
    folder.mkdir(parents=True, exist_ok=True)
    return folder


def job_folder(request, tmp_path_factory) -> dict:
    """A job folder every host sees, a database of the test's own, no site configuration."""
    folder = shared_dir() / f"{request.node.name.replace('[', '-').replace(']', '')}-{os.getpid()}"
    folder.mkdir(parents=True, exist_ok=True)
    home = tmp_path_factory.mktemp("home")
    return {
        "folder": folder,
        "db": folder / "results.db",
        "env": {
            "COMMSCOPE_CONFIG": str(home / "none.yaml"),
            "XDG_DATA_HOME": str(home / "data"),
            "COMMSCOPE_DB": str(folder / "results.db"),
            "PYTHONPATH": str(REPO / "python"),
        },
    }


class VCluster:
    #: The cluster brought up last: there is one at a time, so a fixture that made another
    #: one (the 4-host cluster of the sweep tests) means this one must come up again.
    active: "VCluster | None" = None

    def __init__(self, hosts: int = len(HOSTS), slurm: bool = True, leaves: int | None = None):
        self.n = hosts
        self.slurm = slurm
        self.leaves = leaves  # leaf switches (vcluster up --leaves), None for one bridge
        self.is_up = False
        self.env: dict[str, str] = {}
        self.hosts: list[dict] = []

    def cli(self, *args: str, check: bool = True, timeout: float = 120, **kwargs) -> subprocess.CompletedProcess:
        """`scripts/vcluster ARGS...`; output captured as text."""
        result = subprocess.run([str(VCLUSTER), *args], capture_output=True, text=True, timeout=timeout, **kwargs)
        if check and result.returncode != 0:
            pytest.fail(
                f"vcluster {' '.join(args)} failed ({result.returncode}):\n{result.stdout}{result.stderr}",
                pytrace=False,
            )
        return result

    def up(self) -> None:
        self.is_up = False
        leaves = ["--leaves", str(self.leaves)] if self.leaves else []
        self.cli("up", str(self.n), *(["--slurm"] if self.slurm else []), *leaves, timeout=180)
        self.is_up = True
        VCluster.active = self
        self.load_env()

    def load_env(self) -> None:
        info = json.loads(self.cli("env", "--json").stdout)
        self.env, self.hosts = info["env"], info["hosts"]

    def down(self) -> subprocess.CompletedProcess:
        result = self.cli("down", check=False, timeout=120)
        self.is_up = False
        return result

    def mark_down(self) -> None:
        self.is_up = False

    def ensure_up(self) -> None:
        if not self.is_up or VCluster.active is not self:
            self.up()

    def environ(self, **extra: str) -> dict[str, str]:
        """This process's environment plus the cluster's (SLURM_CONF, MPI over TCP)."""
        return {**os.environ, **self.env, **extra}

    def exec(self, host: str, *cmd: str, timeout: float = 60, **kwargs) -> subprocess.CompletedProcess:
        return subprocess.run(
            [str(VCLUSTER), "exec", host, "--", *cmd], capture_output=True, text=True, timeout=timeout, **kwargs
        )

    def veth(self, host: str) -> str:
        return next(h["veth"] for h in self.hosts if h["name"] == host)

    def veth_bytes(self, host: str) -> int:
        """Bytes both ways through the host's veth, counted on the root namespace's end."""
        stats = Path("/sys/class/net") / self.veth(host) / "statistics"
        return sum(int((stats / name).read_text()) for name in ("rx_bytes", "tx_bytes"))


#: States of a job that has not ended (`scontrol show job`'s JobState)
NOT_ENDED = ("PENDING", "CONFIGURING", "RUNNING", "COMPLETING")


def scontrol_jobs(cluster: VCluster) -> tuple[dict[str, dict[str, str]] | None, str]:
    """The jobs slurmctld knows, by id, as `commscope` reads them (parse_scontrol_jobs), and
    what scontrol printed; None where it failed (a busy controller)."""
    done = subprocess.run(
        ["scontrol", "-o", "show", "job"], env=cluster.environ(), capture_output=True, text=True, timeout=30
    )
    if done.returncode != 0:
        return None, done.stderr
    return parse_scontrol_jobs(done.stdout), done.stdout


class JobWatch:
    """Slurm jobs followed together until each has ended, all of them polled every half
    second (`sbatch --wait` polls at growing intervals and found an 11 s job done after 42 s).

    A job may come with results_done(), which says whether its output is complete: one still
    running `grace` seconds after that is cancelled, as `commscope run` stops such a launch
    (docs/reliability.md: Debian MPICH's ranks can hang in MPI_Finalize), and its fields
    come back with "HungAfterResults" set. Each poll looks at every job, not only the one
    waited for: a hung job would otherwise hold the nodes a queued one needs."""

    def __init__(self, cluster: VCluster, grace: float = FINALIZE_GRACE_S):
        self.cluster = cluster
        self.grace = grace
        self._results_done: dict[str, Callable[[], bool] | None] = {}
        self._complete_since: dict[str, float] = {}
        self._cancelled: set[str] = set()
        self._ended: dict[str, dict[str, str]] = {}

    def add(self, job_id: str, results_done: Callable[[], bool] | None = None) -> None:
        self._results_done[job_id] = results_done

    def wait(self, job_id: str, timeout: float) -> dict[str, str]:
        """The job's `scontrol show job` fields once it has ended (JobState COMPLETED, FAILED, ...)."""
        deadline = time.monotonic() + timeout
        while True:
            self._poll()
            if job_id in self._ended:
                return self._ended[job_id]
            if time.monotonic() > deadline:
                results = self._results_done[job_id]
                said = "" if results is None else f" (its results {'were' if results() else 'were not'} complete)"
                pytest.fail(f"job {job_id} did not end within {timeout:.0f} s{said}", pytrace=False)
            time.sleep(0.5)

    def _poll(self) -> None:
        jobs, shown = scontrol_jobs(self.cluster)
        if jobs is None:  # a busy controller: asked again at the next poll, until the deadline
            return
        for job_id, results_done in self._results_done.items():
            if job_id in self._ended:
                continue
            fields = jobs.get(job_id)
            if fields is None:  # Slurm keeps an ended job for MinJobAge (300 s) only
                pytest.fail(
                    f"job {job_id} is unknown to Slurm (the cluster was replaced, or the job ended over 300 s "
                    f"before this poll):\n{shown[-500:]}",
                    pytrace=False,
                )
            if fields["JobState"] not in NOT_ENDED:
                self._ended[job_id] = {**fields, "HungAfterResults": "1"} if job_id in self._cancelled else fields
            elif results_done is not None and job_id not in self._cancelled:
                if job_id not in self._complete_since and results_done():
                    self._complete_since[job_id] = time.monotonic()
                if time.monotonic() > self._complete_since.get(job_id, float("inf")) + self.grace:
                    subprocess.run(["scancel", job_id], env=self.cluster.environ(), capture_output=True, timeout=30)
                    self._cancelled.add(job_id)


def run_to_results(
    argv: list[str], results_done: Callable[[str], bool] | None, timeout: float, **popen_kwargs
) -> tuple[subprocess.CompletedProcess, bool]:
    """argv run to its end; or, where results_done(its output so far) says the results are
    complete and it is still running FINALIZE_GRACE_S later, stopped with its whole session,
    as `commscope run` stops a launch whose Debian MPICH ranks hang in MPI_Finalize
    (docs/reliability.md). Returns what it printed, and whether it was stopped so."""
    with tempfile.TemporaryFile("w+") as out, tempfile.TemporaryFile("w+") as err:
        process = subprocess.Popen(argv, stdout=out, stderr=err, text=True, start_new_session=True, **popen_kwargs)
        deadline = time.monotonic() + timeout
        complete_since = None
        stopped = False
        while process.poll() is None:
            now = time.monotonic()
            if complete_since is None and results_done is not None:
                out.seek(0)
                complete_since = now if results_done(out.read()) else None
            if now > deadline or (complete_since is not None and now > complete_since + FINALIZE_GRACE_S):
                os.killpg(process.pid, signal.SIGKILL)
                process.wait()
                if now > deadline:
                    out.seek(0)
                    pytest.fail(f"{' '.join(argv)} did not end within {timeout} s:\n{out.read()}", pytrace=False)
                stopped = True
                break
            time.sleep(0.2)
        out.seek(0)
        err.seek(0)
        return subprocess.CompletedProcess(argv, process.returncode, out.read(), err.read()), stopped


def commscope(
    cluster: VCluster, *args, env: dict | None = None, timeout: float = 300, cwd: Path | None = None
) -> subprocess.CompletedProcess:
    """`commscope ARGS` in a child process with the cluster's environment."""
    return subprocess.run(
        [sys.executable, "-m", "commscope", *map(str, args)],
        capture_output=True,
        text=True,
        timeout=timeout,
        env=cluster.environ(**(env or {})),
        cwd=cwd,
    )


def runs_of(db: Path) -> list:
    with Store(db) as store:
        return [store.run(row.id) for row in sorted(store.summaries(), key=lambda row: row.id)]
