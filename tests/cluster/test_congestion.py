"""The congestion benchmark on four virtual hosts through Slurm, with both MPI libraries:
with the shared-fabric bottleneck on (`vcluster fabric RATE`: every host's traffic through
one shaped device) the bandwidth canaries' impact factor is clearly above its value
without it, both measured in this test; a congestor-only job (`submit --nodes 4`,
`--canary-fraction 0`) runs and stores the congestors' own throughput.

Ranks are left unpinned (`--bind none`): srun's --cpu-bind=cores would put every host's
rank on the machine's core 0 (docs/development.md), and CPU contention would then look
like network congestion.
"""

from __future__ import annotations

import statistics
import subprocess
import sys

import pytest

from mpi_flavours import flavour_params, need, yield_when_idle

from .cluster_support import VCluster, commscope, job_folder, runs_of, shared_dir

pytestmark = [pytest.mark.cluster, pytest.mark.timing]  # judges measured impact factors

#: 25 MB/s shared by all four hosts: the canaries' 2 MiB exchanges and the congestors'
#: alltoall meet in it, as jobs behind an oversubscribed switch meet in its uplinks.
FABRIC_RATE = "200mbit"
#: two canaries and two congestors; few iterations (the bandwidth tests move 2 MiB a rank
#: each); the two-sided incast, whose eager sends stream into the fabric (a congestor of
#: round trips, alltoall, gets little of a queue full of the canaries' bytes)
CORE_FLAGS = ["-i", "10", "-x", "1", "--canary-fraction", "0.5", "--congestor", "incast"]
BANDWIDTH_CANARIES = ("rr_bw", "rr_bw_sync")


@pytest.fixture
def work4(vcluster4, tmp_path_factory, request) -> dict:
    return job_folder(request, tmp_path_factory)


def environment(work: dict, flavour) -> dict[str, str]:
    preload = {"LD_PRELOAD": str(yield_when_idle(shared_dir()))} if flavour.name == "mpich" else {}
    # the harness keeps its files beside the core's stream under TMPDIR, which every host must see
    return {
        **work["env"],
        "COMMSCOPE_BENCH": str(flavour.bench),
        "OMPI_MCA_mpi_yield_when_idle": "1",
        "TMPDIR": str(shared_dir()),
        **preload,
    }


def run_in_allocation(cluster: VCluster, work: dict, flavour, label: str) -> list:
    """`commscope run congestion` inside a 4-node Slurm allocation (srun starts the ranks)."""
    argv = ["salloc", "--nodes=4", "--ntasks-per-node=1", sys.executable, "-m", "commscope", "run", "congestion"]
    argv += ["--np", "4", "--bind", "none", "--label", label, "--timeout", "400", "--", *CORE_FLAGS]
    done = subprocess.run(
        argv, capture_output=True, text=True, timeout=500, env=cluster.environ(**environment(work, flavour))
    )
    assert done.returncode == 0, done.stdout + done.stderr
    runs = [run for run in runs_of(work["db"]) if run.label == label]
    assert len(runs) == 1 and runs[0].status == "complete", done.stdout + done.stderr
    assert {host["name"] for host in runs[0].hosts} == {"vnode1", "vnode2", "vnode3", "vnode4"}
    return runs


def bandwidth_impact(run) -> float:
    return statistics.mean(p.metrics["impact_avg"] for p in run.points if p.axes.canary in BANDWIDTH_CANARIES)


@pytest.mark.parametrize("flavour", flavour_params())
def test_a_shared_fabric_raises_the_bandwidth_canaries_impact(vcluster4: VCluster, work4, flavour):
    flavour = need(flavour)
    (open_fabric,) = run_in_allocation(vcluster4, work4, flavour, "open")
    vcluster4.cli("fabric", FABRIC_RATE)
    try:
        (shared,) = run_in_allocation(vcluster4, work4, flavour, "shared")
    finally:
        vcluster4.cli("fabric", "off")
    assert {p.axes.canary for p in shared.points} == {"rr_lat", "rr_bw", "rr_bw_sync", "allreduce"}
    before, after = bandwidth_impact(open_fabric), bandwidth_impact(shared)
    print(f"{flavour.name}: bandwidth canaries' impact {before:.2f}X without the fabric, {after:.2f}X with it")
    assert after > 1.4 and after > 1.25 * before, (before, after)
    # the harness compares them side by side and a check against the open run fails
    compared = commscope(vcluster4, "compare", str(open_fabric.id), str(shared.id), env=work4["env"])
    assert compared.returncode == 0 and "shared impact avg" in compared.stdout, compared.stdout + compared.stderr


@pytest.mark.parametrize("flavour", flavour_params())
def test_a_congestor_only_job_runs_as_load(vcluster4: VCluster, work4, flavour):
    flavour = need(flavour)
    done = commscope(
        vcluster4,
        *("submit", "congestion", "--nodes", "4", "--ntasks-per-node", "1", "--np", "4", "--wait", "--label", "load"),
        *("--output-dir", work4["folder"], "--", "--canary-fraction", "0", "--duration", "1"),
        *("--congestor", "alltoall,incast"),
        env=environment(work4, flavour),
        timeout=400,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    (run,) = runs_of(work4["db"])
    assert run.status == "complete" and run.job_id == done.stdout.strip()
    assert [(p.axes.congestor, p.axes.canary) for p in run.points] == [("alltoall", None), ("incast", None)]
    assert all(p.metrics["congested_avg_MBps"] > 0 for p in run.points)
