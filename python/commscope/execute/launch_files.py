"""The files of one launch of commscope-bench, and the Run they make.

The runner writes them while the core runs; `commscope collect` reads those a batch job
left behind (cluster/collect.py). Either way one function turns them into the Run, so a
launch is judged alike wherever it ran.
"""

from __future__ import annotations

import json
import tempfile
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path

from commscope.execute.outcome import judge, without_launcher_lines
from commscope.execute.stream import CoreStream
from commscope.execute.transports import observed
from commscope.records.core_record import fill_run
from commscope.records.invocation import now
from commscope.records.run import Run

#: The files of one launch in its folder (RunRequest.output_dir, else a temporary one):
#: meta.json is written before the launch, so a job killed half-way still says what
#: ran; result.json after it, so its absence means the launch never ended on its own.
META, JSONL, STDOUT, STDERR, RESULT = "meta.json", "core.jsonl", "stdout", "stderr", "result.json"


def run_from_files(
    meta: dict,
    folder: Path,
    returncode: int | None,
    stopped: str | None,
    ended_at: str | None = None,
    stream: CoreStream | None = None,
    read: Callable[[str], bytes] | None = None,
) -> Run:
    """The Run of one launch from its folder: meta.json's fields, the core's JSONL stream,
    its stderr. `stopped` says why the launch was ended early (it makes the run
    incomplete with the sizes measured); `returncode` is needed only when it was not.
    `stream`: the core's stream as the runner read it while following the launch, to
    the end (read here when None). `read`: a file of the folder by name, b"" when missing
    (`collect` reads a folder a job left only as regular files inside it)."""
    if read is None:
        read = lambda name: (folder / name).read_bytes() if (folder / name).exists() else b""  # noqa: E731
    if stream is None:
        stream = CoreStream.of(read(JSONL))
    stderr, stdout = read(STDERR), read(STDOUT)
    status, reason = judge(
        returncode if returncode is not None else 0,
        stream,
        stopped,
        stderr.decode(errors="replace"),
        stdout.decode(errors="replace"),
    )
    run = Run(
        **meta["run"],
        status=status,
        status_reason=reason,
        raw={"jsonl": stream.raw, "stdout": without_launcher_lines(stdout), "stderr": stderr},
    )
    if stream.output is not None:
        fill_run(run, stream.output)
    if "transport" in meta:  # asked for, and what rank 0's environment shows of it
        run.provenance = {
            **(run.provenance or {}),
            "transport": {**meta.get("transport", {}), "observed": observed(run.environment)},
        }
    if meta.get("wrapper"):
        run.provenance = {**(run.provenance or {}), "wrapper": meta["wrapper"]}
    if meta.get("binding"):
        run.provenance = {**(run.provenance or {}), "binding": meta["binding"]}
    for key in ("links", "gpu_pair", "core_pair"):  # every host's link inventory; a one-to-all entry's pair
        if meta.get(key):
            run.provenance = {**(run.provenance or {}), key: meta[key]}
    run.ended_at = run.ended_at or ended_at or now()
    return run


@contextmanager
def launch_folder(parent: Path | None, name: str) -> Iterator[Path]:
    """A new folder for one launch's files: under `parent` (kept), or temporary."""
    if parent is None:
        with tempfile.TemporaryDirectory(prefix="commscope-") as folder:
            yield Path(folder)
        return
    parent.mkdir(parents=True, exist_ok=True)
    index = len([child for child in parent.iterdir() if child.is_dir()]) + 1
    while True:  # a requeued job runs its script again into the same folder
        folder = parent / f"{index:03d}-{name}"
        try:
            folder.mkdir()
            break
        except FileExistsError:
            index += 1
    yield folder


def write_json(path: Path, value: dict) -> None:
    temporary = path.with_suffix(".tmp")
    temporary.write_text(json.dumps(value, indent=1))
    temporary.replace(path)  # whole or absent, never half written
