"""`commscope sweep MODE`: a subcommand per mode, its --help listing only its own options,
and every command line of the documentation still read as it was."""

from __future__ import annotations

import re
import shlex

import click
import pytest

from paths import REPO

#: The options each mode's --help must list, and the other modes' options it must not.
OWN = {
    "one-to-all": ({"--from", "--no-retest", "--baseline", "--plot"}, {"--np", "--oracle", "--seed"}),
    "all-pairs": ({"--no-retest", "--baseline", "--plot"}, {"--from", "--np", "--oracle", "--seed"}),
    "intra": ({"--np", "--no-retest", "--baseline", "--plot"}, {"--from", "--oracle", "--seed"}),
    "locate": ({"--oracle", "--seed"}, {"--from", "--np", "--no-retest", "--baseline", "--plot"}),
}
SHARED = {"--hosts", "--hostfile", "--nodes", "--metric", "--rules", "--json", "--launcher", "--timeout", "--db"}


@pytest.mark.parametrize("mode", sorted(OWN))
def test_a_mode_s_help_lists_its_own_options_only(cli, clean_env, mode):
    result = cli("sweep", mode, "--help")
    assert result.exit_code == 0, result.output
    listed = set(re.findall(r"^\s+(--[a-z-]+)", result.stdout, re.MULTILINE))
    own, others = OWN[mode]
    assert own | SHARED <= listed, listed
    assert not others & listed, others & listed


def documented_sweeps() -> list[str]:
    """Every `commscope sweep MODE ...` command line the documentation shows run."""
    lines = set()
    for page in (REPO / "docs").glob("*.md"):
        for line in page.read_text().splitlines():
            found = re.search(r"(?:^\$ |^    )commscope (sweep (?:one-to-all|all-pairs|intra|locate)\b.*)$", line)
            if found:
                lines.add(found.group(1).split("  #")[0].strip())
    return sorted(lines)


def test_the_documentation_has_sweep_command_lines():
    assert len(documented_sweeps()) >= 8


@pytest.mark.parametrize("line", documented_sweeps())
def test_every_documented_sweep_command_line_is_read(line, tmp_path, monkeypatch):
    """Parsed by the command as a user's shell would pass it (nothing runs; the files it
    names are made, empty, in a folder of its own)."""
    from commscope.cli.main import main

    words = shlex.split(line)
    monkeypatch.chdir(tmp_path)
    for flag, value in zip(words, words[1:]):
        if flag in ("--rules", "--hostfile"):
            (tmp_path / value).touch()
    command = main.get_command(click.Context(main), words[0])
    mode = command.get_command(click.Context(command), words[1])
    assert mode is not None, line
    context = mode.make_context(words[1], words[2:])
    assert "db" in context.params
