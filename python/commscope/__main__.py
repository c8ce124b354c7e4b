"""`python -m commscope` is the `commscope` command."""

from commscope.cli.main import main

main(prog_name="commscope")
