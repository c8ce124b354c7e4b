"""The sweep modes: one module each, one line each here, in the order `commscope sweep
--help` lists them. The command line (cli/sweep.py) makes a subcommand of every mode here;
a stored sweep's provenance names its mode by its `SweepMode.name`."""

from __future__ import annotations

from commscope.sweep.modes.all_pairs import ALL_PAIRS
from commscope.sweep.modes.base import SweepMode
from commscope.sweep.modes.intra import INTRA
from commscope.sweep.modes.locate import LOCATE
from commscope.sweep.modes.one_to_all import ONE_TO_ALL

MODES: tuple[SweepMode, ...] = (
    ONE_TO_ALL,
    ALL_PAIRS,
    INTRA,
    LOCATE,
)
