"""Workflows: what chains Slurm's commands (cluster/) and sweeps (sweep/) in this process,
with typed results: a sweep on Slurm's nodes (`sweep --nodes`), `sweep recheck`, the
nightly loop's locate. commscope does not start itself to read its own JSON back."""
