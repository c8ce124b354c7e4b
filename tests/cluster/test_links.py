"""Every host of an inter-node run is inventoried (execute.host_inventory), on the virtual
cluster through Slurm: the run stores both hosts' link inventories and the inter-node peak is
the slower host's fastest adapter.

The virtual hosts share the machine's /sys (a network namespace does not remount it), where
their veth ends are not even listed, so each host reads a recorded tree of a real machine
from its own /tmp through COMMSCOPE_SYSFS: vnode1 an HDR InfiniBand node (200 Gb/s), vnode2
a 100 GbE RoCE node (tests/support/fixtures/links/README.md)."""

from __future__ import annotations

import shutil
import subprocess
import sys

import pytest

from cluster_support import VCluster, runs_of, shared_dir
from commscope.analysis.peaks import run_peak
from mpi_flavours import flavour_params, need, waiting
from paths import FIXTURES

pytestmark = pytest.mark.cluster

TREES = {"vnode1": "hdr-ib-node", "vnode2": "roce-100g-node"}
#: The same path on every host; /tmp is each host's own, so each finds its own tree there.
SYSFS = "/tmp/commscope-links-sysfs"


@pytest.mark.parametrize("flavour", flavour_params())
def test_an_inter_node_run_stores_both_hosts_and_the_slower_ones_peak(vcluster: VCluster, work, flavour):
    flavour = need(flavour)
    for host, tree in TREES.items():
        copied = vcluster.exec(
            host, "sh", "-c", f'rm -rf {SYSFS} && cp -r "$0" {SYSFS}', str(FIXTURES / "links" / tree / "sys")
        )
        assert copied.returncode == 0, copied.stderr
    # the launching host reads its own links through the same path: a folder missing there
    # would be warned about (docs/peaks.md); it gets an empty machine's tree
    shutil.rmtree(SYSFS, ignore_errors=True)
    shutil.copytree(FIXTURES / "links" / "empty-tree", SYSFS)
    env = {
        **work["env"],
        "COMMSCOPE_BENCH": str(flavour.bench),
        "COMMSCOPE_SYSFS": SYSFS,
        "COMMSCOPE_FINALIZE_GRACE": "5",
        "TMPDIR": str(shared_dir()),  # the core's stream: rank 0 writes it on its host
        **waiting(flavour.is_openmpi, shared_dir()),
    }
    argv = ["salloc", "--nodes=2", "--ntasks-per-node=1", sys.executable, "-m", "commscope", "run", "bw"]
    argv += ["--np", "2", "--bind", "none", "--", "-m", "64K:64K", "-i", "10", "-x", "2"]
    through_vnode2 = vcluster.veth_bytes("vnode2")
    done = subprocess.run(argv, capture_output=True, text=True, timeout=300, env=vcluster.environ(**env))
    assert done.returncode == 0, done.stdout + done.stderr
    # the benchmark crossed the network: 12 windows of 64 x 64 KiB through vnode2's veth
    assert vcluster.veth_bytes("vnode2") - through_vnode2 > 12 * 64 * 65536
    assert "link inventory" not in done.stderr, done.stderr
    (run,) = runs_of(work["db"])
    assert {host["name"] for host in run.hosts} == set(TREES)
    links = run.provenance["links"]
    assert set(TREES) <= set(links["hosts"]) and "not_inventoried" not in links
    adapters = {host: [(a["kind"], a["rate_gbps"]) for a in links["hosts"][host]["adapters"]] for host in TREES}
    assert adapters == {"vnode1": [("InfiniBand", 200.0)], "vnode2": [("RoCE", 100.0), ("RoCE", 100.0)]}
    peak = run_peak(run)
    assert peak.gbs == 12.5 and peak.basis == "mlx5_0:1 RoCE 100 Gb/s on vnode2"
