"""Reader for the JSON document nccl-tests writes with ``-J FILE`` (its version 3 layout,
src/util.cu): the same test as its text output, as data.

    {"version": 3, "start_time": ..., "args": [".../all_reduce_perf", "-b", "8", ...],
     "env": [...], "nccl_version": 22809,
     "config": {"nthreads": 1, "ngpus": 1, "minimum_bytes": 8, ..., "devices": [
         {"rank": 0, "group": 0, "pid": 1887, "hostname": "worker-1", "device": 0,
          "device_hex": "0000:8d:00", "device_info": "NVIDIA H100 80GB HBM3"}, ...]},
     "results": [{"size": 8, "count": 2, "type": "float", "redop": "sum", "root": "    -1",
                  "out_of_place": {"time": 42.5, "alg_bw": 0.0, "bus_bw": 0.0, "nwrong": 0.0},
                  "in_place": {...}, "out_of_place_per_iter": {...}, ...}, ...],
     "out_of_bounds": {"count": 0, "okay": true},
     "average_bus_bandwidth": {"bandwidth": 0.153, "okay": "unchecked"}, "errors": [], ...}

The program is the first of ``args``. The environment is not kept (it is the whole
environment of rank 0; the stored source file keeps it, redacted).
"""

from __future__ import annotations

import json
import re
from typing import Any

from commscope.ingest.parse.errors import ParseError
from commscope.ingest.parse.model import ParsedRun, Point
from commscope.ingest.parse.nccl_tests_runs import Test, add_point, build_runs, side_values, whole_number

_FORMAT = "nccl-tests-json"
# nccl-tests' own key (commscope's documents say busbw_GBps, and in_place for an option)
_MARK = re.compile(r'"bus_bw"\s*:')
_RESULTS = re.compile(r'"results"\s*:')

#: A side's keys in the document -> metric (nwrong is a double, null without validation).
_SIDE = {
    "time": "latency_us",
    "cpu_time": "cpu_time_us",
    "alg_bw": "algbw_GBps",
    "bus_bw": "busbw_GBps",
    "nwrong": "validation_errors",
}
_REQUIRED = ("alg_bw", "bus_bw", "nwrong")
#: The layouts read (JSON_FILE_VERSION of nccl-tests' src/util.cu): 1 (October 2025), 2 with
#: -I's per-iteration summary (June 2026), 3 with its skipped iterations. A later version
#: may move or rename what is read here, so it is refused rather than read as if it were 3.
VERSIONS = (1, 2, 3)
#: -I's per-iteration summary beside each side (the raw times stay in the stored file).
_PER_ITERATION = {
    "min_us": "iteration_min_us",
    "max_us": "iteration_max_us",
    "avg_us": "iteration_avg_us",
    "p50_us": "iteration_p50_us",
    "p95_us": "iteration_p95_us",
    "p99_us": "iteration_p99_us",
    "stdev_us": "iteration_stdev_us",
    "cv_pct": "iteration_cv_pct",
    "skipped_iterations": "iterations_skipped",
}
_SETTINGS = {
    "nthreads": "threads",
    "ngpus": "gpus_per_thread",
    "minimum_bytes": "min_size",
    "maximum_bytes": "max_size",
    "step_factor": "step_factor",
    "step_bytes": "step_bytes",
    "warmup_iters": "warmup_iters",
    "iterations": "iters",
    "aggregated_iterations": "agg_iters",
    "validation": "validation",
    "graph": "graph",
}


def looks_like_nccl_tests_json(text: str) -> bool:
    head = text.lstrip()
    return head.startswith("{") and _MARK.search(text) is not None and _RESULTS.search(text) is not None


def _number(value: Any, where: str, source: str, line: int, whole: bool = False) -> float | int | None:
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise ParseError(source, line, f"{where}: {json.dumps(value)} is not a number")
    if whole:
        if not float(value).is_integer():
            raise ParseError(source, line, f"{where}: {value} is not a whole number")
        return whole_number(where, value, source, line)
    return float(value)


def _side(result: dict, key: str, index: int, source: str, line: int) -> dict[str, float | int] | None:
    side = result.get(key)
    if side is None:
        return None  # nccl-tests writes null for a side it did not run
    where = f"results[{index}].{key}"
    if not isinstance(side, dict):
        raise ParseError(source, line, f"{where} is not an object")
    if "time" not in side and "cpu_time" not in side:
        raise ParseError(source, line, f"{where} has no time")
    for name in _REQUIRED:
        if name not in side:
            raise ParseError(source, line, f"{where} has no {name}")
    named = {
        metric: _number(side[name], f"{where}.{name}", source, line, whole=metric == "validation_errors")
        for name, metric in _SIDE.items()
        if name in side
    }
    per_iteration = result.get(f"{key}_per_iter")
    if isinstance(per_iteration, dict):
        for name, metric in _PER_ITERATION.items():
            if name in per_iteration:
                value = per_iteration[name]
                named[metric] = _number(value, f"{where}_per_iter.{name}", source, line, whole=name.startswith("skip"))
    return side_values(named, key == "in_place")


def _device(device: Any, source: str, line: int) -> dict[str, Any]:
    if not isinstance(device, dict) or "rank" not in device or "hostname" not in device:
        raise ParseError(source, line, f"config.devices: {json.dumps(device)[:80]} is not a device")
    return {
        "rank": device["rank"],
        "host": device["hostname"],
        "device": device.get("device"),
        "pci_bus_id": device.get("device_hex"),
        "name": device.get("device_info") or None,
        "pid": device.get("pid"),
        "group": device.get("group"),
    }


def read_nccl_tests_json(text: str, source: str, given: str | None = None) -> list[ParsedRun]:
    """The test of an nccl-tests -J document: a run per datatype, op and root; `given` is
    the program --benchmark names (checked against the document's own)."""
    try:
        document = json.loads(text)
    except json.JSONDecodeError as error:
        raise ParseError(source, error.lineno, f"not valid JSON: {error.msg} (truncated file?)") from None
    line = 1  # nccl-tests writes the whole document on one line
    if not isinstance(document, dict) or not isinstance(document.get("results"), list):
        raise ParseError(source, line, "an nccl-tests JSON document needs a 'results' list")
    version = document.get("version")
    if isinstance(version, bool) or version not in VERSIONS:
        raise ParseError(
            source,
            line,
            f"nccl-tests JSON version {json.dumps(version)[:40]}: commscope reads versions "
            f"{', '.join(map(str, VERSIONS))} (a newer nccl-tests writes a layout not known here)",
        )
    args = document.get("args") or []
    program = args[0].rsplit("/", 1)[-1] if args and isinstance(args[0], str) else None
    test = Test(line=line, tool="nccl-tests", program=program, named_by="output" if program else None)
    config = document.get("config") or {}
    test.settings = {name: config[key] for key, name in _SETTINGS.items() if key in config}
    test.devices = [_device(device, source, line) for device in config.get("devices") or []]
    if "nccl_version" in document:
        test.libraries = {"nccl_library": document["nccl_version"]}
    test.summary = {
        key: value
        for key, value in (
            ("out_of_bounds", (document.get("out_of_bounds") or {}).get("count")),
            ("avg_busbw_GBps", (document.get("average_bus_bandwidth") or {}).get("bandwidth")),
            ("arguments", args[1:] or None),
            ("start_time", document.get("start_time")),
            ("end_time", document.get("end_time")),
            ("errors", document.get("errors") or None),
        )
        if value is not None
    }
    if test.summary.get("out_of_bounds"):
        test.notes.append(f"nccl-tests: {test.summary['out_of_bounds']} out-of-bounds values FAILED")
    for index, result in enumerate(document["results"]):
        if not isinstance(result, dict) or "size" not in result:
            raise ParseError(source, line, f"results[{index}] has no size")
        size = whole_number(f"results[{index}].size", result["size"], source, line)
        values: dict[str, float | int] = {}
        for key in ("out_of_place", "in_place"):
            values.update(_side(result, key, index, source, line) or {})
        if not values:
            raise ParseError(source, line, f"results[{index}] has neither out_of_place nor in_place numbers")
        values["elements"] = whole_number(f"results[{index}].count", result.get("count", 0), source, line)
        for setting, count in (("iters", "iterations"), ("warmup_iters", "warmup")):
            if setting in test.settings:
                values[count] = test.settings[setting]
        root = str(result.get("root", "")).strip()
        key = (result.get("type"), result.get("redop"), int(root) if re.fullmatch(r"-?\d+", root) else None)
        add_point(test, key, Point(size=size, values=values, line=line))
    if not test.series:
        raise ParseError(source, line, "nccl-tests JSON document has no results")
    return build_runs(test, source, _FORMAT, None, given)
