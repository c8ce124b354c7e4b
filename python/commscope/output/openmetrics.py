"""Monitoring samples (analysis/monitoring.py) where operators look, written by Prometheus'
official Python client: OpenMetrics text (`--format openmetrics`), a file for
node_exporter's textfile collector (`--textfile DIR`, written atomically: a scrape never
sees half a file), or a push to a Pushgateway (`--push URL`).

Every metric is a gauge: each is the newest value of something measured, never a count
that only grows.
"""

from __future__ import annotations

import urllib.error
from collections.abc import Iterator, Sequence
from pathlib import Path

from commscope.analysis.monitoring import Family, Sample
from commscope.errors import CommscopeError, UsageError

#: The alerting rules shipped with the package (a regression, a bad node, a run that failed,
#: a check that did not run for two days), for Prometheus' rule_files.
ALERT_RULES = Path(__file__).resolve().parents[1] / "monitoring" / "commscope-alerts.yml"
#: The Pushgateway job commscope pushes under; the grouping key adds what was published.
PUSH_JOB = "commscope"
#: Seconds a push may take before it is given up: a Pushgateway that hangs must not hold a
#: nightly check.
PUSH_TIMEOUT_S = 10.0


class PublishError(CommscopeError):
    """Metrics could not be published; what was measured and stored is not touched."""


class _Samples:
    """A prometheus_client collector of fixed samples: one gauge family per metric."""

    def __init__(self, samples: Sequence[Sample]) -> None:
        self.samples = samples  # one per series (analysis.monitoring.newest)

    def collect(self) -> Iterator:
        from prometheus_client.core import GaugeMetricFamily

        families: dict[str, tuple[Family, list[Sample]]] = {}
        for sample in self.samples:
            families.setdefault(sample.family.name, (sample.family, []))[1].append(sample)
        for family, members in families.values():
            gauge = GaugeMetricFamily(family.name, family.help, labels=family.labels)
            for sample in members:
                gauge.add_metric(list(sample.labels), sample.value)
            yield gauge


def registry(samples: Sequence[Sample]):
    from prometheus_client import CollectorRegistry

    found = CollectorRegistry(auto_describe=False)
    found.register(_Samples(samples))
    return found


def openmetrics_text(samples: Sequence[Sample]) -> str:
    """The OpenMetrics exposition (ends with `# EOF`)."""
    from prometheus_client.openmetrics.exposition import generate_latest

    return generate_latest(registry(samples)).decode()


def write_textfile(samples: Sequence[Sample], folder: Path, name: str) -> Path:
    """`folder/name.prom` in Prometheus' text format, as node_exporter's textfile collector
    reads it, replaced whole by a rename."""
    from prometheus_client import write_to_textfile

    if not folder.is_dir():
        raise UsageError(f"--textfile {folder}: no such folder (node_exporter's --collector.textfile.directory)")
    path = folder / f"{name}.prom"
    try:
        write_to_textfile(str(path), registry(samples))
    except OSError as exc:
        raise PublishError(f"--textfile {folder}: cannot write {path.name}: {exc.strerror or exc}") from None
    return path


def push_to(samples: Sequence[Sample], url: str, grouping: dict[str, str]) -> None:
    """Replace the metrics of this grouping key on the Pushgateway at `url`."""
    from prometheus_client import push_to_gateway

    try:
        push_to_gateway(url, job=PUSH_JOB, registry=registry(samples), grouping_key=grouping, timeout=PUSH_TIMEOUT_S)
    except urllib.error.HTTPError as exc:
        raise PublishError(f"--push {url}: the Pushgateway refused the metrics: HTTP {exc.code} {exc.reason}") from None
    except (urllib.error.URLError, OSError, ValueError) as exc:
        reason = getattr(exc, "reason", None) or exc
        raise PublishError(f"--push {url}: cannot reach the Pushgateway: {reason}") from None
