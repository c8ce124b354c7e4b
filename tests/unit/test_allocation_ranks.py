"""Issue 38: inside a Slurm allocation a benchmark named directly that uses every rank
(collectives, congestion, multi-pair, one-to-all) runs on the allocation's tasks, a
point-to-point one keeps its two; the job script `submit` writes says which. The run's
dry run shows the launch (fake core, srun a script that only answers --version)."""

from __future__ import annotations

import os

import pytest

from commscope.execute.allocation import direct_ranks

EVERY = "every task of the allocation"


@pytest.fixture
def allocation(clean_env, tmp_path):
    srun = tmp_path / "bin" / "srun"
    srun.parent.mkdir()
    srun.write_text("#!/bin/sh\necho slurm 22.05.8\n")
    srun.chmod(0o755)
    clean_env.setenv("PATH", f"{srun.parent}{os.pathsep}{os.environ['PATH']}")
    clean_env.setenv("SLURM_JOB_ID", "77")
    clean_env.setenv("SLURM_JOB_NUM_NODES", "6")
    clean_env.setenv("SLURM_NTASKS", "6")
    clean_env.setenv("FAKE_CORE_BENCHMARKS", "allreduce,latency")
    return srun


def test_inside_an_allocation_a_collective_runs_on_every_task_and_a_pair_on_two(cli, fake_core, db, allocation):
    result = cli("run", "allreduce", "latency", "--dry-run", "--db", db)
    assert result.exit_code == 0, result.output
    lines = result.stdout.splitlines()
    assert "# allreduce: 6 ranks, placement any" in lines
    assert "# latency: 2 ranks, placement any" in lines
    assert any(line.startswith(f"{allocation} -n 6 --kill-on-bad-exit=1 ") and " allreduce " in line for line in lines)


def test_np_still_decides(cli, fake_core, db, allocation):
    result = cli("run", "allreduce", "--np", "3", "--dry-run", "--db", db)
    assert "# allreduce: 3 ranks, placement any" in result.stdout.splitlines()


def test_outside_an_allocation_a_benchmark_named_directly_runs_on_two():
    assert direct_ranks("allreduce", {}) == 2
    assert direct_ranks("congestion", {"SLURM_JOB_ID": "1", "SLURM_NTASKS": "6"}) == 6
    assert direct_ranks("latency_mt", {"SLURM_JOB_ID": "1", "SLURM_NTASKS": "6"}) == 2
    assert direct_ranks("allreduce", {"SLURM_JOB_ID": "1", "SLURM_NTASKS": "1"}) == 2  # the core says why


@pytest.mark.parametrize(
    "args, note",
    [
        (["congestion", "--nodes", "6", "--ntasks-per-node", "1"], f"# Ranks: congestion: {EVERY}, 6 ranks."),
        (["allreduce", "bw", "--nodes", "8"], f"# Ranks: allreduce: {EVERY}, 16 ranks; bw: 2 ranks (point-to-point)."),
        (["allreduce", "--nodes", "8", "--np", "4"], "# Ranks: allreduce: 4 ranks (--np)."),
    ],
)  # fmt: skip
def test_the_job_script_says_on_which_ranks_each_benchmark_runs(cli, fake_core, db, args, note):
    result = cli("submit", *args, "--dry-run", "--db", db)
    assert result.exit_code == 0, result.output
    assert note in result.stdout.splitlines(), result.stdout


def test_a_suite_has_no_note(cli, fake_core, db):
    result = cli("submit", "quick", "--dry-run", "--db", db)
    assert result.exit_code == 0 and "# Ranks:" not in result.stdout
