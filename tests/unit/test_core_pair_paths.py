"""The JUPITER rules' intra-node core half: core 0 with a core on every NUMA node and socket, from
recorded CPU topologies of real two-socket machines (tests/support/fixtures/links/README.md:
a Xeon E5410 pair whose CPUs alternate between the sockets, one NUMA node; a Xeon E5-2660 v2
pair with a NUMA node per socket), the ranks bound to the pair by each launcher, and the
report's rule section ranking the pairs by path (the farthest has the lowest peak)."""

from __future__ import annotations

import pytest

from commscope.analysis.peaks import lowest_core_path, lowest_peak
from commscope.execute.cpu_topology import cpu_topology
from commscope.execute.launchers import HydraLauncher, LaunchSpec, OpenMpiLauncher, SrunLauncher
from commscope.output.report.peaks import rule_section
from commscope.records.core_paths import one_to_all_cores
from commscope.records.run import Point, Run
from paths import FIXTURES

LINKS = FIXTURES / "links"


def topology(tree: str):
    return cpu_topology(LINKS / tree / "sys" / "devices" / "system" / "cpu")


def test_two_sockets_one_numa_node_cpus_numbered_across_the_sockets():
    assert one_to_all_cores(topology("xeon-e5410-2socket")) == [(1, "across sockets"), (2, "same NUMA node")]


def test_a_numa_node_per_socket():
    assert one_to_all_cores(topology("xeon-e5-2660v2-2numa")) == [(1, "same NUMA node"), (10, "across sockets")]


def test_an_unknown_topology_has_no_pairs():
    assert one_to_all_cores(topology("hdr-ib-node")) == []


def test_each_launcher_binds_the_two_ranks_to_the_pair():
    spec = LaunchSpec(np=2, placement="intra-node", local_cores=2, cpus=(0, 10))
    assert OpenMpiLauncher("mpirun").argv(spec)[-4:] == ["--cpu-list", "0,10", "--bind-to", "cpu-list:ordered"]
    assert HydraLauncher("mpiexec").argv(spec)[-2:] == ["-bind-to", "user:0,10"]
    assert SrunLauncher("srun").argv(spec)[-1] == "--cpu-bind=map_cpu:0,10"


@pytest.mark.slow
def test_the_procurement_suite_runs_core_pairs_of_a_two_socket_node(cli, fake_core, db, monkeypatch):
    monkeypatch.setenv("COMMSCOPE_SYSFS", str(LINKS / "xeon-e5-2660v2-2numa" / "sys"))
    result = cli("run", "procurement", "--dry-run", "--launcher", "mpirun", "--db", db)
    assert result.exit_code == 0, result.output
    lines = result.stdout.splitlines()
    assert "# latency: 2 ranks, placement intra-node, core0-core10 (across sockets)" in lines
    assert "# latency: 2 ranks, placement intra-node, core0-core1 (same NUMA node)" in lines
    bound = [line for line in lines if "--cpu-list" in line]
    assert len(bound) == 6 and sum("--cpu-list 0,10 --bind-to cpu-list:ordered" in line for line in bound) == 3


def _pair_run(benchmark: str, cpus: tuple[int, int], path: str, value: float, metric: str) -> Run:
    run = Run(benchmark, hosts=[{"name": "n1", "ranks": [0, 1]}], label="core{}-core{}".format(*cpus))
    run.provenance = {"core_pair": {"cpus": list(cpus), "path": path}}
    run.points = [Point(0 if metric == "latency_us" else 1 << 26, {metric: value})]
    return run


def test_the_rule_reports_the_farthest_pair():
    runs = [
        _pair_run("bw", (0, 1), "same NUMA node", 9000.0, "bandwidth_MBps"),
        _pair_run("bw", (0, 10), "across sockets", 5200.0, "bandwidth_MBps"),
        _pair_run("latency", (0, 1), "same NUMA node", 0.3, "latency_us"),
        _pair_run("latency", (0, 10), "across sockets", 0.7, "latency_us"),
    ]
    bw, latency = lowest_core_path(runs)
    assert (bw.lowest, bw.path, bw.value) == ([(0, 10)], "across sockets", 5200.0)
    assert (latency.lowest, latency.value, latency.metric) == ([(0, 10)], 0.7, "latency_us")
    (section,) = rule_section(lowest_peak(runs), [bw, latency])
    (table,) = section.tables
    assert table.title == "Core pairs of one node, one-to-all (JUPITER rules)"
    assert table.rows[0][3:5] == ["core0-core10", "across sockets"]
    assert table.rows[0][-1] == "5,200 MB/s (maximum bandwidth) of core0-core10"
    assert table.rows[1][-1] == "0.70 us (minimum latency) of core0-core10"


def test_pairs_sharing_the_farthest_path_give_the_worst_figure():
    runs = [
        _pair_run("bw", (0, 10), "across sockets", 5200.0, "bandwidth_MBps"),
        _pair_run("bw", (0, 20), "across sockets", 4800.0, "bandwidth_MBps"),
    ]
    (result,) = lowest_core_path(runs)
    assert result.lowest == [(0, 10), (0, 20)] and (result.value, result.pair) == (4800.0, (0, 20))
