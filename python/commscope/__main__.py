"""`python -m commscope` is the `commscope` command."""

from .cli import main

main(prog_name="commscope")
