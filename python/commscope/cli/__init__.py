"""The `commscope` command group and its subcommands (the top of the package: it uses every other part)."""

from commscope.cli.main import main

__all__ = ["main"]
