"""Theoretical peaks of the paths a result crossed, from the link inventory stored with it
(execute.host_inventory): pure functions, no I/O. docs/peaks.md gives the formulas.

* A network adapter: its line rate (Gb/s) / 8 = GB/s one way. Between two nodes the
  peak is the slower node's fastest active adapter.
* A PCIe link: GT/s x lanes x encoding / 8 (8b/10b for generations 1-2, 128b/130b for
  3-5, 242/256 FLIT for 6), one way.
* NVLink: the links bonded between the two GPUs x one link's one-way rate (what
  `nvidia-smi nvlink -s` reports, else the generation's rate by the GPU's name).
* A GPU pair over PCIe (PIX, PXB, PHB, NODE, SYS): the slower of the two GPUs' PCIe links
  (the switches, host bridges and socket link between them are taken as not slower).

Bandwidth is MB/s = 10^6 B/s (OMB's unit), peaks GB/s = 10^9 B/s; a bidirectional
benchmark is held against twice the one-way peak. Anything not known gives None and the
reason, never a guess.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass

from commscope.records.benchmarks import bidirectional, primary_metric
from commscope.records.core_paths import CORE_PATHS
from commscope.records.run import Run

#: PCIe: GT/s per lane and the share of the bits that are data, by generation.
PCIE_ENCODING = {
    1: (2.5, 8 / 10),
    2: (5.0, 8 / 10),
    3: (8.0, 128 / 130),
    4: (16.0, 128 / 130),
    5: (32.0, 128 / 130),
    6: (64.0, 242 / 256),
}
#: One NVLink's one-way rate (GB/s) by the GPU that has it, where `nvlink -s` does not say:
#: NVLink 1 (P100) 20, NVLink 2 (V100) and 3 (A100) and 4 (H100, H200) 25, NVLink 5 (B200) 50.
NVLINK_BY_GPU = (
    (r"\bP100\b", 20.0),
    (r"\bV100\b", 25.0),
    (r"\bA(?:100|800)\b", 25.0),
    (r"\bG?H(?:100|200|800)\b", 25.0),
    (r"\bG?B(?:100|200)\b", 50.0),
)
#: Paths between two GPUs, nearest (highest bandwidth expected) first: how pairs are
#: ranked when their peaks are unknown.
PATH_ORDER = ("NVLink", "PIX", "PXB", "PHB", "NODE", "SYS", "SOC")


@dataclass(frozen=True)
class Peak:
    """A path's theoretical one-way peak in GB/s (None: unknown) and how it was found."""

    gbs: float | None
    basis: str

    @property
    def known(self) -> bool:
        return self.gbs is not None

    def for_benchmark(self, benchmark: str) -> float | None:
        """The peak in MB/s a benchmark's bandwidth is held against."""
        if self.gbs is None:
            return None
        return self.gbs * 1000 * (2 if bidirectional(benchmark) else 1)


def percent_of_peak(bandwidth_MBps: float | None, peak_MBps: float | None) -> float | None:
    if not isinstance(bandwidth_MBps, (int, float)) or not peak_MBps:
        return None
    return 100.0 * bandwidth_MBps / peak_MBps


def pcie_gbs(link: Mapping | None) -> float | None:
    """A PCIe link's one-way data rate in GB/s; None when its generation or width is unknown."""
    if not link or not link.get("generation") or not link.get("width"):
        return None
    gts, efficiency = PCIE_ENCODING[link["generation"]]
    return gts * efficiency * link["width"] / 8


def pcie_words(link: Mapping | None) -> str:
    if not link or not link.get("generation"):
        return "PCIe unknown"
    return f"PCIe gen{link['generation']} x{link.get('width') or '?'}"


def nvlink_rate(device: Mapping) -> tuple[float | None, str]:
    speeds = device.get("nvlink_speeds_gbs") or []
    if len(speeds) == 1:
        return speeds[0], "nvidia-smi nvlink -s"
    for pattern, rate in NVLINK_BY_GPU:
        if re.search(pattern, device.get("name") or ""):
            return rate, f"the NVLink rate of {device['name']}"
    return None, "one NVLink's rate is unknown (no nvidia-smi nvlink -s, GPU name unknown)"


def adapter_peak(inventory: Mapping) -> Peak:
    """A host's fastest active adapter with a known line rate."""
    host = inventory.get("host", "?")
    active = [a for a in inventory.get("adapters", []) if a.get("up") and a.get("rate_gbps")]
    if not active:
        return Peak(None, f"{host}: no active network adapter with a known line rate")
    best = max(active, key=lambda adapter: adapter["rate_gbps"])
    return Peak(best["rate_gbps"] / 8, f"{best['name']} {best['kind']} {best['rate_gbps']:g} Gb/s on {host}")


def internode_peak(hosts: Sequence[str], inventories: Mapping[str, Mapping], why: str | None = None) -> Peak:
    """Between nodes: the slower node's fastest adapter. `why`: what the run stored about
    hosts it could not inventory."""
    missing = [host for host in hosts if host not in inventories]
    if missing:
        return Peak(None, f"no link inventory of {', '.join(missing)}" + (f" ({why})" if why else ""))
    peaks = [adapter_peak(inventories[host]) for host in hosts]
    unknown = [peak for peak in peaks if not peak.known]
    if unknown:
        return Peak(None, unknown[0].basis)
    return min(peaks, key=lambda peak: peak.gbs)


@dataclass(frozen=True)
class PairPeak:
    a: int
    b: int
    path: str | None  # NVLink, PIX, PXB, PHB, NODE, SYS; None: unknown
    cell: str | None  # as nvidia-smi topo -m wrote it (NV12, PXB)
    peak: Peak

    @property
    def order(self) -> tuple[int, int]:
        """Lower is slower: the path type, then (NVLink) fewer links."""
        if self.path not in PATH_ORDER:
            return (-1, 0)
        nvlinks = int(self.cell[2:]) if self.cell and self.cell[2:].isdigit() else 0
        return (len(PATH_ORDER) - PATH_ORDER.index(self.path), nvlinks)


def gpu_pair_peak(pair: Mapping, devices: Mapping[int, Mapping]) -> PairPeak:
    a, b = devices.get(pair["a"], {}), devices.get(pair["b"], {})
    cell, path = pair.get("cell"), pair.get("path")
    if path is None:
        return PairPeak(pair["a"], pair["b"], None, None, Peak(None, "nvidia-smi topo -m does not show this pair"))
    if path == "NVLink":
        rate, how = nvlink_rate(a)
        count = pair.get("nvlinks") or 0
        peak = Peak(rate * count, f"{count} NVLinks x {rate:g} GB/s ({how})") if rate else Peak(None, f"{cell}: {how}")
        return PairPeak(pair["a"], pair["b"], path, cell, peak)
    ends = [pcie_gbs(a.get("pcie")), pcie_gbs(b.get("pcie"))]
    if None in ends:
        peak = Peak(None, f"{cell}: the GPUs' PCIe links are unknown")
    else:
        slower = a if ends[0] <= ends[1] else b
        peak = Peak(min(ends), f"{cell}: {pcie_words(slower.get('pcie'))} of GPU{slower.get('index')}")
    return PairPeak(pair["a"], pair["b"], path, cell, peak)


def gpu_pairs(gpus: Mapping) -> list[PairPeak]:
    devices = {device["index"]: device for device in gpus.get("devices", [])}
    return [gpu_pair_peak(pair, devices) for pair in gpus.get("pairs", [])]


@dataclass(frozen=True)
class Ranking:
    """Pairs from the lowest theoretical peak up; `by` says whether the peaks themselves
    or (some unknown) the path types ordered them."""

    pairs: list[PairPeak]
    by: str  # "peak" | "path type"

    @property
    def lowest(self) -> list[PairPeak]:
        """Every pair that shares the lowest place (the rule's "combination with the
        lowest theoretical peak"; several when they tie)."""
        if not self.pairs:
            return []
        first = self._key(self.pairs[0])
        return [pair for pair in self.pairs if self._key(pair) == first]

    def _key(self, pair: PairPeak):
        return pair.peak.gbs if self.by == "peak" else pair.order


def rank(pairs: Iterable[PairPeak]) -> Ranking:
    known = [pair for pair in pairs if pair.path is not None]
    if known and all(pair.peak.known for pair in known):
        return Ranking(sorted(known, key=lambda pair: (pair.peak.gbs, pair.a, pair.b)), "peak")
    return Ranking(sorted(known, key=lambda pair: (pair.order, pair.a, pair.b)), "path type")


def one_to_all(pairs: Iterable[PairPeak], root: int = 0) -> list[PairPeak]:
    """The pairs of `root` with every other GPU (the JUPITER rules' "one-to-all")."""
    return [pair for pair in pairs if root in (pair.a, pair.b)]


# -- a run's path ---------------------------------------------------------------------


def inventories(run: Run) -> dict[str, Mapping]:
    return dict(((run.provenance or {}).get("links") or {}).get("hosts") or {})


def run_peak(run: Run) -> Peak:
    """The theoretical peak of the path a run's bandwidth crossed."""
    hosts = list(dict.fromkeys(host["name"] for host in run.hosts or [] if host.get("name")))
    found = inventories(run)
    if len(hosts) > 1:
        return internode_peak(hosts, found, ((run.provenance or {}).get("links") or {}).get("not_inventoried"))
    if not hosts:
        return Peak(None, "the run does not say which hosts it ran on")
    pair = (run.provenance or {}).get("gpu_pair")
    inventory = found.get(hosts[0])
    if pair and inventory:
        for peak in gpu_pairs(inventory.get("gpus", {})):
            if {peak.a, peak.b} == set(pair):
                return peak.peak
        return Peak(None, f"GPU{pair[0]}-GPU{pair[1]}: not in {hosts[0]}'s GPU inventory")
    if pair:
        return Peak(None, f"no link inventory of {hosts[0]}")
    return Peak(None, "within one node through shared memory: no link peak (memory-bound)")


# -- the JUPITER rule ------------------------------------------------------------------


@dataclass(frozen=True)
class LowestPeak:
    """The JUPITER rules' intra-node answer for one benchmark: of the GPU pairs measured, those with
    the lowest theoretical peak, and the rule's figure for them (maximum bandwidth or
    minimum latency; where several pairs tie, the worst of theirs)."""

    benchmark: str
    host: str
    metric: str  # bandwidth_MBps | latency_us
    by: str  # "peak" | "path type"
    measured: dict[tuple[int, int], float]  # every pair's best value (pairs that measured nothing are left out)
    lowest: list[PairPeak]
    value: float | None
    pair: tuple[int, int] | None  # the pair the value comes from


def _best(run: Run, metric: str) -> float | None:
    values = [p.metrics.get(metric) for p in run.points if isinstance(p.metrics.get(metric), (int, float))]
    if not values:
        return None
    return max(values) if metric == "bandwidth_MBps" else min(values)


def _one_host_groups(runs: Sequence[Run], key: str) -> dict[tuple[str, str], list[Run]]:
    """Runs of one-to-all pairs (provenance `key`: gpu_pair, core_pair) on one host, by
    benchmark and host."""
    groups: dict[tuple[str, str], list[Run]] = {}
    for run in runs:
        hosts = set(host.get("name") for host in run.hosts or []) or set(inventories(run))  # failed: the launcher's
        if (run.provenance or {}).get(key) and len(hosts) == 1:
            groups.setdefault((run.benchmark, hosts.pop()), []).append(run)
    return groups


def _rule_metric(group: Sequence[Run], benchmark: str) -> str:
    """The rule's metric: minimum latency where the runs measured latency, else maximum bandwidth."""
    if any("latency_us" in p.metrics for run in group for p in run.points):
        return "latency_us"
    if not any(p.metrics for run in group for p in run.points):
        return primary_metric(benchmark)
    return "bandwidth_MBps"


def _measured(group: Sequence[Run], metric: str, pair_of) -> dict[tuple[int, int], float]:
    """Every pair's best value over its runs (pairs that measured nothing are left out)."""
    better = max if metric == "bandwidth_MBps" else min
    measured: dict[tuple[int, int], float] = {}
    for run in group:
        key, value = pair_of(run), _best(run, metric)
        if value is not None:
            measured[key] = value if key not in measured else better(measured[key], value)
    return measured


def _worst(values: dict[tuple[int, int], float], metric: str) -> tuple[int, int] | None:
    """Of tied pairs, the one with the worst value (the rule's figure for the tie)."""
    return (min if metric == "bandwidth_MBps" else max)(values, key=values.get) if values else None


def lowest_peak(runs: Sequence[Run]) -> list[LowestPeak]:
    """For every benchmark with runs of GPU pairs on one host (gpu_pairs: one-to-all): the
    pairs ranked by theoretical peak from that host's stored inventory, and the rule's value
    for the lowest-peak pair."""
    results = []
    for (benchmark, host), group in _one_host_groups(runs, "gpu_pair").items():
        metric = _rule_metric(group, benchmark)
        run_pairs = {tuple(sorted(run.provenance["gpu_pair"])) for run in group}
        measured = _measured(group, metric, lambda run: tuple(sorted(run.provenance["gpu_pair"])))
        inventory = next((inventories(run)[host] for run in group if host in inventories(run)), {})
        lowest = rank(pair for pair in gpu_pairs(inventory.get("gpus", {})) if (pair.a, pair.b) in run_pairs)
        values = {(p.a, p.b): measured[(p.a, p.b)] for p in lowest.lowest if (p.a, p.b) in measured}
        worst = _worst(values, metric)
        results.append(
            LowestPeak(benchmark, host, metric, lowest.by, measured, lowest.lowest, values.get(worst), worst)
        )
    return results


@dataclass(frozen=True)
class LowestCorePath:
    """The JUPITER rules' intra-node core half for one benchmark: a core pair's copy goes through
    shared memory and has no link peak, so the pairs are ranked by path (records.core_paths)
    and the farthest stands for the lowest theoretical peak; the rule's figure for it (where
    several pairs share that path, the worst of theirs)."""

    benchmark: str
    host: str
    metric: str
    paths: dict[tuple[int, int], str]  # every pair run, with its path
    measured: dict[tuple[int, int], float]
    lowest: list[tuple[int, int]]  # the pairs of the farthest path
    value: float | None
    pair: tuple[int, int] | None

    @property
    def path(self) -> str | None:
        return self.paths[self.lowest[0]] if self.lowest else None


def lowest_core_path(runs: Sequence[Run]) -> list[LowestCorePath]:
    """For every benchmark with runs of core pairs on one host (core_pairs: one-to-all)."""
    results = []
    for (benchmark, host), group in _one_host_groups(runs, "core_pair").items():
        metric = _rule_metric(group, benchmark)
        paths = {tuple(run.provenance["core_pair"]["cpus"]): run.provenance["core_pair"].get("path") for run in group}
        measured = _measured(group, metric, lambda run: tuple(run.provenance["core_pair"]["cpus"]))
        known = {pair: CORE_PATHS.index(path) for pair, path in paths.items() if path in CORE_PATHS}
        farthest = max(known.values(), default=None)
        lowest = sorted(pair for pair, place in known.items() if place == farthest)
        values = {pair: measured[pair] for pair in lowest if pair in measured}
        worst = _worst(values, metric)
        results.append(LowestCorePath(benchmark, host, metric, paths, measured, lowest, values.get(worst), worst))
    return results
