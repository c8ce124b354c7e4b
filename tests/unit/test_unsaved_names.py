"""Runs kept as files never overwrite each other: two runs of one benchmark and repeat kept
within one second (`overhead`'s plain and wrapped launches, a suite's two entries of one
benchmark) get a file each, and `import` reads both back."""

from __future__ import annotations

from commscope.records import unsaved
from commscope.records.run import Point, Run
from commscope.store.db import Store


def test_two_runs_of_one_benchmark_kept_within_a_second_are_two_files(cli, tmp_path):
    runs = [
        Run(
            benchmark="barrier",
            label=label,
            points=[Point(size=None, metrics={"latency_us": value})],
            raw={"stdout": label.encode(), "stderr": b""},
        )
        for label, value in (("plain", 1.0), ("wrapped", 9.0))
    ]
    kept = [unsaved.keep(run, {"argv": ["commscope", "overhead"]}, tmp_path) for run in runs]
    assert len(set(kept)) == 2
    assert [unsaved.sidecar_of(path).exists() for path in kept] == [True, True]
    assert [path.with_suffix(".stdout").read_bytes() for path in kept] == [b"plain", b"wrapped"]
    result = cli("import", *kept, "--db", tmp_path / "results.db")
    assert result.exit_code == 0, result.output
    with Store(tmp_path / "results.db", create=False) as store:
        assert sorted(row.label for row in store.summaries()) == ["plain", "wrapped"]
