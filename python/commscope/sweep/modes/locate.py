"""`commscope sweep locate`: bad nodes and bad switch uplinks in a few rounds of disjoint pairs,
one launch (or one answer of --oracle) a round (sweep/locate.py measures them)."""

from __future__ import annotations

import dataclasses
from pathlib import Path
from typing import TYPE_CHECKING

from commscope.errors import UsageError
from commscope.records.run_kinds import LOCATE_MODE
from commscope.sweep.modes.base import FLOAT, INT, TEXT, Option, SweepMode
from commscope.sweep.modes.link import DEFAULT_LIMIT
from commscope.sweep.modes.options import TOPOLOGY_FILE

if TYPE_CHECKING:
    from commscope.sweep.locate import LocateOutcome
    from commscope.sweep.modes.base import SweepRequest


def _detect(request: SweepRequest, percent: float) -> SweepRequest:
    policy = request.policy
    locate = dataclasses.replace(policy.locate, detect=percent / 100)
    return dataclasses.replace(request, policy=dataclasses.replace(policy, locate=locate))


ORACLE = Option(
    "--oracle",
    "oracle",
    TEXT,
    "Measure each round by running CMD instead of commscope-bench: it reads "
    '{"round": R, "metric": M, "pairs": [[H1, H2], ...]} on stdin and writes '
    '{"values": [[H1, H2, VALUE], ...]} (MB/s or us) on stdout. `python -m commscope.sweep.simulate '
    "NETWORK.json` simulates a network with planted faults. Split like a shell would, never run by one.",
    metavar="'CMD ...'",
)
SEED = Option("--seed", "seed", INT, "The seed of the random pairing (default: a fresh one).", metavar="N", low=0)
DETECT = Option(
    "--detect",
    "detect",
    FLOAT,
    "The smallest slowdown to find: the verdict is certain once every host and uplink is "
    "cleared of being PCT % slower or more (at 95 % confidence) or named (default: the rules "
    "file's locate.detect, 20). Smaller takes more rounds.",
    metavar="PCT",
    low=1,
    high=90,
    apply=_detect,
)


class Locate(SweepMode):
    name = LOCATE_MODE
    family = "locate"
    summary = "bad nodes in a few rounds of disjoint pairs, one launch each"
    description = """Bad nodes and bad switch uplinks in a few rounds of disjoint pairs, one launch each.

    Round 1 pairs every host with a random partner, all pairs at once (with a
    topology, half of each leaf's hosts inside their leaf); each later round
    pairs every undecided host with a host already cleared, inside its leaf and
    across, and probes an undecided uplink with cleared hosts on both sides of
    it. Each pair weighs for and against every part it crosses in a sequential
    likelihood ratio test per part, the noise estimated from the sweep's healthy
    pairs: a part is named when the test says so at a family-wise error of
    locate.alpha (0.1 %: a sweep of a healthy fabric names nothing in 999 of
    1,000), a host only when slow with locate.confirm (3) different cleared
    partners; it is cleared when a slowdown of --detect or more is ruled out at
    95 %. A slow pair of two otherwise cleared hosts is a suspect pair
    (contention, or a bad link: only all-pairs can tell). It stops when every
    host and uplink is cleared or named (certain at that detection limit), or
    after locate.max_rounds (10) rounds, says the detection limit it reached,
    and is stored as one run, its rounds and pairs.
    """
    epilog = "Exit status 1 when a bad node is named or hosts are left undecided."
    metric_help = "What each pair measures: one of latency, bw, bibw (default bw)."
    json_help = "Write the verdict (bad nodes with their evidence, suspect pairs, rounds) as JSON."
    timeout_help = (
        f"Stop a launch that runs longer, then start it again (--retries; {DEFAULT_LIMIT}; --oracle: a round, "
        "default 600 s, not repeated)."
    )
    hosts_help = "The hosts (at least 6); one rank runs on each."
    default_metrics = "bw"
    one_metric = True
    options = (ORACLE, SEED, TOPOLOGY_FILE, DETECT)
    drains = True
    why_not = {"--baseline": "a stored locate run is compared with `commscope check --baseline`"}

    @property
    def least_hosts(self) -> int:  # type: ignore[override]
        # read when a sweep is asked for, not when `--help` builds the command
        from commscope.analysis.locate_verdict import MIN_HOSTS

        return MIN_HOSTS

    def pick_hosts(self, request, hosts, given):
        twice = sorted({host for host in given if given.count(host) > 1})
        if twice:
            raise UsageError(f"locate: {', '.join(twice)} named more than once: each host is one rank of every round")
        return super().pick_hosts(request, hosts, given)

    def too_few(self, hosts) -> str:
        if not hosts:
            return super().too_few(hosts)
        return (
            ": with fewer, one round's pairs cannot single out a slow one; `commscope sweep all-pairs` measures "
            f"them in {max(len(hosts) - 1, 1)} rounds"
        )

    def launches(self, request: SweepRequest) -> int:
        """A launch a round, at most the rules' max_rounds."""
        return request.policy.locate.max_rounds

    def run(self, request: SweepRequest, db: Path | None, folder: Path | None = None) -> LocateOutcome:
        from commscope.sweep.locate import run_locate

        return run_locate(request, db, folder)


LOCATE = Locate()
