"""`commscope schedule` on the virtual cluster's Slurm (ScronParameters=enable): the entry
is written, listed, run as a batch job of the allocation its #SCRON lines ask for, its runs
stored and checked against the baseline, and removed.

Debian's slurm-client (22.05) ships no scrontab program. Where there is none, the table is
kept by the stand-in of tests/support/fakes/schedulers and the entry is run as scrontab
runs it: its #SCRON lines as sbatch's options, its command as the batch script, without
the submitting shell's environment (--export=NONE)."""

from __future__ import annotations

import os
import shutil
import subprocess

import pytest

from commscope.cluster.schedule import entries
from mpi_flavours import load_flavours
from paths import FAKES

from .cluster_support import HOSTS, commscope, runs_of

pytestmark = pytest.mark.cluster

CORE_FLAGS = ("--", "-m", "1:64", "-i", "100", "-x", "10")


def _run_as_scrontab(cluster, lines: list[str], folder) -> subprocess.CompletedProcess:
    """The entry as one batch job: what slurmctld starts when its time comes."""
    options = [line.removeprefix("#SCRON ") for line in lines if line.startswith("#SCRON ")]
    command = lines[-1].split(" ", 5)[5]  # after cron's five time fields
    script = folder / "entry.sh"
    script.write_text(f"#!/bin/sh\n{command}\n")
    return subprocess.run(
        ["sbatch", "--wait", "--export=NONE", *options, str(script)],
        capture_output=True,
        text=True,
        timeout=300,
        env=cluster.environ(),
        cwd=folder,
    )


def test_schedule_is_written_listed_run_checked_and_removed(vcluster, work, tmp_path, mpich_yield_when_idle):
    flavour = load_flavours().get("mpich")
    if flavour is None:
        pytest.skip("no MPICH build of the core (make flavours)")
    # the job's log goes to commscope's data folder: one every host sees (their /tmp is their own)
    data = work["folder"] / "data"
    env = {
        **work["env"],
        "COMMSCOPE_BENCH": str(flavour.bench),
        "COMMSCOPE_SYSTEM": "vcluster",
        "XDG_DATA_HOME": str(data),
    }
    if shutil.which("scrontab") is None:
        (tmp_path / "bin").mkdir()
        (tmp_path / "bin" / "scrontab").symlink_to(FAKES / "schedulers" / "crontab")
        env.update(PATH=f"{tmp_path / 'bin'}{os.pathsep}{os.environ['PATH']}", FAKE_CRONTAB=str(tmp_path / "table"))
    passed_on = [
        f"{name}={vcluster.env[name]}" for name in ("SLURM_CONF", "UCX_TLS", "UCX_NET_DEVICES") if name in vcluster.env
    ]
    done = commscope(
        vcluster,
        "schedule", "latency", "--every", "1d", "--nodes", "2", "--ntasks-per-node", "1", "--baseline", "accepted",
        "--name", "vcluster-nightly", "--bind", "none",
        *(word for pair in passed_on for word in ("--env", pair)),
        "--env", f"LD_PRELOAD={mpich_yield_when_idle}",
        *CORE_FLAGS,
        env=env, cwd=work["folder"],
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    listed = commscope(vcluster, "schedule", "--list", env=env)
    assert listed.returncode == 0, listed.stderr
    lines = entries(listed.stdout)["vcluster-nightly"]
    assert "#SCRON --nodes=2" in lines and lines[-1].startswith("0 2 * * * ")

    first = _run_as_scrontab(vcluster, lines, work["folder"])  # no baseline yet: check exits 2
    assert first.returncode != 0
    [stored] = runs_of(work["db"])
    assert stored.label == "vcluster-nightly" and {host["name"] for host in stored.hosts} == set(HOSTS)
    assert stored.job_id and stored.status == "complete"
    assert commscope(vcluster, "baseline", "set", "accepted", str(stored.id), env=env).returncode == 0

    second = _run_as_scrontab(vcluster, lines, work["folder"])
    assert second.returncode in (0, 1), second.stderr  # judged: pass, or a regression on a busy VM
    job_id = second.stdout.split()[-1]
    log = (data / "commscope" / "schedule" / f"commscope-vcluster-nightly-{job_id}.out").read_text()
    assert "against baseline 'accepted'" in log
    assert len(runs_of(work["db"])) == 2

    assert commscope(vcluster, "schedule", "--remove", "vcluster-nightly", env=env).returncode == 0
    assert "vcluster-nightly" not in commscope(vcluster, "schedule", "--list", env=env).stdout
