"""Readers for storage throughput: fio's JSON output, IOzone's throughput-mode text, and
the storage tables of the standard-benchmarks page (Markdown tables and a ``<pre>`` block, rows per client
or process count).

A storage run is one sweep of the ``storage`` benchmark; each point is one client or
process count (its ``size`` holds the count, see :data:`COUNT_AXIS`) with the totals
over all processes (``seq_write_MBps``, ``seq_read_MBps``, ``rand_write_iops``,
``rand_read_iops``) and the same names with ``_per_process`` for the average of one.
MB/s is 10^6 bytes per second: fio's ``bw_bytes`` is divided by 10^6, IOzone's kB/s
(1024 bytes) multiplied by 1.024 / 1000.
"""

from __future__ import annotations

import json
import re
from typing import Any

from commscope.ingest.parse.errors import ParseError
from commscope.ingest.parse.model import ParsedRun, Point
from commscope.ingest.parse.table_blocks import find_tables
from commscope.ingest.parse.text import unwrap
from commscope.records.benchmarks import STORAGE_BENCHMARK
from commscope.records.metrics import PER_PROCESS, STORAGE_WORKLOADS

#: What a storage point's size means.
COUNT_AXIS = "processes"
TITLE = "storage: sequential throughput and random IOPS over client/process count"
_METRICS = {name: ("MB/s" if name.endswith("MBps") else "IOPS") for name in STORAGE_WORKLOADS}

# fio's rw= values and the workload they measure (the direction fio reports them under).
_FIO_WORKLOADS = {
    "write": ("seq_write_MBps", "write"),
    "read": ("seq_read_MBps", "read"),
    "randwrite": ("rand_write_iops", "write"),
    "randread": ("rand_read_iops", "read"),
}


def storage_point(
    count: int, totals: dict[str, float], line: int, per_process: dict[str, float] | None = None
) -> Point:
    """A point at `count` processes from totals (and per-process averages, else total / count)."""
    values: dict[str, float | int | str] = {}
    for name, total in totals.items():
        values[name] = total
        values[name + PER_PROCESS] = (per_process or {}).get(name, total / count)
    return Point(size=count, values=values, line=line)


def storage_run(
    points: list[Point],
    source: str,
    source_format: str,
    line: int,
    tool: str,
    version: str | None = None,
    label: str | None = None,
    **extra: Any,
) -> ParsedRun:
    return ParsedRun(
        benchmark=STORAGE_BENCHMARK,
        source_format=source_format,
        source=source,
        line=line,
        metrics=dict(_METRICS),
        points=sorted(points, key=lambda p: p.size or 0),
        tool=tool,
        tool_version=version,
        title=TITLE,
        label=label,
        parameters={"axis": COUNT_AXIS, **extra.pop("parameters", {})},
        **extra,
    )


# -- fio ------------------------------------------------------------------------------------


def json_start(text: str) -> int:
    """Where fio's JSON document starts: fio writes warnings ("fio: time_based requires...")
    into the same output before it."""
    index = text.find("\n{")
    return 0 if text.lstrip().startswith("{") else (index + 1 if index >= 0 else 0)


def looks_like_fio_json(text: str) -> bool:
    head = text[json_start(text) :][:400].lstrip()
    return head.startswith("{") and '"fio version"' in head


def fio_workload(job: dict) -> tuple[str, str] | None:
    """(metric, direction) of a fio job, from its rw option; None for mixed or trim jobs."""
    options = {**job.get("job options", {})}
    rw = options.get("rw") or options.get("readwrite") or "read"
    return _FIO_WORKLOADS.get(rw)


def fio_totals(documents: list[dict], source: str) -> tuple[int, dict[str, float], dict[str, Any]]:
    """(process count, totals per workload, settings) over fio JSON documents: the jobs of one
    workload are the processes (numjobs, or one fio per host); their bandwidths and IOPS add up."""
    per_workload: dict[str, list[float]] = {}
    settings: dict[str, Any] = {}
    for document in documents:
        global_options = document.get("global options", {})
        for job in document.get("jobs", []):
            options = {**global_options, **job.get("job options", {})}
            job = {**job, "job options": options}
            kind = fio_workload(job)
            if kind is None:
                raise ParseError(
                    source,
                    1,
                    f"fio job {job.get('jobname')!r} is rw={options.get('rw')}; "
                    "only write, read, randwrite and randread jobs are read",
                )
            if job.get("error"):
                raise ParseError(source, 1, f"fio job {job.get('jobname')!r} failed with error {job['error']}")
            metric, direction = kind
            side = job.get(direction, {})
            value = side.get("bw_bytes", 0) / 1e6 if metric.endswith("MBps") else side.get("iops", 0.0)
            per_workload.setdefault(metric, []).append(float(value))
            for key in ("bs", "size", "direct", "ioengine", "runtime", "iodepth"):
                if key in options:
                    settings.setdefault(f"{metric}:{key}", options[key])
    if not per_workload:
        raise ParseError(source, 1, "fio output without jobs")
    counts = {len(values) for values in per_workload.values()}
    if len(counts) != 1:
        raise ParseError(
            source,
            1,
            "fio jobs ran with different process counts per workload: "
            + ", ".join(f"{m} {len(v)}" for m, v in per_workload.items()),
        )
    return counts.pop(), {metric: sum(values) for metric, values in per_workload.items()}, settings


def read_fio_json(text: str, source: str) -> list[ParsedRun]:
    """fio --output-format=json: one point, at the number of jobs of each workload."""
    start = json_start(text)
    try:
        document = json.loads(text[start:])
    except json.JSONDecodeError as error:
        raise ParseError(source, error.lineno + text.count("\n", 0, start), f"invalid fio JSON: {error.msg}") from None
    count, totals, settings = fio_totals([document], source)
    version = str(document.get("fio version", "")).removeprefix("fio-") or None
    return [storage_run([storage_point(count, totals, 1)], source, "fio", 1, "fio", version, parameters=settings)]


# -- IOzone -----------------------------------------------------------------------------

_IOZONE_BANNER = re.compile(r"^\s*Iozone: Performance Test of File I/O")
_IOZONE_VERSION = re.compile(r"Version \$Revision: (?P<version>[\d.]+)")
_CHILDREN = re.compile(
    r"^\s*Children see throughput for\s+(?P<count>\d+)\s+(?P<what>.+?)\s*=\s*"
    r"(?P<value>[\d.]+)\s*(?P<unit>kB/sec|KB/sec|ops/sec)\s*$"
)
_AVERAGE = re.compile(r"^\s*Avg throughput per process\s*=\s*(?P<value>[\d.]+)\s*(?P<unit>kB/sec|KB/sec|ops/sec)")
_RECORD = re.compile(r"in\s+(?P<record>\d+)\s+[kK]Byte records")
_IOZONE_TESTS = {
    "initial writers": "seq_write_MBps",
    "writers": "seq_write_MBps",
    "readers": "seq_read_MBps",
    "random writers": "rand_write_iops",
    "random readers": "rand_read_iops",
    "rewriters": "rewrite_MBps",
    "re-readers": "reread_MBps",
}


def looks_like_iozone(lines: list[str]) -> bool:
    return any(_IOZONE_BANNER.match(line) for line in lines[:50])


def _iozone_value(metric: str, value: float, unit: str, record_kB: int | None, source: str, line: int) -> float:
    if unit == "ops/sec":
        if metric.endswith("iops"):
            return value
        if record_kB is None:
            raise ParseError(source, line, "IOzone reports ops/sec but the record size is not given")
        return value * record_kB * 1024 / 1e6
    if metric.endswith("iops"):
        if record_kB is None:
            raise ParseError(
                source,
                line,
                "IOzone random throughput in kB/sec needs the record size "
                "(the 'Each process writes ... in N kByte records' line)",
            )
        return value / record_kB
    return value * 1024 / 1e6  # kB/s -> MB/s (10^6 B/s)


def read_iozone(lines: list[str], source: str) -> list[ParsedRun]:
    """IOzone's throughput mode (-t N, or -+m across clients): one point at N processes."""
    version = next((m["version"] for m in map(_IOZONE_VERSION.search, lines[:40]) if m), None)
    record = next((int(m["record"]) for m in map(_RECORD.search, lines) if m), None)
    totals: dict[str, float] = {}
    averages: dict[str, float] = {}
    count = None
    first_line = None
    for index, line in enumerate(lines):
        match = _CHILDREN.match(line)
        if match is None:
            continue
        metric = _IOZONE_TESTS.get(" ".join(match["what"].split()))
        if metric is None:
            continue  # stride readers, mixed workload, pwrite...: not part of the sweep
        if count is not None and int(match["count"]) != count:
            raise ParseError(source, index + 1, f"IOzone output mixes {count} and {match['count']} processes")
        count = int(match["count"])
        first_line = first_line or index + 1
        totals[metric] = _iozone_value(metric, float(match["value"]), match["unit"], record, source, index + 1)
        for follow in range(index + 1, min(index + 6, len(lines))):
            average = _AVERAGE.match(lines[follow])
            if average:
                averages[metric] = _iozone_value(
                    metric, float(average["value"]), average["unit"], record, source, follow + 1
                )
                break
    if count is None:
        raise ParseError(source, 1, "IOzone output without throughput results (only throughput mode, -t N, is read)")
    extra = {"parameters": {"record_kB": record}} if record else {}
    return [
        storage_run(
            [storage_point(count, totals, first_line or 1, averages)],
            source,
            "iozone",
            first_line or 1,
            "IOzone",
            version,
            **extra,
        )
    ]


# -- the standard-benchmarks tables -------------------------------------------------------------

_COUNT_HEADER = re.compile(r"clients?\b.*\bprocess|#\s*(?:of\s+)?(?:clients|processes|procs)", re.IGNORECASE)
_HEADING = re.compile(r"^(?P<level>#{1,6})\s+(?P<text>.+?)\s*#*\s*$")


def _column_metric(header: str) -> str | None:
    text = header.lower()
    sequential = "sequential" in text or "seq" in text.split()
    if "random" in text and "write" in text:
        return "rand_write_iops"
    if "random" in text and "read" in text:
        return "rand_read_iops"
    if sequential and "write" in text:
        return "seq_write_MBps"
    if sequential and "read" in text:
        return "seq_read_MBps"
    return None


def _kind_of(heading: str) -> str | None:
    text = heading.lower()
    if "per process" in text or "per client" in text or "average" in text:
        return "per_process"
    if "total" in text or "overall" in text or "aggregate" in text:
        return "total"
    return None


def _count(cell: str, source: str, line: int) -> int:
    text = cell.strip()
    if not text.isdigit() or int(text) < 1:
        raise ParseError(source, line, f"client/process count {text!r} is not a positive whole number")
    return int(text)


def _value(cell: str, source: str, line: int, header: str) -> float | None:
    text = cell.replace(",", "").strip()
    if not text:
        return None
    try:
        return float(text)
    except ValueError:
        raise ParseError(source, line, f"column {header!r}: {cell.strip()!r} is not a number") from None


def read_storage_tables(lines: list[str], claimed: set[int], source: str) -> tuple[list[ParsedRun], set[int]]:
    """Tables whose first column counts clients or processes, under a heading saying whether
    they hold per-process averages or totals; the heading above that names the device (the
    run's label). A ``<pre>`` block titled "Total throughput" right after a device's table
    holds its totals in the columns of that table."""
    taken: set[int] = set()
    # device -> count -> kind -> metric -> value
    found: dict[str, dict[int, dict[str, dict[str, float]]]] = {}
    first_lines: dict[str, int] = {}
    headings: list[tuple[int, int, str]] = []  # (line, level, text)
    for index, line in enumerate(lines):
        match = _HEADING.match(line.strip())
        if match:
            headings.append((index + 1, len(match["level"]), match["text"]))
    for block in find_tables(lines, claimed):
        if not block.header or not _COUNT_HEADER.search(block.header[0]):
            continue
        metrics = [_column_metric(cell) for cell in block.header[1:]]
        if not any(metrics):
            continue
        above = [heading for heading in headings if heading[0] < block.first_line]
        kind = next((_kind_of(text) for _, _, text in reversed(above) if _kind_of(text)), None)
        if kind is None:
            raise ParseError(
                source,
                block.first_line,
                "storage table without a heading saying whether it holds per-process averages or totals",
            )
        kind_level = next(level for _, level, text in reversed(above) if _kind_of(text))
        device = (
            next((text for _, level, text in reversed(above) if level < kind_level and not _kind_of(text)), None)
            or "storage"
        )
        taken.update(range(block.first_line, block.last_line + 1))
        rows = [(line, cells) for line, cells in block.rows if any(cell.strip() for cell in cells)]
        for line, cells in rows:
            count = _count(cells[0], source, line)
            for metric, cell, header in zip(metrics, cells[1:], block.header[1:]):
                value = _value(cell, source, line, header) if metric else None
                if metric and value is not None:
                    found.setdefault(device, {}).setdefault(count, {}).setdefault(kind, {})[metric] = value
                    first_lines.setdefault(device, block.first_line)
        # A <pre> block of totals in this table's columns may follow.
        pre_taken = _pre_totals(lines, block.last_line, metrics, device, found, source)
        taken |= pre_taken
    runs = []
    for device, counts in found.items():
        points = []
        for count, kinds in sorted(counts.items()):
            totals = dict(kinds.get("total", {}))
            per_process = kinds.get("per_process", {})
            for metric, value in per_process.items():
                totals.setdefault(metric, value * count)
            points.append(storage_point(count, totals, first_lines[device], per_process))
        runs.append(storage_run(points, source, "table", first_lines[device], "IOzone", label=device))
    return runs, taken


def _pre_totals(
    lines: list[str], after: int, metrics: list[str | None], device: str, found: dict, source: str
) -> set[int]:
    """Rows of a "<pre> Total throughput" block starting within a few lines after a table
    (`after` is the table's last line, 1-based); returns the lines it took."""
    index = after
    while index < len(lines) and index < after + 4 and not lines[index].strip():
        index += 1
    if index >= len(lines) or not lines[index].strip().lower().startswith("<pre>"):
        return set()
    taken: set[int] = set()
    titled = False
    for number in range(index + 1, len(lines) + 1):
        raw = lines[number - 1]
        text = unwrap(raw)
        taken.add(number)
        if text and not titled:
            if _kind_of(text) != "total":
                return set()
            titled = True
        elif text:
            cells = text.split()
            if len(cells) != len(metrics) + 1:
                raise ParseError(
                    source,
                    number,
                    f"total throughput row has {len(cells)} numbers, the table above has {len(metrics) + 1} columns",
                )
            count = _count(cells[0], source, number)
            for metric, cell in zip(metrics, cells[1:]):
                value = _value(cell, source, number, metric or "")
                if metric and value is not None:
                    found.setdefault(device, {}).setdefault(count, {}).setdefault("total", {})[metric] = value
        if "</pre>" in raw.lower() or (titled and not text):
            break
    return taken
