"""The nightly loop's hosts over time: each night publishes every host's drift over the
entry's stored sweeps (analysis.host_history, as `history --hosts` judges it), with the
database never opened where the entry runs.

`commscope collect`, on the host that holds the database, keeps the hosts' slowdowns in
the entry's stored sweeps (its label's, the newest MAX_SWEEPS) in the entry's folder,
beside the baseline it keeps there:

    <entry folder>/hosts.json   {"format": "commscope-host-values", "version": 1, "label",
                                 "metric", "sweeps": [{"id", "started_at", "label", "system"}],
                                 "hosts": [...], "values": [[slowdown or null per sweep], ...]}

Each night (`schedule run` with --textfile or --push) adds its own sweeps (the locate after
a failed check) to those, tests every host and publishes commscope_drift_ratio and
commscope_drifting beside the night's other metrics; a night without a sweep publishes the
drift as of the newest kept sweep, so a drifting host's alert does not end with the night.
"""

from __future__ import annotations

import json
import math
from collections.abc import Sequence
from pathlib import Path

import numpy as np

from commscope import ui
from commscope.analysis import host_history
from commscope.analysis.check import Policy
from commscope.analysis.monitoring import Sample, drift_samples
from commscope.errors import CommscopeError
from commscope.records.inputs import JOB_FILE_LIMIT, read_inside
from commscope.records.outputs import write_whole
from commscope.records.run import Run
from commscope.store.db import Store

HOSTS_FILE = "hosts.json"
#: The sweeps kept: two months of nights.
MAX_SWEEPS = 60
_FORMAT = "commscope-host-values"


def keep(folder: Path, store: Store, label: str) -> bool:
    """The hosts' slowdowns in the label's newest stored sweeps, written to the entry's
    folder (removed where there are fewer than two); whether a file was written."""
    path = folder / HOSTS_FILE
    ids = [summary.id for summary in store.summaries(label=label, benchmark="pairs")][:MAX_SWEEPS][::-1]
    try:
        found, _ = host_history.load(store, ids, None, host_history.HOST, "--hosts", f"label {label}")
    except CommscopeError:  # fewer than two sweeps, or none of hosts: nothing to follow yet
        path.unlink(missing_ok=True)
        return False
    document = {
        "format": _FORMAT,
        "version": 1,
        "label": label,
        "metric": found.metric,
        "sweeps": [
            {"id": run.id, "started_at": run.started_at, "label": run.label, "system": run.system} for run in found.runs
        ],
        "hosts": found.names,
        "values": [[None if math.isnan(value) else float(value) for value in row] for row in found.values],
    }
    write_whole(path, json.dumps(document).encode())
    return True


def kept(folder: Path) -> host_history.Matrix | None:
    """The hosts' slowdowns `collect` kept in the entry's folder; None where there are none."""
    try:
        document = json.loads(read_inside(folder, folder / HOSTS_FILE, JOB_FILE_LIMIT))
    except FileNotFoundError:
        return None
    except (OSError, ValueError) as exc:
        raise CommscopeError(f"cannot read {folder / HOSTS_FILE}: {exc}") from None
    if not isinstance(document, dict) or document.get("format") != _FORMAT:
        raise CommscopeError(f"{folder / HOSTS_FILE} is not a {_FORMAT} file")
    runs = [
        Run("pairs", id=sweep["id"], started_at=sweep["started_at"], label=sweep["label"], system=sweep["system"])
        for sweep in document["sweeps"]
    ]
    values = np.array([[np.nan if value is None else value for value in row] for row in document["values"]], float)
    return host_history.Matrix(host_history.HOST, document["metric"], list(document["hosts"]), runs, values)


def night_samples(folder: Path, runs: Sequence[Run]) -> list[Sample]:
    """Every host's drift over the kept sweeps and tonight's among `runs`, as metrics (none
    with fewer than two sweeps; none, said once, where the kept file cannot be read: the
    night's other metrics are published all the same)."""
    try:
        past = kept(folder)
    except CommscopeError as exc:
        ui.error(f"{exc}: no host drift published tonight (`commscope collect` writes it anew)")
        return []
    metric = past.metric if past is not None else host_history.DEFAULT_METRIC
    tonight = [host_history.of_run(run, metric) for run in runs if host_history.is_sweep(run)]
    tonight = [pairs for pairs in tonight if len(pairs.values)]
    if past is None:
        if len(tonight) < 2:
            return []
        found = host_history.matrix(tonight, metric, host_history.HOST)
    else:
        found = host_history.extended(past, tonight)
    if len(found.runs) < 2:
        return []
    return drift_samples(host_history.many(found, Policy(host_history.TOLERANCE)))
