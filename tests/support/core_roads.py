"""The two roads of one measurement of the core into a Run: the JSON Lines stream `commscope
run` follows, and the --format json document `commscope import` reads. Tests of every layer
hold them to the same Run."""

from __future__ import annotations

import dataclasses
from pathlib import Path

from commscope.execute.runner import JSONL, run_from_files
from commscope.ingest.importer import run_from_parsed
from commscope.ingest.parse import parse_file
from commscope.records.run import Run

#: Run fields only the harness knows (what was launched, which file was imported); the rest
#: comes from the core's records and must be the same on both roads.
HARNESS_FIELDS = frozenset(
    {
        "flags",
        "placement",
        "label",
        "repeat_index",
        "launcher_argv",
        "compiler",
        "job_id",
        "notes",
        "source_format",
        "source_file",
        "raw",
        "system",
        "id",
        "invocation_id",
        "commscope_version",
        "commscope_git_commit",
    }
)


def from_stream(stream: bytes, folder: Path, benchmark: str) -> Run:
    """The Run `commscope run` makes of a launch whose core wrote `stream` and exited 0."""
    folder.mkdir()
    (folder / JSONL).write_bytes(stream)
    return run_from_files({"run": {"benchmark": benchmark}}, folder, 0, None)


def from_document(path: Path) -> Run:
    """The Run `commscope import` makes of a --format json document."""
    (parsed,) = parse_file(path)
    return run_from_parsed(parsed, path, None, None)


def core_fields(run: Run) -> dict:
    return {name: value for name, value in dataclasses.asdict(run).items() if name not in HARNESS_FIELDS}
