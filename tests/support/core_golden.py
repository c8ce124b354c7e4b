"""The core's golden runs (tests/c/golden) as the fake core replays them and as the tests that
check the harness against the fake expect them: one reader for both."""

from __future__ import annotations

import json

from paths import CORE_GOLDEN

#: The golden run the fake core replays for benchmark NAME is NAME + REPLAYED.
REPLAYED = "_sizes"


def started(stem: str) -> list[str]:
    """A golden stream's start lines, one per rank, as the core wrote them before its header."""
    return [line for line in (CORE_GOLDEN / f"{stem}.jsonl").read_text().splitlines() if line.startswith('{"started"')]


def stream(stem: str) -> tuple[dict, list[str], dict]:
    """A golden stream: its header, its record lines as the core wrote them, and its end."""
    lines = (CORE_GOLDEN / f"{stem}.jsonl").read_text().splitlines()[len(started(stem)) :]
    return json.loads(lines[0])["header"], lines[1:-1], json.loads(lines[-1])["end"]


def header(benchmark: str, stem: str | None = None) -> dict:
    """The header of the run the fake core replays for `benchmark` (or of golden `stem`)."""
    return stream(stem or benchmark + REPLAYED)[0]


def records(benchmark: str, low: int = 0, high: float = float("inf"), stem: str | None = None) -> list[dict]:
    """The replayed records of sizes low to high (what `-m low:high` keeps)."""
    lines = stream(stem or benchmark + REPLAYED)[1]
    return [record for record in (json.loads(line)["record"] for line in lines) if low <= record["size"] <= high]


def sizes(benchmark: str, low: int = 0, high: float = float("inf"), stem: str | None = None) -> list[int]:
    return [record["size"] for record in records(benchmark, low, high, stem)]


def table_head(benchmark: str) -> str:
    """The replayed OSU table's lines before its first row (title, datatype, column heads)."""
    lines = (CORE_GOLDEN / f"{benchmark}{REPLAYED}.osu").read_text().splitlines(keepends=True)
    return "".join(lines[: next(i for i, line in enumerate(lines) if line.strip() and line[0] != "#")])
