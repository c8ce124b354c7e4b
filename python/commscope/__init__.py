"""commscope: a communication benchmark suite for HPC clusters (OSU Micro-Benchmarks successor)."""

__version__ = "0.1.0"
