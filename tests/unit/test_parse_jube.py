"""JUBE result tables (`jube result`, the JUPITER procurement rules, jubench-osu): pretty, csv and
Markdown, through the readers and `commscope import`."""

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


def test_the_jupiter_table_gives_a_run_per_row_with_nodes_and_tasks():
    runs = parse_file(FIXTURES / "jupiter_gpu.md")
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
        ("1,2,osu_bw,65536,0.55,64.5,1.0", 3, "column 'size': '64.5' is not a message size"),
    ],
)
def test_a_bad_row_is_left_out_and_named_with_its_line(row, line, message):
    text = "nodes,taskspernode,osu_exe,msg_size,runtime[sec],size,result\n1,2,osu_bw,65536,0.55,65536,21467.14\n"
    (run,) = parse_text(text + row + "\n", "bad.csv")
    assert run.sizes == [65536]
    [(rejected_line, rejected)] = run.rejected_rows
    assert rejected_line == line and message in rejected


def test_a_table_of_bad_rows_alone_is_refused_at_its_first():
    text = "nodes,taskspernode,osu_exe,size,result\n1,2,osu_bw,,\n1,2,osu_bw,8,\n"
    with pytest.raises(ParseError) as raised:
        parse_text(text, "failed.csv")
    assert raised.value.line == 2 and "column 'size' is empty" in raised.value.message


# The columns of the JUPITER rule set's published tables (JUBE's csv); the numbers are made up.
JOBS = """\
system,mpi,nodes,taskspernode,osu_exe,msg_size,runtime[sec],size,result,job_id,status,exit_code
SYS,ompi,1,2,osu_bw,1,1.2,1,5.1,100,COMPLETED,0:0
SYS,ompi,1,2,osu_bw,16,1.2,16,82.9,101,COMPLETED,0:0
SYS,ompi,1,2,osu_bw,1048576,1.3,1048576,23057.8,102,COMPLETED,0:0
SYS,ompi,2,1,osu_bw,1,4.2,1,2.4,103,COMPLETED,0:0
SYS,ompi,2,1,osu_bw,16,4.1,16,38.8,104,COMPLETED,0:0
SYS,ompi,2,1,osu_bw,1048576,4.2,1048576,24595.6,105,COMPLETED,0:0
SYS,ompi,1,2,osu_latency,0,1.3,0,0.4,106,COMPLETED,0:0
SYS,ompi,2,1,osu_latency,0,2.5,0,1.79,107,COMPLETED,0:0
"""


def test_job_columns_belong_to_the_run_and_a_size_sweep_stays_one_run():
    """job_id, status and exit_code say how each row's job went, not what was measured: they
    split nothing. The job ids and the system go to the run."""
    runs = parse_text(JOBS, "jobs.csv")
    assert [(run.benchmark, run.nodes, run.sizes) for run in runs] == [
        ("bw", 1, [1, 16, 1048576]),
        ("bw", 2, [1, 16, 1048576]),
        ("latency", 1, [0]),
        ("latency", 2, [0]),
    ]
    assert runs[0].job_id == "100,101,102" and runs[3].job_id == "107"
    assert runs[0].system == "SYS"
    assert runs[0].label == "1 node, 2 tasks/node, mpi=ompi"
    assert not {"job_id", "status", "exit_code", "system"} & set(runs[0].parameters)


def test_gpu_buffer_columns_are_the_buffer_placement():
    text = (
        "nodes,taskspernode,cuda_dev,osu_exe,msg_size,buffer,target,size,result,job_id\n"
        "1,2,0;1,osu_bw,1,cuda,D D,1,0.5,1\n1,2,0;1,osu_bw,16,cuda,D D,16,7.7,2\n"
        "1,2,0;2,osu_bw,1,cuda,D D,1,0.5,3\n1,2,0;2,osu_bw,16,cuda,D D,16,8.6,4\n"
    )
    first, second = parse_text(text, "gpu.csv")
    assert first.sizes == second.sizes == [1, 16]
    assert first.parameters["accelerator"] == "cuda"
    assert (first.parameters["send_buffer"], first.parameters["recv_buffer"]) == ("D", "D")
    assert first.parameters["cuda_dev"] == "0;1" and second.parameters["cuda_dev"] == "0;2"


@pytest.mark.parametrize(
    "cells, message",
    [
        ("99999999999999999999999,5.1", "column 'size': 99999999999999999999999 is too large"),
        ("16,-5.1", "column 'result': -5.1 is negative"),
        ("16,nan", "column 'result': 'nan' is not a number"),
        ("16,inf", "column 'result': 'inf' is not a number"),
        ("16,1e999", "column 'result': '1e999' is not a finite number"),
    ],
)
def test_sizes_and_results_that_cannot_be_are_refused_with_the_line(cells, message):
    text = "nodes,taskspernode,osu_exe,size,result\n1,2,osu_bw,1,5.0\n" + f"1,2,osu_bw,{cells}\n"
    (run,) = parse_text(text, "bad.csv")
    [(line, problem)] = run.rejected_rows
    assert run.sizes == [1] and line == 3 and message in problem


def test_import_stores_jube_runs_with_nodes_and_ranks(cli, db, clean_env):
    result = cli("import", FIXTURES / "jupiter_gpu.md", "--label", "procurement", "--db", db)
    assert result.exit_code == 0, result.output
    listing = cli("list", "runs", "--db", db).stdout
    assert listing.count("jube") == 6 and "procurement: 2 nodes, 1 task/node, cuda_vis=1" in listing
    shown = cli("show", "last", "--db", db).stdout
    assert "2.43" in shown


def test_a_failed_job_leaves_out_its_row_not_the_table(cli, db, clean_env, tmp_path):
    """Two jobs failed (empty size and result): the other rows are stored, both bad lines are
    named, the exit status is 1; --strict stores nothing from the file."""
    table = tmp_path / "result.csv"
    table.write_text(
        "nodes,taskspernode,osu_exe,msg_size,runtime[sec],size,result\n"
        "1,2,osu_bw,1,0.55,1,2.5\n1,2,osu_bw,16,0.61,,\n1,2,osu_bw,65536,0.55,65536,21467.14\n"
        "1,2,osu_latency,0,0.66,0,n/a\n1,2,osu_latency,8,0.66,8,0.3\n"
    )
    strict = cli("import", table, "--strict", "--db", db)
    assert strict.exit_code == 1 and f"{table}:3: column 'size' is empty" in strict.stderr
    assert f"{table}:5: column 'result': 'n/a' is not a number" in strict.stderr
    assert "no runs" in cli("list", "runs", "--db", db).stderr
    result = cli("import", table, "--db", db)
    assert result.exit_code == 1, result.output
    assert f"{table}:3: column 'size' is empty" in result.stderr and f"{table}:5:" in result.stderr
    assert "2 row(s) not imported" in result.stderr and "stored 2 run(s)" in result.stderr
    shown = cli("show", "1", "--db", db).stdout
    assert "21467.14" in shown and "2.50" in shown


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
