"""Which stored runs a command line selects: run ids, `last`, labels, systems,
invocations, a time window, the last `commscope run`. Every analysis command
(compare, check, model, plot, report, baseline set) selects the same way.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta, timezone

from commscope.errors import UsageError
from commscope.records.run import LARGEST_INTEGER, Run
from commscope.records.textsafe import not_utf8
from commscope.store.db import Store
from commscope.store.runs import RunSummary

_AGE = re.compile(r"(?P<count>\d+(?:\.\d+)?)\s*(?P<unit>[smhdw])")
_AGE_UNITS = {"s": "seconds", "m": "minutes", "h": "hours", "d": "days", "w": "weeks"}
_NUMBER = re.compile(r"[0-9]+")  # str.isdigit() also takes '²' and other digits int() refuses


def stored_id(text: str, what: str) -> int:
    """A run or invocation id as a selector gives it; UsageError naming it when it cannot be one."""
    if not _NUMBER.fullmatch(text) or int(text) > LARGEST_INTEGER:
        raise UsageError(f"{text!r} is not {what} (a number from 1 to {LARGEST_INTEGER})")
    return int(text)


def parse_since(text: str, now: datetime | None = None) -> datetime:
    """The start of a time window: an age such as 30m, 12h, 7d, 2w, or an ISO date or time
    (UTC unless it says otherwise). Raises ValueError with a message."""
    now = now or datetime.now(timezone.utc)
    match = _AGE.fullmatch(text.strip())
    if match:
        try:
            return now - timedelta(**{_AGE_UNITS[match["unit"]]: float(match["count"])})
        except OverflowError:  # beyond timedelta's 999,999,999 days, or before the year 1
            raise ValueError(f"{text!r} reaches back before the year 1") from None
    try:
        moment = datetime.fromisoformat(text.strip())
    except ValueError:
        raise ValueError(f"{text!r} is neither an age such as 7d, 12h, 30m nor a date such as 2026-01-31") from None
    return moment if moment.tzinfo else moment.replace(tzinfo=timezone.utc)


@dataclass
class Selection:
    """Which stored runs a command works on. Selectors add runs (in their order);
    the filters keep those that match. No selector means every stored run."""

    selectors: Sequence[str] = ()
    benchmark: str | None = None
    since: datetime | None = None
    last_invocation: bool = False

    def describe(self) -> str:
        parts = [repr(s) for s in self.selectors]
        parts += [f"--benchmark {self.benchmark}"] if self.benchmark else []
        parts += [f"--since {self.since.isoformat(timespec='minutes')}"] if self.since else []
        parts += ["--last-invocation"] if self.last_invocation else []
        return ", ".join(parts) or "(all runs)"


def _run_time(summary: RunSummary) -> datetime | None:
    try:
        moment = datetime.fromisoformat(summary.started_at or summary.invoked_at)
    except (TypeError, ValueError):
        return None
    return moment if moment.tzinfo else moment.replace(tzinfo=timezone.utc)


def _oldest_first(summaries: list[RunSummary]) -> list[RunSummary]:
    return sorted(summaries, key=lambda summary: summary.id)


def _named_by(store: Store, selector: str) -> list[RunSummary]:
    """The runs a selector names: a run id, `last`, `label:TEXT`, `system:NAME`,
    `invocation:N`, `job:ID` (a batch job's runs), or bare text that is a label or else a
    system name."""
    kind, _, value = selector.partition(":")
    if selector.isdigit() or selector == "last":
        run_id = store.last_run_id() if selector == "last" else stored_id(selector, "a run id")
        found = store.summaries(run_id=run_id) if run_id is not None else []
        if not found:
            raise UsageError(f"no run {selector} in {store.path}")
        return found
    if kind in ("label", "system", "invocation", "job") and value:
        column = {"invocation": "invocation_id", "job": "job_id"}.get(kind, kind)
        found = store.summaries(**{column: stored_id(value, "an invocation") if kind == "invocation" else value})
    else:
        found = store.summaries(label=selector) or store.summaries(system=selector)
    if not found:
        raise UsageError(
            f"no run matches {selector!r} in {store.path} (a selector is a run id, `last`, a label or a system name)"
        )
    return _oldest_first(found)


def _check_utf8(selection: Selection) -> None:
    """UsageError for a selector or --benchmark that is not UTF-8 (bytes Python decoded with
    surrogates): no stored run has such a name, and SQLite cannot even be asked."""
    for what, text in [*(("selector", s) for s in selection.selectors), ("--benchmark", selection.benchmark or "")]:
        shown = not_utf8(text)
        if shown is not None:
            raise UsageError(f"{what} '{shown}' is not valid UTF-8; give it in UTF-8")


def select_runs(store: Store, selection: Selection) -> list[Run]:
    """The selected runs, in selector order (oldest first within one selector)."""
    return store.runs(select_run_ids(store, selection))


def select_run_ids(store: Store, selection: Selection) -> list[int]:
    """The ids of the selected runs, in selector order (oldest first within one selector)."""
    _check_utf8(selection)
    if selection.last_invocation:
        invocation_id = store.last_invocation_id("run")
        if invocation_id is None:
            raise UsageError(f"--last-invocation: no `commscope run` has stored runs in {store.path}")
        chosen = _oldest_first(store.summaries(invocation_id=invocation_id))
    elif not selection.selectors:
        chosen = _oldest_first(store.summaries())
    else:
        chosen = []
    for selector in selection.selectors:
        chosen += _named_by(store, selector)
    if selection.benchmark:
        chosen = [summary for summary in chosen if summary.benchmark == selection.benchmark]
    if selection.since:
        chosen = [summary for summary in chosen if (_run_time(summary) or selection.since) >= selection.since]
    ids = list(dict.fromkeys(summary.id for summary in chosen))
    if not ids:
        raise UsageError(f"no stored run matches {selection.describe()} in {store.path}")
    return ids
