"""commscope's metrics where operators look, with Debian's own Prometheus, Pushgateway and
node_exporter started on local ports: metrics pushed and written as a textfile are scraped,
and Prometheus' query API returns them with their labels and values; promtool accepts the
exposition and passes the shipped alerting rules' tests. Without the programs the tests
skip; with COMMSCOPE_REQUIRE_PROMETHEUS=1 (CI) they fail instead."""

from __future__ import annotations

import json
import os
import shutil
import socket
import subprocess
import time
import urllib.parse
import urllib.request
from collections.abc import Iterator
from pathlib import Path

import pytest

from fixtures.analysis.handmade import run_of, store_runs
from paths import REPO

PROGRAMS = ("prometheus", "prometheus-pushgateway", "prometheus-node-exporter", "promtool")
RULES_TEST = Path(__file__).with_name("alert_rules_test.yml")
#: Seconds the services get to start and Prometheus to scrape what was published.
PATIENCE_S = 60.0


@pytest.fixture(scope="module")
def programs() -> dict[str, str]:
    found = {name: shutil.which(name) for name in PROGRAMS}
    missing = [name for name, path in found.items() if path is None]
    if missing:
        reason = f"{', '.join(missing)} not installed (apt-get install prometheus prometheus-pushgateway ...)"
        if os.environ.get("COMMSCOPE_REQUIRE_PROMETHEUS") == "1":
            pytest.fail(reason)
        pytest.skip(reason)
    return found


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def _get(url: str) -> bytes:
    with urllib.request.urlopen(url, timeout=5) as answer:
        return answer.read()


def _wait_for(url: str, process: subprocess.Popen, log: Path) -> None:
    deadline = time.monotonic() + PATIENCE_S
    while time.monotonic() < deadline:
        if process.poll() is not None:
            pytest.fail(f"{process.args[0]} ended at start:\n{log.read_text()[-2000:]}")
        try:
            _get(url)
            return
        except OSError:
            time.sleep(0.2)
    pytest.fail(f"{url} did not answer within {PATIENCE_S:g} s:\n{log.read_text()[-2000:]}")


@pytest.fixture
def monitoring(programs, tmp_path) -> Iterator[dict]:
    """A Pushgateway, a node_exporter reading a textfile folder, and Prometheus scraping
    both every second, each on a free local port."""
    textfiles = tmp_path / "textfiles"
    textfiles.mkdir()
    ports = {name: _free_port() for name in ("pushgateway", "node", "prometheus")}
    config = tmp_path / "prometheus.yml"
    config.write_text(
        json.dumps(  # JSON is YAML
            {
                "global": {"scrape_interval": "1s", "evaluation_interval": "1s"},
                "scrape_configs": [
                    {
                        "job_name": "pushgateway",
                        "honor_labels": True,  # the pushed job and group labels stay as pushed
                        "static_configs": [{"targets": [f"127.0.0.1:{ports['pushgateway']}"]}],
                    },
                    {"job_name": "node", "static_configs": [{"targets": [f"127.0.0.1:{ports['node']}"]}]},
                ],
            }
        )
    )
    commands = {
        "pushgateway": [programs["prometheus-pushgateway"], f"--web.listen-address=127.0.0.1:{ports['pushgateway']}"],
        "node": [
            programs["prometheus-node-exporter"],
            f"--web.listen-address=127.0.0.1:{ports['node']}",
            "--collector.disable-defaults",
            "--collector.textfile",
            f"--collector.textfile.directory={textfiles}",
        ],
        "prometheus": [
            programs["prometheus"],
            f"--config.file={config}",
            f"--storage.tsdb.path={tmp_path / 'tsdb'}",
            f"--web.listen-address=127.0.0.1:{ports['prometheus']}",
        ],
    }
    started = []
    try:
        for name, argv in commands.items():
            log = tmp_path / f"{name}.log"
            with log.open("wb") as out:
                process = subprocess.Popen(argv, stdout=out, stderr=subprocess.STDOUT, cwd=tmp_path)
            started.append(process)
            ready = "/-/ready" if name == "prometheus" else "/metrics"
            _wait_for(f"http://127.0.0.1:{ports[name]}{ready}", process, log)
        yield {"textfiles": textfiles, **{name: f"http://127.0.0.1:{port}" for name, port in ports.items()}}
    finally:
        for process in started:
            process.terminate()
        for process in started:
            try:
                process.wait(timeout=10)
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait()


def _query(prometheus: str, expression: str) -> list[dict]:
    answer = json.loads(_get(f"{prometheus}/api/v1/query?" + urllib.parse.urlencode({"query": expression})))
    assert answer["status"] == "success", answer
    return answer["data"]["result"]


def _scraped(prometheus: str, expression: str, count: int) -> list[dict]:
    """The query's result once Prometheus has scraped `count` series of it."""
    deadline = time.monotonic() + PATIENCE_S
    while time.monotonic() < deadline:
        found = _query(prometheus, expression)
        if len(found) >= count:
            return found
        time.sleep(0.5)
    pytest.fail(f"Prometheus has no {count} series of {expression} after {PATIENCE_S:g} s: {found}")


def test_pushed_and_textfile_metrics_are_scraped_with_their_labels(cli, db, monitoring, programs, tmp_path):
    store_runs(db, [run_of({1: 1.5, 8: 1.7, 1024: 3.0}, system="vm", label="nightly")])
    exposition = tmp_path / "runs.om"
    result = cli(
        "export",
        "last",
        "--format",
        "openmetrics",
        "-o",
        exposition,
        "--textfile",
        monitoring["textfiles"],
        "--push",
        monitoring["pushgateway"],
        "--db",
        db,
    )
    assert result.exit_code == 0, result.output
    for path in (exposition, monitoring["textfiles"] / "commscope_runs.prom"):
        checked = subprocess.run([programs["promtool"], "check", "metrics"], stdin=path.open(), capture_output=True)
        assert checked.returncode == 0, checked.stdout + checked.stderr

    found = _scraped(monitoring["prometheus"], 'commscope_latency_seconds{size="8"}', 2)
    by_job = {series["metric"]["job"]: series for series in found}
    assert set(by_job) == {"commscope", "node"}  # the Pushgateway keeps the pushed job label
    assert by_job["commscope"]["metric"]["group"] == "runs"
    for series in found:
        labels = series["metric"]
        assert (labels["system"], labels["benchmark"], labels["label"], labels["metric"]) == (
            "vm",
            "latency",
            "nightly",
            "latency_us",
        )
        assert float(series["value"][1]) == 1.7e-06
    headline = _scraped(monitoring["prometheus"], "commscope_headline_latency_seconds", 2)
    assert {series["metric"]["size"] for series in headline} == {"1-8 B"}
    assert {float(series["value"][1]) for series in headline} == {1.6e-06}


def test_the_shipped_alerting_rules_pass_their_tests(programs):
    rules = subprocess.run(
        [programs["promtool"], "check", "rules", str(REPO / "python/commscope/monitoring/commscope-alerts.yml")],
        capture_output=True,
        text=True,
    )
    assert rules.returncode == 0, rules.stdout + rules.stderr
    tested = subprocess.run(
        [programs["promtool"], "test", "rules", RULES_TEST.name], cwd=RULES_TEST.parent, capture_output=True, text=True
    )
    assert tested.returncode == 0, tested.stdout + tested.stderr
    assert "SUCCESS" in tested.stdout
