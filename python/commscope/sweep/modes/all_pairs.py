"""`commscope sweep all-pairs`: every pair of hosts, a round's pairs at once (n-1 rounds); with
the fabric's topology a slow uplink is named as its switch."""

from __future__ import annotations

from commscope.sweep.modes.link import LINK_OPTIONS, LinkMode
from commscope.sweep.modes.options import TOPOLOGY_FILE


class AllPairs(LinkMode):
    name = "all-pairs"
    summary = "every pair of hosts; a round's pairs at once (n-1 rounds)"
    description = "Every pair of hosts; a round's pairs at once (n-1 rounds)."
    options = (TOPOLOGY_FILE, *LINK_OPTIONS)
    drains = True
    why_not = {"--np": "one rank per host"}


ALL_PAIRS = AllPairs()
