"""Suite files: the shipped ones are valid, and mistakes are reported with file, line and key."""

from __future__ import annotations

from pathlib import Path

import pytest

from commscope.errors import UsageError
from commscope.records.suite import Entry, SuiteError, builtin_suites, expand, load_suite_file


def write(tmp_path: Path, text: str, name: str = "mine.yaml") -> Path:
    path = tmp_path / name
    path.write_text(text)
    return path


def problems_of(path: Path) -> list[tuple[str, int, str, str]]:
    with pytest.raises(SuiteError) as caught:
        load_suite_file(path)
    return caught.value.problems


def test_shipped_suites_are_valid():
    assert set(builtin_suites()) == {
        "quick",
        "pt2pt",
        "collectives",
        "full",
        "procurement",
        "procurement-gpu",
        "transports",
    }
    for path in builtin_suites().values():
        assert expand(path), path


def test_quick_is_pt2pt_essentials_measured_to_5_percent():
    entries = expand(builtin_suites()["quick"])
    assert [entry.benchmark for entry in entries] == ["latency", "bw", "bibw"]
    for entry in entries:
        assert entry.flags[:2] == ["-m", "1:64K"] and "-i" not in entry.flags and entry.ranks == 2
        assert entry.core_flags()[-4:] == ["--precision", "5", "--max-time", "0.2"]


def test_pt2pt_uses_omb_sizes_with_precision():
    entries = expand(builtin_suites()["pt2pt"])
    assert [entry.benchmark for entry in entries] == ["latency", "bw", "bibw", "mbw_mr", "multi_lat"]
    assert all(entry.flags == [] for entry in entries)
    assert all(entry.core_flags() == ["--precision", "2", "--max-time", "0.5"] for entry in entries)


def test_procurement_keeps_the_rule_s_omb_counts():
    assert all(entry.core_flags() == entry.flags for entry in expand(builtin_suites()["procurement"]))


def test_suite_precision_is_inherited_overridden_and_yields_to_typed_counts(tmp_path):
    path = tmp_path / "p.yaml"
    path.write_text(
        "description: p\nprecision: 2%\nmax_time: 500ms\nbenchmarks:\n"
        "  - benchmark: latency\n"
        "  - benchmark: bw\n    precision: off\n"
        "  - benchmark: bibw\n    flags: [-i, '100']\n"
        "  - benchmark: mbw_mr\n    precision: 0.5\n    max_time: 2\n"
    )
    latency, bw, bibw, mbw_mr = expand(path)
    assert latency.core_flags() == ["--precision", "2", "--max-time", "0.5"]
    assert latency.core_flags(["-i", "1000"]) == []  # `-- -i N` restores fixed counts
    assert bw.core_flags() == [] and bibw.core_flags() == ["-i", "100"]
    assert mbw_mr.core_flags() == ["--precision", "0.5", "--max-time", "2"]


@pytest.mark.parametrize(
    "key, value, message",
    [
        ("precision", "200%", "5: benchmarks[0].precision: Value error, give a percentage above 0 and at most 100"),
        ("precision", "on", "5: benchmarks[0].precision: Value error, give a percentage"),
        ("max_time", "3h", "5: benchmarks[0].max_time: Value error, give a time from 1ms to 86400s"),
    ],
)
def test_bad_precision_keys_name_file_line_and_key(tmp_path, key, value, message):
    path = tmp_path / "bad.yaml"
    path.write_text(f"description: d\nbenchmarks:\n  - benchmark: latency\n    ranks: 2\n    {key}: {value}\n")
    with pytest.raises(SuiteError) as info:
        expand(path)
    assert f"{path}:{message}" in str(info.value)


def test_full_is_pt2pt_then_collectives_then_congestion():
    *full, congestion = expand(builtin_suites()["full"])
    assert full == expand(builtin_suites()["pt2pt"]) + expand(builtin_suites()["collectives"])
    assert {"allreduce", "bcast", "allgather", "alltoall", "reduce", "barrier"} <= {e.benchmark for e in full}
    # the congestion benchmark needs 2 canaries and 2 congestors; GPCNeT's congestors by default
    assert congestion.benchmark == "congestion" and congestion.ranks == 4 and congestion.core_flags() == []


def test_procurement_follows_the_jupiter_rules():
    entries = {e.benchmark: e for e in expand(builtin_suites()["procurement"]) if e.core_pairs is None}
    assert entries["bw"].flags == ["-m", "64M:64M"]  # 67108864 bytes
    assert entries["bibw"].flags == ["-m", "64M:64M"]
    assert entries["latency"].flags == ["-m", "0:0"]
    assert all(entry.placement == "inter-node" and entry.ranks == 2 for entry in entries.values())
    # the rule's CPU intra-node half: the same three benchmarks between core pairs of one node
    pairs = [entry for entry in expand(builtin_suites()["procurement"]) if entry.core_pairs]
    assert [(e.benchmark, e.flags, e.placement, e.ranks) for e in pairs] == [
        ("bibw", ["-m", "64M:64M"], "intra-node", 2),
        ("latency", ["-m", "0:0"], "intra-node", 2),
        ("bw", ["-m", "64M:64M"], "intra-node", 2),
    ]


def test_procurement_gpu_is_the_jupiter_rules_gpu_lines():
    entries = expand(builtin_suites()["procurement-gpu"])
    assert {(e.benchmark, e.placement) for e in entries} == {
        (b, p) for b in ("bw", "bibw", "latency") for p in ("inter-node", "intra-node")
    }
    for entry in entries:
        size = "0:0" if entry.benchmark == "latency" else "64M:64M"
        # OMB's `-m ${msg_size}:${msg_size} -d cuda D D`
        assert entry.core_flags() == ["-m", size, "-d", "cuda", "D", "D"] and entry.ranks == 2


def test_device_and_buffers_are_checked(tmp_path):
    path = write(
        tmp_path,
        "description: d\nbenchmarks:\n  - benchmark: bw\n    device: rocm\n"
        "  - benchmark: bw\n    buffers: [D, X]\n  - benchmark: bw\n    buffers: [D, D, D]\n",
    )
    found = {(line, key) for _, line, key, _ in problems_of(path)}
    assert (4, "benchmarks[0].device") in found
    assert (6, "benchmarks[1].buffers[1]") in found and (8, "benchmarks[2].buffers") in found
    entry = load_suite_file(
        write(tmp_path, "description: d\nbenchmarks:\n  - benchmark: allreduce\n    device: managed\n")
    ).benchmarks[0]
    assert entry.core_flags() == ["-d", "managed"]


def test_defaults_of_an_entry(tmp_path):
    suite = load_suite_file(write(tmp_path, "description: d\nbenchmarks:\n  - benchmark: bw\n"))
    assert suite.name == "mine"
    assert suite.benchmarks == [Entry(benchmark="bw", flags=[], ranks=2, placement="any")]


def test_unknown_key_is_reported_with_file_line_and_key(tmp_path):
    path = write(
        tmp_path,
        """\
description: mine
benchmarks:
  - benchmark: latency
    ranks: 2
  - benchmark: bw
    flag: ["-m", "1:8"]
""",
    )
    [(file, line, key, message)] = problems_of(path)
    assert (file, line, key) == (str(path), 6, "benchmarks[1].flag")
    assert "unknown key" in message and "flags" in message


@pytest.mark.parametrize(
    "body, line, key, words",
    [
        ("  - benchmark: bw\n    ranks: two\n", 5, "benchmarks[0].ranks", "valid integer"),
        ("  - benchmark: bw\n    ranks: 0\n", 5, "benchmarks[0].ranks", "greater than or equal to 1"),
        ("  - benchmark: bw\n    placement: cross-node\n", 5, "benchmarks[0].placement", "inter-node"),
        ("  - benchmark: bw\n    flags: -m 1:8\n", 5, "benchmarks[0].flags", "valid list"),
        ("  - benchmark: bw\n    flags:\n      - -m\n      - 8\n", 7, "benchmarks[0].flags[1]", "valid string"),
        ("  - ranks: 2\n", 4, "benchmarks[0].benchmark", "required key is missing"),
    ],
)
def test_wrong_types_are_reported_at_their_line(tmp_path, body, line, key, words):
    path = write(tmp_path, "# my suite\ndescription: mine\nbenchmarks:\n" + body)
    [(file, found_line, found_key, message)] = problems_of(path)
    assert (file, found_line, found_key) == (str(path), line, key)
    assert words in message
    assert f"{path}:{line}: {key}:" in str(SuiteError(problems_of(path)))


def test_several_problems_are_all_reported(tmp_path):
    path = write(tmp_path, "descripton: typo\nbenchmarks:\n  - benchmark: bw\n    ranks: -1\n")
    found = {(line, key) for _, line, key, _ in problems_of(path)}
    assert found == {(1, "descripton"), (1, "description"), (4, "benchmarks[0].ranks")}


def test_yaml_syntax_error_has_a_line(tmp_path):
    path = write(tmp_path, "description: x\nbenchmarks:\n  - benchmark: [bw\n")
    [(file, line, key, message)] = problems_of(path)
    assert file == str(path) and line >= 3 and message.startswith("invalid YAML")


def test_a_suite_must_be_a_mapping(tmp_path):
    [(_, line, _, message)] = problems_of(write(tmp_path, "- benchmark: bw\n"))
    assert line == 1 and "mapping" in message


def test_include_cycles_and_missing_includes(tmp_path):
    write(tmp_path, "description: a\ninclude: [b]\n", "a.yaml")
    write(tmp_path, "description: b\ninclude: [a]\n", "b.yaml")
    with pytest.raises(UsageError, match="includes itself: a -> b -> a"):
        expand(tmp_path / "a.yaml")
    with pytest.raises(UsageError, match="include 'nope'"):
        expand(write(tmp_path, "description: c\ninclude: [nope]\n", "c.yaml"))


def test_include_finds_neighbours_before_shipped_suites(tmp_path):
    write(tmp_path, "description: my quick\nbenchmarks:\n  - benchmark: multi_lat\n", "quick.yaml")
    mine = write(tmp_path, "description: m\ninclude: [quick, collectives]\n")
    assert [entry.benchmark for entry in expand(mine)][:2] == ["multi_lat", "allreduce"]


def test_run_reports_a_bad_suite_file_as_a_usage_error(cli, fake_core, db, tmp_path):
    path = write(tmp_path, "description: x\nbenchmarks:\n  - benchmark: bw\n    rank: 2\n")
    result = cli("run", "--suite-file", path, "--db", db)
    assert result.exit_code == 2
    assert f"{path}:4: benchmarks[0].rank: unknown key" in result.stderr
    assert "Traceback" not in result.output and not db.exists()
