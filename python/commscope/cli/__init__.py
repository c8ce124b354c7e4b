"""The `commscope` command group and its subcommands (the top of the package: it uses every other part)."""

from commscope.cli.main import main
from commscope.cli import cluster  # noqa: F401  (registers submit, status, collect, config)

__all__ = ["main"]
