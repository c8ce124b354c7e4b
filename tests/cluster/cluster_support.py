"""Helpers of the cluster tests: driving scripts/vcluster (see conftest.py for the fixtures).

The tests need root, iproute2, util-linux, Slurm and munge. Without them they skip;
with COMMSCOPE_REQUIRE_CLUSTER=1 (CI) they fail instead. A cluster that is already up
in the same state folder ($COMMSCOPE_VCLUSTER_DIR) is replaced.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
import time
from pathlib import Path

import pytest

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


class VCluster:
    #: The cluster brought up last: there is one at a time, so a fixture that made another
    #: one (the 4-host cluster of the sweep tests) means this one must come up again.
    active: "VCluster | None" = None

    def __init__(self, hosts: int = len(HOSTS), slurm: bool = True):
        self.n = hosts
        self.slurm = slurm
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
        self.cli("up", str(self.n), *(["--slurm"] if self.slurm else []), timeout=180)
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

    def wait_for_job(
        self, job_id: str, timeout: float, results_done=None, grace: float = FINALIZE_GRACE_S
    ) -> dict[str, str]:
        """The job's `scontrol show job` fields once it has ended (JobState COMPLETED,
        FAILED, ...), polled every half second: `sbatch --wait` polls at growing intervals
        and found an 11 s job done after 42 s.

        results_done() says whether the job's output is complete; a job still running
        `grace` seconds after that is cancelled, as `commscope run` stops such a launch
        (docs/reliability.md: Debian MPICH's ranks can hang in MPI_Finalize), and its
        fields come back with "HungAfterResults" set."""
        deadline = time.monotonic() + timeout
        done_at = None
        while time.monotonic() < deadline:
            shown = subprocess.run(
                ["scontrol", "-o", "show", "job", job_id],
                env=self.environ(),
                capture_output=True,
                text=True,
                timeout=30,
            ).stdout
            fields = dict(re.findall(r"(\w+)=(\S*)", shown))
            if fields.get("JobState", "PENDING") not in ("PENDING", "CONFIGURING", "RUNNING", "COMPLETING"):
                return fields
            if results_done is not None and done_at is None and results_done():
                done_at = time.monotonic()
            if done_at is not None and time.monotonic() > done_at + grace:
                subprocess.run(["scancel", job_id], env=self.environ(), capture_output=True, timeout=30)
                return {**self.wait_for_job(job_id, 60), "HungAfterResults": "1"}
            time.sleep(0.5)
        results = "" if results_done is None else f" (its results {'were' if results_done() else 'were not'} complete)"
        pytest.fail(f"job {job_id} did not end within {timeout} s{results}", pytrace=False)

    def veth(self, host: str) -> str:
        return next(h["veth"] for h in self.hosts if h["name"] == host)

    def veth_bytes(self, host: str) -> int:
        """Bytes both ways through the host's veth, counted on the root namespace's end."""
        stats = Path("/sys/class/net") / self.veth(host) / "statistics"
        return sum(int((stats / name).read_text()) for name in ("rx_bytes", "tx_bytes"))


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
