"""`commscope sweep locate` on simulated clusters of 1,000 and 10,000 hosts of which 1 or 10
cannot start MPI (issue 45): their ranks die at start, or hang there. The real planner and
judge (analysis.locate) and the real rules for a failed start (sweep/survive.py: the same
host dead in two launches in a row; the ranks that never said they started, confirmed by a
start-up probe; probes over halves where no start line comes) run in this process against
the simulator's network (sweep/simulate.py), which fails a launch as srun and the core's
start lines would show it.

Counted per configuration: the rounds, the launches of the core (rounds, their retries and
the relaunches without a host set aside), the start-up probes and how many of them ran one
after another (probes of one halving run side by side), the hosts named (bad, set aside)
and accused. Time to a verdict is then modelled from what each launch costs: a start-up of
START_UP_S (a launch that dies at start ends there), a round's measurement of MEASURE_S, a
launch that hangs is stopped at START_LIMIT_S (sweep/survive.py), a probe takes
PROBE_START_S or, hanging, PROBE_LIMIT_S.

    .venv/bin/python performance/sweep/survive.py [--seeds 3]
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import numpy as np

REPO = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(REPO / "python"))
from commscope import ui  # noqa: E402
from commscope.analysis.locate import Locator  # noqa: E402
from commscope.analysis.sweep import LocateRules  # noqa: E402
from commscope.execute.outcome import Death  # noqa: E402
from commscope.sweep.simulate import Network  # noqa: E402
from commscope.sweep.survive import PROBE_LIMIT_S, START_LIMIT_S, Attempt, survive  # noqa: E402

#: Seconds of an MPI start-up of every host (a launch that dies at start ends there), by size.
START_UP_S = {1000: 15.0, 10000: 60.0}
#: Seconds a round's pairs take to measure once started (bw at 1 MiB, a few iterations).
MEASURE_S = 10.0
#: Seconds a start-up probe (`hello` on a few hosts) takes when it gets through, or dies.
PROBE_START_S = 5.0


class Counted:
    """The simulated launches of one sweep, counted, and the time they are modelled to take."""

    def __init__(self, network: Network, n: int) -> None:
        self.network = network
        self.start_up = START_UP_S[n]
        self.launches = self.probes = self.probe_steps = 0
        self.seconds = 0.0

    def launch(self, hosts: list[str]) -> Attempt:
        self.launches += 1
        failed = self.network.failed(hosts)
        if failed is None:
            self.seconds += self.start_up + MEASURE_S
            return Attempt(ok=True)
        return self._failed(failed, self.start_up, START_LIMIT_S)

    def probe(self, groups: list[list[str]]) -> list[Attempt]:
        self.probes += len(groups)
        self.probe_steps += 1
        shown = [
            self._failed(self.network.failed(group), 0, 0) if self.network.failed(group) else Attempt(ok=True)
            for group in groups
        ]
        hangs = any(not one.ok and one.not_going for one in shown)
        self.seconds += PROBE_LIMIT_S if hangs else PROBE_START_S
        return shown

    def _failed(self, failed: dict, died_after: float, hung_after: float) -> Attempt:
        if failed.get("dead"):
            self.seconds += died_after
            deaths = tuple(Death(one["host"], str(one["rank"]), one["signal"]) for one in failed["dead"])
            return Attempt(ok=False, failed_at_start=True, deaths=deaths)
        self.seconds += hung_after
        started = failed.get("started")
        return Attempt(ok=False, not_going=True, started=tuple(started) if started else None)


def one_sweep(n: int, faulty: int, kind: str, seed: int) -> dict:
    rng = np.random.default_rng([seed, n, faulty])
    hosts = [f"cn{i:05d}" for i in range(n)]
    chosen = [hosts[i] for i in rng.choice(n, faulty, replace=False).tolist()]
    network = Network(
        seed=seed,
        dead={h: "SIGSEGV" for h in chosen} if kind == "dead" else {},
        hung=frozenset(chosen if kind == "hung" else ()),
    )
    counted = Counted(network, n)
    locator = Locator(n, "bw", LocateRules(), seed=seed)
    aside: list = []

    class NoSignals:
        received: list = []

    while True:
        pairs = locator.plan()
        if locator.stop:
            break
        gone = {fault.host for fault in aside}
        live = [host for host in hosts if host not in gone]
        keep = np.array([hosts[a] not in gone and hosts[b] not in gone for a, b in pairs.tolist()], dtype=bool)
        shown, found = survive(
            lambda: counted.launch(live),
            lambda shown: shown,
            counted.probe,
            live,
            1,
            lambda shown, number: "again",
            NoSignals,
        )
        for fault in found:
            aside.append(fault)
            locator.set_aside(hosts.index(fault.host), fault.reason, fault.evidence)
        if not shown.ok:
            continue  # measured again without them
        named = [(hosts[a], hosts[b]) for a, b in pairs[keep].tolist()]
        locator.record(pairs[keep], network.measure(len(locator.rounds) + 1, "bw", named))
        if locator.stop:
            break
    verdict = locator.verdict()
    named = {hosts[node.host] for node in verdict.set_aside} | {hosts[node.host] for node in verdict.bad_nodes}
    return {
        "rounds": verdict.rounds,
        "launches": counted.launches,
        "probes": counted.probes,
        "probe_steps": counted.probe_steps,
        "named": len(named & set(chosen)),
        "accused": len(named - set(chosen)),
        "seconds": counted.seconds,
        "certain": verdict.certain,
    }


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--seeds", type=int, default=3)
    args = parser.parse_args()
    ui.note = ui.warn = lambda message: None  # quiet: the table is the output
    print(
        "| hosts | cannot start | how | rounds | launches (extra per host) | probes (one after another) "
        "| named | accused | time to verdict (model) |"
    )
    print("|---|---|---|---|---|---|---|---|---|")
    for n in (1000, 10000):
        healthy = [one_sweep(n, 0, "dead", seed) for seed in range(args.seeds)]
        base_launches = np.mean([r["launches"] for r in healthy])
        base_s = np.mean([r["seconds"] for r in healthy])
        print(
            f"| {n:,} | 0 | - | {np.mean([r['rounds'] for r in healthy]):.1f} | {base_launches:.1f} | 0 | 0 | "
            f"{np.mean([r['accused'] for r in healthy]):.1f} | {base_s / 60:.1f} min |"
        )
        for faulty in (1, 10):
            for kind in ("dead", "hung"):
                runs = [one_sweep(n, faulty, kind, seed) for seed in range(args.seeds)]
                mean = {key: float(np.mean([r[key] for r in runs])) for key in runs[0]}
                extra = (mean["launches"] - base_launches) / faulty
                print(
                    f"| {n:,} | {faulty} | {'die' if kind == 'dead' else 'hang'} at start | {mean['rounds']:.1f} | "
                    f"{mean['launches']:.1f} ({extra:+.1f}) | {mean['probes']:.1f} ({mean['probe_steps']:.1f}) | "
                    f"{mean['named']:.0f} of {faulty} | {mean['accused']:.1f} | {mean['seconds'] / 60:.1f} min |"
                )


if __name__ == "__main__":
    main()
