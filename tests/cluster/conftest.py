"""The virtual cluster (scripts/vcluster) as pytest fixtures, for every cluster test.

`vcluster` gives a running 2-host cluster with Slurm (vnode1, vnode2), `vcluster4` one of
four hosts, `vcluster6` one of six; each is brought up when a test asks for it and the other one is not the one
running, and taken down at the end of the session; a test that takes it down itself calls
`mark_down()`, and the next test that asks for `vcluster` brings it up again.
Without root, iproute2, util-linux, Slurm or munge the tests skip; with
COMMSCOPE_REQUIRE_CLUSTER=1 (CI) they fail instead.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from cluster_support import VCluster, job_folder, missing_prerequisite, shared_dir, unavailable
from mpi_flavours import yield_when_idle

#: The session fixture of each cluster size, in hosts. One cluster runs at a time.
CLUSTER_SIZES = {"vcluster_session": 2, "vcluster4_session": 4, "vcluster6_session": 6}


@pytest.hookimpl(trylast=True)  # after -m and -k: order what will run
def pytest_collection_modifyitems(items):
    """The modules that use one cluster size run one after another, the sizes in the order
    they first appear: bringing up a cluster of another size takes 2-3 s, and in file order
    make pytest's `timing or heavy` step went 4, 6, 4, 2, 4 hosts. The cluster modules move
    as one block to where the first of them was, each module whole and in its own order (a
    module's fixtures, such as SJTU's OSU page's submitted jobs, are made once)."""
    modules: dict[Path, list] = {}
    for item in items:
        modules.setdefault(item.path, []).append(item)

    def size(module_items) -> int | None:
        needs = (n for item in module_items for name, n in CLUSTER_SIZES.items() if name in item.fixturenames)
        return next(needs, None)

    sizes = {path: size(module_items) for path, module_items in modules.items()}
    clustered = [path for path in modules if sizes[path] is not None]
    if not clustered:
        return
    first_seen = list(dict.fromkeys(sizes[path] for path in clustered))
    ordered = sorted(clustered, key=lambda path: first_seen.index(sizes[path]))
    if ordered == clustered:
        return  # each size together already: nothing moves
    block = [item for path in ordered for item in modules[path]]
    start = items.index(modules[clustered[0]][0])
    rest = [item for item in items if sizes[item.path] is None]
    before = [item for item in items[:start] if sizes[item.path] is None]
    items[:] = before + block + rest[len(before) :]


def _cluster_for_the_session(cluster: VCluster):
    """Up at the first test that asks, down at the end of the session whatever happened."""
    reason = missing_prerequisite()
    if reason:
        unavailable(reason)
    try:
        cluster.up()
        yield cluster
    finally:
        result = cluster.down()
        if result.returncode != 0:
            print(f"vcluster down failed:\n{result.stderr}")


@pytest.fixture(scope="session")
def vcluster_session():
    yield from _cluster_for_the_session(VCluster())


@pytest.fixture
def vcluster(vcluster_session) -> VCluster:
    vcluster_session.ensure_up()
    return vcluster_session


@pytest.fixture(scope="session")
def vcluster4_session():
    yield from _cluster_for_the_session(VCluster(hosts=4))


@pytest.fixture
def vcluster4(vcluster4_session) -> VCluster:
    """Four hosts with Slurm (vnode1..vnode4), for the sweep tests and SJTU's 4-node
    job scripts. There is one cluster at a time: asking for this one replaces the 2-host
    one, and the next test that asks for `vcluster` brings that back (about 2 s each)."""
    vcluster4_session.ensure_up()
    return vcluster4_session


@pytest.fixture(scope="session")
def vcluster6_session():
    yield from _cluster_for_the_session(VCluster(hosts=6))


@pytest.fixture
def vcluster6(vcluster6_session) -> VCluster:
    """Six hosts with Slurm (vnode1..vnode6), for `sweep locate`: enough for round 1's
    three pairs to single a slow one out. It replaces the cluster running, as vcluster4 does."""
    vcluster6_session.ensure_up()
    return vcluster6_session


@pytest.fixture(scope="session")
def mpich_yield_when_idle() -> Path:
    """The yield-when-idle preload built into the folder every host sees."""
    return yield_when_idle(shared_dir())


@pytest.fixture
def work(vcluster, tmp_path_factory, request) -> dict:
    """job_folder() on the 2-host cluster."""
    return job_folder(request, tmp_path_factory)
