"""The link inventory (execute.host_inventory, execute.sysfs, execute.gpu_links), its peaks and the JUPITER
rules' lowest-peak pair (analysis.peaks), from recorded sysfs trees and nvidia-smi outputs of real machines
(tests/support/fixtures/links/README.md says where each comes from)."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from commscope.analysis import peaks
from commscope.execute.gpu_links import parse_nvlink_status, parse_topo
from commscope.execute.host_inventory import inventory
from commscope.records.run import Run
from paths import FIXTURES

LINKS = FIXTURES / "links"


def recorded(sysfs: str | None = None, gpus: str | None = None) -> dict:
    environ = {"COMMSCOPE_SYSFS": str(LINKS / sysfs / "sys") if sysfs else str(LINKS / "empty-tree")}
    environ["COMMSCOPE_NVIDIA_SMI"] = str(LINKS / gpus / "nvidia-smi") if gpus else str(LINKS / "no-such-tool")
    return inventory(environ=environ)


def test_hdr_infiniband_node():
    found = recorded("hdr-ib-node")
    (port,) = found["adapters"]
    assert port["name"] == "mlx5_0:1" and port["kind"] == "InfiniBand"
    assert port["rate_gbps"] == 200 and port["up"]
    assert port["pcie"]["generation"] == 4 and port["pcie"]["width"] == 16
    assert port["numa_node"] is None  # not in the recording: unknown, not guessed
    assert peaks.pcie_gbs(port["pcie"]) == pytest.approx(31.5, abs=0.05)
    assert peaks.adapter_peak(found).gbs == 25.0


def test_roce_node_is_roce_and_its_pcie_unknown():
    found = recorded("roce-100g-node")
    assert [(a["name"], a["kind"], a["rate_gbps"], a["up"]) for a in found["adapters"]] == [
        ("mlx5_0:1", "RoCE", 100.0, True),
        ("mlx5_1:1", "RoCE", 100.0, True),
    ]
    assert "mlx5_0:1: PCIe link" in found["unknown"]
    assert peaks.adapter_peak(found).gbs == 12.5


def test_internode_peak_is_the_slower_node():
    hdr, roce = recorded("hdr-ib-node"), recorded("roce-100g-node")
    peak = peaks.internode_peak(["a", "b"], {"a": hdr, "b": roce})
    assert peak.gbs == 12.5 and "100 Gb/s" in peak.basis
    assert not peaks.internode_peak(["a", "c"], {"a": hdr}).known  # c never inventoried


def test_a_tool_that_cannot_answer_leaves_gpus_unknown():
    found = recorded()
    assert found["gpus"]["available"] is False
    assert "no-such-tool" in found["gpus"]["reason"]
    assert found["adapters"] == [] and found["cpu"]["sockets"] is None


def test_nvswitch_node_pairs_and_the_pair_the_recording_lacks():
    gpus = recorded(gpus="dgx-a100-nvswitch")["gpus"]
    assert [device["index"] for device in gpus["devices"]] == [0, 1, 2, 3, 4, 5]
    assert gpus["devices"][0]["numa_affinity"] == "3"
    pairs = {(p["a"], p["b"]): p for p in gpus["pairs"]}
    assert len(pairs) == 28
    assert pairs[(0, 7)]["nvlinks"] == 12  # row GPU0 names GPU7's column
    assert pairs[(6, 7)]["path"] is None  # neither row was recorded


def test_four_gpu_nvlink_node_with_a_nic_per_gpu():
    gpus = recorded(gpus="h100-4gpu-nvlink")["gpus"]
    assert {(p["a"], p["b"]): p["cell"] for p in gpus["pairs"]} == {
        (0, 1): "NV6", (0, 2): "NV6", (0, 3): "NV6", (1, 2): "NV6", (1, 3): "NV6", (2, 3): "NV6",
    }  # fmt: skip
    assert gpus["devices"][1]["nics"]["NIC1"] == "PIX"
    ranking = peaks.rank(peaks.one_to_all(peaks.gpu_pairs(gpus)))
    assert ranking.by == "path type" and len(ranking.lowest) == 3  # all tie: NV6 each


def test_pcie_only_node_lowest_peak_pair_is_across_sockets():
    gpus = recorded(gpus="pcie-8gpu")["gpus"]
    ranking = peaks.rank(peaks.one_to_all(peaks.gpu_pairs(gpus)))
    assert ranking.by == "path type"
    assert [(p.a, p.b, p.cell) for p in ranking.lowest] == [(0, 4, "SYS"), (0, 5, "SYS"), (0, 6, "SYS"), (0, 7, "SYS")]
    assert [p.cell for p in ranking.pairs] == ["SYS"] * 4 + ["PHB", "PHB", "PIX"]


def test_nvlink_status_with_inactive_links():
    status = parse_nvlink_status((LINKS / "v100-nvlink" / "nvlink-s.txt").read_text())
    assert status[3]["name"] == "Tesla V100-SXM2-32GB"
    assert status[3]["links"] == {0: 25.781, 1: 25.781, 2: 25.781, 3: None, 4: 25.781, 5: None}


def test_peaks_when_the_links_are_known():
    """Hand-made devices (not a recording) for the arithmetic of docs/peaks.md."""
    topo = parse_topo((LINKS / "pcie-8gpu" / "topo-m.txt").read_text())
    gen3, gen4 = {"generation": 3, "width": 16}, {"generation": 4, "width": 16}
    devices = {0: {"index": 0, "pcie": gen4}, 1: {"index": 1, "pcie": gen3}, 4: {"index": 4, "pcie": gen4}}
    pair01 = next(p for p in topo["pairs"] if (p["a"], p["b"]) == (0, 1))
    peak = peaks.gpu_pair_peak(pair01, devices).peak
    assert peak.gbs == pytest.approx(8 * 128 / 130 * 16 / 8) and "gen3 x16 of GPU1" in peak.basis
    nv = peaks.gpu_pair_peak(
        {"a": 0, "b": 1, "cell": "NV12", "path": "NVLink", "nvlinks": 12}, {0: {"name": "NVIDIA A100-SXM4-40GB"}}
    )
    assert nv.peak.gbs == 300.0
    by_tool = peaks.gpu_pair_peak(
        {"a": 0, "b": 1, "cell": "NV4", "path": "NVLink", "nvlinks": 4}, {0: {"nvlink_speeds_gbs": [25.781]}}
    )
    assert by_tool.peak.gbs == pytest.approx(103.124)
    unknown = peaks.gpu_pair_peak({"a": 0, "b": 1, "cell": "NV4", "path": "NVLink", "nvlinks": 4}, {})
    assert not unknown.peak.known and "unknown" in unknown.peak.basis


def test_bidirectional_benchmarks_are_held_against_both_directions():
    peak = peaks.Peak(25.0, "200 Gb/s")
    assert peak.for_benchmark("bw") == 25000 and peak.for_benchmark("bibw") == 50000
    assert peaks.percent_of_peak(23500, peak.for_benchmark("bw")) == pytest.approx(94.0)
    assert peaks.percent_of_peak(None, 25000) is None and peaks.percent_of_peak(1.0, None) is None


def test_run_peak_from_its_stored_inventory():
    hdr = recorded("hdr-ib-node")
    two = Run("bw", hosts=[{"name": "a", "ranks": [0]}, {"name": "b", "ranks": [1]}])
    two.provenance = {"links": {"hosts": {"a": hdr, "b": hdr}}}
    assert peaks.run_peak(two).gbs == 25.0
    one = Run("bw", hosts=[{"name": "a", "ranks": [0, 1]}], provenance={"links": {"hosts": {"a": hdr}}})
    assert not peaks.run_peak(one).known and "shared memory" in peaks.run_peak(one).basis


def test_info_links_json_and_text_on_a_recording(cli, monkeypatch):
    monkeypatch.setenv("COMMSCOPE_SYSFS", str(LINKS / "hdr-ib-node" / "sys"))
    monkeypatch.setenv("COMMSCOPE_NVIDIA_SMI", str(LINKS / "pcie-8gpu" / "nvidia-smi"))
    result = cli("info", "--links", "--format", "json")
    assert result.exit_code == 0, result.output
    found = json.loads(result.output)
    assert found["adapters"][0]["rate_gbps"] == 200 and len(found["gpus"]["pairs"]) == 28
    text = cli("info", "--links").stdout
    assert "mlx5_0:1  InfiniBand   200 Gb/s" in text
    assert "GPU5-GPU6  unknown" in text
    assert "network peak between nodes like this one: 25.0 GB/s" in text


def test_info_links_on_this_machine_says_what_is_unknown(cli, monkeypatch):
    monkeypatch.delenv("COMMSCOPE_SYSFS", raising=False)
    monkeypatch.setenv("COMMSCOPE_NVIDIA_SMI", str(LINKS / "no-such-tool"))
    text = cli("info", "--links").stdout
    assert "# GPUs" in text and "unknown" in text


def test_export_csv_and_json_carry_the_same_percent_of_peak():
    """Part of the one export shape: CSV's percent_of_peak column is JSON's per-point value,
    empty where the peak is unknown (one node: shared memory)."""
    import csv
    import io

    from commscope.output.run_export import to_csv, to_json
    from commscope.records.run import Point

    hdr, roce = recorded("hdr-ib-node"), recorded("roce-100g-node")
    across = Run("bw", hosts=[{"name": "a", "ranks": [0]}, {"name": "b", "ranks": [1]}])
    across.provenance = {"links": {"hosts": {"a": hdr, "b": roce}}}
    across.points = [Point(1 << 20, {"bandwidth_MBps": 10000.0}), Point(1 << 22, {"bandwidth_MBps": 11250.0})]
    within = Run("bw", hosts=[{"name": "a", "ranks": [0, 1]}], provenance={"links": {"hosts": {"a": hdr}}})
    within.points = [Point(1 << 20, {"bandwidth_MBps": 9000.0})]
    rows = list(csv.DictReader(io.StringIO(to_csv([across, within]))))
    assert [row["percent_of_peak"] for row in rows] == ["80.0", "90.0", ""]  # of 12,500 MB/s (100 GbE)
    document = json.loads(to_json([across, within]))
    assert [p["percent_of_peak"] for run in document["runs"] for p in run["points"]] == [80.0, 90.0, None]


def test_the_live_inventory_names_the_running_kernel_and_a_recorded_one_none():
    """The kernel release goes with each host's inventory (history names an upgrade); a
    recorded tree tells nothing of the kernel that ran beside it."""
    assert inventory(Path("/sys"))["kernel"] == os.uname().release
    assert inventory(FIXTURES / "links" / "hdr-ib-node")["kernel"] is None
