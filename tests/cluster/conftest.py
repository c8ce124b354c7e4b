"""The virtual cluster (scripts/vcluster) as pytest fixtures, for every cluster test.

`vcluster` gives a running 2-host cluster with Slurm (vnode1, vnode2), brought up once
per session and always taken down at the end; a test that takes it down itself calls
`mark_down()`, and the next test that asks for `vcluster` brings it up again.
Without root, iproute2, util-linux, Slurm or munge the tests skip; with
COMMSCOPE_REQUIRE_CLUSTER=1 (CI) they fail instead.
"""

from __future__ import annotations

import pytest

from .cluster_support import VCluster, missing_prerequisite, unavailable


@pytest.fixture(scope="session")
def vcluster_session():
    reason = missing_prerequisite()
    if reason:
        unavailable(reason)
    cluster = VCluster()
    try:
        cluster.up()
        yield cluster
    finally:
        result = cluster.down()
        if result.returncode != 0:
            print(f"vcluster down failed:\n{result.stderr}")


@pytest.fixture
def vcluster(vcluster_session) -> VCluster:
    vcluster_session.ensure_up()
    return vcluster_session


@pytest.fixture(scope="module")
def vcluster4():
    """Four hosts without Slurm (vnode1..vnode4), for the sweep tests; taken down after the
    module, and the 2-host session cluster comes back when a later test asks for it."""
    reason = missing_prerequisite()
    if reason:
        unavailable(reason)
    cluster = VCluster(hosts=4, slurm=False)
    try:
        cluster.up()
        yield cluster
    finally:
        result = cluster.down()
        if result.returncode != 0:
            print(f"vcluster down failed:\n{result.stderr}")
