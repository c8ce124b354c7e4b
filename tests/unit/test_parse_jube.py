"""JUBE result tables (`jube result`, seed 004): pretty, csv and Markdown, through the
readers and `commscope import`."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from commscope.ingest.parse import ParseError, parse_file, parse_text
from mpi_flavours import load_flavours
from paths import FIXTURES as SUPPORT_FIXTURES
from paths import REPO

FIXTURES = SUPPORT_FIXTURES / "jube"


def test_seed_004s_table_gives_a_run_per_row_with_nodes_and_tasks():
    runs = parse_file(FIXTURES / "seed004_gpu.md")
    assert [(run.benchmark, run.nodes, run.ranks) for run in runs] == [
        ("bibw", 1, 2),
        ("bibw", 2, 2),
        ("bw", 1, 2),
        ("bw", 2, 2),
        ("latency", 1, 2),
        ("latency", 2, 2),
    ]
    assert all(run.source_format == "jube" for run in runs)
    inter_bibw = runs[1]
    assert inter_bibw.value(67108864, "bandwidth_MBps") == 34229.53
    assert inter_bibw.value(67108864, "runtime_s") == 11.42
    assert inter_bibw.parameters == {"cuda_vis": "1", "msg_size": "67108864", "tasks_per_node": 1}
    assert inter_bibw.label == "2 nodes, 1 task/node, cuda_vis=1"
    assert runs[4].value(0, "latency_us") == 0.74 and runs[4].line == 9


def test_a_real_jube_result_output_pretty_and_csv():
    """Captured from `jube result -a` after JUBE 2.7.1 ran docs/examples/jube/osu_commscope.xml
    on commscope's compat programs: a pretty table named "result" and a csv table."""
    runs = parse_file(FIXTURES / "jube_result_commscope.txt")
    assert [(run.benchmark, run.title) for run in runs] == [
        ("bw", "JUBE table result: osu_bw"),
        ("latency", "JUBE table result: osu_latency"),
        ("bw", "JUBE result: osu_bw"),
        ("latency", "JUBE result: osu_latency"),
    ]
    assert runs[0].value(65536, "bandwidth_MBps") == runs[2].value(65536, "bandwidth_MBps") == 21467.14
    assert runs[1].provenance == {"harness": "JUBE", "jube_table": "result", "program": "osu_latency"}
    csv_runs = parse_file(FIXTURES / "result_csv.dat")
    assert [run.series(run.benchmark == "bw" and "bandwidth_MBps" or "latency_us") for run in csv_runs] == [
        run.series(run.benchmark == "bw" and "bandwidth_MBps" or "latency_us") for run in runs[2:]
    ]


SWEEP = """\
jube_wp_id;nodes;taskspernode;osu_exe;msg_size;runtime[ms];size;result
0;2;1;./osu_latency;1;500;1;2.10
1;2;1;./osu_latency;8;510;8;2.20
2;2;1;./osu_latency;4;505;4;2.15
3;2;1;./osu_latency;1;490;1;2.05
4;1;2;./osu_latency;1;400;1;0.30
"""


def test_rows_of_one_setup_make_a_size_sweep_and_a_size_seen_again_a_repeat():
    first, repeat, intra = parse_text(SWEEP, "sweep.csv")
    assert first.sizes == [1, 4, 8] and first.nodes == 2 and first.ranks == 2
    assert first.value(8, "latency_us") == 2.20 and first.value(4, "runtime_s") == pytest.approx(0.505)
    assert "msg_size" not in first.parameters  # it varies: each point's size says it
    assert repeat.sizes == [1] and repeat.value(1, "latency_us") == 2.05
    assert intra.nodes == 1 and intra.parameters["tasks_per_node"] == 2


@pytest.mark.parametrize(
    "row, line, message",
    [
        ("1,2,osu_bw,65536,0.55,65536", 3, "JUBE table row has 6 cells, its header 7"),
        ("1,2,osu_bw,65536,0.55,65536,fast", 3, "column 'result': 'fast' is not a number"),
        ("1,2,osu_bw,65536,0.55,65536,", 3, "column 'result' is empty"),
        ("1,2,osu_bw,65536,0.55,64.5,1.0", 3, "column 'size': '64.5' is not a whole number"),
    ],
)
def test_bad_rows_name_the_line(row, line, message):
    text = "nodes,taskspernode,osu_exe,msg_size,runtime[sec],size,result\n1,2,osu_bw,65536,0.55,65536,21467.14\n"
    with pytest.raises(ParseError) as raised:
        parse_text(text + row + "\n", "bad.csv")
    assert raised.value.line == line and message in raised.value.message


def test_import_stores_jube_runs_with_nodes_and_ranks(cli, db, clean_env):
    result = cli("import", FIXTURES / "seed004_gpu.md", "--label", "procurement", "--db", db)
    assert result.exit_code == 0, result.output
    listing = cli("list", "runs", "--db", db).stdout
    assert listing.count("jube") == 6 and "procurement: 2 nodes, 1 task/node, cuda_vis=1" in listing
    shown = cli("show", "last", "--db", db).stdout
    assert "2.43" in shown


def test_a_bad_jube_file_stores_nothing(cli, db, clean_env, tmp_path):
    bad = tmp_path / "result.csv"
    bad.write_text(
        "nodes,taskspernode,osu_exe,msg_size,runtime[sec],size,result\n"
        "1,2,osu_bw,65536,0.55,65536,21467.14\n1,2,osu_latency,0,0.66,0,n/a\n"
    )
    result = cli("import", bad, "--db", db)
    assert result.exit_code == 1 and f"{bad}:3: column 'result': 'n/a' is not a number" in result.stderr
    assert "no runs" in cli("list", "runs", "--db", db).stderr


@pytest.mark.skipif(
    shutil.which("jube") is None,
    reason="JUBE is not on PyPI nor in Debian; install it by hand to run this (docs/integrations.md)",
)
def test_jube_runs_the_example_on_the_compat_programs_and_its_table_imports(tmp_path, cli, db, clean_env):
    """docs/examples/jube/osu_commscope.xml, unchanged but for the launcher, run by JUBE."""
    flavours = load_flavours()
    if "mpich" not in flavours:
        pytest.skip("needs the MPICH build of commscope-bench (make flavours)")
    mpich = flavours["mpich"]
    bench = tmp_path / "osu_commscope.xml"
    bench.write_text(
        (REPO / "docs" / "examples" / "jube" / "osu_commscope.xml")
        .read_text()
        .replace(
            '<parameter name="launcher">mpiexec</parameter>', f'<parameter name="launcher">{mpich.launcher}</parameter>'
        )
    )
    env = {
        **os.environ,
        "COMMSCOPE_BENCH": str(mpich.bench),
        "PATH": f"{Path(sys.executable).parent}:{os.environ['PATH']}",
    }  # `commscope info --compat`
    for args in (["run", bench.name], ["analyse", "bench_run"], ["result", "-a", "bench_run"]):
        done = subprocess.run(["jube", *args], cwd=tmp_path, capture_output=True, text=True, env=env, timeout=300)
        assert done.returncode == 0, done.stdout + done.stderr
    table = tmp_path / "table.txt"
    table.write_text(done.stdout)
    runs = parse_file(table)
    assert sorted({run.benchmark for run in runs}) == ["bw", "latency"] and len(runs) == 4
    assert all(point.values.get("runtime_s", 0) > 0 for run in runs for point in run.points)
    assert cli("import", table, "--db", db).exit_code == 0
