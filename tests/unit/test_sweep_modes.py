"""The sweep modes' registry (sweep/modes/): each mode is one object that says what differs
between modes, the command line is generated from them, and nothing under sweep/ or in
cli/sweep.py asks a mode its name (a test of a mode by name is what the registry replaces:
at most ALLOWED of them, each with its reason)."""

from __future__ import annotations

import ast
from pathlib import Path

import click
import pytest

from commscope.records.run_kinds import LOCATE_MODE
from commscope.sweep.modes import MODES
from commscope.sweep.modes.base import INT, Option
from commscope.sweep.modes.link import LinkMode
from commscope.sweep.modes.locate import LOCATE
from paths import REPO

MODE_NAMES = tuple(mode.name for mode in MODES)

PACKAGE = REPO / "python" / "commscope"
#: Where the modes used to be told apart by name.
WATCHED = sorted((PACKAGE / "sweep").rglob("*.py")) + [PACKAGE / "cli" / "sweep.py"]
#: The bound the registry is held to (issue: "at most 2"); today none remain.
ALLOWED = 2


#: Constants that held modes' names before the registry.
NAME_CONSTANTS = ("LOCATE_MODE", "LINK_MODES")


def _a_name(value: ast.expr, names) -> bool:
    if isinstance(value, ast.Constant):
        return value.value in names
    return isinstance(value, ast.Name) and value.id in NAME_CONSTANTS


def name_tests(source: str, names=MODE_NAMES) -> list[int]:
    """The lines that compare something with a mode's name, written out or as one of
    NAME_CONSTANTS (==, !=, in, not in, match)."""
    tests = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Compare):
            for side in [node.left, *node.comparators]:
                values = side.elts if isinstance(side, (ast.Tuple, ast.List, ast.Set)) else [side]
                if any(_a_name(value, names) for value in values):
                    tests.append(node.lineno)
                    break
        elif isinstance(node, ast.MatchValue) and isinstance(node.value, ast.Constant) and node.value.value in names:
            tests.append(node.lineno)
    return tests


def test_a_planted_test_of_a_mode_by_name_is_found():
    planted = 'if request.mode == "intra":\n    pass\nx = mode in ("locate", "all-pairs")\nok = mode.name\n'
    assert name_tests(planted) == [1, 3]
    assert name_tests("if mode != LOCATE_MODE or mode in LINK_MODES:\n    pass\n") == [1, 1]


def test_at_most_two_tests_of_a_mode_by_name_remain():
    found = [f"{path.relative_to(PACKAGE)}:{line}" for path in WATCHED for line in name_tests(path.read_text())]
    assert len(found) <= ALLOWED, found


def test_every_mode_has_a_subcommand_listing_its_own_options(cli, clean_env):
    for mode in MODES:
        result = cli("sweep", mode.name, "--help")
        assert result.exit_code == 0, result.output
        for option in mode.options:
            assert option.flag in result.stdout, (mode.name, option.flag)
        assert mode.epilog in " ".join(result.stdout.split())


def test_the_names_are_the_registry_s_and_locate_s_is_the_stored_runs():
    assert MODE_NAMES == ("one-to-all", "all-pairs", "intra", "locate")
    assert LOCATE.name == LOCATE_MODE  # analysis recognises stored locate runs by it


class Ring(LinkMode):
    """A mode a site might add: its own schedule and one option of its own."""

    name = "ring"
    summary = "each host with its neighbour"
    description = "Each host with its neighbour."
    schedule = "ring"
    options = (Option("--stride", "stride", INT, "How far the neighbour is.", metavar="K", low=1),)


def test_a_new_mode_is_one_object_and_gets_a_command_with_its_options():
    from commscope.cli.sweep import _command

    command = _command(Ring())
    assert command.name == "ring"
    context = command.make_context("ring", ["--hosts", "a,b", "--stride", "2"])
    assert context.params["stride"] == 2 and context.params["hosts"] == ("a", "b")
    with pytest.raises(click.BadParameter):
        command.make_context("ring", ["--stride", "0"])
    help_text = command.get_help(click.Context(command))
    assert "--stride K" in help_text and "Each host with its neighbour." in help_text


def test_another_mode_s_option_is_refused_with_the_modes_it_applies_to(cli, clean_env):
    result = cli("sweep", "locate", "--hosts", "a,b,c,d,e,f", "--plot", "x")
    assert result.exit_code == 2
    assert "--plot does not apply to locate: it applies to link sweeps, not locate" in result.stderr
    result = cli("sweep", "intra", "--drain")
    assert result.exit_code == 2
    assert "--drain does not apply to intra: it applies to all-pairs and locate only" in result.stderr


def test_the_layout_is_the_mode_s():
    """One rank a host on a hostfile for the link sweeps across hosts and locate; intra's
    ranks on its host, pinned (sweep/modes/intra.py)."""
    from commscope.sweep.modes.base import SweepRequest

    for mode in MODES:
        request = SweepRequest(mode=mode, own={"np": 2})
        layout = mode.layout(request, ["h1"] if mode.no_nodes else ["h1", "h2", "h3"])
        assert layout.hostfile == (mode.no_nodes is None), mode.name
        assert layout.placement == ("intra-node" if mode.no_nodes else "inter-node"), mode.name


def test_the_modes_modules_are_light():
    """`commscope sweep --help` builds every mode's command: the mode modules import no
    analysis at import time (the measuring code is imported when a mode runs)."""
    for path in sorted((PACKAGE / "sweep" / "modes").glob("*.py")):
        tree = ast.parse(path.read_text())
        top = [node for node in tree.body if isinstance(node, (ast.Import, ast.ImportFrom))]
        heavy = [ast.unparse(node) for node in top if "analysis" in ast.unparse(node) or "numpy" in ast.unparse(node)]
        assert not heavy, (Path(path).name, heavy)
