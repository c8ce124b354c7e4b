"""Every osu_* program OMB 7.4 and 7.5 install (docs/core.md's compat table), run through
the compat folder under each MPI library with OMB's minimal command line: 2 ranks (4 for
the neighbourhood collectives, whose default ring needs 3), a tiny sweep so that the whole
table runs in minutes. Each prints OMB's header lines (the title naming commscope), or,
where the library lacks the feature, refuses once with exit 2. Then the JUPITER GPU rule
set's command lines through OMB's get_local_rank wrapper."""

from __future__ import annotations

import json
import os
import subprocess

import pytest

from mpi_flavours import cuda_flavour_params, flavour_params, need, shell_rank
from result_schema import validate as validate_result

#: program (without osu_), the OMB version that first installs it, the header lines it prints
OMB_PROGRAMS = [
    (
        "acc_latency",
        "7.4",
        [
            "# commscope MPI_Accumulate latency Test",
            "# Window creation: MPI_Win_allocate",
            "# Synchronization: MPI_Win_flush",
            "# Datatype: MPI_CHAR.",
        ],
    ),
    ("allgather", "7.4", ["# commscope MPI Allgather Latency Test", "# Datatype: MPI_CHAR."]),
    ("allgather_persistent", "7.4", ["# commscope MPI Persistent Allgather Latency Test", "# Datatype: MPI_CHAR."]),
    ("allgatherv", "7.4", ["# commscope MPI Allgatherv Latency Test", "# Datatype: MPI_CHAR."]),
    ("allgatherv_persistent", "7.4", ["# commscope MPI Persistent Allgatherv Latency Test", "# Datatype: MPI_CHAR."]),
    ("allreduce", "7.4", ["# commscope MPI Allreduce Latency Test", "# Datatype: MPI_INT."]),
    ("allreduce_persistent", "7.4", ["# commscope MPI Persistent Allreduce Latency Test", "# Datatype: MPI_INT."]),
    ("alltoall", "7.4", ["# commscope MPI All-to-All Personalized Exchange Latency Test", "# Datatype: MPI_CHAR."]),
    (
        "alltoall_persistent",
        "7.4",
        ["# commscope MPI Persistent All-to-All Personalized Exchange Latency Test", "# Datatype: MPI_CHAR."],
    ),
    ("alltoallv", "7.4", ["# commscope MPI All-to-Allv Personalized Exchange Latency Test", "# Datatype: MPI_CHAR."]),
    (
        "alltoallv_persistent",
        "7.4",
        ["# commscope MPI Persistent All-to-Allv Personalized Exchange Latency Test", "# Datatype: MPI_CHAR."],
    ),
    ("alltoallw", "7.4", ["# commscope MPI All-to-Allw Personalized Exchange Latency Test", "# Datatype: MPI_CHAR."]),
    (
        "alltoallw_persistent",
        "7.4",
        ["# commscope MPI Persistent All-to-Allw Personalized Exchange Latency Test", "# Datatype: MPI_CHAR."],
    ),
    ("barrier", "7.4", ["# commscope MPI Barrier Latency Test"]),
    ("barrier_persistent", "7.4", ["# commscope MPI Persistent Barrier Latency Test"]),
    ("bcast", "7.4", ["# commscope MPI Broadcast Latency Test", "# Datatype: MPI_CHAR."]),
    ("bcast_persistent", "7.4", ["# commscope MPI Persistent Broadcast Latency Test", "# Datatype: MPI_CHAR."]),
    ("bibw", "7.4", ["# commscope MPI Bi-Directional Bandwidth Test", "# Datatype: MPI_CHAR."]),
    ("bibw_persistent", "7.4", ["# commscope MPI Bi-Directional Bandwidth Persistent Test", "# Datatype: MPI_CHAR."]),
    ("bw", "7.4", ["# commscope MPI Bandwidth Test", "# Datatype: MPI_CHAR."]),
    (
        "bw_fan_in",
        "7.4",
        ["# commscope MPI Fan-in Bandwidth Test", "# [ peers: 1 ] [ window size: 64 ]", "# Datatype: MPI_CHAR."],
    ),
    (
        "bw_fan_out",
        "7.4",
        ["# commscope MPI Fan-out Bandwidth Test", "# [ peers: 1 ] [ window size: 64 ]", "# Datatype: MPI_CHAR."],
    ),
    ("bw_persistent", "7.4", ["# commscope MPI Bandwidth Persistent Test", "# Datatype: MPI_CHAR."]),
    (
        "cas_latency",
        "7.4",
        [
            "# commscope MPI_Compare_and_swap latency Test",
            "# Window creation: MPI_Win_allocate",
            "# Synchronization: MPI_Win_flush",
            "# Datatype: MPI_CHAR.",
        ],
    ),
    (
        "fop_latency",
        "7.4",
        [
            "# commscope MPI_Fetch_and_op latency Test",
            "# Window creation: MPI_Win_allocate",
            "# Synchronization: MPI_Win_flush",
            "# Datatype: MPI_CHAR.",
        ],
    ),
    ("gather", "7.4", ["# commscope MPI Gather Latency Test", "# Datatype: MPI_CHAR."]),
    ("gather_persistent", "7.4", ["# commscope MPI Persistent Gather Latency Test", "# Datatype: MPI_CHAR."]),
    ("gatherv", "7.4", ["# commscope MPI Gatherv Latency Test", "# Datatype: MPI_CHAR."]),
    ("gatherv_persistent", "7.4", ["# commscope MPI Persistent Gatherv Latency Test", "# Datatype: MPI_CHAR."]),
    (
        "get_acc_latency",
        "7.4",
        [
            "# commscope MPI_Get_accumulate latency Test",
            "# Window creation: MPI_Win_create",
            "# Synchronization: MPI_Win_lock/unlock",
            "# Datatype: MPI_CHAR.",
        ],
    ),
    (
        "get_bw",
        "7.4",
        [
            "# commscope MPI_Get Bandwidth Test",
            "# Window creation: MPI_Win_allocate",
            "# Synchronization: MPI_Win_flush",
            "# Datatype: MPI_CHAR.",
        ],
    ),
    (
        "get_latency",
        "7.4",
        [
            "# commscope MPI_Get latency Test",
            "# Window creation: MPI_Win_allocate",
            "# Synchronization: MPI_Win_flush",
            "# Datatype: MPI_CHAR.",
        ],
    ),
    (
        "get_mbw",
        "7.4",
        [
            "# commscope MPI_Get Multiple Bandwidth Bandwidth Test",
            "# [ pairs: 1 ] [ window size: 64 ]",
            "# Window creation: MPI_Win_allocate",
            "# Synchronization: MPI_Win_flush",
            "# Datatype: MPI_CHAR.",
        ],
    ),
    (
        "get_multi_lat",
        "7.4",
        [
            "# commscope MPI_Get Multi Latency Test",
            "# Window creation: MPI_Win_allocate",
            "# Synchronization: MPI_Win_flush",
            "# Datatype: MPI_CHAR.",
        ],
    ),
    ("hello", "7.4", ["# commscope MPI Hello World Test"]),
    (
        "iallgather",
        "7.4",
        [
            "# commscope MPI Non-blocking Allgather Latency Test",
            "# Overall = Coll. Init + Compute + MPI_Test + MPI_Wait",
            "# Datatype: MPI_CHAR.",
        ],
    ),
    (
        "iallgatherv",
        "7.4",
        [
            "# commscope MPI Non-blocking Allgatherv Latency Test",
            "# Overall = Coll. Init + Compute + MPI_Test + MPI_Wait",
            "# Datatype: MPI_CHAR.",
        ],
    ),
    (
        "iallreduce",
        "7.4",
        [
            "# commscope MPI Non-blocking Allreduce Latency Test",
            "# Overall = Coll. Init + Compute + MPI_Test + MPI_Wait",
            "# Datatype: MPI_INT.",
        ],
    ),
    (
        "ialltoall",
        "7.4",
        [
            "# commscope MPI Non-blocking All-to-All Personalized Exchange Latency Test",
            "# Overall = Coll. Init + Compute + MPI_Test + MPI_Wait",
            "# Datatype: MPI_CHAR.",
        ],
    ),
    (
        "ialltoallv",
        "7.4",
        [
            "# commscope MPI Non-blocking All-to-Allv Personalized Exchange Latency Test",
            "# Overall = Coll. Init + Compute + MPI_Test + MPI_Wait",
            "# Datatype: MPI_CHAR.",
        ],
    ),
    (
        "ialltoallw",
        "7.4",
        [
            "# commscope MPI Non-blocking All-to-Allw Personalized Exchange Latency Test",
            "# Overall = Coll. Init + Compute + MPI_Test + MPI_Wait",
            "# Datatype: MPI_CHAR.",
        ],
    ),
    (
        "ibarrier",
        "7.4",
        ["# commscope MPI Non-blocking Barrier Latency Test", "# Overall = Coll. Init + Compute + MPI_Test + MPI_Wait"],
    ),
    (
        "ibcast",
        "7.4",
        [
            "# commscope MPI Non-blocking Broadcast Latency Test",
            "# Overall = Coll. Init + Compute + MPI_Test + MPI_Wait",
            "# Datatype: MPI_CHAR.",
        ],
    ),
    (
        "igather",
        "7.4",
        [
            "# commscope MPI Non-blocking Gather Latency Test",
            "# Overall = Coll. Init + Compute + MPI_Test + MPI_Wait",
            "# Datatype: MPI_CHAR.",
        ],
    ),
    (
        "igatherv",
        "7.4",
        [
            "# commscope MPI Non-blocking Gatherv Latency Test",
            "# Overall = Coll. Init + Compute + MPI_Test + MPI_Wait",
            "# Datatype: MPI_CHAR.",
        ],
    ),
    (
        "ineighbor_allgather",
        "7.4",
        [
            "# commscope MPI Non-blocking Neighborhood Allgather Latency Test",
            "# Neighborhood: cart 4, radius 1, 2 neighbours per rank",
            "# Overall = Coll. Init + Compute + MPI_Test + MPI_Wait",
            "# Datatype: MPI_CHAR.",
        ],
    ),
    (
        "ineighbor_allgatherv",
        "7.4",
        [
            "# commscope MPI Non-blocking Neighborhood Allgatherv Latency Test",
            "# Neighborhood: cart 4, radius 1, 2 neighbours per rank",
            "# Overall = Coll. Init + Compute + MPI_Test + MPI_Wait",
            "# Datatype: MPI_CHAR.",
        ],
    ),
    (
        "ineighbor_alltoall",
        "7.4",
        [
            "# commscope MPI Non-blocking Neighborhood Alltoall Latency Test",
            "# Neighborhood: cart 4, radius 1, 2 neighbours per rank",
            "# Overall = Coll. Init + Compute + MPI_Test + MPI_Wait",
            "# Datatype: MPI_CHAR.",
        ],
    ),
    (
        "ineighbor_alltoallv",
        "7.4",
        [
            "# commscope MPI Non-blocking Neighborhood Alltoallv Latency Test",
            "# Neighborhood: cart 4, radius 1, 2 neighbours per rank",
            "# Overall = Coll. Init + Compute + MPI_Test + MPI_Wait",
            "# Datatype: MPI_CHAR.",
        ],
    ),
    (
        "ineighbor_alltoallw",
        "7.4",
        [
            "# commscope MPI Non-blocking Neighborhood Alltoallw Latency Test",
            "# Neighborhood: cart 4, radius 1, 2 neighbours per rank",
            "# Overall = Coll. Init + Compute + MPI_Test + MPI_Wait",
            "# Datatype: MPI_CHAR.",
        ],
    ),
    ("init", "7.4", ["# commscope MPI Init Test"]),
    (
        "ireduce",
        "7.4",
        [
            "# commscope MPI Non-blocking Reduce Latency Test",
            "# Overall = Coll. Init + Compute + MPI_Test + MPI_Wait",
            "# Datatype: MPI_INT.",
        ],
    ),
    (
        "ireduce_scatter",
        "7.4",
        [
            "# commscope MPI Non-blocking Reduce_scatter Latency Test",
            "# Overall = Coll. Init + Compute + MPI_Test + MPI_Wait",
            "# Datatype: MPI_INT.",
        ],
    ),
    (
        "ireduce_scatter_block",
        "7.4",
        [
            "# commscope MPI Non-blocking Reduce_scatter_block Latency Test",
            "# Overall = Coll. Init + Compute + MPI_Test + MPI_Wait",
            "# Datatype: MPI_INT.",
        ],
    ),
    (
        "iscatter",
        "7.4",
        [
            "# commscope MPI Non-blocking Scatter Latency Test",
            "# Overall = Coll. Init + Compute + MPI_Test + MPI_Wait",
            "# Datatype: MPI_CHAR.",
        ],
    ),
    (
        "iscatterv",
        "7.4",
        [
            "# commscope MPI Non-blocking Scatterv Latency Test",
            "# Overall = Coll. Init + Compute + MPI_Test + MPI_Wait",
            "# Datatype: MPI_CHAR.",
        ],
    ),
    ("latency", "7.4", ["# commscope MPI Latency Test", "# Datatype: MPI_CHAR."]),
    (
        "latency_mp",
        "7.4",
        [
            "# Number of forked processes in sender: 1",
            "# Number of forked processes in receiver: 2",
            "# commscope MPI Multi-process Latency Test",
            "# Datatype: MPI_CHAR.",
        ],
    ),
    (
        "latency_mt",
        "7.4",
        [
            "# Number of Sender threads: 1 ",
            "# Number of Receiver threads: 2",
            "# commscope MPI Multi-threaded Latency Test",
            "# Datatype: MPI_CHAR.",
        ],
    ),
    ("latency_persistent", "7.4", ["# commscope MPI Latency Persistent Test", "# Datatype: MPI_CHAR."]),
    (
        "mbw_mr",
        "7.4",
        [
            "# commscope MPI Multiple Bandwidth / Message Rate Test",
            "# [ pairs: 1 ] [ window size: 64 ]",
            "# Datatype: MPI_CHAR.",
        ],
    ),
    ("multi_lat", "7.4", ["# commscope MPI Multi Latency Test", "# Datatype: MPI_CHAR."]),
    (
        "neighbor_allgather",
        "7.4",
        [
            "# commscope MPI Neighborhood Allgather Latency Test",
            "# Neighborhood: cart 4, radius 1, 2 neighbours per rank",
            "# Datatype: MPI_CHAR.",
        ],
    ),
    (
        "neighbor_allgatherv",
        "7.4",
        [
            "# commscope MPI Neighborhood Allgatherv Latency Test",
            "# Neighborhood: cart 4, radius 1, 2 neighbours per rank",
            "# Datatype: MPI_CHAR.",
        ],
    ),
    (
        "neighbor_alltoall",
        "7.4",
        [
            "# commscope MPI Neighborhood Alltoall Latency Test",
            "# Neighborhood: cart 4, radius 1, 2 neighbours per rank",
            "# Datatype: MPI_CHAR.",
        ],
    ),
    (
        "neighbor_alltoallv",
        "7.4",
        [
            "# commscope MPI Neighborhood Alltoallv Latency Test",
            "# Neighborhood: cart 4, radius 1, 2 neighbours per rank",
            "# Datatype: MPI_CHAR.",
        ],
    ),
    (
        "neighbor_alltoallw",
        "7.4",
        [
            "# commscope MPI Neighborhood Alltoallw Latency Test",
            "# Neighborhood: cart 4, radius 1, 2 neighbours per rank",
            "# Datatype: MPI_CHAR.",
        ],
    ),
    (
        "partitioned_latency",
        "7.5",
        ["# commscope MPI Partitioned Latency Test", "# Number of partitions: 8", "# Datatype: MPI_CHAR."],
    ),
    (
        "put_bibw",
        "7.4",
        [
            "# commscope MPI_Put Bi-directional Bandwidth Test",
            "# Window creation: MPI_Win_allocate",
            "# Synchronization: MPI_Win_post/start/complete/wait",
            "# Datatype: MPI_CHAR.",
        ],
    ),
    (
        "put_bw",
        "7.4",
        [
            "# commscope MPI_Put Bandwidth Test",
            "# Window creation: MPI_Win_allocate",
            "# Synchronization: MPI_Win_flush",
            "# Datatype: MPI_CHAR.",
        ],
    ),
    (
        "put_latency",
        "7.4",
        [
            "# commscope MPI_Put Latency Test",
            "# Window creation: MPI_Win_allocate",
            "# Synchronization: MPI_Win_flush",
            "# Datatype: MPI_CHAR.",
        ],
    ),
    ("reduce", "7.4", ["# commscope MPI Reduce Latency Test", "# Datatype: MPI_INT."]),
    ("reduce_persistent", "7.4", ["# commscope MPI Persistent Reduce Latency Test", "# Datatype: MPI_INT."]),
    ("reduce_scatter", "7.4", ["# commscope MPI Reduce_scatter Latency Test", "# Datatype: MPI_INT."]),
    ("reduce_scatter_block", "7.4", ["# commscope MPI Reduce_scatter_block Latency Test", "# Datatype: MPI_INT."]),
    (
        "reduce_scatter_persistent",
        "7.4",
        ["# commscope MPI Persistent Reduce_scatter Latency Test", "# Datatype: MPI_INT."],
    ),
    ("scatter", "7.4", ["# commscope MPI Scatter Latency Test", "# Datatype: MPI_CHAR."]),
    ("scatter_persistent", "7.4", ["# commscope MPI Persistent Scatter Latency Test", "# Datatype: MPI_CHAR."]),
    ("scatterv", "7.4", ["# commscope MPI Scatterv Latency Test", "# Datatype: MPI_CHAR."]),
    ("scatterv_persistent", "7.4", ["# commscope MPI Persistent Scatterv Latency Test", "# Datatype: MPI_CHAR."]),
]

#: what each library lacks: (program predicate, why) -> refusal expected instead of a table
OPENMPI_41_LACKS = {
    "persistent collectives": lambda name: name.endswith("_persistent") and name not in POINT_TO_POINT_PERSISTENT,
    "partitioned communication": lambda name: name == "partitioned_latency",
}
POINT_TO_POINT_PERSISTENT = {"latency_persistent", "bw_persistent", "bibw_persistent"}
SIZELESS = {"barrier", "ibarrier", "barrier_persistent", "init", "hello"}


@pytest.fixture(params=flavour_params())
def mpi(request):
    return need(request.param)


def minimal_args(name: str) -> list[str]:
    if name in ("init", "hello"):
        return []
    return ["-x", "1", "-i", "2"] + ([] if name in SIZELESS else ["-m", "8"])


def ranks(name: str) -> int:
    return 4 if "neighbor" in name else 2


def lacks(mpi, name: str) -> str | None:
    if not mpi.is_openmpi:
        return None
    return next((why for why, hit in OPENMPI_41_LACKS.items() if hit(name)), None)


def test_the_table_is_every_omb_program_with_a_compat_name(mpi):
    """OMB 7.4's 79 programs and 7.5's partitioned_latency, each a link in compat/."""
    assert len(OMB_PROGRAMS) == 80 and len({p for p, _, _ in OMB_PROGRAMS}) == 80
    assert [p for p, v, _ in OMB_PROGRAMS if v == "7.5"] == ["partitioned_latency"]
    missing = [p for p, _, _ in OMB_PROGRAMS if not (mpi.compat / f"osu_{p}").exists()]
    assert missing == []
    assert (mpi.compat / "get_local_rank").exists()


@pytest.mark.parametrize("name, version, header", OMB_PROGRAMS, ids=[p for p, _, _ in OMB_PROGRAMS])
def test_omb_program_prints_omb_headers_or_refuses(mpi, name, version, header):
    res = mpi.run(ranks(name), *minimal_args(name), program=mpi.compat / f"osu_{name}")
    why = lacks(mpi, name)
    if why:
        assert res.returncode == 2, res.stderr
        assert res.stderr.count(f"{name} is not available in this build") == 1, res.stderr
        assert res.stdout == ""
        return
    assert res.returncode == 0, res.stderr
    lines = [line.split(" v")[0] if line.startswith("# commscope") else line for line in res.stdout.splitlines()]
    column_headers = ("# Size", "# Avg Latency", "# Overall(us)")
    hashed = [line for line in lines if line.startswith("#") and not line.startswith(column_headers)]
    assert hashed == header, res.stdout


NEW_PROGRAMS = [
    "latency_persistent",
    "bw_persistent",
    "bibw_persistent",
    "get_mbw",
    "get_multi_lat",
    "latency_mt",
    "latency_mp",
    "partitioned_latency",
]


@pytest.mark.parametrize("name", NEW_PROGRAMS)
def test_new_programs_write_valid_json_and_validate(mpi, name):
    """The records of the programs added for OMB 7.4/7.5 follow the result schema, and -c passes."""
    if lacks(mpi, name):
        pytest.skip(f"{mpi.name} lacks {lacks(mpi, name)} (refusal checked above)")
    res = mpi.run(2, name, "-m", "1:4K", "-x", "2", "-i", "20", "-c", "--format", "json")
    assert res.returncode == 0, res.stderr
    doc = json.loads(res.stdout)
    validate_result(doc)
    assert doc["results"] and all(r["validation"] == {"errors": 0} for r in doc["results"])


# JUPITER's GPU procurement rule set (jubench-osu's osu_gpu.xml): OMB's get_local_rank
# as the command prefix, then osu_bw / osu_bibw at 64 MiB and osu_latency at 0 B on D D.
JUPITER_GPU_LINES = [
    ["osu_bw", "-m", "67108864:67108864", "-d", "cuda", "D", "D"],
    ["osu_bibw", "-m", "67108864:67108864", "-d", "cuda", "D", "D"],
    ["osu_latency", "-m", "0:0", "-d", "cuda", "D", "D"],
]


@pytest.mark.parametrize("line", JUPITER_GPU_LINES, ids=[line[0] for line in JUPITER_GPU_LINES])
def test_jupiter_gpu_lines_through_get_local_rank_refuse_without_a_gpu(mpi, line):
    """No GPU here: one message, exit 2, nothing on stdout (a CUDA build says there is no
    NVIDIA GPU; this build was made without CUDA and says so)."""
    res = mpi.run(2, str(mpi.compat / line[0]), *line[1:], program=mpi.compat / "get_local_rank")
    assert res.returncode == 2, res.stderr
    assert res.stdout == ""
    refusals = [l for l in res.stderr.splitlines() if "-d cuda:" in l or "no NVIDIA GPU" in l]
    assert len(refusals) == 1, res.stderr


@pytest.fixture(params=cuda_flavour_params())
def cuda(request):
    if request.param is None:
        pytest.fail("nvcc is installed but make cuda-build left no CUDA build for this MPI library")
    return request.param


@pytest.mark.parametrize("line", JUPITER_GPU_LINES, ids=[line[0] for line in JUPITER_GPU_LINES])
def test_jupiter_gpu_lines_on_the_cuda_build(cuda, line):
    """The CUDA build chooses each rank's GPU from the launcher's local rank (LOCAL_RANK once
    get_local_rank has exported it); with no GPU here, or an MPI that is not CUDA-aware, it
    refuses once with exit 2 and writes no table."""
    res = cuda.run(2, str(cuda.compat / line[0]), *line[1:], program=cuda.compat / "get_local_rank")
    assert res.returncode == 2, res.stderr
    assert res.stdout == ""
    refusals = [l for l in res.stderr.splitlines() if l.startswith(str(cuda.compat / line[0]) + ": ")]
    assert len(refusals) == 1, res.stderr
    assert "no NVIDIA GPU" in refusals[0] or "not CUDA-aware" in refusals[0], refusals[0]


def test_jupiter_cpu_line_runs_through_get_local_rank(mpi):
    res = mpi.run(2, str(mpi.compat / "osu_latency"), "-m", "0:0", program=mpi.compat / "get_local_rank")
    assert res.returncode == 0, res.stderr
    assert "# commscope MPI Latency Test" in res.stdout and "# Datatype: MPI_CHAR." in res.stdout


@pytest.mark.parametrize(
    "recorded, local_rank",
    [
        ({"OMPI_COMM_WORLD_LOCAL_RANK": "3"}, "3"),  # Open MPI's mpirun
        ({"MPI_LOCALRANKID": "1"}, "1"),  # MPICH's Hydra
        ({"SLURM_LOCALID": "2"}, "2"),  # srun, as on JUPITER
        ({"MV2_COMM_WORLD_LOCAL_RANK": "5", "SLURM_LOCALID": "2"}, "5"),  # MVAPICH's first, as OMB's
        ({}, ""),  # no launcher variable: LOCAL_RANK is left unset
    ],
)
def test_get_local_rank_exports_the_launchers_local_rank(mpi, recorded, local_rank):
    """The wrapper's contract with recorded launcher variables: LOCAL_RANK from the
    launcher's own variable, then the arguments run in its place."""
    env = {k: v for k, v in os.environ.items() if "LOCAL" not in k and not k.startswith(("OMPI_", "PMIX_", "PALS_"))}
    env.update(recorded)
    res = subprocess.run(
        [str(mpi.compat / "get_local_rank"), "sh", "-c", 'echo "${LOCAL_RANK-unset}"'],
        env=env,
        capture_output=True,
        text=True,
        timeout=30,
    )
    assert res.returncode == 0, res.stderr
    assert res.stdout.strip() == (local_rank or "unset")


def test_get_local_rank_under_the_launcher_gives_each_rank_its_own(mpi):
    res = mpi.run(2, *shell_rank('echo "rank-local ${LOCAL_RANK}"'), program=mpi.compat / "get_local_rank")
    assert res.returncode == 0, res.stderr
    assert sorted(l for l in res.stdout.splitlines() if l.startswith("rank-local")) == ["rank-local 0", "rank-local 1"]
