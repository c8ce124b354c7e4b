"""`commscope history` over real runs of the core whose provenance changes halfway: ten
nightly launches over shared memory, then ten forced through the network. The history has
exactly one change point, between the two halves, and it names the transport."""

from __future__ import annotations

import json
import os

import pytest

from commands import latency_argv
from mpi_flavours import flavour_params, need

#: Small messages only, few iterations: the latency headline (0-8 B) in a fraction of a second.
SMALL_FLAGS = ("-m", "0:8", "-i", "200", "-x", "20")
LAUNCHES = 10


# `timing`: it judges latencies, shared memory against the network, and Open MPI's shared
# memory beside make pytest's other workers measured 45-106 us in 6 of 10 launches
@pytest.mark.timing
@pytest.mark.parametrize("flavour", flavour_params())
def test_a_transport_change_halfway_is_one_change_point_naming_it(flavour, cli, clean_env, db):
    flavour = need(flavour)
    clean_env.setenv("COMMSCOPE_BENCH", str(flavour.bench))
    for key, value in flavour.env(2).items():
        if os.environ.get(key) != value:
            clean_env.setenv(key, value)
    for transport in ("shm", "net"):
        for _ in range(LAUNCHES):  # each its own `commscope run`, as a nightly job is
            result = cli(
                *latency_argv(transport, flavour.launcher, "--label", "nightly", "--db", db, core_flags=SMALL_FLAGS)
            )
            assert result.exit_code == 0, result.output
    result = cli("history", "--benchmark", "latency", "--db", db, "--format", "json")
    assert result.exit_code == 1, result.output  # net is slower: the newest level is worse
    [series] = json.loads(result.output)["series"]
    assert len(series["runs"]) == 2 * LAUNCHES and series["where"] == "0-8 B"
    [change] = series["changes"]
    assert change["before_run"] == LAUNCHES and change["after_run"] == LAUNCHES + 1
    assert change["worse"] and change["ratio"] > 1.1
    assert {"aspect": "transport", "before": "shm", "after": "net"} in change["differences"]
