"""`commscope sweep locate` on nine virtual hosts under three leaf switches of three through
Slurm (--nodes 9, no --topology: the fabric is what `scontrol show topology` says inside
the allocation), under both MPI libraries: a throttled uplink is named as its leaf switch
and no host under it, a throttled host as the host and no switch, each in fewer rounds
than all-pairs' 9, the benchmark's bytes counted on the throttled uplink or veth.

Three leaves, not two: under two leaves every pair across crosses both uplinks, so no
measurement can tell leaf1's uplink from leaf2's. Nine ranks float over the VM's two
cores (--bind none); each pair moves 32 MiB, long enough for their time slices to even
out; the throttle, 200 Mbit/s (25 MB/s), is a few percent of a healthy pair, and --detect
80 asks only that a part 80 % slow or worse be found, which the few pairs of this small
cluster can rule out.

With 6 MiB a pair (10-20 ms, pairs spread by 50-70 %) about one sweep in five failed. With
32 MiB on eight hosts (leaves of 3, 3 and 2, all-pairs 7 rounds), 16 runs of the module
failed three tests: Open MPI's ranks crashing at start in two starts of one round (hence
--retries 3), a retry counted wrongly, and an uplink named in 7 rounds at 49 % noise. Nine
hosts under three leaves of three leave more room: on the simulator at 50 % noise the uplink
is named within all-pairs' rounds in 39 of 40 seeds (8 hosts: 36 of 40), in 4-5 rounds at
30 % noise. The simulator's eight-host runs: tests/unit/test_locate_small_fabric.py.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from cluster.test_sweep import flavour, sweep  # noqa: F401 (flavour: the MPI fixture)
from cluster_support import VCluster, missing_prerequisite, unavailable

pytestmark = [pytest.mark.cluster, pytest.mark.timing]  # judges measured speeds

HOSTS = 9
#: all-pairs' rounds over an odd number of hosts: one sits out each round
ALL_PAIRS_ROUNDS = HOSTS if HOSTS % 2 else HOSTS - 1
LEAVES = {
    "leaf1": ["vnode1", "vnode2", "vnode3"],
    "leaf2": ["vnode4", "vnode5", "vnode6"],
    "leaf3": ["vnode7", "vnode8", "vnode9"],
}
#: 25 MB/s: a few percent of a healthy pair
RATE = "200mbit"
DETECT = "80"
#: 8 x 64 KiB windows 64 times a pair, 32 MiB: a healthy pair takes 50-100 ms, long enough
#: for nine floating ranks' time slices on two cores to even out (with test_sweep's 6 MiB,
#: 10-20 ms, pairs spread by 50-70 %); a throttled one about 1.3 s
FABRIC_FLAGS = ["--bw-size", "64K", "-W", "8", "-i", "60", "-x", "4"]
PAIR_BYTES = 8 * 64 * 2**10 * 64


@pytest.fixture(scope="module")
def fabric9():
    """Nine hosts with Slurm under three leaves; it replaces the cluster running, as the
    other sizes do, and is taken down after the module."""
    reason = missing_prerequisite()
    if reason:
        unavailable(reason)
    cluster = VCluster(hosts=HOSTS, leaves=len(LEAVES))
    try:
        cluster.up()
        yield cluster
    finally:
        cluster.down()
        VCluster.active = None


def counted(device: str) -> int:
    """Bytes both ways through a link, counted on the root namespace's end."""
    stats = Path("/sys/class/net") / device / "statistics"
    return sum(int((stats / name).read_text()) for name in ("rx_bytes", "tx_bytes"))


def locate(cluster: VCluster, flavour) -> tuple:  # noqa: F811
    result, document = sweep(
        cluster,
        flavour,
        "--detect",
        DETECT,
        # a round takes seconds; Open MPI's wire-up across nine hosts on two loaded cores
        # has hung for good once in a while: such a launch is stopped and started again
        "--timeout",
        "120",
        # and its ranks crash in MPI_Init over TCP now and then, twice in a row in one of
        # sixteen runs of this module: a round is started again up to three times
        "--retries",
        "3",
        hosts=["--nodes", str(HOSTS), "--bind", "none"],
        mode="locate",
        metrics="bw",
        core_flags=FABRIC_FLAGS,
    )
    # no --topology: inside the allocation the fabric is what the controller says
    said = f"locate: {len(LEAVES)} leaf switch(es) of scontrol show topology over the hosts swept"
    assert said in result.stderr, result.stdout + result.stderr
    return result, document


def launches(result) -> int:
    return len(re.findall(r"^sweep: .*srun .*commscope-bench pairs --schedule", result.stderr, re.M)) - (
        len(re.findall(r"; starting it (?:once more|again) \(", result.stderr))
    )


def test_a_throttled_uplink_names_its_leaf_switch_and_no_host(fabric9, flavour):  # noqa: F811
    uplink = "cs-up1"
    fabric9.cli("throttle-uplink", "leaf1", RATE)
    try:
        before = counted(uplink)
        result, document = locate(fabric9, flavour)
        crossed = counted(uplink) - before
    finally:
        fabric9.cli("throttle-uplink", "leaf1", "off")
    assert result.returncode == 1, result.stdout + result.stderr
    assert [switch["switch"] for switch in document["bad_switches"]] == ["leaf1"], document
    assert document["bad_nodes"] == [], document
    switch = document["bad_switches"][0]
    assert switch["hosts"] == LEAVES["leaf1"]
    assert switch["slow_pairs"] >= 3 and switch["value"] < 0.25 * switch["reference"], switch
    assert document["rounds"] < document["all_pairs_rounds"] == ALL_PAIRS_ROUNDS
    assert document["stop"] == "certain" and document["cleared"] == HOSTS
    assert document["detection_limit"]["reached"] <= 0.8
    # each slow pair of the evidence moved its 32 MiB through leaf1's uplink
    assert crossed > switch["slow_pairs"] * PAIR_BYTES, crossed
    assert "bad switch leaf1" in result.stderr
    assert launches(result) == document["rounds"]


def test_a_throttled_host_names_the_host_and_no_switch(fabric9, flavour):  # noqa: F811
    fabric9.cli("throttle", "vnode5", RATE)
    try:
        through = fabric9.veth_bytes("vnode5")
        result, document = locate(fabric9, flavour)
        crossed = fabric9.veth_bytes("vnode5") - through
    finally:
        fabric9.cli("unthrottle", "vnode5")
    assert result.returncode == 1, result.stdout + result.stderr
    assert [node["host"] for node in document["bad_nodes"]] == ["vnode5"], document
    assert document["bad_switches"] == [], document
    node = document["bad_nodes"][0]
    assert len(node["confirmed_by"]) >= 3 and node["value"] < 0.25 * node["reference"], node
    assert document["rounds"] < document["all_pairs_rounds"] == ALL_PAIRS_ROUNDS
    assert document["stop"] == "certain" and document["cleared"] == HOSTS - 1
    # vnode5 was in a pair every round: its 32 MiB over its veth each time
    assert crossed > len(node["partners"]) * PAIR_BYTES, crossed
    assert "bad node vnode5" in result.stderr
    assert launches(result) == document["rounds"]
