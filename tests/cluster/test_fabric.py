"""The virtual cluster's fabric (`vcluster up 6 --leaves 2 --slurm`): hosts under two leaf
bridges joined to the spine through uplinks. Slurm's topology.conf and `scontrol show
topology` say so, as commscope reads them; `throttle-uplink` slows the traffic between
leaves and not the traffic within one, the uplink veths' counters show which traffic
crossed, and `down` leaves no bridge or uplink behind."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from cluster_support import REPO, VCluster, missing_prerequisite, shared_dir, unavailable
from commscope.records.topology import parse_scontrol_topology, read_topology

LEAVES = {"leaf1": ["vnode1", "vnode2", "vnode3"], "leaf2": ["vnode4", "vnode5", "vnode6"]}
#: Bytes one transfer sends: 0.6 s at the throttled uplink's 100 Mbit/s, some 50 ms unthrottled.
SIZE = 8_000_000
PORT = 5001

# A TCP transfer between two hosts: `recv PORT` says "ready", takes one connection and
# prints the bytes it read and the seconds from the first to the last; `send HOST PORT N`
# sends N bytes.
TRANSFER = """\
import socket, sys, time
if sys.argv[1] == "recv":
    server = socket.create_server(("0.0.0.0", int(sys.argv[2])), reuse_port=True)
    print("ready", flush=True)
    connection, _ = server.accept()
    total, started = 0, None
    while data := connection.recv(1 << 20):
        started = started or time.perf_counter()
        total += len(data)
    print(total, time.perf_counter() - started, flush=True)
else:
    with socket.create_connection((sys.argv[2], int(sys.argv[3]))) as sender:
        sender.sendall(b"x" * int(sys.argv[4]))
"""


@pytest.fixture(scope="module")
def fabric():
    """Six hosts with Slurm under two leaves; it replaces the cluster running, as the other
    sizes do, and is taken down after the module."""
    reason = missing_prerequisite()
    if reason:
        unavailable(reason)
    cluster = VCluster(hosts=6, leaves=2)
    try:
        cluster.up()
        yield cluster
    finally:
        cluster.down()


@pytest.fixture(scope="module")
def transfer_script() -> Path:
    path = shared_dir() / "fabric_transfer.py"
    path.write_text(TRANSFER)
    return path


def uplink_bytes(device: str) -> int:
    stats = Path("/sys/class/net") / device / "statistics"
    return sum(int((stats / name).read_text()) for name in ("rx_bytes", "tx_bytes"))


def transfer(cluster: VCluster, script: Path, source: str, destination: str) -> float:
    """Mbit/s of one SIZE-byte TCP transfer from `source` to `destination`."""
    receiver = subprocess.Popen(
        [str(REPO / "scripts" / "vcluster"), "exec", destination, "--", sys.executable, str(script), "recv", str(PORT)],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        assert receiver.stdout.readline().strip() == "ready", receiver.stderr.read()
        sent = cluster.exec(source, sys.executable, str(script), "send", destination, str(PORT), str(SIZE))
        assert sent.returncode == 0, sent.stderr
        out, err = receiver.communicate(timeout=60)
    finally:
        receiver.kill()
        receiver.wait()
    received, seconds = out.split()
    assert int(received) == SIZE, err
    return SIZE * 8 / float(seconds) / 1e6


def test_the_leaves_are_what_topology_conf_and_scontrol_say(fabric):
    info = json.loads(fabric.cli("env", "--json").stdout)
    assert {name: leaf["hosts"] for name, leaf in info["leaves"].items()} == LEAVES
    assert {host["name"]: host["leaf"] for host in info["hosts"]} == {
        host: leaf for leaf, hosts in LEAVES.items() for host in hosts
    }
    written = read_topology(info["topology_conf"])
    assert {leaf: list(hosts) for leaf, hosts in written.leaves.items()} == LEAVES
    assert written.roots == ("spine",)
    shown = subprocess.run(
        ["scontrol", "show", "topology"], env=fabric.environ(), capture_output=True, text=True, timeout=30
    )
    assert shown.returncode == 0, shown.stderr
    said = parse_scontrol_topology(shown.stdout)
    assert {leaf: list(hosts) for leaf, hosts in said.leaves.items()} == LEAVES
    assert said.path("vnode1", "vnode6") == ("leaf1", "spine", "leaf2")
    status = fabric.cli("status").stdout
    assert "leaf leaf1: bridge cs-leaf1, uplink cs-up1/cs-up1s to cs-br0 (unthrottled)" in status


def test_inside_an_allocation_the_topology_comes_from_the_controller(fabric):
    """cluster/topology.py's site_topology() on a node of a job: no file given, SLURM_JOB_ID set."""
    probe = (
        "import json; from commscope.cluster.topology import site_topology; "
        "print(json.dumps({leaf: list(hosts) for leaf, hosts in site_topology(None).leaves.items()}))"
    )
    done = subprocess.run(
        ["srun", "-N1", "-n1", "-w", "vnode5", sys.executable, "-c", probe],
        env=fabric.environ(PYTHONPATH=str(REPO / "python")),
        capture_output=True,
        text=True,
        timeout=60,
        cwd=shared_dir(),
    )
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout.splitlines()[-1]) == LEAVES


@pytest.mark.timing  # judges measured transfer rates
def test_a_throttled_uplink_slows_the_traffic_between_leaves_only(fabric, transfer_script):
    fabric.cli("throttle-uplink", "leaf1", "100mbit")
    try:
        assert "uplink cs-up1/cs-up1s to cs-br0 (throttled to 100Mbit)" in fabric.cli("status").stdout
        before = uplink_bytes("cs-up1")
        within = transfer(fabric, transfer_script, "vnode1", "vnode2")
        within_crossed = uplink_bytes("cs-up1") - before
        before = uplink_bytes("cs-up1")
        across = transfer(fabric, transfer_script, "vnode1", "vnode4")
        across_crossed = uplink_bytes("cs-up1") - before
        back = transfer(fabric, transfer_script, "vnode5", "vnode3")  # down the uplink: shaped too
    finally:
        fabric.cli("throttle-uplink", "leaf1", "off")
    assert across < 130 and back < 130, f"across the throttled uplink: {across:.0f} and {back:.0f} Mbit/s"
    assert within > 3 * across, f"within leaf1 {within:.0f} Mbit/s, across {across:.0f} Mbit/s"
    assert across_crossed >= SIZE, f"{across_crossed} bytes through cs-up1 for a {SIZE}-byte transfer across"
    assert within_crossed < SIZE / 10, f"{within_crossed} bytes through cs-up1 for a transfer within leaf1"
    restored = transfer(fabric, transfer_script, "vnode1", "vnode4")
    assert restored > 3 * across, f"after `off`: {restored:.0f} Mbit/s, throttled {across:.0f}"
    assert "(unthrottled)" in fabric.cli("status").stdout.split("leaf leaf1:")[1].splitlines()[0]


def test_bad_leaves_and_uplinks_are_refused_and_leave_the_cluster_alone(fabric):
    refused = fabric.cli("up", "2", "--leaves", "3", check=False)
    assert refused.returncode == 1
    assert "--leaves must be between 1 and the number of hosts (2), not 3" in refused.stderr
    unknown = fabric.cli("throttle-uplink", "leaf9", "100mbit", check=False)
    assert unknown.returncode == 1 and "no leaf named 'leaf9'" in unknown.stderr and "leaf1 leaf2" in unknown.stderr
    bad_rate = fabric.cli("throttle-uplink", "leaf1", "fast", check=False)
    assert bad_rate.returncode == 1 and "bad rate 'fast'" in bad_rate.stderr
    assert fabric.cli("status").returncode == 0


def test_down_removes_the_leaf_bridges_and_uplinks(fabric):
    fabric.down()
    links = subprocess.run(["ip", "-o", "link", "show"], capture_output=True, text=True, check=True).stdout
    names = [line.split(":")[1].strip().split("@")[0] for line in links.splitlines()]
    assert not [name for name in names if name.startswith(("cs-leaf", "cs-up", "cs-br0", "cs-vnode"))], names
