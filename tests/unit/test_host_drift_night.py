"""The nightly loop's hosts over time: `collect` keeps each entry's hosts over its stored
sweeps in the entry's folder, and a night (no database where it runs) adds its own locate
and publishes every host's drift beside its other metrics."""

from __future__ import annotations

import json

import numpy as np
import pytest
from test_schedule import _entry_command, table  # noqa: F401 (table: a fixture)
from test_schedule_night import HOSTS, _night, failing_entry

from commscope.cluster import host_drift
from commscope.records.invocation import invocation
from commscope.records.run import Pair, Point, Run
from commscope.store.db import Store
from commscope.sweep.simulate import Network

pytestmark = pytest.mark.slow  # a night of `schedule run` with a check and a locate

SLOW = "cn005"


def _stored_sweeps(db, nights: int, slow_from: int) -> None:
    """`nights` all-pairs sweeps of HOSTS labelled as the entry's runs, SLOW at half its speed
    from night `slow_from` on, each its own invocation a day apart."""
    a, b = np.triu_indices(len(HOSTS), 1)
    with Store(db) as store:
        for night in range(1, nights + 1):
            network = Network(seed=night, slow_nodes={SLOW: 0.5} if night >= slow_from else {})
            values = network.measure(0, "bw", [(HOSTS[i], HOSTS[j]) for i, j in zip(a, b)])
            points = [
                Point(None, {"bandwidth_MBps": float(value)}, pair=Pair(int(i), int(j), "bw", HOSTS[i], HOSTS[j]))
                for i, j, value in zip(a, b, values)
            ]
            run = Run(
                "pairs", label="latency", ranks=len(HOSTS), started_at=f"2026-01-{night:02d}T02:00:00+00:00",
                hosts=[{"name": host, "ranks": [rank]} for rank, host in enumerate(HOSTS)], points=points,
                provenance={"sweep": {"mode": "all-pairs"}},
            )  # fmt: skip
            store.add_run(run, store.add_invocation(invocation("sweep", ["commscope", "sweep", "all-pairs"])))


def _drift(text: str) -> dict[str, tuple[float, float]]:
    """Per host, (drift ratio, drifting) as the textfile says them."""
    found: dict[str, list[float]] = {}
    for line in text.splitlines():
        for family, place in (("commscope_drift_ratio{", 0), ("commscope_drifting{", 1)):
            if line.startswith(family):
                name = line.split('name="')[1].split('"')[0]
                found.setdefault(name, [0.0, 0.0])[place] = float(line.split()[-1])
    return {name: (ratio, drifting) for name, (ratio, drifting) in found.items()}


def test_a_night_publishes_each_hosts_drift_over_the_entrys_sweeps(cli, fake_core, table, db, tmp_path):  # noqa: F811
    prom = failing_entry(cli, db, tmp_path)  # the night's check fails: its locate runs, cn005 at half speed
    _stored_sweeps(db, nights=8, slow_from=5)
    assert cli("collect", "--db", db).exit_code == 0  # keeps the eight sweeps' hosts in the entry's folder
    folder = tmp_path / "xdg-data" / "commscope" / "schedule" / "latency"
    kept = json.loads((folder / host_drift.HOSTS_FILE).read_text())
    assert kept["hosts"] == HOSTS and len(kept["sweeps"]) == 8 and kept["metric"] == "bw"
    code, log, job = _night(table, db, tmp_path)
    assert code == 1 and "bad node cn005" in log, log
    drift = _drift((prom / "commscope_latency.prom").read_text())
    assert set(drift) == set(HOSTS)
    assert drift[SLOW][1] == 1.0 and drift[SLOW][0] > 1.6
    assert all(drift[host] == (1.0, 0.0) for host in HOSTS if host != SLOW)
    # collected, the night's locate joins the kept sweeps
    assert cli("collect", "--db", db).exit_code == 0
    assert len(json.loads((folder / host_drift.HOSTS_FILE).read_text())["sweeps"]) == 9


def test_a_damaged_kept_file_is_said_and_the_night_publishes_the_rest(tmp_path, capsys):
    (tmp_path / host_drift.HOSTS_FILE).write_text("{not json")
    assert host_drift.night_samples(tmp_path, []) == []
    assert f"cannot read {tmp_path / host_drift.HOSTS_FILE}" in capsys.readouterr().err
