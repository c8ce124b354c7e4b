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

A run of another program (`run hpl`, `run storage`) has no stream: its NAME.jsonl is empty,
the sidecar holds the whole run with its points (``"points"``), and each raw output the run
keeps (hpccoutf.txt, fio's JSON...) is ``NAME.<its name>``, listed under ``"raw"``.
"""

from __future__ import annotations

import dataclasses
import json
import os
import re
import time
from collections.abc import Callable
from pathlib import Path

from commscope.errors import UsageError
from commscope.records.core_record import CoreOutput, fill_run
from commscope.records.inputs import read_text
from commscope.records.redact import redact_json_text, secret_names
from commscope.records.run import RUN_COLUMNS, Axes, Pair, Point, Run

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


def _new_name(folder: Path, stem: str) -> tuple[str, Path]:
    """A stem no run in `folder` has, and its JSONL file, created empty to claim it: two runs
    of one benchmark and repeat kept within a second (`overhead`'s plain and wrapped
    launches, a suite's two entries of one benchmark) must not overwrite each other."""
    for number in range(1, 10_000):
        candidate = stem if number == 1 else f"{stem}_{number}"
        jsonl = folder / f"{candidate}.jsonl"
        try:
            jsonl.open("xb").close()
        except FileExistsError:
            continue
        return candidate, jsonl
    raise OSError(f"{folder}: no free name for {stem}")


def keep(run: Run, invocation: dict, folder: Path) -> Path:
    """Write `run` into `folder`; returns the JSONL file. The sidecar is written last, so a
    sidecar always has its files."""
    folder.mkdir(parents=True, exist_ok=True)
    stamp = time.strftime("%Y%m%dT%H%M%SZ", time.gmtime())
    benchmark = re.sub(r"[^\w.-]", "_", run.benchmark)
    stem, jsonl = _new_name(folder, f"{stamp}-{benchmark}-{os.getpid()}-{run.repeat_index}")
    secrets = secret_names(run.environment)  # kept files are as clean as the store
    streamed = "jsonl" in run.raw
    raw_names = _RAW_KINDS if streamed else tuple(run.raw)
    sidecar = {
        "format": FORMAT,
        "version": VERSION,
        "records": len(run.points),
        "run": {name: getattr(run, name) for name in (HARNESS_FIELDS if streamed else (*RUN_COLUMNS, "system"))},
        "invocation": invocation,
    }
    if not streamed:  # no stream to read the points back from
        sidecar.update(points=[dataclasses.asdict(point) for point in run.points], raw=list(raw_names))
    elif run.provenance:  # the header's and what the runner added: transport, wrapper, binding, links
        sidecar["provenance"] = run.provenance
    # encoded before any file is written, so a value that cannot be written leaves no half run
    sidecar_bytes = (json.dumps(sidecar, indent=2, ensure_ascii=False) + "\n").encode("utf-8")
    jsonl.write_bytes(redact_json_text(run.raw.get("jsonl", b""), secrets))  # the name is ours already
    for name in raw_names:
        (folder / f"{stem}.{name}").write_bytes(redact_json_text(run.raw.get(name, b""), secrets))
    written = sidecar_of(jsonl).with_suffix(".tmp")
    written.write_bytes(sidecar_bytes)
    written.replace(sidecar_of(jsonl))  # whole or absent: the sidecar says the run is complete
    return jsonl


def _point(fields: dict) -> Point:
    return Point(**{**fields, "axes": Axes(**fields["axes"]), "pair": Pair.of(fields["pair"])})


class UnsavedError(ValueError):
    """The kept files cannot be read back; args: (line, message)."""


def load(jsonl: Path, data: bytes, imported: bool = True, read: Callable[[Path], bytes] | None = None) -> Run:
    """The run kept as `jsonl` (whose bytes are `data`), as the runner made it; `imported`
    notes that it was kept unsaved and stored later (not so for a batch job's runs/).
    `read`: how the files beside it are read (a job folder's only as regular files inside
    it, records.inputs.read_inside); it raises OSError, FileNotFoundError when one is missing."""
    try:
        if read is None:
            text = read_text(sidecar_of(jsonl), "sidecar")
        else:
            text = read(sidecar_of(jsonl)).decode()
        sidecar = json.loads(text)
    except UsageError as exc:  # names the file already
        raise UnsavedError(1, str(exc)) from None
    except OSError as exc:
        raise UnsavedError(1, f"cannot read {sidecar_of(jsonl).name}: {exc.strerror or exc}") from None
    except ValueError as exc:
        raise UnsavedError(1, f"cannot read {sidecar_of(jsonl).name}: {exc}") from None
    if not isinstance(sidecar, dict) or sidecar.get("format") != FORMAT or sidecar.get("version") != VERSION:
        raise UnsavedError(1, f"{sidecar_of(jsonl).name} is not a {FORMAT} version {VERSION} file")
    beside = read or Path.read_bytes
    try:
        if "points" in sidecar:  # a run of another program: the sidecar holds all of it
            run = Run(**sidecar["run"], points=[_point(point) for point in sidecar["points"]])
            run.raw = {name: beside(jsonl.with_suffix(f".{name}")) for name in sidecar["raw"]}
            return _noted(run, sidecar) if imported else run
        fields = {name: sidecar["run"].get(name) for name in HARNESS_FIELDS}
        run = Run(**fields)
        run.raw = {"jsonl": data}
        for kind in _RAW_KINDS:
            try:
                run.raw[kind] = beside(jsonl.with_suffix(f".{kind}"))
            except FileNotFoundError:
                pass
    except OSError as exc:
        raise UnsavedError(1, f"cannot read the files kept beside it: {exc.strerror or exc}") from None
    except (TypeError, KeyError, AttributeError, ValueError) as exc:
        raise UnsavedError(1, f"{sidecar_of(jsonl).name} does not hold a run as commscope keeps one ({exc})") from None
    header, records, wanted = None, [], sidecar.get("records", 0)
    for number, line in enumerate(data.split(b"\n"), 1):
        if len(records) == wanted:
            break
        if not line.strip():
            continue
        try:
            ((kind, value),) = json.loads(line).items()
        except (ValueError, AttributeError):  # not JSON, not one object of one key
            raise UnsavedError(number, "not a line of commscope-bench's JSON stream") from None
        if kind == "header" and header is None:
            header = value
        elif kind == "record" and header is not None:
            records.append(value)
    if len(records) != wanted:
        raise UnsavedError(1, f"holds {len(records)} records, its sidecar says {wanted}")
    if header is not None:
        fill_run(run, CoreOutput(header, records))
    for name, value in fields.items():  # the values the runner ended with, after the header's
        setattr(run, name, value)
    if isinstance(sidecar.get("provenance"), dict):  # files kept by earlier releases have none
        run.provenance = {**(run.provenance or {}), **sidecar["provenance"]}
    return _noted(run, sidecar) if imported else run


def _noted(run: Run, sidecar: dict) -> Run:
    """`run` with a note saying which command kept it unsaved, and when."""
    invocation = sidecar.get("invocation") or {}
    command = " ".join(invocation.get("argv") or []) or "commscope run"
    run.notes = [*(run.notes or []), f"kept unsaved by `{command}` at {invocation.get('started_at')}, imported later"]
    return run
