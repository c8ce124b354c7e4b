"""One measurement of the real core, written as a document (--format json) and as a stream
(--jsonl-out) at once: `commscope import` of the one and `commscope run`'s reading of the
other give the same Run, every axis kept (pairs, -V windows, one-sided modes, -T datatypes)."""

from __future__ import annotations

import pytest

from core_roads import core_fields, from_document, from_stream
from mpi_flavours import flavour_params, need

FAST = ("-i", "5", "-x", "1")


@pytest.fixture(params=flavour_params())
def mpi(request):
    return need(request.param)


@pytest.mark.parametrize(
    "np, args",
    [
        (3, ["pairs", "--bw-size", "16K", "-W", "8", "-c"]),
        (2, ["mbw_mr", "-V", "-m", "1:4"]),
        (2, ["put_latency", "-w", "create,allocate", "-s", "lock,flush", "-m", "1:4"]),
        (2, ["allreduce", "-T", "mpi_char,mpi_int", "-m", "1:8", "-z", "50,99"]),
    ],
)
def test_the_stream_and_the_document_of_one_measurement_give_the_same_run(mpi, tmp_path, np, args):
    stream = tmp_path / "core.jsonl"
    result = mpi.run(np, *args, *FAST, "--format", "json", "--jsonl-out", str(stream))
    assert result.returncode == 0, result.stderr
    document = tmp_path / "core.json"
    document.write_text(result.stdout)
    imported = from_document(document)
    streamed = from_stream(stream.read_bytes(), tmp_path / "launch", args[0])
    assert core_fields(imported) == core_fields(streamed)
    assert imported.status == "complete" and len({point.key for point in imported.points}) == len(imported.points)
