"""Stored runs and history series as Prometheus metrics: `export --format openmetrics`,
`--textfile DIR` and `--push URL`, `history --format openmetrics`. The exposition is read
back with prometheus_client's own parser; a Pushgateway that is down or hangs is said once
and loses nothing stored. (Prometheus, node_exporter and a Pushgateway scraping them for
real: tests/monitoring/test_prometheus.py.)"""

from __future__ import annotations

import json
import shlex
import socket
import sys
import threading

import pytest
from prometheus_client.openmetrics.parser import text_string_to_metric_families as openmetrics_families
from prometheus_client.parser import text_string_to_metric_families as text_families

from commscope.records.run import Axes, Point, Run
from commscope.store.db import Store
from fixtures.analysis.handmade import run_of, store_runs

SIMULATE = f"{shlex.quote(sys.executable)} -m commscope.sweep.simulate"


def samples_of(text: str, parse=openmetrics_families) -> dict[str, list]:
    """Each metric's samples, by name."""
    found: dict[str, list] = {}
    for family in parse(text):
        for sample in family.samples:
            found.setdefault(sample.name, []).append(sample)
    return found


def one(found: dict[str, list], name: str, **labels):
    matching = [sample for sample in found.get(name, []) if all(sample.labels.get(k) == v for k, v in labels.items())]
    assert len(matching) == 1, (name, labels, found.get(name))
    return matching[0]


def ended(run: Run, stamp: str) -> Run:
    run.started_at = run.ended_at = stamp
    return run


def test_a_run_in_base_units_with_its_headline_and_labels(cli, db):
    latency = ended(
        run_of({1: 1.5, 4: 1.6, 8: 1.7, 1024: 3.0}, system="vm", label="nightly"), "2026-11-28T01:00:00+00:00"
    )
    bw = ended(
        run_of({8: 100.0, 4194304: 9000.0}, metric="bandwidth_MBps", benchmark="bw", system="vm", label="nightly"),
        "2026-11-28T01:05:00+00:00",
    )
    store_runs(db, [latency, bw])
    result = cli("export", "1", "2", "--format", "openmetrics", "--db", db)
    assert result.exit_code == 0, result.output
    assert result.stdout.endswith("# EOF\n")
    found = samples_of(result.stdout)
    assert one(found, "commscope_latency_seconds", benchmark="latency", size="8").value == 1.7e-06
    assert one(found, "commscope_latency_seconds", size="1024").labels == {
        "system": "vm",
        "benchmark": "latency",
        "label": "nightly",
        "metric": "latency_us",
        "size": "1024",
        "variant": "",
    }
    # the headline: point-to-point latency over 0-8 B (the median), bandwidth at the largest size
    assert one(found, "commscope_headline_latency_seconds", size="1-8 B").value == 1.6e-06
    assert one(found, "commscope_headline_bandwidth_bytes_per_second", size="4 MiB").value == 9.0e09
    assert one(found, "commscope_bandwidth_bytes_per_second", size="8").value == 1.0e08
    assert one(found, "commscope_run_info", benchmark="bw").labels["run"] == "2"
    assert one(found, "commscope_run_complete", benchmark="latency").value == 1
    assert (
        one(found, "commscope_run_end_timestamp_seconds", benchmark="bw").value == 1795827900.0
    )  # 2026-11-28 01:05 UTC


def test_the_newest_run_speaks_for_a_series_whatever_the_order(cli, db):
    store_runs(
        db,
        [
            ended(run_of({8: 5.0}, system="vm", label="nightly"), "2026-11-27T01:00:00+00:00"),
            ended(run_of({8: 2.0}, system="vm", label="nightly"), "2026-11-28T01:00:00+00:00"),
            ended(run_of({8: 9.0}, system="vm", label="other"), "2026-11-26T01:00:00+00:00"),
        ],
    )
    for order in (("1", "2", "3"), ("2", "1", "3")):
        found = samples_of(cli("export", *order, "--format", "openmetrics", "--db", db).stdout)
        assert one(found, "commscope_latency_seconds", label="nightly").value == 2.0e-06
        assert one(found, "commscope_latency_seconds", label="other").value == 9.0e-06
        assert one(found, "commscope_run_info", label="nightly").labels["run"] == "2"


def test_a_textfile_for_node_exporter_is_written_whole_under_its_group(cli, db, tmp_path):
    store_runs(db, [run_of({8: 2.0}, system="vm", label="nightly")])
    folder = tmp_path / "textfiles"
    folder.mkdir()
    result = cli("export", "last", "--textfile", folder, "--db", db)
    assert result.exit_code == 0, result.output
    assert result.stdout == ""  # no --format: nothing on stdout
    assert f"wrote the metrics to {folder / 'commscope_runs.prom'}" in result.stderr
    found = samples_of((folder / "commscope_runs.prom").read_text(), text_families)
    assert one(found, "commscope_latency_seconds", size="8").value == 2.0e-06
    assert cli("export", "last", "--textfile", folder, "--group", "nightly-vm", "--db", db).exit_code == 0
    assert sorted(path.name for path in folder.iterdir()) == ["commscope_nightly-vm.prom", "commscope_runs.prom"]


@pytest.mark.parametrize(
    ("args", "message"),
    [
        ((), "give --format csv, json or openmetrics, or publish with --textfile DIR or --push URL"),
        (("-o", "x.prom"), "-o FILE writes the --format asked for: give --format too"),
        (("--push", "pushgateway:9091"), "give the Pushgateway's http:// or https:// address"),
        (("--textfile", "/tmp", "--group", "a/b"), "'a/b': use 1-64 letters, digits, _ or -"),
        (("--textfile", "/no/such/folder"), "--textfile /no/such/folder: no such folder"),
    ],
)
def test_what_cannot_be_published_is_a_usage_error(cli, db, args, message):
    store_runs(db, [run_of({8: 2.0})])
    result = cli("export", "last", *args, "--db", db)
    assert result.exit_code == 2
    assert message in result.output


def test_a_textfile_that_cannot_be_written_is_said_once_and_the_rest_is_done(cli, db):
    store_runs(db, [run_of({8: 2.0})])
    result = cli("export", "last", "--format", "openmetrics", "--textfile", "/proc/self", "--db", db)
    assert result.exit_code == 1
    assert result.stderr.count("--textfile /proc/self: cannot write commscope_runs.prom") == 1
    assert "commscope_latency_seconds" in result.stdout


def _closed_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def test_a_pushgateway_that_is_down_is_said_once_and_nothing_stored_is_lost(cli, db):
    store_runs(db, [run_of({8: 2.0}), run_of({8: 3.0})])
    url = f"http://127.0.0.1:{_closed_port()}"
    result = cli("export", "1", "2", "--format", "openmetrics", "--push", url, "--db", db)
    assert result.exit_code == 1
    assert result.stderr.count(f"--push {url}: cannot reach the Pushgateway") == 1
    assert "Connection refused" in result.stderr
    assert "commscope_latency_seconds" in result.stdout
    with Store(db, readonly=True) as store:
        assert [store.run(run_id).points[0].metrics["latency_us"] for run_id in (1, 2)] == [2.0, 3.0]


def test_a_pushgateway_that_hangs_is_given_up_after_its_timeout(cli, db, monkeypatch):
    from commscope.output import openmetrics

    monkeypatch.setattr(openmetrics, "PUSH_TIMEOUT_S", 0.5)
    store_runs(db, [run_of({8: 2.0})])
    with socket.socket() as server:  # accepts the connection, never answers
        server.bind(("127.0.0.1", 0))
        server.listen()
        held = []
        threading.Thread(target=lambda: held.append(server.accept()), daemon=True).start()
        url = f"http://127.0.0.1:{server.getsockname()[1]}"
        result = cli("export", "last", "--push", url, "--db", db)
    assert result.exit_code == 1
    assert result.stderr.count(f"--push {url}: cannot reach the Pushgateway: timed out") == 1


def _spread_runs(values: list[float]) -> list[Run]:
    return [
        ended(run_of({8: value}, system="vm", label="nightly", spread=0.01), f"2026-11-{10 + day:02d}T01:00:00+00:00")
        for day, value in enumerate(values)
    ]


def test_history_publishes_each_series_regression(cli, db, tmp_path):
    bandwidth = [
        ended(
            run_of({4194304: value}, metric="bandwidth_MBps", benchmark="bw", system="vm", label="nightly"),
            f"2026-11-{10 + day:02d}T02:00:00+00:00",
        )
        for day, value in enumerate([9000.0, 9010.0, 8990.0, 9000.0, 9005.0, 8995.0])
    ]
    for run in _spread_runs([1.0, 1.01, 0.99, 1.0, 1.5, 1.52, 1.49, 1.5]) + bandwidth:
        store_runs(db, [run])  # a night each: one invocation, one repeat group
    folder = tmp_path / "textfiles"
    folder.mkdir()
    result = cli("history", "--format", "openmetrics", "--textfile", folder, "--db", db)
    assert result.exit_code == 1  # the regression
    found = samples_of(result.stdout)
    latency = one(found, "commscope_history_regression", benchmark="latency")
    assert latency.value == 1 and latency.labels["size"] == "8 B" and latency.labels["label"] == "nightly"
    assert one(found, "commscope_history_level_change_ratio", benchmark="latency").value == pytest.approx(1.5, rel=0.02)
    assert one(found, "commscope_history_regression", benchmark="bw").value == 0
    assert one(found, "commscope_history_change_points", benchmark="bw").value == 0
    written = samples_of((folder / "commscope_history.prom").read_text(), text_families)
    assert one(written, "commscope_history_regression", benchmark="latency").value == 1


@pytest.mark.slow
def test_a_locate_sweep_publishes_each_hosts_verdict(cli, db, tmp_path, clean_env):
    hosts = [f"cn{i:03d}" for i in range(40)]
    network = tmp_path / "network.json"
    network.write_text(json.dumps({"seed": 7, "slow_nodes": {"cn017": 0.5}}))
    oracle = f"{SIMULATE} {shlex.quote(str(network))}"
    located = cli("sweep", "locate", "--hosts", ",".join(hosts), "--oracle", oracle, "--seed", "2", "--db", db)
    assert located.exit_code == 1, located.output
    found = samples_of(cli("export", "last", "--format", "openmetrics", "--db", db).stdout)
    verdicts = {sample.labels["host"]: sample.value for sample in found["commscope_sweep_host_bad"]}
    assert verdicts["cn017"] == 1
    assert [host for host, bad in verdicts.items() if bad] == ["cn017"]
    assert len(verdicts) == 40 and {sample.labels["metric"] for sample in found["commscope_sweep_host_bad"]} == {"bw"}
    assert "commscope_bandwidth_bytes_per_second" not in found  # not a gauge per pair of hosts


def test_a_congestion_run_publishes_its_impact_factors(cli, db):
    def point(canary, congestor, impact):
        return Point(
            size=8,
            metrics={"impact_avg": impact, "impact_p99": impact * 2},
            axes=Axes(canary=canary, congestor=congestor),
        )

    run = Run(benchmark="congestion", system="vm", points=[point("rr_lat", "alltoall", 2.5)])
    store_runs(db, [run])
    found = samples_of(cli("export", "last", "--format", "openmetrics", "--db", db).stdout)
    impact = one(found, "commscope_congestion_impact_ratio", canary="rr_lat", congestor="alltoall", statistic="p99")
    assert impact.value == 5.0
