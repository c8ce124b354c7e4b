"""Where the tests find the repository, the shared fixtures and the fake programs."""

from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
#: Input files and golden outputs of the tests, by topic (parse/, analysis/, compute/).
FIXTURES = Path(__file__).resolve().parent / "fixtures"
#: Stand-ins for commscope-bench and mpirun, for harness tests without MPI.
FAKES = Path(__file__).resolve().parent / "fakes"
FAKE_CORE = FAKES / "commscope-bench"
#: The seeds beside the repository (what users do), read by the import tests.
SEEDS = REPO.parent / "shared" / "seeds"
#: The core's golden outputs (tests/c/golden), written by its reporters and checked by tests/c.
CORE_GOLDEN = REPO / "tests" / "c" / "golden"
