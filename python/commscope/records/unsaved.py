"""Results that were measured but could not be stored, kept as files until they can be.

When `commscope run` cannot write a finished run into the database (locked by another
writer, disk full, read-only, damaged), it writes the run into the unsaved-results folder
(``<user data dir>/commscope/unsaved``, beside the default database) as:

* ``NAME.jsonl``: the core's JSON Lines stream, header and records, as the core wrote it;
* ``NAME.stdout`` and ``NAME.stderr``: what the launch printed;
* ``NAME.run.json``: the sidecar, format "commscope-unsaved" version 1, with what only the
  harness knows: label, system, launcher argv, flags, repeat index, placement, status and
  reason, compiler, job id, the command that ran it, and how many records it accepted.

`commscope import NAME.jsonl` reads the sidecar beside it and stores the run as `run`
would have, from the same stream: nothing measured is lost.
"""

from __future__ import annotations

import json
import os
import re
import time
from pathlib import Path

from commscope.errors import UsageError
from commscope.records.inputs import read_text
from commscope.records.redact import redact_json_text, secret_names
from commscope.records.run import Run, apply_header, point_from_core

FORMAT = "commscope-unsaved"
VERSION = 1
SIDECAR_SUFFIX = ".run.json"
#: Run fields the core's stream cannot tell and the sidecar keeps.
HARNESS_FIELDS = (
    "benchmark",
    "status",
    "status_reason",
    "flags",
    "ranks",
    "placement",
    "label",
    "repeat_index",
    "started_at",
    "ended_at",
    "launcher_argv",
    "compiler",
    "job_id",
    "system",
)
_RAW_KINDS = ("stdout", "stderr")


def unsaved_dir() -> Path:
    import platformdirs

    return platformdirs.user_data_path("commscope") / "unsaved"


def sidecar_of(jsonl: Path) -> Path:
    return jsonl.with_name(jsonl.name.removesuffix(".jsonl") + SIDECAR_SUFFIX)


def keep(run: Run, invocation: dict, folder: Path) -> Path:
    """Write `run` (made by the runner: raw jsonl, stdout, stderr) into `folder`; returns the
    JSONL file. The sidecar is written last, so a sidecar always has its stream."""
    folder.mkdir(parents=True, exist_ok=True)
    stamp = time.strftime("%Y%m%dT%H%M%SZ", time.gmtime())
    benchmark = re.sub(r"[^\w.-]", "_", run.benchmark)
    stem = f"{stamp}-{benchmark}-{os.getpid()}-{run.repeat_index}"
    jsonl = folder / f"{stem}.jsonl"
    secrets = secret_names(run.environment)  # kept files are as clean as the store
    jsonl.write_bytes(redact_json_text(run.raw.get("jsonl", b""), secrets))
    for kind in _RAW_KINDS:
        (folder / f"{stem}.{kind}").write_bytes(redact_json_text(run.raw.get(kind, b""), secrets))
    sidecar = {
        "format": FORMAT,
        "version": VERSION,
        "records": len(run.points),
        "run": {name: getattr(run, name) for name in HARNESS_FIELDS},
        "invocation": invocation,
    }
    sidecar_of(jsonl).write_text(json.dumps(sidecar, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")
    return jsonl


class UnsavedError(ValueError):
    """The kept files cannot be read back; args: (line, message)."""


def load(jsonl: Path, data: bytes) -> Run:
    """The run kept as `jsonl` (whose bytes are `data`), as the runner made it."""
    try:
        sidecar = json.loads(read_text(sidecar_of(jsonl), "sidecar"))
    except UsageError as exc:  # names the file already
        raise UnsavedError(1, str(exc)) from None
    except ValueError as exc:
        raise UnsavedError(1, f"cannot read {sidecar_of(jsonl).name}: {exc}") from None
    if not isinstance(sidecar, dict) or sidecar.get("format") != FORMAT or sidecar.get("version") != VERSION:
        raise UnsavedError(1, f"{sidecar_of(jsonl).name} is not a {FORMAT} version {VERSION} file")
    fields = {name: sidecar["run"].get(name) for name in HARNESS_FIELDS}
    run = Run(**fields)
    run.raw = {"jsonl": data}
    for kind in _RAW_KINDS:
        path = jsonl.with_suffix(f".{kind}")
        if path.exists():
            run.raw[kind] = path.read_bytes()
    header, wanted = None, sidecar.get("records", 0)
    for number, line in enumerate(data.split(b"\n"), 1):
        if len(run.points) == wanted:
            break
        if not line.strip():
            continue
        try:
            ((kind, value),) = json.loads(line).items()
        except ValueError:
            raise UnsavedError(number, "not a line of commscope-bench's JSON stream") from None
        if kind == "header" and header is None:
            header = value
            apply_header(run, header)
        elif kind == "record" and header is not None:
            run.points.append(point_from_core(value, header["benchmark"]["metric"]))
    if len(run.points) != wanted:
        raise UnsavedError(1, f"holds {len(run.points)} records, its sidecar says {wanted}")
    invocation = sidecar.get("invocation") or {}
    command = " ".join(invocation.get("argv") or []) or "commscope run"
    run.notes = [*(run.notes or []), f"kept unsaved by `{command}` at {invocation.get('started_at')}, imported later"]
    for name, value in fields.items():  # the values the runner ended with, after the header's
        setattr(run, name, value)
    return run
