"""A rank that dies by a signal at start (issue 38: Open MPI 4.1.4's TCP wire-up across
virtual hosts crashes one now and then) on the 2-host virtual cluster, under both MPI
libraries, started by srun in a job `submit` wrote and by mpirun/mpiexec in a sweep: the
launch ends within seconds instead of waiting for its time limit, the launcher's words
name the rank, its host and the signal, the launch is started once more, and the job or
sweep completes with a measurement that crossed the veths. The stand-in for the core
(tests/support/crash_once.c) kills rank 1 by SIGSEGV at its first start only."""

from __future__ import annotations

import json
import re
import shutil
import subprocess
import sys
import time

import pytest

from cluster_support import FINALIZE_GRACE_S, HOSTS, REPO, RSH, VCluster, commscope, runs_of, shared_dir
from crash_once import crash_env, crash_once
from mpi_flavours import flavour_params, need

pytestmark = pytest.mark.cluster

LAUNCHER = {"mpich": "mpiexec.mpich", "openmpi": "mpirun.openmpi"}
#: Small and quick: the point is the path of a crash, not the curve.
SHORT = ["-m", "1:64K", "-i", "10", "-x", "2"]
#: A launch that ends within this many seconds did not wait for a dead rank (MPI start-up on
#: two virtual hosts sharing two loaded cores takes a few).
ENDS_WITHIN_S = 60


def crashing(flavour, folder) -> dict[str, str]:
    """The stand-in, built where every host sees it, as COMMSCOPE_BENCH; rank 1 dies once."""
    crash_once(flavour.name, shared_dir())
    env = crash_env(flavour.name, flavour.bench, folder / "crashed")
    return {**env, "COMMSCOPE_BENCH": str(shared_dir() / f"crash_once_{flavour.name}")}


#: What the job's log says of a death at the second start that was not the planted one:
#: Open MPI 4.1.4's own crash in its TCP wire-up (issue 38), which ends the job (its one
#: start more is spent) and leaves nothing of the planted death's path to judge.
OWN_CRASH_AT_RETRY = re.compile(r"starting it once more.*\n(?:.*\n)*?.*a rank died: rank (?!1 on vnode2)", re.M)


def _submit_crashing(vcluster, work, flavour, folder):
    """`submit --wait` of a short allreduce on both hosts with rank 1 dying at its first
    start, into `folder` and a database of its own; the finished process, its seconds."""
    folder.mkdir()
    env = {**work["env"], **crashing(flavour, folder), "COMMSCOPE_FINALIZE_GRACE": str(FINALIZE_GRACE_S)}
    env["COMMSCOPE_DB"] = str(folder / "results.db")
    started = time.monotonic()
    done = commscope(
        vcluster,
        *("submit", "allreduce", "--nodes", "2", "--ntasks-per-node", "1", "--wait"),
        *("--output-dir", folder, "--time", "10", "--", *SHORT),
        env=env,
        timeout=600,
    )
    return done, time.monotonic() - started


@pytest.mark.parametrize("flavour", flavour_params())
def test_a_job_whose_rank_dies_under_srun_ends_names_it_and_completes_on_the_second_start(vcluster, work, flavour):
    flavour = need(flavour)
    before = {host: vcluster.veth_bytes(host) for host in HOSTS}
    folder = work["folder"] / "first"
    done, seconds = _submit_crashing(vcluster, work, flavour, folder)
    if done.returncode != 0 and flavour.is_openmpi and OWN_CRASH_AT_RETRY.search(done.stderr):
        print(f"Open MPI crashed by itself at the second start; the job is submitted again:\n{done.stderr}")
        folder = work["folder"] / "again"
        done, seconds = _submit_crashing(vcluster, work, flavour, folder)
    assert done.returncode == 0, done.stdout + done.stderr
    assert (folder / "crashed").exists()
    [measured] = runs_of(folder / "results.db")  # the dead start's files are kept, but not stored as a run
    [log] = folder.glob("*/slurm-*.out")
    # srun ends the step itself, or (on a loaded machine, its step's end waited for past 10 s)
    # commscope does and says so between the death and the count
    said = re.compile(
        r"^warning: allreduce: a rank died: rank 1 on vnode2 died by SIGSEGV; "
        r"(?:the launcher had not ended the other ranks 10 s later; )?0 points measured; starting it once more",
        re.M,
    )
    assert said.search(log.read_text()), log.read_text()
    assert len(list(folder.glob("*/runs/*/retried-meta.json"))) == 1
    assert measured.status == "complete" and measured.ranks == 2 and measured.points
    assert {host["name"] for host in measured.hosts} == set(HOSTS)
    assert "--kill-on-bad-exit=1" in measured.launcher_argv
    moved = {host: vcluster.veth_bytes(host) - before[host] for host in HOSTS}
    assert all(count > 100_000 for count in moved.values()), f"the second start did not cross the veths: {moved}"
    print(f"{flavour.name}: a job with a rank dead at its first start, submitted to collected in {seconds:.1f} s")
    assert seconds < 300  # a dead rank's peers waiting for it would hold the job for its 10 minutes


def sweep_environment(cluster: VCluster, flavour, folder) -> dict[str, str]:
    return cluster.environ(
        **crashing(flavour, folder),
        COMMSCOPE_DB=str(folder / "sweep.db"),
        COMMSCOPE_SWEEP_TMP=str(shared_dir()),
        OMPI_MCA_plm_rsh_agent=str(RSH),
        HYDRA_LAUNCHER="ssh",
        HYDRA_LAUNCHER_EXEC=str(RSH),
        OMPI_MCA_mpi_yield_when_idle="1",
        COMMSCOPE_FINALIZE_GRACE=str(FINALIZE_GRACE_S),
        PYTHONPATH=str(REPO / "python"),
    )


@pytest.mark.parametrize("flavour", flavour_params())
def test_a_sweep_whose_rank_dies_under_mpirun_or_mpiexec_is_started_once_more(vcluster, work, flavour):
    flavour = need(flavour)
    launcher = shutil.which(LAUNCHER[flavour.name])
    out = work["folder"] / "sweep.json"
    through_vnode2 = vcluster.veth_bytes("vnode2")
    argv = [sys.executable, "-m", "commscope", "sweep", "all-pairs", "--hosts", ",".join(HOSTS)]
    argv += ["--launcher", launcher, "--metric", "bw", "--no-retest", "--json", str(out), "--bind", "none"]
    started = time.monotonic()
    result = subprocess.run(
        [*argv, "--", "--bw-size", "64K", "-W", "8", "-i", "10", "-x", "2"],
        capture_output=True,
        text=True,
        timeout=600,
        env=sweep_environment(vcluster, flavour, work["folder"]),
    )
    seconds = time.monotonic() - started
    assert result.returncode == 0, result.stdout + result.stderr
    said = {
        # Hydra over ssh prints its banner, then fails to signal the other proxy and waits:
        # commscope stops it (execute/limits.py). Now and then under load vnode1's proxy fails
        # instead and Hydra ends, its exit codes without vnode1's rank: the host and the
        # signal hold, the rank cannot be counted (execute/outcome.py)
        "mpich": r"sweep: a rank died: a rank on vnode2 died \((Hydra: exit code 11|SIGSEGV)\)",
        "openmpi": r"sweep: a rank died: rank 1 on vnode2 died by SIGSEGV",
    }[flavour.name]
    once_more = "starting it once more (a second failure at start is final)" in result.stderr
    named = re.search(said, result.stderr) is not None and once_more
    # Open MPI's mpirun loses its notice of which rank now and then (a race): its exit status tells the crash
    unnamed = "sweep: commscope-bench crashed (SIGSEGV); 0 points measured" in result.stderr and flavour.is_openmpi
    assert named or unnamed, result.stderr
    launches = [line for line in result.stderr.splitlines() if line.startswith("sweep: ") and " pairs " in line]
    assert len(launches) == 2, result.stderr
    document = json.loads(out.read_text())
    assert document["matrices"]["bw"][0][1] > 0
    assert vcluster.veth_bytes("vnode2") - through_vnode2 > 1_000_000
    print(f"{flavour.name}: a sweep with a rank dead at its first start took {seconds:.1f} s")
    assert seconds < 2 * ENDS_WITHIN_S
