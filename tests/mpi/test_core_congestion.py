"""commscope-bench congestion with each MPI library on 4 local ranks: a record per canary
test and congestor with both phases and the impact factors, valid against the schema and
as many as planned_records says; the congestor-only mode; every bad input one refusal
with exit status 2 (no hang)."""

from __future__ import annotations

import json

import jsonschema
import pytest

from commscope.ingest.parse.commscope_json import load_schema
from mpi_flavours import flavour_params, need

SCHEMA = load_schema()
FAST = ["-i", "10", "-x", "1"]
CANARIES = ["rr_lat", "rr_bw", "rr_bw_sync", "allreduce"]


@pytest.fixture(params=flavour_params())
def mpi(request):
    return need(request.param)


def document(mpi, np, *args):
    res = mpi.run(np, "congestion", *args, "--format", "json")
    assert res.returncode == 0, res.stderr
    doc = json.loads(res.stdout)
    jsonschema.validate(doc, SCHEMA)
    return doc


def test_a_record_per_canary_test_and_congestor_with_both_phases(mpi):
    doc = document(mpi, 4, *FAST, "--congestor", "alltoall,put-incast")
    results = doc["results"]
    assert doc["planned_records"] == len(results) == 8
    assert doc["options"]["canary_ranks"] == 2 and doc["options"]["congestor_ranks"] == 2
    assert [(r["congestor"], r["canary"]) for r in results] == [
        (congestor, canary) for congestor in ("alltoall", "put-incast") for canary in CANARIES
    ]
    for r in results:
        unit = "MBps" if r["canary"] in ("rr_bw", "rr_bw_sync") else "us"
        m = r["metrics"]
        assert m[f"isolated_avg_{unit}"] > 0 and m[f"congested_avg_{unit}"] > 0
        ratio = m[f"congested_avg_{unit}"] / m[f"isolated_avg_{unit}"]
        assert m["impact_avg"] == pytest.approx(1 / ratio if unit == "MBps" else ratio, rel=1e-6)
        assert r["stats"]["samples"] == 2 * 10  # both canaries' samples of the congested phase


def test_congestors_alone(mpi):
    doc = document(mpi, 4, "--canary-fraction", "0", "--duration", "0.3", "--congestor", "incast,get-bcast")
    assert [(r["congestor"], r["canary"]) for r in doc["results"]] == [("incast", None), ("get-bcast", None)]
    assert all(r["metrics"]["congested_avg_MBps"] > 0 and r["metrics"]["congestor_ops"] > 0 for r in doc["results"])


@pytest.mark.parametrize(
    ("np", "args", "message"),
    [
        (3, [], "needs at least 4 ranks"),
        (4, ["--canary-fraction", "1"], "leaves no congestor"),
        (4, ["--canary-fraction", "0.6"], "leaves 1 congestor"),
        (4, ["--congestor", "flood"], "unknown congestor"),
        (4, ["--canary-placement", "node"], "0 congestors on 1 node"),
    ],
)
def test_bad_input_is_one_refusal_exit_2(mpi, np, args, message):
    res = mpi.run(np, "congestion", *args)
    assert res.returncode == 2, res.stderr
    assert res.stderr.count(message) == 1, res.stderr
