"""GPU buffers and NCCL (issue 14) under real MPI, on the CUDA build and the plain one.

Here (no GPU, MPI libraries that are not CUDA-aware) the honest failures are checked:
one message and exit status 2, never a crash inside MPI. The measurements on a GPU are
written below and skip with the reason the CUDA runtime gives when no GPU answers."""

from __future__ import annotations

import json
import subprocess

import pytest

from mpi_flavours import cuda_flavour_params, flavour_params, need

TINY = ["-i", "20", "-x", "2"]
NCCL_COLLECTIVES = (
    "nccl_allreduce",
    "nccl_allgather",
    "nccl_broadcast",
    "nccl_reduce",
    "nccl_reduce_scatter",
    "nccl_alltoall",
)


@pytest.fixture(params=flavour_params())
def plain(request):
    return need(request.param)


@pytest.fixture(params=cuda_flavour_params())
def cuda(request):
    if request.param is None:
        pytest.fail("nvcc is installed but make cuda-build left no CUDA build for this MPI library")
    return request.param


def gpu_absent(flavour) -> str | None:
    """Why no GPU can be used ("no NVIDIA GPU (cudaGetDeviceCount: ...)"), or None."""
    res = subprocess.run([str(flavour.build / "memcpy_bw"), "1", "1"], capture_output=True, text=True, timeout=60)
    if res.returncode == 2 and "no NVIDIA GPU" in res.stderr:
        return res.stderr.strip().removeprefix("memcpy_bw: ")
    return None


def mpi_cuda_aware(flavour) -> bool:
    """What the library says of itself: ompi_info's or the core's own question."""
    if flavour.is_openmpi:
        out = subprocess.run(["ompi_info", "--parsable", "--all"], capture_output=True, text=True).stdout
        return "mpi_built_with_cuda_support:value:true" in out
    res = flavour.run(2, "latency", "-m", "8:8", *TINY, "-d", "cuda", "D", "D")
    return "not CUDA-aware" not in res.stderr


def one_message(res, program) -> str:
    """The program's own lines on stderr (Open MPI's mpirun adds a banner of its own when a
    rank exits non-zero): exactly one, from one rank."""
    lines = [line for line in res.stderr.splitlines() if line.startswith(f"{program}:")]
    assert len(lines) == 1, res.stderr
    return lines[0]


# ---- here: the clear errors ----


def test_plain_build_refuses_device_buffers(plain):
    res = plain.run(2, "latency", "-m", "8:8", "-d", "cuda", "D", "D")
    assert res.returncode == 2, res.stderr
    assert "-d cuda: GPU buffers are not supported by this build (it was built without CUDA" in res.stderr
    assert "Try" in res.stderr and res.stdout == ""
    res = plain.run(2, "allreduce", "-m", "8:8", "-d", "managed")
    assert res.returncode == 2 and "-d managed: GPU buffers are not supported by this build" in res.stderr


def test_plain_build_ignores_placement_words_as_omb_without_accelerator(plain):
    res = plain.run(2, "bw", "-m", "8:8", *TINY, "-c", "D", "D", "--format", "json")
    assert res.returncode == 0, res.stderr
    doc = json.loads(res.stdout)
    assert "memory" not in doc["options"] and "gpus" not in doc  # host memory, as before


def test_openacc_rocm_and_sycl_are_refused_by_name(plain):
    for accel, name in (("openacc", "OpenACC"), ("rocm", "ROCm"), ("sycl", "SYCL")):
        res = plain.run(2, "latency", "-d", accel, "D", "D")
        assert res.returncode == 2, res.stderr
        assert f"-d {accel}: {name} buffers are not supported by this build" in res.stderr


def test_cuda_build_refuses_device_buffers_with_an_mpi_that_is_not_cuda_aware(cuda):
    if mpi_cuda_aware(cuda):
        pytest.skip(f"{cuda.name} is CUDA-aware here")
    for args in (
        ["latency", "-m", "0:0", "-d", "cuda", "D", "D"],  # the JUPITER rules' lines
        ["bw", "-m", "67108864:67108864", "-d", "cuda", "D", "D"],
        ["bibw", "-m", "8:8", "-d", "managed", "M", "H"],
        ["allreduce", "-m", "8:8", "-d", "cuda"],
    ):
        program = cuda.compat / f"osu_{args[0]}"
        res = cuda.run(2, *args[1:], program=program)
        assert res.returncode == 2, (args, res.stderr)
        msg = one_message(res, program)
        assert "this MPI library is not CUDA-aware" in msg and "MPIX_" in msg, msg
        assert "use a CUDA-aware MPI, host buffers (H H) or the nccl_* benchmarks" in msg
        assert res.stdout == ""


def test_cuda_build_without_a_gpu_says_so(cuda):
    why = gpu_absent(cuda)
    if why is None:
        pytest.skip("this machine has a GPU")
    # -d cuda H H hands MPI host memory, so the device is what is missing
    for args in (
        ["latency", "-m", "8:8", "-d", "cuda"],
        ["nccl_allreduce", "-m", "8:8"],
        ["nccl_latency", "-m", "8:8"],
    ):
        res = cuda.run(2, *args)
        assert res.returncode == 2, (args, res.stderr)
        assert one_message(res, cuda.bench).endswith(why), (res.stderr, why)
    res = cuda.run(1, "nccl_allreduce", "--gpu-device", "0")
    assert res.returncode == 2 and "no NVIDIA GPU (cudaGetDeviceCount: " in res.stderr


def test_cuda_build_runs_host_benchmarks(cuda):
    for args in (
        ["latency", "-m", "1:64", *TINY, "-c"],
        ["bw", "-m", "4K:8K", *TINY, "-c"],
        ["allreduce", "-m", "4:64", *TINY, "-c", "-T", "mpi_int"],
        ["put_latency", "-m", "8:8", *TINY, "-c"],
    ):
        res = cuda.run(2, *args, "--format", "json")
        assert res.returncode == 0, (args, res.stderr)
        doc = json.loads(res.stdout)
        assert doc["status"] == "complete" and all(r["validation"] == {"errors": 0} for r in doc["results"])
        assert "gpus" not in doc and "memory" not in doc["results"][0]


def test_cuda_build_lists_nccl_benchmarks_and_no_compat_links_for_them(cuda):
    listed = subprocess.run([str(cuda.bench), "--list"], capture_output=True, text=True).stdout
    for name in ("nccl_latency", "nccl_bw", "nccl_bibw", *NCCL_COLLECTIVES):
        assert name in listed
    assert not list(cuda.compat.glob("osu_nccl*"))


# ---- on a GPU (skipped here, with the CUDA runtime's reason) ----


@pytest.fixture
def gpu(cuda):
    why = gpu_absent(cuda)
    if why:
        pytest.skip(why)
    return cuda


def test_device_memory_fill_and_check(gpu):
    """-c on device and managed buffers: filled and read back through cudaMemcpy."""
    res = gpu.run(1, "nccl_allreduce", "-m", "1:1M", "-c", "-T", "all", "--format", "json")
    assert res.returncode == 0, res.stderr
    doc = json.loads(res.stdout)
    assert doc["options"]["memory"] == {"send": "device", "recv": "device"}
    assert all(r["validation"] == {"errors": 0} for r in doc["results"])
    assert doc["gpus"][0]["name"] and doc["gpus"][0]["pci_bus_id"]
    # the check reads device memory back through cudaMemcpy: a flipped byte there is found
    res = gpu.run(1, "nccl_allreduce", "-m", "1:1K", *TINY, "-c", "--debug-corrupt", "64")
    assert res.returncode == 1 and "DATA VALIDATION ERROR" in res.stderr


@pytest.mark.parametrize("bench", ["latency", "bw"])
def test_device_to_device_on_two_ranks_sharing_one_gpu(gpu, bench):
    if not mpi_cuda_aware(gpu):
        pytest.skip(f"{gpu.name} is not CUDA-aware")
    res = gpu.run(2, bench, "-m", "1:1M", *TINY, "-c", "-d", "cuda", "D", "D", "--gpu-device", "0", "--format", "json")
    assert res.returncode == 0, res.stderr
    doc = json.loads(res.stdout)
    assert [g["device"] for g in doc["gpus"]] == [0, 0]
    assert all(r["memory"] == {"send": "device", "recv": "device"} for r in doc["results"])
    assert all(r["validation"] == {"errors": 0} for r in doc["results"])


def test_nccl_collectives_on_one_rank(gpu):
    for name in NCCL_COLLECTIVES:
        res = gpu.run(1, name, "-m", "4:64K", *TINY, "-c", "--busbw")
        assert res.returncode == 0, (name, res.stderr)
        assert "Busbw(GB/s)" in res.stdout and "Fail" not in res.stdout


@pytest.mark.parametrize("words,direction", [(["H", "D"], "h2d"), (["D", "H"], "d2h"), (["D", "D"], "d2d")])
def test_bandwidth_against_cudamemcpy(gpu, words, direction):
    """bw between two ranks on one GPU is bounded by what cudaMemcpy moves in that direction
    (generous: within a factor of 3 below, never 1.5x above)."""
    if not mpi_cuda_aware(gpu):
        pytest.skip(f"{gpu.name} is not CUDA-aware")
    size = str(64 << 20)
    ref = subprocess.run([str(gpu.build / "memcpy_bw"), size, "10"], capture_output=True, text=True, timeout=120)
    assert ref.returncode == 0, ref.stderr
    memcpy = {line.split()[0]: float(line.split()[2]) for line in ref.stdout.splitlines()}
    res = gpu.run(
        2,
        "bw",
        "-m",
        f"{size}:{size}",
        "-i",
        "10",
        "-x",
        "2",
        "-d",
        "cuda",
        *words,
        "--gpu-device",
        "0",
        "--format",
        "json",
    )
    assert res.returncode == 0, res.stderr
    mbps = json.loads(res.stdout)["results"][0]["metrics"]["bandwidth_MBps"]
    assert memcpy[direction] / 3 < mbps < memcpy[direction] * 1.5, (mbps, memcpy)


def test_harness_hands_device_and_buffers_to_the_core(plain, tmp_path):
    """A suite's `device: cuda` and `buffers: [D, D]` become OMB's `-d cuda D D`; the plain
    build's refusal reaches the user through the harness."""
    suite = tmp_path / "gpu.yaml"
    suite.write_text(
        'description: g\nbenchmarks:\n  - benchmark: bw\n    flags: ["-m", "8:8"]\n'
        "    device: cuda\n    buffers: [D, D]\n"
    )
    res = plain.commscope(tmp_path / "db.sqlite", "run", "--suite-file", str(suite), "--launcher", plain.launcher)
    assert res.returncode != 0
    out = res.stdout + res.stderr
    assert "-d cuda: GPU buffers are not supported by this build" in out and "Traceback" not in out


def test_gpu_document_keeps_memory_and_gpus_when_imported():
    """The reporters' GPU golden document (hand-made records): memory and accelerator become
    run parameters, the gpus list provenance (no GPU needed)."""
    from pathlib import Path

    from commscope.ingest.parse.commscope_json import read_commscope_json

    path = Path(__file__).resolve().parents[2] / "tests" / "c" / "golden" / "bw_gpu.json"
    runs = read_commscope_json(path.read_text(), str(path))
    assert runs[0].parameters["memory"] == "device/host" and runs[0].parameters["accelerator"] == "cuda"
    assert runs[0].provenance["gpus"][1]["pci_bus_id"] == "0000:65:00.0"


def test_jupiter_gpu_pairs_run_every_pair_and_the_cuda_build_refuses(cuda, tmp_path):
    """The JUPITER rules' intra-node rule on a recorded 4-GPU NVLink node (its `nvidia-smi topo -m`,
    tests/support/fixtures/links): one launch per pair GPU0-GPUk, each stored with its pair
    and the node's inventory; here the CUDA build refuses each (no GPU, MPI not CUDA-aware),
    and the report's rule section says which pair has the lowest peak and that no figure
    was measured."""
    from paths import FIXTURES

    suite = tmp_path / "rule.yaml"
    suite.write_text(
        'description: r\nbenchmarks:\n  - benchmark: bw\n    flags: ["-m", "64M:64M"]\n'
        "    device: cuda\n    buffers: [D, D]\n    placement: intra-node\n    gpu_pairs: one-to-all\n"
    )
    env = {"COMMSCOPE_NVIDIA_SMI": str(FIXTURES / "links" / "h100-4gpu-nvlink" / "nvidia-smi")}
    db = tmp_path / "db.sqlite"
    res = cuda.commscope(db, "run", "--suite-file", str(suite), "--launcher", cuda.launcher, env=env)
    out = res.stdout + res.stderr
    assert res.returncode != 0 and "Traceback" not in out
    for k in (1, 2, 3):
        assert f"CUDA_VISIBLE_DEVICES=0,{k} " in out
    assert "not CUDA-aware" in out or "no NVIDIA GPU" in out
    listed = cuda.commscope(db, "export", "1", "2", "3", "--format", "json", env=env)
    runs = json.loads(listed.stdout)["runs"]
    assert [(run["label"], run["provenance"]["gpu_pair"], run["status"]) for run in runs] == [
        ("GPU0-GPU1", [0, 1], "failed"),
        ("GPU0-GPU2", [0, 2], "failed"),
        ("GPU0-GPU3", [0, 3], "failed"),
    ]
    report = tmp_path / "report.md"
    done = cuda.commscope(db, "report", "--all", "-o", str(tmp_path / "r.html"), "--markdown", str(report), env=env)
    assert done.returncode == 0, done.stderr
    text = report.read_text()
    assert "The JUPITER rules: the combination with the lowest theoretical peak" in text
