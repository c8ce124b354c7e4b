"""commscope submit / status / collect on the virtual cluster with a real Slurm, under both
MPI libraries (the cores `make flavours` builds): runs stored with both hosts and the job
id, latency over TCP, a cancelled job kept as incomplete and stored once, --transport on
one host (SJTU's OSU job scripts: test_sjtu_job_scripts.py)."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import time
from pathlib import Path

import pytest

from cluster_support import HOSTS, REPO, SUBMIT_QUICK_ON_TWO_NODES, VCluster, commscope, runs_of
from commands import latency_argv
from commscope.store.db import Store
from mpi_flavours import flavour_params, need

pytestmark = pytest.mark.cluster

#: Small sweeps: the machine's two cores are shared, and the point is the path, not the curve.
SHORT = ["--", "-m", "1:4K"]
#: One latency run across both hosts (the cancelled job and the one that never starts).
SUBMIT_LATENCY_INTER_NODE = ("submit", "latency", "--placement", "inter-node")


def local_shm_latency(flavour, work) -> float:
    """The fastest 1-byte round trip between two ranks of this machine over shared memory."""
    env = {**work["env"], "COMMSCOPE_DB": str(work["db"].with_name("local.db")), "COMMSCOPE_BENCH": str(flavour.bench)}
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "commscope",
            *latency_argv("shm", flavour.launcher, core_flags=("-m", "1:1", "-i", "2000")),
        ],
        capture_output=True,
        text=True,
        timeout=120,
        env={**os.environ, **env},
    )
    assert done.returncode == 0, done.stderr
    (run,) = runs_of(work["db"].with_name("local.db"))
    return run.points[0].stats["min"]


@pytest.mark.parametrize("flavour", flavour_params())
def test_submit_quick_on_two_nodes_stores_both_hosts_the_job_and_tcp_latency(vcluster, work, flavour):
    flavour = need(flavour)
    before = {host: vcluster.veth_bytes(host) for host in HOSTS}
    started = time.monotonic()
    done = commscope(
        vcluster,
        *SUBMIT_QUICK_ON_TWO_NODES,
        "--wait",
        "--output-dir",
        work["folder"],
        "--label",
        f"vcluster {flavour.name}",
        *SHORT,
        env={**work["env"], "COMMSCOPE_BENCH": str(flavour.bench)},
    )
    seconds = time.monotonic() - started
    assert done.returncode == 0, done.stdout + done.stderr
    job_id = done.stdout.strip()
    assert job_id.isdigit()
    runs = runs_of(work["db"])
    assert [run.benchmark for run in runs] == ["latency", "bw", "bibw"]
    for run in runs:
        assert run.status == "complete", run.status_reason
        assert run.job_id == job_id and run.provenance["slurm"]["job_id"] == job_id
        assert {host["name"] for host in run.hosts} == set(HOSTS)
        assert set(HOSTS) <= set(run.provenance["links"]["hosts"])  # every host of the job inventoried
        assert run.provenance["slurm"]["node_list"] == "vnode[1-2]"
        assert run.provenance["slurm"]["partition"] and run.provenance["slurm"]["cluster"]
        assert run.system == run.provenance["slurm"]["cluster"]
        assert run.label == f"vcluster {flavour.name}"
    moved = {host: vcluster.veth_bytes(host) - before[host] for host in HOSTS}
    assert all(count > 1_000_000 for count in moved.values()), f"too few bytes crossed the veths: {moved}"
    # Over TCP the fastest round trip is several times the one over shared memory.
    tcp = runs[0].points[0].stats["min"]
    shm = local_shm_latency(flavour, work)
    assert tcp > 3 * shm, f"latency between the hosts {tcp} us is not clearly above shared memory's {shm} us"
    print(
        f"{flavour.name}: submit to stored {seconds:.1f} s; 1 B latency min {tcp:.2f} us over TCP, "
        f"{shm:.2f} us over shared memory"
    )
    # status knows the job is done and collected; collecting again stores nothing.
    status = commscope(vcluster, "status", job_id, env=work["env"])
    assert status.returncode == 0 and re.search(rf"^{job_id}\s+completed\b", status.stdout, re.M), status.stdout
    again = commscope(vcluster, "collect", job_id, env=work["env"])
    assert again.returncode == 0 and "collected before" in again.stderr
    assert len(runs_of(work["db"])) == 3


def test_submit_hpl_runs_hpcc_across_the_allocation_and_collect_stores_it(vcluster, work):
    """`submit hpl` is a Slurm job that runs `run hpl` on every task of the allocation (it was
    once taken for `run hpl` with submit's options, and refused); collect stores its runs
    with the job. HPL's options go after `--`, checked before the job is submitted."""
    refused = commscope(vcluster, "submit", "hpl", "--nodes", "2", "--dry-run", "--", "--nb", "0", env=work["env"])
    assert refused.returncode == 2 and "--nb" in refused.stderr, refused.stderr
    before = {host: vcluster.veth_bytes(host) for host in HOSTS}
    done = commscope(
        vcluster,
        *("submit", "hpl", "--nodes", "2", "--ntasks-per-node", "1", "--wait", "--label", "hpl job"),
        *("--output-dir", work["folder"], "--", "--n", "600", "--nb", "60", "--grid", "1x2"),
        env=work["env"],
    )
    assert done.returncode == 0, done.stdout + done.stderr
    job_id = done.stdout.strip()
    runs = {run.benchmark: run for run in runs_of(work["db"])}
    hpl = runs["hpl"]
    assert hpl.status == "complete", hpl.status_reason
    assert hpl.job_id == job_id and hpl.provenance["slurm"]["node_list"] == "vnode[1-2]"
    assert hpl.label == "hpl job" and hpl.ranks == 2
    assert hpl.points[0].size == 600 and hpl.points[0].metrics["gflops"] > 0
    assert {"hpcc_stream", "hpcc_beff"} <= set(runs), sorted(runs)  # hpcc's other tests, stored too
    moved = {host: vcluster.veth_bytes(host) - before[host] for host in HOSTS}
    assert all(count > 100_000 for count in moved.values()), f"HPL's ranks did not talk across the veths: {moved}"


def _records(folder: Path) -> int:
    return sum(path.read_text().count('{"record"') for path in folder.glob("*/runs/*/core.jsonl"))


def test_cancelled_job_is_collected_as_incomplete_with_its_sizes_and_only_once(vcluster, work):
    flavour = need(next(p.values[0] for p in flavour_params() if p.values[0] is not None))
    env = {**work["env"], "COMMSCOPE_BENCH": str(flavour.bench)}
    done = commscope(
        vcluster,
        *SUBMIT_LATENCY_INTER_NODE,
        "--output-dir",
        work["folder"],
        "--",
        "-m",
        "1:4M",
        "-i",
        "400",
        "-x",
        "10",
        env=env,
    )
    assert done.returncode == 0, done.stderr
    job_id = done.stdout.strip()
    deadline = time.monotonic() + 120
    while _records(work["folder"]) < 3:
        assert time.monotonic() < deadline, "the job measured nothing within 120 s"
        time.sleep(0.5)
    assert "running" in commscope(vcluster, "status", job_id, env=work["env"]).stdout
    subprocess.run(["scancel", job_id], check=True, env=vcluster.environ())
    deadline = time.monotonic() + 60
    while True:
        collected = commscope(vcluster, "collect", job_id, env=work["env"])
        if "still" not in collected.stderr:
            break
        assert time.monotonic() < deadline, collected.stderr
        time.sleep(1)
    assert collected.returncode == 1, collected.stderr  # a stored run did not complete
    (run,) = runs_of(work["db"])
    assert run.status == "incomplete"
    assert "cancelled" in run.status_reason and "CANCELLED" in run.status_reason
    assert len(run.points) >= 3 and run.points[0].size == 1
    assert run.provenance["slurm"]["state"].startswith("CANCELLED")
    assert run.notes and run.notes[0] == "last lines of the job's log:"
    with Store(work["db"]) as store:
        assert "job_log" in store.raw_outputs(run.id)
    again = commscope(vcluster, "collect", job_id, env=work["env"])
    assert "collected before" in again.stderr
    assert len(runs_of(work["db"])) == 1


def _lo_bytes(vcluster: VCluster, host: str) -> int:
    done = vcluster.exec(host, "ip", "-j", "-s", "link", "show", "lo")
    stats = json.loads(done.stdout)[0]["stats64"]
    return stats["rx"]["bytes"]


@pytest.mark.timing
@pytest.mark.parametrize("flavour", flavour_params())
def test_transport_net_on_one_host_goes_through_loopback_and_is_slower(vcluster, work, flavour):
    flavour = need(flavour)
    env = {**work["env"], "COMMSCOPE_BENCH": str(flavour.bench), "SLURM_CONF": vcluster.env["SLURM_CONF"]}
    results = {}
    for transport in ("net", "shm"):
        before = _lo_bytes(vcluster, "vnode1")
        done = vcluster.exec(
            "vnode1",
            "env",
            *(f"{k}={v}" for k, v in env.items()),
            sys.executable,
            "-m",
            "commscope",
            *latency_argv(transport, flavour.launcher, "--label", transport),
            timeout=180,
        )
        assert done.returncode == 0, done.stderr
        results[transport] = _lo_bytes(vcluster, "vnode1") - before
    assert results["net"] >= 2 * 1050 * 4096, results
    assert results["shm"] < results["net"] / 4, results
    net, shm = runs_of(work["db"])
    assert net.points[0].stats["min"] > 2 * shm.points[0].stats["min"]
    assert net.provenance["transport"]["requested"] == "net" and net.hosts[0]["name"] == "vnode1"


# -- what goes wrong ----------------------------------------------------------------------------


def _stored_job_count(db: Path) -> int:
    if not db.exists():
        return 0
    with Store(db) as store:
        return len(store.jobs())


def test_unknown_partition_shows_sbatchs_reason_and_leaves_nothing(vcluster, work):
    jobs = work["folder"] / "jobs"
    done = commscope(vcluster, "submit", "quick", "--partition", "nosuch", "--output-dir", jobs, env=work["env"])
    assert done.returncode == 2, done.stderr
    assert "sbatch refused the job" in done.stderr and "invalid partition" in done.stderr.lower()
    assert "Traceback" not in done.stderr
    assert not jobs.exists() or not any(jobs.iterdir()), "the refused job's folder is left behind"
    assert _stored_job_count(work["db"]) == 0


def test_job_that_does_not_start_in_time_is_left_queued_and_said_so(vcluster, work):
    env = vcluster.environ()
    blocker = subprocess.run(
        ["sbatch", "--parsable", "-N", "2", "--exclusive", "-o", "/dev/null", "--wrap", "sleep 120"],
        capture_output=True,
        text=True,
        env=env,
        check=True,
    ).stdout.strip()
    try:
        done = commscope(
            vcluster,
            *SUBMIT_LATENCY_INTER_NODE,
            "--wait",
            "--start-timeout",
            "3",
            "--output-dir",
            work["folder"],
            env=work["env"],
        )
        assert done.returncode == 2, done.stderr
        job_id = done.stdout.strip()
        assert f"job {job_id} did not start within 3 s" in done.stderr and "left queued" in done.stderr
        assert "Resources" in done.stderr or "Priority" in done.stderr
        status = commscope(vcluster, "status", job_id, env=work["env"])
        assert re.search(rf"^{job_id}\s+pending\b", status.stdout, re.M), status.stdout
        subprocess.run(["scancel", job_id], env=env, check=True)
    finally:
        subprocess.run(["scancel", blocker], env=env)


def test_controller_that_does_not_answer_is_one_message_and_keeps_the_store(vcluster, work):
    # Something stored before: it must survive.
    imported = commscope(
        vcluster, "import", REPO / "tests" / "support" / "fixtures" / "parse" / "omb7_latency.txt", env=work["env"]
    )
    assert imported.returncode == 0, imported.stderr
    conf = work["folder"] / "down.conf"
    conf.write_text(
        re.sub(r"^SlurmctldPort=.*$", "SlurmctldPort=16999", Path(vcluster.env["SLURM_CONF"]).read_text(), flags=re.M)
    )
    env = {**work["env"], "SLURM_CONF": str(conf)}
    done = commscope(vcluster, "submit", "quick", "--output-dir", work["folder"] / "jobs", env=env)
    assert done.returncode == 1, done.stderr
    assert "controller does not answer; nothing was submitted" in done.stderr and "Traceback" not in done.stderr
    assert len(runs_of(work["db"])) == 1 and _stored_job_count(work["db"]) == 0
