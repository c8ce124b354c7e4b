"""`commscope sweep --nodes N`: salloc's command line from the flags over the site's
configuration, and the combinations refused before anything is asked of Slurm. The
sweep itself through salloc and srun runs in tests/cluster/test_sweep.py."""

from __future__ import annotations

import pytest

from commscope.cluster.allocate import in_allocation, salloc_argv
from commscope.cluster.config import SiteConfig


def test_salloc_asks_for_one_task_per_node_and_nothing_the_user_did_not_set():
    assert salloc_argv(4, SiteConfig()) == ["salloc", "--nodes=4", "--ntasks-per-node=1"]


def test_the_flags_win_over_the_site_configuration():
    config = SiteConfig(partition="cpu", account="acc", qos="short", time="1:00:00", constraint="ib", exclusive=True)
    assert salloc_argv(8, config, partition="gpu", time="10") == [
        "salloc",
        "--nodes=8",
        "--ntasks-per-node=1",
        "--partition=gpu",
        "--account=acc",
        "--qos=short",
        "--time=10",
        "--constraint=ib",
        "--exclusive",
    ]
    assert "--partition=cpu" in salloc_argv(8, config)


def test_an_allocation_is_a_job_id_with_a_node_list():
    assert in_allocation({"SLURM_JOB_ID": "7", "SLURM_JOB_NODELIST": "n[1-4]"})
    assert not in_allocation({"SLURM_JOB_ID": "7"})  # e.g. a step's environment copied by hand
    assert not in_allocation({})


@pytest.mark.parametrize(
    "args, message",
    [
        (["intra", "--nodes", "2"], "--nodes: intra sweeps the cores of the host it runs on"),
        (["all-pairs", "--nodes", "2", "--hosts", "a,b"], "--nodes takes the hosts from Slurm"),
        (["all-pairs", "--nodes", "1"], "--nodes 1: all-pairs needs at least 2 nodes"),
        (["all-pairs", "--hosts", "a,b", "--partition", "p"], "--partition and --time go with --nodes"),
        (["one-to-all", "--nodes", "0"], "Invalid value for '--nodes'"),
    ],
)
def test_wrong_combinations_are_refused_by_name(cli, clean_env, fake_core, args, message):
    result = cli("sweep", *args)
    assert result.exit_code == 2, result.output
    assert message in result.stderr


def test_without_slurm_installed_the_error_says_what_is_missing(cli, clean_env, fake_core, tmp_path):
    clean_env.setenv("PATH", str(tmp_path))  # no salloc, no scontrol
    clean_env.delenv("SLURM_JOB_ID", raising=False)
    result = cli("sweep", "all-pairs", "--nodes", "4")
    assert result.exit_code != 0
    assert "no salloc on PATH" in result.stderr and "Traceback" not in result.output
