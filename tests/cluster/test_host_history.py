"""`history --link` over stored all-pairs sweeps of the four virtual hosts, with both MPI
libraries: vnode3's link is throttled (`vcluster throttle`) from the fourth night on, and the
history of a pair of it regresses between the third and the fourth sweep, while a pair of
two healthy hosts keeps its level. Every night's sweep crossed vnode3's veth (its byte
counters say so), throttled or not."""

from __future__ import annotations

import json
import subprocess

import pytest

from cluster.test_sweep import COMMSCOPE, RATE, environment, flavour, sweep  # noqa: F401 (flavour: the MPI fixture)
from cluster_support import VCluster, shared_dir

pytestmark = [pytest.mark.cluster, pytest.mark.timing]  # each night judges measured speeds

NIGHTS, THROTTLED_FROM = 6, 4
#: 6 MiB a pair crosses vnode3's veth with each of its three partners, both ways
LEAST_BYTES = 3 * 6 * 2**20


def test_a_throttled_link_regresses_from_the_night_it_was_throttled(vcluster4: VCluster, flavour):  # noqa: F811
    label = f"nights-{flavour[0]}"
    db = shared_dir() / f"host-history-{flavour[0]}.db"  # these nights alone
    db.unlink(missing_ok=True)
    crossed = []
    try:
        for night in range(1, NIGHTS + 1):
            if night == THROTTLED_FROM:
                vcluster4.cli("throttle", "vnode3", RATE)
            before = vcluster4.veth_bytes("vnode3")
            result, _ = sweep(vcluster4, flavour, "--label", label, "--no-retest", "--db", str(db), metrics="bw")
            assert result.returncode in (0, 1), result.stdout + result.stderr
            crossed.append(vcluster4.veth_bytes("vnode3") - before)
    finally:
        vcluster4.cli("unthrottle", "vnode3")
    assert all(count > LEAST_BYTES for count in crossed), f"bytes through vnode3's veth each night: {crossed}"

    def history(*args: str) -> subprocess.CompletedProcess:
        argv = [*COMMSCOPE, "history", f"label:{label}", "--db", str(db), "--format", "json", *args]
        return subprocess.run(argv, capture_output=True, text=True, timeout=120, env=environment(vcluster4, flavour))

    drifted = history("--link", "vnode3,vnode2")
    assert drifted.returncode == 1, drifted.stdout + drifted.stderr
    document = json.loads(drifted.stdout)
    [series] = document["series"]
    sweeps = [each["id"] for each in document["sweeps"]]
    assert len(sweeps) == NIGHTS
    assert series["link"] == "vnode2,vnode3" and series["regressed"]
    change = series["changes"][-1]
    assert (change["before_run"], change["after_run"]) == (sweeps[THROTTLED_FROM - 2], sweeps[THROTTLED_FROM - 1])
    # 400 Mbit/s against what healthy pairs move here: 3.2x (MPICH) to 6.5x (Open MPI) with
    # four hosts busy on two cores, up to 20x on a quiet machine
    assert change["ratio"] > 2, change
    healthy = history("--link", "vnode1,vnode2")
    assert not json.loads(healthy.stdout)["regressed"], healthy.stdout
