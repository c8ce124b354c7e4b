"""The options several sweep modes take: each written once, the modes listing which they take
(an option only one mode takes lives in that mode's module)."""

from __future__ import annotations

import dataclasses

from commscope.sweep.modes.base import DIR, FLAG, STORED_SWEEP, TOPOLOGY, Option

NO_RETEST = Option(
    "--no-retest",
    "no_retest",
    FLAG,
    "Flag the suspects as found, without measuring them again alone.",
    apply=lambda request, value: dataclasses.replace(request, retest=not value),
)
BASELINE = Option(
    "--baseline",
    "baseline",
    STORED_SWEEP,
    "A stored sweep to compare with, pair by pair.",
    metavar="RUN",
    apply=lambda request, run: dataclasses.replace(request, baseline=run),
)
PLOT = Option(
    "--plot",
    "plot",
    DIR,
    "Write a heatmap per metric (PNG) into DIR.",
    metavar="DIR",
    apply=lambda request, folder: dataclasses.replace(request, plot=folder),
)
TOPOLOGY_FILE = Option(
    "--topology",
    "topology",
    TOPOLOGY,
    "The fabric's switches in Slurm's topology.conf format (tree plugin: SwitchName=, Nodes=, "
    "Switches=), so that a slow uplink is named as its switch, not as the hosts under it "
    "(default: inside a Slurm allocation, what `scontrol show topology` says; else none).",
    metavar="FILE",
)  # the file kept by name: the workflow reads it, or asks Slurm, where the sweep runs
