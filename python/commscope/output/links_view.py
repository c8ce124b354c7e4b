"""A host's link inventory (execute.host_inventory) as tables: `commscope info --links`, and the
"% of peak" words the views, comparisons, exports and report put beside bandwidth."""

from __future__ import annotations

from collections.abc import Mapping

from commscope.analysis.peaks import (
    Peak,
    adapter_peak,
    gpu_pairs,
    internode_peak,
    pcie_gbs,
    pcie_words,
    percent_of_peak,
    rank,
    run_peak,
)
from commscope.analysis.titled_tables import TitledTable
from commscope.output.titled_tables import text_table

UNKNOWN = "unknown"


def _or_unknown(value) -> str:
    return UNKNOWN if value is None or value == "" else str(value)


def peak_text(peak: Peak) -> str:
    return f"{peak.gbs:,.1f} GB/s ({peak.basis})" if peak.known else f"{UNKNOWN} ({peak.basis})"


def percent_text(percent: float | None) -> str:
    return "-" if percent is None else f"{percent:.0f} %"


def percent_cell(bandwidth_MBps: float | None, peak_MBps: float | None) -> str:
    return percent_text(percent_of_peak(bandwidth_MBps, peak_MBps))


def adapter_table(inventory: Mapping) -> TitledTable:
    rows, values = [], []
    for adapter in inventory.get("adapters", []):
        pcie = adapter.get("pcie")
        row = [
            adapter["name"],
            _or_unknown(adapter.get("kind")),
            f"{adapter['rate_gbps']:g} Gb/s" if adapter.get("rate_gbps") else UNKNOWN,
            _or_unknown(adapter.get("state")),
            pcie_words(pcie) if pcie else UNKNOWN,
            f"{pcie_gbs(pcie):.1f} GB/s" if pcie_gbs(pcie) else UNKNOWN,
            _or_unknown(adapter.get("numa_node")),
            _or_unknown(adapter.get("netdev")),
        ]
        rows.append(row)
        values.append([adapter["name"], adapter.get("kind"), adapter.get("rate_gbps"), adapter.get("state")])
    header = ["adapter", "kind", "line rate", "state", "PCIe link", "PCIe one way", "NUMA", "netdev"]
    return TitledTable("network adapters", header, rows, values)


def cpu_table(inventory: Mapping) -> TitledTable:
    cpu = inventory.get("cpu", {})
    rows = [
        ["sockets", _or_unknown(cpu.get("sockets"))],
        ["cores", _or_unknown(cpu.get("cores"))],
        ["hardware threads", _or_unknown(cpu.get("threads"))],
    ]
    rows += [[f"NUMA node {node['node']}", f"CPUs {_or_unknown(node['cpus'])}"] for node in cpu.get("numa_nodes", [])]
    rows += [
        [f"L{_or_unknown(cache['level'])} cache", f"{_or_unknown(cache['size'])} shared by CPUs {cache['cpus']}"]
        for cache in cpu.get("last_level_caches", [])
    ]
    return TitledTable("CPU", ["what", "value"], rows, rows)


def gpu_tables(inventory: Mapping) -> list[TitledTable]:
    gpus = inventory.get("gpus", {})
    if not gpus.get("available"):
        return [TitledTable("GPUs", ["GPUs"], [[f"{UNKNOWN}: {gpus.get('reason') or 'not looked for'}"]])]
    devices = [
        [
            f"GPU{device['index']}",
            _or_unknown(device.get("name")),
            _or_unknown(device.get("bus_id")),
            pcie_words(device.get("pcie")) if device.get("pcie") else UNKNOWN,
            _or_unknown(device.get("numa_affinity")),
            ", ".join(f"{speed:g}" for speed in device.get("nvlink_speeds_gbs") or []) or UNKNOWN,
        ]
        for device in gpus.get("devices", [])
    ]
    header = ["GPU", "name", "PCI bus", "PCIe link", "NUMA", "NVLink GB/s"]
    pairs = [[f"GPU{p.a}-GPU{p.b}", _or_unknown(p.cell), peak_text(p.peak)] for p in rank(gpu_pairs(gpus)).pairs] + [
        [f"GPU{p['a']}-GPU{p['b']}", UNKNOWN, UNKNOWN] for p in gpus.get("pairs", []) if p.get("path") is None
    ]
    ranking = rank(gpu_pairs(gpus))
    caption = f"lowest peak first (ranked by {ranking.by})"
    return [
        TitledTable("GPUs", header, devices, devices),
        TitledTable(f"GPU pairs, {caption}", ["pair", "path", "theoretical peak, one way"], pairs, pairs),
    ]


def link_tables(inventory: Mapping) -> list[TitledTable]:
    return [adapter_table(inventory), cpu_table(inventory), *gpu_tables(inventory)]


def links_text(inventory: Mapping) -> str:
    lines = [f"# links of {inventory.get('host', '?')} (sysfs: {inventory.get('sysfs', '/sys')})"]
    body = "\n".join(text_table(table) for table in link_tables(inventory))
    peak = adapter_peak(inventory)
    tail = [f"# network peak between nodes like this one: {peak_text(peak)}"]
    if inventory.get("virtual_interfaces"):
        tail.append(f"# virtual interfaces (no device, no line rate): {', '.join(inventory['virtual_interfaces'])}")
    tail += [f"# unknown: {item}" for item in inventory.get("unknown", [])]
    return "\n".join([*lines, body, *tail]) + "\n"


def hosts_links_text(inventories: Mapping[str, Mapping]) -> str:
    """Several hosts' links one after another, then the peak between them (the slower
    host's fastest adapter)."""
    texts = [links_text(inventories[host]) for host in inventories]
    peak = internode_peak(list(inventories), inventories)
    return "\n".join(texts) + f"\n# network peak between these hosts: {peak_text(peak)}\n"


def best_bandwidth(run) -> float | None:
    values = [p.metrics.get("bandwidth_MBps") for p in run.points]
    values = [value for value in values if isinstance(value, (int, float))]
    return max(values) if values else None


def peak_line(run) -> str | None:
    """ "theoretical peak 25.0 GB/s (mlx5_0 ...): best 23,500 MB/s = 94 % of it" for a run
    with bandwidth; None for runs without."""

    best = best_bandwidth(run)
    if best is None:
        return None
    peak = run_peak(run)
    if not peak.known:
        return f"theoretical peak: {peak_text(peak)}"
    limit = peak.for_benchmark(run.benchmark)
    return (
        f"theoretical peak {limit:,.0f} MB/s ({peak.basis}): best {best:,.0f} MB/s = {percent_cell(best, limit)} of it"
    )
