"""`commscope info` and `commscope modulefile`: where this installation is, and a module for it."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import click

from commscope import __version__, ui
from commscope.cli.common import GivenPath, format_option, hosts_options, launcher_option, utf8_text
from commscope.errors import CommscopeError, UsageError
from commscope.execute.core import compat_dir, core_version, find_core


@click.command()
@format_option(["text", "json"], "text for reading; json for scripts.", "text")
@click.option(
    "--compat",
    "compat_only",
    is_flag=True,
    help="Print only the compat folder, for scripts: export PATH=$(commscope info --compat):$PATH. "
    "Exit status 1 when the core has none.",
)
@click.option(
    "--alert-rules",
    "alert_rules",
    is_flag=True,
    help="Print only the path of the Prometheus alerting rules shipped with commscope, for "
    "Prometheus' rule_files (docs/watching.md).",
)
@click.option(
    "--links",
    "links_only",
    is_flag=True,
    help="Print this host's links instead: network adapters and their line rate, PCIe link "
    "and NUMA node; CPU sockets, NUMA nodes and caches; GPUs and the path between every pair "
    "with its theoretical peak (lowest first). What cannot be read is shown as unknown. "
    "COMMSCOPE_SYSFS=DIR reads a recorded sysfs tree, COMMSCOPE_NVIDIA_SMI=PROGRAM runs "
    "another nvidia-smi (a recorded one). nvidia-smi is asked afresh here; runs use its "
    "answers kept since boot.",
)
@hosts_options(
    "With --links: these hosts' links, read by one process per host started through the "
    "launcher (as `commscope run` does before its benchmarks); a host that does not answer "
    "is an error naming it.",
    "With --links: the hosts of this hostfile (the launcher's own format).",
)
@launcher_option("With --links and --hosts/--hostfile: the launcher that starts the process on each host.")
def info(fmt: str, compat_only: bool, alert_rules: bool, links_only: bool, hosts, hostfile, launcher) -> None:
    """Where the harness and the core are, which MPI the core was built with, and the
    folder of osu_* programs to put on PATH for job scripts written for the OSU
    Micro-Benchmarks; with --links, the links of this host (every run stores them).

    The core is found as `commscope run` finds it: $COMMSCOPE_BENCH, the one installed
    with the harness (pip install .), PATH, the repository's build/default.
    """
    if (hosts or hostfile) and not links_only:
        raise UsageError("--hosts and --hostfile go with --links")
    if hosts and hostfile:
        raise UsageError("give hosts either with --hosts or with --hostfile, not both")
    if links_only:
        _links(fmt, hosts, hostfile, launcher)
        return
    if alert_rules:
        from commscope.output.openmetrics import ALERT_RULES

        click.echo(str(ALERT_RULES))
        return

    core = find_core()
    compat = compat_dir(core)
    if compat_only:
        if compat is None:
            raise CommscopeError(f"{core} has no folder of osu_* programs beside it")
        click.echo(str(compat))
        return
    facts = {
        "commscope": __version__,
        "harness": str(Path(__file__).resolve().parents[1]),
        "python": sys.executable,
        "core": str(core),
        "core_version": core_version(core).splitlines(),
        "compat": str(compat) if compat else None,
        "compat_programs": sorted(path.name for path in compat.glob("osu_*")) if compat else [],
    }
    if fmt == "json":
        click.echo(json.dumps(facts, indent=2))
        return
    click.echo(f"commscope {facts['commscope']}")
    click.echo(f"harness  {facts['harness']} (Python {sys.executable})")
    click.echo(f"core     {core}")
    for line in facts["core_version"]:
        click.echo(f"         {line.lstrip('# ')}")
    if compat is None:
        click.echo(
            "compat   none beside this core (osu_* programs are installed by `pip install .`, "
            "`cmake --install` and `make build`)"
        )
        return
    click.echo(f"compat   {compat} ({len(facts['compat_programs'])} osu_* programs)")
    click.echo("For job scripts written for the OSU Micro-Benchmarks (osu_latency, osu_bw, ...):")
    click.echo(f"  export PATH={compat}:$PATH")


def _links(fmt: str, hosts: tuple[str, ...], hostfile: str | None, launcher: str) -> None:
    from commscope.output.links_view import hosts_links_text, links_text

    if not hosts and not hostfile:
        from commscope.execute.host_inventory import inventory

        found = inventory(fresh=True)  # what it prints is read now, and renews what runs keep
        click.echo(json.dumps(found, indent=2) if fmt == "json" else links_text(found), nl=fmt == "json")
        return
    from commscope.execute.host_inventory import of_hosts

    every = of_hosts(tuple(hosts), hostfile, launcher)
    if every.not_inventoried:
        ui.warn(f"link inventory: {every.not_inventoried}")
    click.echo(
        json.dumps(every.provenance(), indent=2) if fmt == "json" else hosts_links_text(every.hosts), nl=fmt == "json"
    )


def _path_folder(ctx: click.Context, param: click.Parameter, value: Path) -> Path:
    """A folder PATH can hold: no colon (it would split it in two) and no control character
    (Lmod writes the value into shell code unquoted: a line after a newline runs as a command),
    in UTF-8, which a modulefile is written in."""
    text = utf8_text(ctx, param, str(value))
    if ":" in text or any(not char.isprintable() for char in text):
        raise click.BadParameter(f"{text!r} cannot be a folder on PATH (a colon or a control character)", ctx, param)
    return value


@click.command()
@click.option(
    "--prefix",
    type=GivenPath(file_okay=False, path_type=Path),
    callback=_path_folder,
    default=lambda: Path(sys.prefix),
    show_default="this installation's prefix",
    metavar="PREFIX",
    help="The installation prefix the module loads: a virtual environment made with "
    "`python -m venv PREFIX` and `PREFIX/bin/pip install .`, or `pip install --prefix PREFIX .`.",
)
@click.option(
    "-o",
    "--output",
    type=GivenPath(dir_okay=False, path_type=Path),
    metavar="FILE",
    help="Write the modulefile here (its folder is created) instead of stdout. Name it "
    "MODULEPATH_DIR/commscope/VERSION (Tcl) or .../VERSION.lua (Lua).",
)
@format_option(
    ["tcl", "lua"],
    "tcl: read by Environment Modules and Lmod; lua: Lmod only. Default: lua for a FILE ending in .lua, else tcl.",
)
def modulefile(prefix: Path, output: Path | None, fmt: str | None) -> None:
    """Write an environment module for a commscope installation: `module load
    commscope` then puts commscope, commscope-bench and the osu_* programs on PATH.

    \b
    Example:
      python3 -m venv /opt/commscope/0.1.0 && /opt/commscope/0.1.0/bin/pip install .
      /opt/commscope/0.1.0/bin/commscope modulefile --prefix /opt/commscope/0.1.0 \\
          --output /opt/modulefiles/commscope/0.1.0.lua
      module use /opt/modulefiles && module load commscope
    """
    from commscope.execute.modulefile import RENDERERS, format_for, layout

    where = layout(prefix)
    for path in where.missing():
        ui.warn(f"{path} does not exist (yet): is commscope installed in {where.prefix}?")
    text = RENDERERS[format_for(output, fmt)](where)
    if output is None:
        click.echo(text, nl=False)
        return
    try:
        output.parent.mkdir(parents=True, exist_ok=True)
        output.write_text(text)
    except OSError as exc:
        raise UsageError(f"--output {output}: cannot write: {exc.strerror or exc}") from None
    ui.note(f"wrote {output}")
