"""How a locate sweep chooses its rounds' pairs (analysis.locate's Locator plans with these):
round 1 a random matching, half of each leaf inside it; later rounds probe the undecided
uplinks, least suspect first, then pair each undecided host with a cleared partner it has
not met (inside its leaf and across, in turn), then with what is left: a cleared host over
uplinks not cleared yet, another undecided host, a cleared partner again."""

from __future__ import annotations

import numpy as np

from commscope.analysis.fabric import NO_SWITCH


class Planning:
    """The Locator's planning: its state (rules, fabric, what is cleared, named, open, the
    partners met, the random generator) is the Locator's own."""

    def _first_round(self) -> list[tuple[int, int]]:
        """A random perfect matching; with a topology, half of each leaf inside it (a leaf of
        2 or 3 hosts one pair: with none, its slow uplink would look like its hosts)."""
        order = self._rng.permutation(np.setdiff1d(np.arange(self.n), list(self.aside)))
        if not self.fabric.known:
            return [tuple(pair) for pair in order[: order.size // 2 * 2].reshape(-1, 2).tolist()]
        pairs, across = [], []
        leaves = self.fabric.leaf[order]
        for leaf in np.unique(leaves):
            members = order[leaves == leaf]
            inside = max(members.size // 4, 1) * 2 if leaf != NO_SWITCH and members.size >= 2 else 0
            pairs += [tuple(pair) for pair in members[:inside].reshape(-1, 2).tolist()]
            across += members[inside:].tolist()
        across = self._rng.permutation(across).tolist()
        pairs += [(across[k], across[k + 1]) for k in range(0, len(across) // 2 * 2, 2)]
        return pairs

    def _later_pairs(self) -> list[tuple[int, int]]:
        fabric = self.fabric
        used = np.zeros(self.n, dtype=bool)
        pairs: list[tuple[int, int]] = []
        # partners: cleared hosts, those cleared of the smallest slowdown first
        cleared = np.flatnonzero(self.healthy)
        cleared = cleared[np.lexsort((self._rng.random(cleared.size), self.ruled_out_from[cleared]))]
        by_leaf: dict[int, list[int]] = {}
        for host in cleared.tolist():
            by_leaf.setdefault(int(fabric.leaf[host]), []).append(host)
        everywhere = cleared.tolist()
        starts: dict[int, int] = {}  # per pool, where its unused hosts begin

        def partner_for(host: int, inside: bool | None) -> int | None:
            met = self._partners[host]
            leaf = int(fabric.leaf[host])
            pool = by_leaf.get(leaf, []) if inside else everywhere
            start = starts.get(id(pool), 0)
            while start < len(pool) and used[pool[start]]:
                start += 1
            starts[id(pool)] = start
            for candidate in pool[start:]:
                if used[candidate] or candidate in met or candidate == host:
                    continue
                if inside is False and (fabric.leaf[candidate] == leaf or not self.path_cleared(host, candidate)):
                    continue
                return candidate
            return None

        # uplinks first: on a small fabric the undecided hosts take every partner beyond them
        # the least suspect uplinks first: cleared, they are the clean ways to the others
        uplinks = np.flatnonzero(self.open[self.n :])
        for switch in uplinks[np.argsort(self._suspicion[self.n + uplinks], kind="stable")].tolist():
            pairs += self._probes(switch, used, by_leaf, everywhere)
        undecided_hosts = np.flatnonzero(self.open[: self.n])
        self._rng.shuffle(undecided_hosts)
        alone = []
        for host in undecided_hosts.tolist():
            if used[host]:
                continue
            if fabric.known:
                # alternate: inside its leaf (no uplink to blame) and across (its uplink cleared)
                inside_first = self._inside[host] <= len(self._partners[host]) - self._inside[host]
                order = (True, False) if inside_first else (False, True)
            else:
                order = (None,)
            partner = next((p for p in (partner_for(host, inside) for inside in order) if p is not None), None)
            if partner is None:
                alone.append(host)
                continue
            used[host] = used[partner] = True
            pairs.append((host, partner))
        for index, host in enumerate(alone):  # no cleared partner on a cleared way left
            if used[host]:
                continue
            met = self._partners[host]
            choices = (
                # a cleared host beyond uplinks not cleared yet (a fast pair clears them too)
                (h for h in everywhere if not used[h] and h != host and h not in met and self._unnamed(host, h)),
                # another undecided host
                (h for h in alone[index + 1 :] if not used[h] and h not in met and self._unnamed(host, h)),
                # every partner met: a cleared one again (a pair's noise is its own each time)
                (h for h in everywhere if not used[h] and h != host and self.path_cleared(host, h)),
            )
            partner = next((found for choice in choices for found in choice), None)
            if partner is not None and self._unnamed(host, partner):
                used[partner] = used[host] = True
                pairs.append((host, partner))
        return pairs

    def _unnamed(self, host: int, partner: int) -> bool:
        """Whether no part named lies between two hosts (such a pair explains nothing more)."""
        crossed = self.fabric.crossed(int(self.fabric.leaf[host]), int(self.fabric.leaf[partner]))
        return not any(self.bad[part] for part in crossed)

    def path_cleared(self, a: int, b: int, index: int | None = None) -> bool:
        """Whether every uplink between two hosts is cleared (none between hosts of a leaf);
        with `index`, whether each has the slowdown of that grid index ruled out."""
        uplinks = self.fabric.crossed(int(self.fabric.leaf[a]), int(self.fabric.leaf[b]))
        if index is None:
            return all(self.cleared[part] for part in uplinks)
        return all(self.ruled_out_from[part] <= index for part in uplinks)

    def _probes(self, switch: int, used: np.ndarray, by_leaf: dict, everywhere: list[int]) -> list[tuple[int, int]]:
        """Pairs through an undecided uplink, one host below it and one beyond, no part named
        between them (`confirm` of them at most per round): cleared hosts first, then open
        ones (a fast pair clears every part it crosses: on a fabric of a few hosts, where one
        slow uplink leaves few hosts cleared, an open pair across the others clears them)."""
        fabric, n = self.fabric, self.n
        below = np.zeros(n, dtype=bool)
        below[fabric.hosts_under(switch)] = True
        ready = self.healthy | self.open[:n]
        inner = [h for leaf in {int(fabric.leaf[h]) for h in np.flatnonzero(below)} for h in by_leaf.get(leaf, [])]
        inner += [h for h in np.flatnonzero(below & self.open[:n]).tolist()]
        if not inner:
            return []
        # partners beyond whose way crosses the least suspect other uplinks first (a pair
        # through two suspects blames neither), cleared ones before open ones
        mine = int(fabric.leaf[inner[0]])
        beyond = np.flatnonzero(~below & ready & (fabric.leaf != NO_SWITCH))
        leaves = fabric.leaf[beyond]
        suspect = {
            leaf: sum(self._suspicion[u] for u in fabric.crossed(mine, leaf) if u != n + switch)
            for leaf in np.unique(leaves).tolist()
        }
        keys = np.array([suspect[leaf] for leaf in leaves.tolist()], dtype=np.int64)
        outer = iter(beyond[np.lexsort((~self.healthy[beyond], keys))].tolist())
        found = []
        for host in inner:
            if len(found) >= self.rules.confirm or used[host]:
                continue
            for other in outer:
                if used[other] or other in self._partners[host]:
                    continue
                if self._unnamed(host, other):
                    used[host] = used[other] = True
                    found.append((host, other))
                    break
        return found
