"""Schedule generation and flag analysis of a simulated 10,000-node all-pairs sweep.

The matrix is made up: bandwidth around 12,000 MB/s and latency around 1.5 us with 2 %
Gaussian noise (a 10 % drop is then 5 standard deviations, a handful of pairs in 50
million), plus planted faults: slow nodes (every pair of theirs at 40 % bandwidth or 3x
latency) and slow links (one pair at 30 % bandwidth or 4x latency). The script times
the circle-method schedule (every rank's partner in every round, vectorised) and the
suspect search, then checks that every planted fault is found and nothing else, with
the retest of suspects simulated as a measurement alone (the fault stays, noise
changes). It records CPU time (the machine it was written on is shared, so wall time
says more about the neighbours; both are printed) and peak memory (tracemalloc for numpy, and the
process's peak RSS).

    .venv/bin/python performance/sweep/run.py [--nodes 10000]
"""

from __future__ import annotations

import argparse
import resource
import sys
import time
import tracemalloc
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "python"))
from commscope.analysis.sweep import DEFAULT_RULES, Policy, find_suspects, judge  # noqa: E402


def schedule_partners(n: int, rounds_to_check: int) -> float:
    """Seconds to compute every rank's partner in `rounds_to_check` rounds of the circle
    method (the core computes one rank's partner in O(1); here all ranks at once), with
    a check that each round is a perfect matching."""
    m = n - 1 if n % 2 == 0 else n
    ranks = np.arange(n)
    start = time.process_time()
    for r in range(rounds_to_check):
        partner = np.where(ranks == m, r, np.where(ranks == r, m, (2 * r - ranks) % m))
        if n % 2 == 0:
            assert np.array_equal(partner[partner], ranks), "not a matching"
    return time.process_time() - start


NOISE = 0.02
BASE = {"bw": 12000.0, "latency": 1.5}
FACTORS = {"bw": (0.4, 0.3), "latency": (3.0, 4.0)}  # (bad node, bad link)


def true_value(metric: str, pair, bad_nodes, bad_links) -> float:
    node, link = FACTORS[metric]
    value = BASE[metric]
    if set(pair) & set(bad_nodes):
        value *= node
    if tuple(pair) in bad_links:
        value *= link
    return value


def simulate(n: int, rng: np.random.Generator, bad_nodes, bad_links, metric: str) -> np.ndarray:
    base, noise = BASE[metric], NOISE
    matrix = np.empty((n, n), dtype=np.float32)
    for start in range(0, n, 1024):  # row blocks: no float64 temporary of the whole matrix
        rows = matrix[start : start + 1024]
        rows[:] = rng.standard_normal(rows.shape, dtype=np.float32)
        rows *= np.float32(base * noise)
        rows += np.float32(base)
    for i in range(n):  # symmetric: lower triangle copied from the upper, row by row
        matrix[i + 1 :, i] = matrix[i, i + 1 :]
    np.fill_diagonal(matrix, np.nan)
    node_factor, link_factor = FACTORS[metric]
    for node in bad_nodes:
        matrix[node, :] *= np.float32(node_factor)
        matrix[:, node] *= np.float32(node_factor)
        matrix[node, node] = np.nan
    for a, b in bad_links:
        matrix[a, b] *= np.float32(link_factor)
        matrix[b, a] = matrix[a, b]
    return matrix


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--nodes", type=int, default=10_000)
    parser.add_argument("--seed", type=int, default=13)
    args = parser.parse_args()
    n = args.nodes
    rng = np.random.default_rng(args.seed)
    bad_nodes = sorted(rng.choice(n, size=3, replace=False).tolist())
    healthy = [i for i in range(n) if i not in bad_nodes]
    links = []
    while len(links) < 5:
        a, b = sorted(rng.choice(healthy, size=2, replace=False).tolist())
        if (a, b) not in links:
            links.append((a, b))
    policy = Policy()
    print(f"{n} nodes, {n * (n - 1) // 2} pairs; planted bad nodes {bad_nodes}, bad links {links}")

    t_sched = schedule_partners(n, n - 1 if n % 2 == 0 else n)
    print(f"schedule: every rank's partner in all {n - 1} rounds: {t_sched:.2f} s CPU")

    ok = True
    for metric in ("bw", "latency"):
        matrix = simulate(n, rng, bad_nodes, links, metric)
        tracemalloc.start()
        start, cpu = time.perf_counter(), time.process_time()
        suspects = find_suspects(matrix, metric, DEFAULT_RULES[metric])
        retest_pairs = suspects.retest_pairs(policy, matrix)
        # a measurement alone: the fault stays, the noise is new
        noise = 1 + NOISE * rng.standard_normal(len(retest_pairs))
        retest = {pair: true_value(metric, pair, bad_nodes, links) * float(k) for pair, k in zip(retest_pairs, noise)}
        verdict = judge(suspects, DEFAULT_RULES[metric], retest, matrix)
        seconds, cpu = time.perf_counter() - start, time.process_time() - cpu
        _, peak = tracemalloc.get_traced_memory()
        tracemalloc.stop()
        found_nodes, found_links = verdict.bad_nodes(), verdict.bad_links()
        right = found_nodes == set(bad_nodes) and found_links == set(links)
        ok &= right
        print(
            f"{metric}: analysis {cpu:.2f} s CPU ({seconds:.2f} s wall), peak traced memory {peak / 2**20:.0f} MiB "
            f"(matrix {matrix.nbytes / 2**20:.0f} MiB besides), {len(suspects.pairs)} suspect pairs, "
            f"{len(retest_pairs)} retested; nodes {sorted(found_nodes)}, links {sorted(found_links)}: "
            f"{'all planted faults found, no false flag' if right else 'WRONG'}"
        )
        del matrix
    rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    print(f"peak RSS of the whole script (simulated matrix included): {rss:.0f} MiB")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
