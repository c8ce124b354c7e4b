"""nccl-tests outputs that do not name their program (every release before v2.16.7): the
program is inferred from the table and the import says how; a table several programs
print alike is refused, naming --benchmark, which settles it. On real published outputs
(tests/support/fixtures/nccl_tests/README.md says where each comes from)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from commscope.ingest.parse import ParseError, parse_file, parse_text
from commscope.store.db import Store
from paths import FIXTURES

NCCL = FIXTURES / "nccl_tests"
AUTODL = NCCL / "autodl_2080ti_2gpu_five_programs.txt"
H100 = NCCL / "nccl_h100_2node_all_reduce.txt"
H100_JSON = NCCL / "nccl_h100_2node_all_reduce.reconstructed.json"


def _outputs(path: Path) -> list[str]:
    """The outputs of a session transcript, each without the shell prompt and command above it."""
    return [part for part in re.split(r"(?m)^root@.*\n", path.read_text()) if part.strip()]


AUTODL_ALL_REDUCE, AUTODL_ALL_GATHER, AUTODL_BROADCAST, AUTODL_REDUCE, AUTODL_REDUCE_1GPU, AUTODL_ALLTOALL = _outputs(
    AUTODL
)


@pytest.mark.parametrize(
    ("name", "text", "benchmark", "how"),
    [
        # nccl-tests before v2.13 (2021): each program its own key columns, "error" not "#wrong", -c 0
        ("all_reduce", "superbench_a100_8gpu_allreduce.log", "nccl_allreduce", "busbw = 1.750 x algbw with 8 ranks"),
        (
            "all_gather",
            "superbench_a100_8gpu_allgather.log",
            "nccl_allgather",
            "key columns type; size = count x type size x 8 ranks",
        ),
        (
            "reduce_scatter",
            "superbench_a100_8gpu_reducescatter.log",
            "nccl_reduce_scatter",
            "redop sum; size = count x type size x 8 ranks",
        ),
        ("broadcast", "superbench_a100_8gpu_broadcast.log", "nccl_broadcast", "key columns type root; root 0"),
        ("reduce", "superbench_a100_8gpu_reduce.log", "nccl_reduce", "key columns type redop root; redop sum; root 0"),
        (
            "alltoall",
            "superbench_a100_8gpu_alltoall.log",
            "nccl_alltoall",
            "redop blank; size = count x type size x 8 ranks",
        ),
        # nccl-tests 2.13 to 2.16 (2025): type, redop and root for all; 2 ranks, validated
        (
            "all_reduce-2",
            AUTODL_ALL_REDUCE,
            "nccl_allreduce",
            "busbw = 1.000 x algbw with 2 ranks; in-place #wrong counted",
        ),
        (
            "all_gather-2",
            AUTODL_ALL_GATHER,
            "nccl_allgather",
            "redop none; root -1; size = count x type size x 2 ranks",
        ),
        ("broadcast-2", AUTODL_BROADCAST, "nccl_broadcast", "redop none; root 0; size = count x type size;"),
        ("reduce-2", AUTODL_REDUCE, "nccl_reduce", "redop sum; root 0; size = count x type size;"),
        ("reduce-1", AUTODL_REDUCE_1GPU, "nccl_reduce", "redop sum; root 0; busbw = 1.000 x algbw with 1 rank;"),
        ("alltoall-2", AUTODL_ALLTOALL, "nccl_alltoall", "in-place #wrong N/A"),
        # 16 ranks on 2 hosts, without the mpirun command line above it
        (
            "all_reduce-16",
            H100.read_text()[H100.read_text().index("# nThread") :],
            "nccl_allreduce",
            "busbw = 1.875 x algbw with 16 ranks",
        ),
    ],
    ids=lambda value: value if isinstance(value, str) and "\n" not in value and not value.startswith("nccl_") else "",
)
def test_the_program_is_inferred_from_the_table_and_the_run_says_how(name, text, benchmark, how):
    if text.endswith(".log"):
        text = (NCCL / text).read_text()
    runs = parse_text(text, f"{name}.out")
    assert {run.benchmark for run in runs} == {benchmark}
    for run in runs:
        assert run.provenance["program_inferred"].startswith(f"{run.title}, inferred from the table (")
        assert how in run.provenance["program_inferred"], run.provenance["program_inferred"]
        assert f"nccl-tests program {run.provenance['program_inferred']}" in run.notes


def test_a_program_the_output_names_is_not_inferred():
    for path in (AUTODL, H100, H100_JSON):
        assert all("program_inferred" not in run.provenance for run in parse_file(path))
    assert [run.benchmark for run in parse_file(AUTODL)] == [
        "nccl_allreduce",
        "nccl_allgather",
        "nccl_broadcast",
        "nccl_reduce",
        "nccl_reduce",
        "nccl_alltoall",
    ]


# Without validation (-c 0) nccl-tests prints N/A for every #wrong: a 2-rank all_reduce and a
# 2-rank sendrecv, an all_gather and an alltoall, then print the same table.
def _unvalidated(text: str) -> str:
    text = text.replace("validation: 1", "validation: 0")
    return re.sub(r"(?m)^(\s+\d.*\s)0(\s+\S+\s+\S+\s+\S+\s+)0$", r"\1N/A\2N/A", text)


@pytest.mark.parametrize(
    ("text", "problem"),
    [
        (_unvalidated(AUTODL_ALL_REDUCE), "the table fits all_reduce_perf, sendrecv_perf (key columns type redop root"),
        (_unvalidated(AUTODL_ALL_GATHER), "the table fits alltoall_perf, all_gather_perf (key columns type redop root"),
        # a device line missing: 1 rank, where busbw = algbw fits no reduction of 1 rank
        (
            AUTODL_ALL_REDUCE.replace(AUTODL_ALL_REDUCE.splitlines()[4] + "\n", ""),
            "the table fits no nccl-tests program",
        ),
    ],
    ids=["all_reduce-or-sendrecv", "all_gather-or-alltoall", "none"],
)
def test_a_table_several_programs_print_alike_is_refused_naming_benchmark(text, problem):
    with pytest.raises(ParseError) as refused:
        parse_text(text, "unnamed.out")
    message = str(refused.value)
    header = next(number for number, line in enumerate(text.splitlines(), 1) if line.startswith("#       size"))
    assert message.startswith(f"unnamed.out:{header}: cannot tell which nccl-tests program wrote this table"), message
    assert problem in message and "name it with --benchmark" in message


def test_a_command_line_naming_another_program_is_refused():
    """A script that echoes one program's name and runs another (seen in published logs)."""
    broadcast = AUTODL_BROADCAST
    text = "root@host:~/nccl-tests# ./build/all_reduce_perf -b 8 -e 1024M -f 2 -g2\n" + broadcast
    with pytest.raises(ParseError) as refused:
        parse_text(text, "echoed.out")
    assert "the command line above names all_reduce_perf, but this table is not all_reduce_perf's" in str(refused.value)
    assert "--benchmark names the program that wrote it" in str(refused.value)
    [run] = parse_text(text, "echoed.out", "broadcast_perf")  # what --benchmark passes
    assert run.benchmark == "nccl_broadcast"
    assert run.provenance["program_inferred"] == (
        "broadcast_perf, named by --benchmark (the command line above names all_reduce_perf)"
    )


def _stored(db: Path) -> list:
    with Store(db, create=False) as store:
        return [store.run(summary.id) for summary in reversed(store.summaries())]


def test_import_says_how_it_knew_and_stores_it(cli, clean_env, db):
    result = cli("import", NCCL / "superbench_a100_8gpu_allgather.log", "--db", db)
    assert result.exit_code == 1  # nccl-tests' repeated size 0 rows are listed, not stored
    path = NCCL / "superbench_a100_8gpu_allgather.log"
    assert f"{path}:1: nccl-tests program all_gather_perf, inferred from the table (key columns type;" in result.stderr
    [run] = _stored(db)
    assert run.benchmark == "nccl_allgather"
    assert run.provenance["program_inferred"].startswith("all_gather_perf, inferred from the table")
    shown = cli("show", "1", "--db", db)
    assert "notes    nccl-tests program all_gather_perf, inferred from the table" in shown.output


def test_benchmark_names_the_program_of_an_ambiguous_table(cli, clean_env, db, tmp_path):
    unnamed = tmp_path / "sendrecv_or_all_reduce.out"
    unnamed.write_text(_unvalidated(AUTODL_ALL_REDUCE))
    refused = cli("import", unnamed, "--db", db)
    assert refused.exit_code == 1 and "name it with --benchmark" in refused.stderr
    assert not db.exists() or _stored(db) == []
    for given in ("all_reduce_perf", "nccl_allreduce"):  # the program's name or the stored name
        result = cli("import", unnamed, "--benchmark", given, "--db", db, "--force")
        assert result.exit_code == 0, result.output
        assert "nccl-tests program all_reduce_perf, named by --benchmark (the output does not name it)" in result.stderr
    assert [run.benchmark for run in _stored(db)] == ["nccl_allreduce", "nccl_allreduce"]


@pytest.mark.parametrize(
    ("args", "code", "problem"),
    [
        (
            ["--benchmark", "allreduce"],
            2,
            "'allreduce' is no nccl-tests program; one of all_reduce_perf, all_gather_perf",
        ),
        (
            ["--benchmark", "broadcast_perf", H100_JSON],
            1,
            ":1: the output says it is all_reduce_perf, --benchmark says broadcast_perf",
        ),
        (
            ["--benchmark", "all_reduce_perf", FIXTURES / "parse/omb5_latency.txt"],
            1,
            "--benchmark names the program of nccl-tests outputs; this file holds omb",
        ),
    ],
    ids=["unknown", "contradicts-the-output", "not-nccl-tests"],
)
def test_benchmark_is_refused_where_it_cannot_apply(cli, clean_env, db, args, code, problem):
    result = cli("import", *(args if len(args) > 2 else [*args, H100]), "--db", db)
    assert result.exit_code == code, result.output
    assert problem in result.stderr, result.stderr
    assert "Traceback" not in result.output
