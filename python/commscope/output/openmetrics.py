"""Monitoring samples (analysis/monitoring.py) where operators look, written by Prometheus'
official Python client: OpenMetrics text (`--format openmetrics`), a file for
node_exporter's textfile collector (`--textfile DIR`, written atomically: a scrape never
sees half a file), or a push to a Pushgateway (`--push URL`).

Every metric is a gauge: each is the newest value of something measured, never a count
that only grows.
"""

from __future__ import annotations

import functools
import http.client
import socket
import threading
import urllib.error
import urllib.request
from collections.abc import Iterator, Sequence
from pathlib import Path

from commscope.analysis.monitoring import Family, Sample
from commscope.errors import CommscopeError, UsageError

#: The alerting rules shipped with the package (a regression, a bad node, a run that failed,
#: a check that did not run for two days), for Prometheus' rule_files.
ALERT_RULES = Path(__file__).resolve().parents[1] / "monitoring" / "commscope-alerts.yml"
#: The Pushgateway job commscope pushes under; the grouping key adds what was published.
PUSH_JOB = "commscope"
#: Seconds a push may take, all of it (connecting, sending, the whole answer), before it is
#: given up: a Pushgateway that hangs, or trickles its answer a byte at a time, must not
#: hold a nightly check.
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
    """Replace the metrics of this grouping key on the Pushgateway at `url` (checked by the
    command line: no user name or password in it, nothing printed that it should not be),
    within PUSH_TIMEOUT_S all told. Whatever the address answers, a PublishError."""
    from prometheus_client import push_to_gateway

    deadline = _Deadline(PUSH_TIMEOUT_S)
    try:
        with deadline:
            push_to_gateway(
                url,
                job=PUSH_JOB,
                registry=registry(samples),
                grouping_key=grouping,
                timeout=PUSH_TIMEOUT_S,
                handler=deadline.handler,
            )
    except urllib.error.HTTPError as exc:
        raise PublishError(f"--push {url}: the Pushgateway refused the metrics: HTTP {exc.code} {exc.reason}") from None
    except (urllib.error.URLError, OSError, ValueError, http.client.HTTPException) as exc:
        reason = getattr(exc, "reason", None) or exc
        if deadline.expired or isinstance(reason, TimeoutError):
            reason = f"timed out (no whole answer within {PUSH_TIMEOUT_S:g} s)"
        elif isinstance(exc, http.client.HTTPException):
            reason = f"its answer is not HTTP as a Pushgateway speaks it ({type(exc).__name__}: {str(exc)[:200]})"
        raise PublishError(f"--push {url}: cannot reach the Pushgateway: {reason}") from None


class _Deadline:
    """One time limit for a whole push: the sockets it opened are shut down when it passes,
    which ends a read that a socket's own timeout would restart at every byte."""

    def __init__(self, seconds: float) -> None:
        self.expired = False
        self._sockets: list[socket.socket] = []
        self._lock = threading.Lock()
        self._timer = threading.Timer(seconds, self._cut)
        self._timer.daemon = True

    def __enter__(self) -> _Deadline:
        self._timer.start()
        return self

    def __exit__(self, *exc) -> None:
        self._timer.cancel()

    def watch(self, sock: socket.socket) -> None:
        with self._lock:
            self._sockets.append(sock)
            expired = self.expired
        if expired:
            self._cut()

    def _cut(self) -> None:
        with self._lock:
            self.expired = True
            sockets = list(self._sockets)
        for sock in sockets:
            try:
                sock.shutdown(socket.SHUT_RDWR)
            except OSError:
                pass  # closed already

    def handler(self, url: str, method: str, timeout: float | None, headers, data: bytes):
        """prometheus_client's push handler: urllib as its own (proxies included), with
        connections this deadline watches."""

        def handle() -> None:
            request = urllib.request.Request(url, data=data, method=method)
            for name, value in headers:
                request.add_header(name, value)
            opener = urllib.request.build_opener(_HTTPHandler(self), _HTTPSHandler(self))
            with opener.open(request, timeout=timeout) as answer:
                if answer.status >= 400:  # urllib raises HTTPError first; kept as prometheus_client does
                    raise OSError(f"HTTP {answer.status} {answer.reason}")

        return handle


class _Watched:
    """A connection that hands its socket to the deadline once connected."""

    def __init__(self, *args, deadline: _Deadline, **kwargs) -> None:
        super().__init__(*args, **kwargs)
        self._deadline = deadline

    def connect(self) -> None:
        super().connect()
        self._deadline.watch(self.sock)


class _Connection(_Watched, http.client.HTTPConnection):
    pass


class _TLSConnection(_Watched, http.client.HTTPSConnection):
    pass


class _HTTPHandler(urllib.request.HTTPHandler):
    def __init__(self, deadline: _Deadline) -> None:
        super().__init__()
        self._deadline = deadline

    def http_open(self, req):
        return self.do_open(functools.partial(_Connection, deadline=self._deadline), req)


class _HTTPSHandler(urllib.request.HTTPSHandler):
    def __init__(self, deadline: _Deadline) -> None:
        super().__init__()
        self._deadline = deadline

    def https_open(self, req):
        return self.do_open(functools.partial(_TLSConnection, deadline=self._deadline), req, context=self._context)
