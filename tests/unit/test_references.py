"""Published references (records.references), compare --reference, and the JUPITER rules' intra-node
GPU rule on the recorded machines of tests/support/fixtures/links."""

from __future__ import annotations

import json

import pytest

from commscope.analysis.peaks import lowest_peak
from commscope.analysis.published import place
from commscope.errors import UsageError
from commscope.execute.host_inventory import inventory
from commscope.kinds import CompareRequest, compare
from commscope.kinds.report import build
from commscope.records.references import load, named, parse
from commscope.records.run import Point, Run
from paths import FIXTURES

LINKS = FIXTURES / "links"


def test_every_reference_has_a_source_and_every_figure_a_known_unit():
    references = load()
    assert len(references) >= 8
    for reference in references:
        assert reference.source.startswith("https://"), reference.name
        assert reference.figures and all(figure.value > 0 for figure in reference.figures)
    assert len({reference.name for reference in references}) == len(references)


def test_an_entry_without_source_is_refused():
    with pytest.raises(UsageError, match="missing source"):
        parse(
            [{"name": "x", "system": "y", "interconnect": "z", "mpi": "m", "omb": "7", "date": "d", "figures": []}], "f"
        )


def run(benchmark: str, metric: str, values: dict, hosts=("a", "b"), run_id=1, **extra) -> Run:
    found = Run(
        benchmark,
        hosts=[{"name": host, "ranks": [index]} for index, host in enumerate(hosts)],
        points=[Point(size, {metric: value}) for size, value in values.items()],
        **extra,
    )
    found.id = run_id
    return found


def test_a_run_is_placed_beside_the_figures_of_its_benchmark_placement_memory_and_size():
    bw = run("bw", "bandwidth_MBps", {1048576: 11000.0, 67108864: 12000.0})
    placed = place([bw], [named("jureca-dc-cpu"), named("juwels-booster-gpu")])
    assert [(p.reference.name, p.size, p.yours) for p in placed] == [("jureca-dc-cpu", 67108864, 12000.0)]
    assert placed[0].ratio == pytest.approx(12000.0 / 12344.93) and not placed[0].better


def test_compare_reference_and_list(cli, tmp_path):
    latency = run("latency", "latency_us", {0: 1.2, 8: 1.3})
    compared = compare([latency], CompareRequest(reference="jureca-dc-cpu"))
    rows = json.loads(compared.text("json"))[0]["rows"]
    assert rows == [[1, "latency", "inter-node", 0, 1.2, "jureca-dc-cpu", 1.48, pytest.approx(1.2 / 1.48), rows[0][-1]]]
    with pytest.raises(UsageError, match="no published reference named 'nowhere'"):
        compare([latency], CompareRequest(reference="nowhere"))
    listed = cli("compare", "--reference", "list", "--db", tmp_path / "none.db")
    assert listed.exit_code == 0 and "juwels-booster-gpu" in listed.stdout and "openhpc-edr" in listed.stdout


def gpu_pair_runs(recording: str, benchmark: str, metric: str, values: dict[int, float]) -> list[Run]:
    links = inventory(
        environ={
            "COMMSCOPE_SYSFS": str(LINKS / "empty-tree"),
            "COMMSCOPE_NVIDIA_SMI": str(LINKS / recording / "nvidia-smi"),
        }
    )
    provenance = {"links": {"hosts": {"node1": links}}}
    return [
        run(
            benchmark,
            metric,
            {67108864: value},
            hosts=("node1",),
            run_id=other,
            provenance={**provenance, "gpu_pair": [0, other]},
        )
        for other, value in values.items()
    ]


def test_jupiter_lowest_peak_pair_on_the_pcie_node():
    values = {1: 24000.0, 2: 21000.0, 3: 21100.0, 4: 11000.0, 5: 10500.0, 6: 10900.0, 7: 10800.0}
    (result,) = lowest_peak(gpu_pair_runs("pcie-8gpu", "bw", "bandwidth_MBps", values))
    assert result.by == "path type"
    assert [(p.a, p.b) for p in result.lowest] == [(0, 4), (0, 5), (0, 6), (0, 7)]
    assert result.value == 10500.0 and result.pair == (0, 5)  # the worst of the tied SYS pairs


def test_jupiter_rule_on_the_nvswitch_node_latency_takes_the_minimum():
    values = {1: 0.9, 2: 0.8, 3: 0.95, 4: 0.85, 5: 0.9, 6: 0.7, 7: 0.75}
    (result,) = lowest_peak(gpu_pair_runs("dgx-a100-nvswitch", "latency", "latency_us", values))
    assert len(result.lowest) == 7 and {p.cell for p in result.lowest} == {"NV12"}
    assert result.value == 0.95 and result.pair == (0, 3)  # ties: the worst of their minimum latencies


@pytest.mark.slow
def test_report_has_the_rule_and_the_published_sections():
    runs = gpu_pair_runs("pcie-8gpu", "bw", "bandwidth_MBps", {1: 24000.0, 4: 11000.0})
    runs.append(run("latency", "latency_us", {0: 1.5}, run_id=99))
    report = build(runs, "test.db")
    titles = [section.title for section in report.system_sections]
    assert titles == [
        "The JUPITER rules: the combination with the lowest theoretical peak",
        "Against published systems",
    ]
    rule = report.system_sections[0].tables[0]
    assert rule.rows[0][2] == "2 measured" and rule.rows[0][3] == "GPU0-GPU4"
    assert rule.rows[0][7].startswith("11,000 MB/s (maximum bandwidth)")
    published = report.system_sections[1].tables[0]
    assert {row[5] for row in published.rows} >= {"JURECA-DC, JSC (CPU buffers)", "Siyuan-1 (思源一号), SJTU"}
