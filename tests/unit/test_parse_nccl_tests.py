"""nccl-tests and rccl-tests outputs (text and -J JSON): every value read, the runs shown and
compared by busbw, and a truncated or garbled output refused with file:line, nothing stored."""

from __future__ import annotations

from pathlib import Path

import pytest

from commscope.ingest.parse import detect_format, parse_file, parse_text
from commscope.store.db import Store
from paths import CORE_GOLDEN, FIXTURES

NCCL = FIXTURES / "nccl_tests"
H100 = NCCL / "nccl_h100_2node_all_reduce.txt"
MI300X = NCCL / "rccl_mi300x_2node_all_reduce.txt"
H100_JSON = NCCL / "nccl_h100_2node_all_reduce.reconstructed.json"


def test_nccl_tests_text_keeps_every_size_both_sides_hosts_and_gpus():
    [run] = parse_file(H100)
    assert (run.benchmark, run.source_format, run.tool, run.title) == (
        "nccl_allreduce",
        "nccl-tests",
        "nccl-tests",
        "all_reduce_perf",
    )
    assert run.sizes == [8 * 2**k for k in range(31)]  # 8 B .. 8 GiB, as printed
    assert run.point(8).values == {
        "latency_us": 135.8,
        "algbw_GBps": 0.0,
        "busbw_GBps": 0.0,
        "validation_errors": 0,
        "in_place_latency_us": 123.5,
        "in_place_algbw_GBps": 0.0,
        "in_place_busbw_GBps": 0.0,
        "in_place_validation_errors": 0,
        "elements": 2,
        "iterations": 20,
        "warmup": 5,
    }
    assert run.value(1048576, "busbw_GBps") == 9.68 and run.value(1048576, "in_place_busbw_GBps") == 9.49
    assert run.value(2147483648, "latency_us") == 12646 and run.value(2147483648, "in_place_latency_us") == 12641
    assert run.value(8589934592, "algbw_GBps") == 180.71 and run.value(8589934592, "in_place_algbw_GBps") == 179.92
    assert run.parameters["datatype"] == "float" and run.parameters["reduction_op"] == "sum"
    assert run.parameters["root"] == -1 and run.parameters["iters"] == 20 and run.parameters["agg_iters"] == 1
    assert (run.ranks, run.nodes) == (16, 2)
    assert run.hosts == [
        {"name": "ztan-mig-235z", "ranks": list(range(8))},
        {"name": "ztan-mig-gq73", "ranks": list(range(8, 16))},
    ]
    gpus = run.provenance["gpus"]
    assert {gpu["name"] for gpu in gpus} == {"NVIDIA H100 80GB HBM3"}
    assert gpus[9] == {
        "rank": 9,
        "host": "ztan-mig-gq73",
        "device": 1,
        "pci_bus_id": "0000:05:00",
        "name": "NVIDIA H100 80GB HBM3",
        "pid": 6734,
        "group": 0,
    }
    assert run.provenance["avg_busbw_GBps"] == 70.742 and run.provenance["out_of_bounds"] == 0
    assert run.text.startswith("# nThread 1 nGpus 1") and run.text.rstrip().endswith("# Avg bus bandwidth    : 70.742")


def test_rccl_tests_older_device_lines_and_version_after_the_settings():
    [run] = parse_file(MI300X)
    assert (run.benchmark, run.tool, run.tool_version) == ("nccl_allreduce", "rccl-tests", "develop:448c4c7")
    assert run.sizes[0] == 8 and run.sizes[-1] == 17179869184 and len(run.sizes) == 32
    assert run.value(17179869184, "busbw_GBps") == 357.46
    assert run.value(17179869184, "in_place_busbw_GBps") == 357.41
    assert run.value(1048576, "latency_us") == 414.8 and run.value(1048576, "in_place_latency_us") == 413.6
    assert run.value(2097152, "validation_errors") == 0 and run.value(2097152, "in_place_validation_errors") == 0
    assert [host["name"] for host in run.hosts] == ["gpu-53", "gpu-56"] and (run.ranks, run.nodes) == (16, 2)
    assert {gpu["name"] for gpu in run.provenance["gpus"]} == {"AMD Instinct MI300X"}
    assert run.provenance["gpus"][8]["pci_bus_id"] == "0000:05:00.0" and "group" not in run.provenance["gpus"][8]
    assert run.parameters["max_size"] == 17179869184


def test_mpirun_tags_and_nccl_debug_lines_are_looked_through():
    lines = H100.read_text().splitlines()
    debug = "ip-172-31-0-112:8162:8221 [3] NCCL INFO Launch mode Parallel"
    tagged = "\n".join(f"[1,0]<stdout>:{line}" for line in [*lines[:40], debug, *lines[40:]]) + "\n"
    [run] = parse_text(tagged, "tagged.out")
    [plain] = parse_file(H100)
    assert [(p.size, p.values) for p in run.points] == [(p.size, p.values) for p in plain.points]
    assert run.hosts == plain.hosts


def test_stray_lines_between_rows_that_are_no_rows_are_looked_through():
    """Open MPI's warning boxes and a job's messages can land between rows: only a line that
    starts like a number (or nan, inf) is a row."""
    lines = H100.read_text().splitlines()
    stray = ["-" * 74, "Info: rank 3 bound to core 3", "infiniband: mlx5_0 up", "+ echo done"]
    [run] = parse_text("\n".join([*lines[:40], *stray, *lines[40:]]) + "\n", "stray.out")
    [plain] = parse_file(H100)
    assert [(p.size, p.values) for p in run.points] == [(p.size, p.values) for p in plain.points]


def test_json_document_holds_the_same_numbers_as_the_text():
    [text_run] = parse_file(H100)
    [json_run] = parse_file(H100_JSON)
    assert (json_run.benchmark, json_run.source_format) == ("nccl_allreduce", "nccl-tests-json")
    assert [(p.size, p.values) for p in json_run.points] == [(p.size, p.values) for p in text_run.points]
    assert json_run.hosts == text_run.hosts and json_run.provenance["gpus"] == text_run.provenance["gpus"]
    assert json_run.parameters == text_run.parameters
    assert json_run.provenance["arguments"] == ["-b", "8", "-e", "8G", "-f", "2", "-g", "1"]


@pytest.mark.parametrize(
    ("path", "expected"),
    [
        (FIXTURES / "parse/omb5_latency.txt", "omb"),
        (FIXTURES / "parse/imb_mpi1.txt", "imb"),
        (FIXTURES / "parse/commscope_latency.json", "commscope-json"),
        # the core's collective document: in_place and busbw among its keys, results too
        (CORE_GOLDEN / "allreduce_full.json", "commscope-json"),
        (CORE_GOLDEN / "allreduce_full.osu", "omb"),
    ],
    ids=lambda value: value.name if isinstance(value, Path) else value,
)
def test_other_formats_are_not_taken_for_nccl_tests(path, expected):
    assert detect_format(path.read_text()) == expected


def test_import_then_show_and_compare_use_busbw(cli, clean_env, db):
    result = cli("import", H100, MI300X, H100_JSON, "--db", db)
    assert result.exit_code == 0, result.output
    shown = cli("show", "1", "--db", db)
    assert "GPUs     16 x NVIDIA H100 80GB HBM3" in shown.output
    assert "hosts    ztan-mig-235z (ranks 0,1,2,3,4,5,6,7), ztan-mig-gq73" in shown.output
    assert "busbw #wrong" in shown.output  # its own table
    compared = cli("compare", "1", "2", "--db", db)
    assert compared.exit_code == 0, compared.output
    assert "busbw_GBps (GB/s), higher is better" in compared.output
    assert "338.82" in compared.output and "357.46" in compared.output
    json_shown = cli("show", "3", "--db", db)  # no table of its own: rendered from the points
    assert "Busbw(GB/s)" in json_shown.output and "338.82" in json_shown.output


def _garbled(tmp_path: Path, name: str, text: str) -> Path:
    path = tmp_path / name
    path.write_text(text)
    return path


_ROW_1M = next(line for line in H100.read_text().splitlines() if line.lstrip().startswith("1048576 "))
_TEXT = H100.read_text()
_ROW_LINE = _TEXT.splitlines().index(_ROW_1M) + 1


@pytest.mark.parametrize(
    ("text", "line", "problem"),
    [
        # cut in the middle of a row: the job was killed, or the file copied while written
        (_TEXT[: _TEXT.index(_ROW_1M) + 60], _ROW_LINE, "row has 6 cells where the header on line 30 has 13"),
        (_TEXT.replace(_ROW_1M, _ROW_1M.replace(" 9.68 ", " 9.6x ")), _ROW_LINE, "busbw_GBps: '9.6x' is not a number"),
        (_TEXT.replace(_ROW_1M, _ROW_1M.replace("   5.06 ", " ")), _ROW_LINE, "row has 12 cells"),
        # cut after a whole row: no footer
        (_TEXT[: _TEXT.index(_ROW_1M) + len(_ROW_1M) + 1], _ROW_LINE, "without its '# Avg bus bandwidth' line"),
        # sizes nccl-tests cannot print: once passed over as stray lines, the run stored complete
        (_TEXT.replace(_ROW_1M, "     -1" + _ROW_1M[12:]), _ROW_LINE, "size: -1 is below 0"),
        (_TEXT.replace(_ROW_1M, "    nan" + _ROW_1M[12:]), _ROW_LINE, "size: 'nan' is not a whole number"),
        (_TEXT.replace(_ROW_1M, "   -inf" + _ROW_1M[12:]), _ROW_LINE, "size: '-inf' is not a whole number"),
        (_TEXT.replace(_ROW_1M, "    inf" + _ROW_1M[12:]), _ROW_LINE, "size: 'inf' is not a whole number"),
        # beyond 64 bits: a traceback when stored, once
        (
            _TEXT.replace(_ROW_1M, "99999999999999999999999" + _ROW_1M[12:]),
            _ROW_LINE,
            "size: 99999999999999999999999 is beyond 64 bits",
        ),
        (
            _TEXT.replace(_ROW_1M, _ROW_1M[: -len("      0")] + "  1e+30"),
            _ROW_LINE,
            "in_place_validation_errors: 1e+30 is beyond 64 bits",
        ),
    ],
    ids=[
        "cut-mid-line",
        "non-numeric",
        "missing-column",
        "no-footer",
        "size-negative",
        "size-nan",
        "size-minus-inf",
        "size-inf",
        "size-beyond-64-bits",
        "wrong-beyond-64-bits",
    ],
)
def test_truncated_or_garbled_output_is_refused_and_nothing_stored(cli, clean_env, db, tmp_path, text, line, problem):
    assert cli("import", MI300X, "--db", db).exit_code == 0
    before = _stored(db)
    bad = _garbled(tmp_path, "all_reduce.out", text)
    result = cli("import", bad, "--db", db)
    assert result.exit_code == 1  # as for any file import cannot read (`commscope import --help`)
    assert f"{bad}:{line}: " in result.stderr and problem in result.stderr, result.stderr
    assert "Traceback" not in result.output
    assert _stored(db) == before


@pytest.mark.parametrize(
    ("edit", "problem"),
    [
        (lambda text: text[: len(text) // 2], "not valid JSON"),
        (lambda text: text.replace('"bus_bw":338.820000,', "", 1), "results[30].out_of_place has no bus_bw"),
        (lambda text: text.replace('"alg_bw":180.710000', '"alg_bw":"fast"', 1), "results[30].out_of_place.alg_bw"),
        (
            lambda text: text.replace('{"size":1048576,', '{"size":99999999999999999999999,'),
            "results[17].size: 99999999999999999999999 is beyond 64 bits",
        ),
        (lambda text: text.replace('{"size":1048576,', '{"size":-1,'), "results[17].size: -1 is below 0"),
        (lambda text: text.replace('"count":262144,', '"count":1e300,'), "results[17].count: 1e+300 is beyond 64 bits"),
        (
            lambda text: text.replace('"nwrong":0.000000}', '"nwrong":1e30}', 1),
            "results[0].out_of_place.nwrong: 1e+30 is beyond 64 bits",
        ),
        # a layout commscope does not know is refused, not read as if it were version 3
        (
            lambda text: text.replace('{"version":3,', '{"version":4,'),
            "nccl-tests JSON version 4: commscope reads versions 1, 2, 3",
        ),
        (
            lambda text: text.replace('{"version":3,', '{"version":"3.1",'),
            'nccl-tests JSON version "3.1": commscope reads',
        ),
        (lambda text: text.replace('{"version":3,', "{"), "nccl-tests JSON version null: commscope reads"),
    ],
    ids=[
        "truncated",
        "missing-bus_bw",
        "non-numeric",
        "size-beyond-64-bits",
        "size-negative",
        "count-beyond-64-bits",
        "wrong-beyond-64-bits",
        "version-4",
        "version-text",
        "no-version",
    ],
)
def test_garbled_json_is_refused_and_nothing_stored(cli, clean_env, db, tmp_path, edit, problem):
    assert cli("import", MI300X, "--db", db).exit_code == 0
    before = _stored(db)
    bad = _garbled(tmp_path, "all_reduce.json", edit(H100_JSON.read_text()))
    result = cli("import", bad, "--db", db)
    assert result.exit_code == 1
    assert f"{bad}:1: " in result.stderr and problem in result.stderr, result.stderr
    assert _stored(db) == before


def test_wrong_elements_in_place_fail_the_run(cli, clean_env, db, tmp_path):
    wrong = _ROW_1M[: -len("      0")] + "      3"  # the in-place #wrong of 1 MiB, out-of-place still 0
    path = _garbled(tmp_path, "wrong.out", _TEXT.replace(_ROW_1M, wrong))
    assert cli("import", path, "--db", db).exit_code == 0
    with Store(db, create=False) as store:
        run = store.run(store.summaries()[0].id)
    assert (run.status, run.status_reason) == ("failed", "validation failed at size 1048576")
    assert run.points[17].metrics["in_place_validation_errors"] == 3 and run.points[17].validation_errors == 0


def _stored(db: Path) -> int:
    with Store(db, create=False) as store:
        return len(store.summaries())
