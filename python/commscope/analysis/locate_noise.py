"""The noise a locate sweep judges its pairs against (analysis.evidence's model, fitted to
which pairs): round 1's on a large sweep, the pairs of parts cleared on a small one (the
faster half while few are), and on a small sweep each part's own, from the pairs that do
not cross it; a confirmation round's pairs against their controls' median. The Locator's
judging (analysis.locate) uses these; its state is the Locator's own."""

from __future__ import annotations

import numpy as np

from commscope.analysis.evidence import Noise, pair_evidence

#: Round 1's pairs alone estimate the noise from this many on (fewer: the cleared parts' pairs).
NOISE_PAIRS = 30


class Sampling:
    """The Locator's noise samples and its pairs' evidence."""

    def _noise_sample(self, logs: np.ndarray) -> np.ndarray:
        """The pairs the noise is estimated from, less those through a part already named:
        round 1's, a random matching of every host and so an unbiased sample of the fabric
        (later rounds pair the suspects); where round 1 is small, the pairs of parts cleared
        so far (while fewer than 3, the faster half of the pairs so far: a fault only slows,
        and on a few hosts it is in half the pairs or more, whose median would be its speed)."""
        named = self._through(self.bad)
        known = self._paths >= 0
        safe = np.where(known, self._paths, 0)
        first = len(self.rounds[0].pairs) if self.rounds else len(logs)
        sample = np.zeros(len(logs), dtype=bool)
        if first >= NOISE_PAIRS:
            sample[:first] = True
        else:
            sample[: len(self._paths)] = np.all(~known | self.cleared[safe], axis=1)
            if np.count_nonzero(sample) < 3:
                sample[:] = logs >= np.median(logs)
        return sample & ~named if np.count_nonzero(sample & ~named) >= 2 else sample

    def _through(self, parts: np.ndarray) -> np.ndarray:
        """Per pair so far: whether it crosses one of `parts` (a mask of parts)."""
        known = self._paths >= 0
        return np.any(known & parts[np.where(known, self._paths, 0)], axis=1)

    def _entry_evidence(self, pair_of: np.ndarray, part_of: np.ndarray) -> np.ndarray:
        """The evidence of each (part, pair) entry: the pair's, against the sweep's noise; on a
        small sweep (round 1 under NOISE_PAIRS pairs) each undecided part's against the noise of
        the pairs that do not cross it, so that neither its own slow pairs (a bad host is in a
        third of a 6-host round's) nor the selection of cleared parts (their pairs are the ones
        near the median) set the noise it is judged by."""
        found = self._pair_evidence[pair_of]
        if len(self.rounds[0].pairs) >= NOISE_PAIRS:
            return found
        # pairs through a part named or about to be: that part's, no sample of the noise
        usable = self._usable & ~self._through(self.bad | self.pending)
        for part in np.flatnonzero(self.undecided).tolist():
            entries = np.flatnonzero(part_of == part)
            sample = usable & ~(self._paths == part).any(axis=1)
            if entries.size and np.count_nonzero(sample) >= 2:
                noise = Noise.of(self._logs[sample])
                found[entries] = self._evidence(noise, pair_of[entries], self._logs)
        return found

    def _evidence(self, noise: Noise, rows, logs: np.ndarray) -> np.ndarray:
        """The evidence of the pairs `rows`: each against `noise` (the sweep's healthy median
        and spread), or a confirmation round's against the noise its control pairs show,
        measured alone beside them. A median is itself off by some pi/2 sigma^2 over its
        count, and off alike for every pair judged against it: a pair's noise is widened by
        that much, a confirmation pair's `confirm` times as much (the part's pairs there all
        share the controls' median, of a few pairs), so that their sum is not more certain
        than their reference."""
        rows = np.arange(len(logs))[rows]
        found = np.empty((rows.size, len(self.slowdowns)))
        rounds = self._round_of[rows]
        ordinary = ~np.isin(rounds, list(self._control_noise))
        widen = np.pi / 2 * noise.scale**2 / max(noise.count, 1)
        found[ordinary] = pair_evidence(logs[rows[ordinary]] - noise.median, noise, self.slowdowns, widen)
        for number, (controls, count) in self._control_noise.items():
            mine = rounds == number
            if mine.any():
                widen = np.pi / 2 * controls.scale**2 * self.rules.confirm / count
                found[mine] = pair_evidence(logs[rows[mine]] - controls.median, controls, self.slowdowns, widen)
        return found
