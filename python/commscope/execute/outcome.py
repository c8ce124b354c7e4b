"""How a launch of commscope-bench ended: complete, incomplete (stopped, crashed, cut short:
the points measured are kept) or failed, and why, in one line a person can act on."""

from __future__ import annotations

from commscope.execute.process import TIMED_OUT, signal_name
from commscope.execute.stream import CoreStream
from commscope.records.core_record import outcome

#: How a launch stopped after the core's last line begins its reason (the runner's finalize grace).
FINALIZE_NOTE = "stopped after its results"


def stderr_summary(text: str) -> str | None:
    """The line of a launch's stderr that most likely says what went wrong: the core's own
    message if there is one (launchers wrap it in banners of dashes), else the last line."""
    lines = [line.strip() for line in text.splitlines() if any(char.isalnum() for char in line)]
    own = [line for line in lines if "commscope-bench" in line and not line.startswith("Try ")]
    if own:
        return own[0]
    return lines[-1] if lines else None


def judge(returncode: int, stream: CoreStream, stopped: str | None, stderr_text: str) -> tuple[str, str | None]:
    """(status, reason) of a finished launch."""
    output = stream.output
    measured = len(stream.records)
    expected = output.planned_records if output else None
    progress = (
        f"; {measured} of {expected} points measured" if expected is not None else f"; {measured} points measured"
    )
    problem = stderr_summary(stderr_text)
    detail = f": {problem}" if problem else ""
    if stopped is not None:
        if stopped.startswith(FINALIZE_NOTE) and stream.records and (stream.end or {}).get("status") == "complete":
            return "complete", stopped  # a hang after the last line takes nothing from the measurements
        return "incomplete", f"{stopped}{progress}"
    if stream.problem is not None:
        return "incomplete", f"unreadable result stream ({stream.problem}){progress}"
    if output is None or output.end is None:
        crash = signal_name(returncode)
        if crash:
            return "incomplete", f"commscope-bench crashed ({crash}){progress}"
        if output is None:
            return "failed", f"commscope-bench exited with status {returncode} before measuring anything{detail}"
        return "incomplete", f"commscope-bench exited with status {returncode} without finishing{progress}{detail}"
    status, reason = outcome(output, detail)
    if status == "complete" and returncode != 0:
        return "failed", f"commscope-bench finished its results but exited with status {returncode}{detail}"
    return status, reason


def timed_out(status: str, reason: str | None) -> bool:
    """Whether a launch was stopped for running past its time (--timeout), not ended by a
    signal, a crash or the core's own verdict."""
    return status == "incomplete" and (reason or "").startswith(TIMED_OUT)
