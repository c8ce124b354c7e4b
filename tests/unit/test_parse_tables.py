"""Tables of OMB numbers pasted into documents, side-by-side comparisons, and
the real tables of the pages they quote (SJTU's OSU page, a standard-benchmarks page), where
the checkout has them beside it (../shared/seeds)."""

import pytest

from commscope.ingest.parse import ParseError, parse_file, parse_text
from paths import FIXTURES as SUPPORT_FIXTURES
from paths import SEEDS as SEEDS_DIR

FIXTURES = SUPPORT_FIXTURES / "parse"
SEEDS = SEEDS_DIR

# Numbers of the latency comparison of SJTU's OSU page: size -> (思源一号, π2.0, ARM).
SJTU_LATENCY = {
    0: (0.79, 1.55, 1.27),
    8: (0.78, 1.24, 1.25),
    8192: (3.85, 3.98, 7.20),
    262144: (21.32, 44.96, 27.79),
    4194304: (286.26, 393.98, 346.91),
}
needs_standard_benchmarkss = pytest.mark.skipif(
    not SEEDS.is_dir(), reason="the quoted pages are not beside the repository (a clone without ../shared)"
)

SJTU_LABELS = ["思源一号 v5.7.1", "π2.0 v5.7.1", "ARM v5.6.3"]


def check_sjtu_latency(runs):
    latency = [r for r in runs if r.benchmark == "latency"]
    assert [r.label for r in latency] == SJTU_LABELS
    assert [r.tool_version for r in latency] == ["5.7.1", "5.7.1", "5.6.3"]
    for column, run in enumerate(latency):
        assert run.source_format == "table"
        assert run.metrics == {"latency_us": "us"}
        assert len(run.points) == 24
        assert run.sizes[0] == 0 and run.sizes[-1] == 4194304
        for size, values in SJTU_LATENCY.items():
            assert run.value(size, "latency_us") == values[column], (run.label, size)


def check_sjtu_bcast(runs):
    bcast = [r for r in runs if r.benchmark == "bcast"]
    assert [r.label for r in bcast] == ["思源一号", "π2.0", "ARM"]
    assert [len(r.points) for r in bcast] == [21, 21, 21]
    assert [r.value(1048576, "latency_us") for r in bcast] == [169.50, 780.35, 239.25]
    assert [r.value(524288, "latency_us") for r in bcast] == [107.83, 385.97, 122.73]


def test_sjtu_comparison_fixture():
    runs = parse_file(FIXTURES / "sjtu_cluster_comparison.rst")
    check_sjtu_latency(runs)
    check_sjtu_bcast(runs)
    first = runs[0]
    assert first.line == 8  # the "# OSU MPI Latency Test" title inside the code block
    assert first.point(0).line == 11


@needs_standard_benchmarkss
def test_sjtu_page_read_straight_from_its_source():
    path = next(SEEDS.glob("000_*.txt"))
    runs = parse_file(path)
    check_sjtu_latency(runs)
    check_sjtu_bcast(runs)
    # the three single-cluster osu_mbw_mr outputs of the same page
    mbw = [r for r in runs if r.benchmark == "mbw_mr"]
    assert [r.tool_version for r in mbw] == ["5.7.1", "5.7.1", "5.6.3"]
    assert [r.source_format for r in mbw] == ["omb"] * 3
    assert mbw[0].value(4194304, "bandwidth_MBps") == 14910.01
    assert mbw[1].value(16384, "message_rate") == 275372.74
    assert mbw[2].parameters["window_size"] == 64
    assert len(runs) == 9


@needs_standard_benchmarkss
def test_other_seeds_read_straight_from_shared_seeds():
    standard = parse_file(next(SEEDS.glob("001_*.txt")))
    # HPL's table (a run per row), the two storage devices, then OSU multi_lat
    assert [r.benchmark for r in standard] == ["hpl"] * 7 + ["storage"] * 2 + ["multi_lat"]
    assert standard[-1].value(4194304, "latency_us") == 351.53
    barrier = parse_file(next(SEEDS.glob("002_*.txt")))
    assert [r.value(None, "latency_us") for r in barrier] == [9.25, 238.15]
    jube = parse_file(next(SEEDS.glob("004_*.txt")))
    bibw = [r for r in jube if r.benchmark == "bibw"]
    assert [r.value(67108864, "bandwidth_MBps") for r in bibw] == [176667.35, 34229.53]


def test_spreadsheet_table_from_a_student_report():
    runs = parse_file(FIXTURES / "student_spreadsheet.txt")
    bandwidth = [r for r in runs if r.benchmark == "bw"]
    assert [r.label for r in bandwidth] == [
        "One node shared async",
        "One node shared buffered",
        "One node net async",
        "One node net buffered",
        "Two node one host async",
        "Two node one host buffered",
        "Two nodes two hosts async",
        "Two nodes two hosts buffered",
    ]
    # decimal commas
    assert bandwidth[0].value(1, "bandwidth_MBps") == 3.47481
    assert bandwidth[7].value(1048576, "bandwidth_MBps") == 258.83691
    assert "guessed" in bandwidth[0].notes[0]
    latency = [r for r in runs if r.benchmark == "latency"]
    assert [r.value(None, "latency_us") for r in latency][:2] == [0.0059719, 0.0246500]
    assert latency[0].point(None).line == 30


def test_markdown_side_by_side_labels_in_headers():
    runs = parse_file(FIXTURES / "tables_markdown.md")
    a, b = runs[0], runs[1]
    assert (a.benchmark, a.label, b.label) == ("latency", "cluster-a", "cluster-b")
    assert a.value(1024, "latency_us") == 2.31 and b.value(1024, "latency_us") == 3.44
    assert a.parameters == {"table": "markdown"}
    assert a.point(0).line == 7


def test_markdown_single_series_named_by_command_above():
    bw = [r for r in parse_file(FIXTURES / "tables_markdown.md") if r.benchmark == "bw"]
    assert len(bw) == 1
    assert bw[0].value(4194304, "bandwidth_MBps") == 12101.77


def test_markdown_table_without_sizes_is_ignored():
    runs = parse_file(FIXTURES / "tables_markdown.md")
    assert all(r.sizes and r.sizes[0] is not None for r in runs)
    assert not any("clients" in (r.label or "") for r in runs)


def test_jube_style_result_table_with_program_column():
    """Read by the JUBE reader (test_parse_jube.py): nodes and tasks become the runs' fields."""
    runs = [r for r in parse_file(FIXTURES / "tables_markdown.md") if r.source_format == "jube"]
    assert [(r.benchmark, r.label, r.nodes, r.ranks, r.line) for r in runs] == [
        ("bibw", "1 node, 2 tasks/node", 1, 2, 32),
        ("bibw", "2 nodes, 1 task/node", 2, 2, 33),
        ("latency", "2 nodes, 1 task/node", 2, 2, 34),
    ]
    assert runs[0].value(67108864, "bandwidth_MBps") == 176667.35
    assert runs[2].value(0, "latency_us") == 2.43


def test_restructuredtext_grid_tables():
    allreduce, x, y = parse_file(FIXTURES / "tables_grid.rst")
    assert allreduce.benchmark == "allreduce"
    assert allreduce.point(8).values == {"latency_us": 12.61, "min_latency_us": 11.10, "max_latency_us": 14.95}
    assert allreduce.point(8).line == 11
    # header cells spread over three lines, system name first
    assert (x.benchmark, x.label, y.label) == ("bw", "system-x", "system-y")
    assert y.value(2, "bandwidth_MBps") == 5.91


def test_whitespace_side_by_side_with_names_on_the_line_above():
    intra, inter = parse_file(FIXTURES / "tables_whitespace.txt")
    assert (intra.label, inter.label) == ("intra-node", "inter-node")
    assert intra.benchmark == "latency"
    assert inter.value(4, "latency_us") == 1.63


def test_side_by_side_without_names_gets_numbered_labels():
    text = "# OSU MPI Latency Test\n# Size   Latency (us)   Latency (us)\n1   0.5   0.7\n2   0.5   0.8\n"
    runs = parse_text(text, "t.txt")
    assert [r.label for r in runs] == ["column 1", "column 2"]
    assert runs[1].value(2, "latency_us") == 0.8


def test_markdown_table_columns_named_after_systems():
    text = (
        "Results of osu_latency:\n\n| Size | alpha | beta |\n|---|---|---|\n| 1 | 1.10 | 1.30 |\n| 2 | 1.12 | 1.31 |\n"
    )
    alpha, beta = parse_text(text, "t.md")
    assert (alpha.label, beta.label) == ("alpha", "beta")
    assert beta.value(2, "latency_us") == 1.31


def test_broken_row_in_a_recognised_markdown_table():
    text = "| Size | Latency (us) |\n|---|---|\n| 1 | 1.10 |\n| 2 | fast |\n"
    with pytest.raises(ParseError) as error:
        parse_text(text, "t.md")
    assert str(error.value) == "t.md:4: column 'Latency (us)': 'fast' is not a number"


def test_markdown_row_with_missing_cell():
    text = "| Size | Latency (us) |\n|---|---|\n| 1 | 1.10 |\n| 2 |\n"
    with pytest.raises(ParseError) as error:
        parse_text(text, "t.md")
    assert str(error.value) == "t.md:4: row has 1 values but header has 2 columns"
