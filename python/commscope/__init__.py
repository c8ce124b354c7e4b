"""commscope: a communication benchmark suite for HPC clusters (OSU Micro-Benchmarks successor).

This file is the one place the version is written: pyproject.toml and CMakeLists.txt read it."""

from pathlib import Path

__version__ = "0.1.0"

#: The repository root when the package runs from a checkout (python/commscope/__init__.py).
REPO_ROOT = Path(__file__).resolve().parents[2]
