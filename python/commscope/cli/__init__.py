"""The `commscope` command group (cli/main.py) and its subcommands, a module per family:
run.py (run, sweep), stored.py (list, show, export, delete, import), analysis.py (compare,
baseline, check, model, plot, report), cluster.py (submit, status, collect, config),
hpl.py (run hpl), fio.py (run storage), overhead.py, install.py (info, modulefile); common.py holds
what they share. The top of the package: it uses every other part."""

from commscope.cli.main import main

__all__ = ["main"]
