"""How a launch of commscope-bench ended: complete, incomplete (stopped, crashed, cut short:
the points measured are kept) or failed, and why, in one line a person can act on."""

from __future__ import annotations

import re
import signal
from dataclasses import dataclass

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


#: How the reason of a launch begins when a rank died by a signal: the launcher said which,
#: or only that one did (its exit status).
RANK_DIED = "a rank died"
CRASHED = "commscope-bench crashed"
#: How the reason begins when a launch was stopped for not getting going: the core's header
#: had not come within the start-up a sweep allows (a host hung in or right after MPI_Init).
NO_START = "the launch did not get going"
#: How the reason begins when the launcher itself failed (its daemons did not start, it lost
#: one) before any rank measured, saying nothing of a rank.
LAUNCHER_FAILED = "the launcher failed at start"
#: What each launcher prints when its own machinery failed, and how commscope says it. Open
#: MPI 4.1's mpirun, when an orted on a host failed to start or to call back (its
#: help-errmgr-base.txt): over TCP on a loaded machine this happens now and then with nothing
#: wrong on the host, as the ranks' own crash in MPI_Init does. MPICH 4.0's Hydra, when a
#: proxy's connection closed before it reported its ranks' ends (a race when a rank dies at
#: start: 1 launch in 12 on this machine), instead of its banner naming the rank.
_LAUNCHER_FAILURES = (
    (
        re.compile(
            r"ORTE was unable to reliably start one or more daemons"
            r"|An ORTE daemon has unexpectedly failed after launch"
            r"|ORTE does not know how to route a message"
            r"|ORTE is unable to establish a communication connection"
        ),
        "Open MPI's daemons did not start",
    ),
    (re.compile(r"control_cb \(pm/pmiserv/pmiserv_cb\.c:\d+\): assert \(!closed\) failed"), "Hydra lost a proxy"),
    # a rank's MPI_Init gave up on a peer during the wire-up: MPICH's UCX address exchange
    # with a host whose rank died meanwhile ("Destination is unreachable"), Open MPI's
    # "MPI_INIT has failed"; the rank aborts with a status of its own, not a signal
    (
        re.compile(r"Fatal error in internal_Init|It looks like MPI_INIT failed"),
        "MPI_Init failed on a rank",
    ),
)
#: What each launcher prints when a rank dies by a signal: srun ("srun: error: vnode2: task 1:
#: Segmentation fault (core dumped)"), Open MPI's mpirun ("mpirun noticed that process rank 1
#: with PID 0 on node vnode2 exited on signal 11 (Segmentation fault).").
_RANK_DEATHS = (
    re.compile(
        r"srun: error: (?P<host>\S+): tasks? (?P<rank>[\d,-]+): (?P<name>[A-Z][\w ]+?)(?: \(core dumped\))?$", re.M
    ),
    re.compile(r"process rank (?P<rank>\d+) with PID \d+ on node (?P<host>\S+) exited on signal (?P<number>\d+)"),
)
#: MPICH 4.0's Hydra names no rank in its "BAD TERMINATION" banner; with -print-all-exitcodes
#: (launchers.py) it lists each host's ranks' codes, in rank order ("[mpiexec@vnode1] Exit
#: codes: [vnode1] 0 [vnode2] 11,9"), and the signal after: "YOUR APPLICATION TERMINATED WITH
#: THE EXIT STRING: Segmentation fault (signal 11)". The code of a rank killed by a signal is
#: the signal's number; 9 are the ranks Hydra killed when one died.
_HYDRA_CODES = re.compile(r"Exit codes: (?P<hosts>(?:\[[^\]\s]+\] [\d,]+\s*)+)")
#: The same line, on stdout, after every launch: not the core's table.
_HYDRA_CODES_LINE = re.compile(rb"^\[mpiexec@[^\]\s]+\] Exit codes: .*\n?", re.M)
_HYDRA_HOST = re.compile(r"\[(?P<host>[^\]\s]+)\] (?P<codes>[\d,]+)")
_HYDRA_SIGNAL = re.compile(r"TERMINATED WITH THE EXIT STRING: .*\(signal (?P<number>\d+)\)")
#: A Hydra proxy that failed on its own ("[proxy:0:0@vnode1] HYD_pmcd_pmip_control_cmd_cb
#: (pm/pmiserv/pmip_cb.c:899): assert (!closed) failed"): Hydra leaves a proxy that sent no
#: exit codes out of its list, so the ranks after it can no longer be counted from the list.
_HYDRA_PROXY_FAILED = re.compile(r"^\[proxy:[\d:]+@[^\]\s]+\] .*(?:assert \(.*\) failed|error)", re.M)
#: What the core skipped and why, measuring the rest (src/patterns/congestion.c: a congestor
#: the MPI library cannot run over this fabric): the run is complete, with this as its note.
_SKIPPED = re.compile(r"^commscope-bench: (congestor \S+ skipped: .*)$", re.M)
#: srun names the signal as strsignal() does; the name commscope gives it.
_STRSIGNAL = {signal.strsignal(number): number.name for number in signal.Signals if signal.strsignal(number)}
#: The signals a launcher sends the other ranks once one died: not the cause.
_CLEAN_UP = ("SIGKILL", "SIGTERM")


def _hydra_deaths(text: str) -> list[tuple[str | None, str, str]]:
    """(rank, host, signal) of each rank Hydra says a signal ended; the rank None where a
    proxy failed, its ranks missing from the list (the host and the signal still hold)."""
    codes, signalled = _HYDRA_CODES.search(text), _HYDRA_SIGNAL.search(text)
    if not codes or not signalled:
        return []
    name = signal_name(-int(signalled["number"])) or f"signal {signalled['number']}"
    counted = _HYDRA_PROXY_FAILED.search(text) is None
    deaths, rank = [], 0
    for host in _HYDRA_HOST.finditer(codes["hosts"]):
        for code in host["codes"].split(","):
            if code == signalled["number"]:
                deaths.append((str(rank) if counted else None, host["host"], name))
            rank += 1
    return deaths


#: Hydra's banner as soon as a rank ended badly, before it has ended the others (and over
#: ssh it may never: its signal to the other proxies can fail, "unable to send signal
#: downstream"): it names the host and the code, the signal's number for a rank a signal ended.
_HYDRA_BANNER = re.compile(
    r"BAD TERMINATION OF ONE OF YOUR APPLICATION PROCESSES\s*\n"
    r"=\s*PID \d+ RUNNING AT (?P<host>\S+)\s*\n=\s*EXIT CODE: (?P<code>\d+)"
)


@dataclass(frozen=True)
class Death:
    """A rank the launcher said died at a host, and how: by a signal ('SIGSEGV'), or with
    the exit code Hydra's first banner gives; `rank` None where the launcher named none."""

    host: str
    rank: str | None
    how: str

    def __str__(self) -> str:
        if self.rank is None:
            return f"a rank on {self.host} died ({self.how})"
        return f"rank {self.rank} on {self.host} died by {self.how}"


def death_of(launcher_output: str) -> Death | None:
    """The rank's death a launcher printed, the cause first (rank_deaths), or else Hydra's
    first banner, printed while it still runs (a rank on vnode2, Hydra: exit code 11)."""
    deaths = rank_deaths(launcher_output)
    if deaths:
        return deaths[0]
    banner = _HYDRA_BANNER.search(launcher_output)
    return Death(banner["host"], None, f"Hydra: exit code {banner['code']}") if banner else None


def cause_deaths(launcher_output: str) -> list[Death]:
    """Every rank the launcher said died of its own (not one it killed once another had
    died); Hydra's first banner where it named no rank."""
    deaths = [death for death in rank_deaths(launcher_output) if death.how not in _CLEAN_UP]
    banner = death_of(launcher_output)
    return deaths or ([banner] if banner is not None and banner.how not in _CLEAN_UP else [])


def early_death(launcher_output: str) -> str | None:
    """What a launcher printed of a rank's death while it still runs: the first of rank_deaths, or
    Hydra's first banner ('a rank on vnode2 died (Hydra: exit code 11)')."""
    death = death_of(launcher_output)
    return str(death) if death else None


def without_launcher_lines(stdout: bytes) -> bytes:
    """The core's stdout without the exit codes Hydra adds to it (-print-all-exitcodes)."""
    return _HYDRA_CODES_LINE.sub(b"", stdout)


def launcher_failure(launcher_output: str) -> str | None:
    """What the launcher said of its own failure, in one line ('Open MPI's daemons did not
    start: "ORTE was unable to reliably start one or more daemons"'), else None. Not a host:
    the node Open MPI's "no-path" notice names is the one it routes through, not the one
    whose daemon failed."""
    for pattern, said in _LAUNCHER_FAILURES:
        found = pattern.search(launcher_output)
        if found:
            return f'{said}: "{found[0]}"'
    return None


def rank_deaths(launcher_output: str) -> list[Death]:
    """Every rank what the launcher printed says died by a signal, the cause first: once one
    died, srun and Hydra report the ranks they killed for it too ("Killed"), named last."""
    deaths = [Death(host, rank, name) for rank, host, name in _hydra_deaths(launcher_output)]
    for pattern in _RANK_DEATHS:
        for match in pattern.finditer(launcher_output):
            found = match.groupdict()
            if found.get("number"):
                name = signal_name(-int(found["number"])) or f"signal {found['number']}"
            else:
                name = _STRSIGNAL.get(found["name"].strip())
                if name is None:
                    continue  # "srun: error: vnode1: task 0: Exited with exit code 1" is no signal
            deaths.append(Death(found["host"], found["rank"], name))
    return sorted(deaths, key=lambda death: death.how in _CLEAN_UP)


def judge(
    returncode: int, stream: CoreStream, stopped: str | None, stderr_text: str, stdout_text: str = ""
) -> tuple[str, str | None]:
    """(status, reason) of a finished launch; stdout only for what a launcher says there (Hydra
    prints a rank's death on stdout)."""
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
    death = early_death(stderr_text + stdout_text) if output is None or output.end is None else None
    if death:
        return ("failed" if output is None else "incomplete"), f"{RANK_DIED}: {death}{progress}"
    if stream.problem is not None:
        return "incomplete", f"unreadable result stream ({stream.problem}){progress}"
    if output is None or output.end is None:
        crash = signal_name(returncode)
        if crash:
            return "incomplete", f"{CRASHED} ({crash}){progress}"
        if output is None:
            failure = launcher_failure(stderr_text + stdout_text)
            if failure:
                return "failed", f"{LAUNCHER_FAILED}: {failure} (exit status {returncode})"
            return "failed", f"commscope-bench exited with status {returncode} before measuring anything{detail}"
        return "incomplete", f"commscope-bench exited with status {returncode} without finishing{progress}{detail}"
    status, reason = outcome(output, detail)
    if status == "complete" and returncode != 0:
        return "failed", f"commscope-bench finished its results but exited with status {returncode}{detail}"
    skipped = _SKIPPED.findall(stderr_text)
    if status == "complete" and reason is None and skipped:
        return status, "; ".join(dict.fromkeys(skipped))
    return status, reason


def timed_out(status: str, reason: str | None) -> bool:
    """Whether a launch was stopped for running past its time (--timeout), not ended by a
    signal, a crash or the core's own verdict."""
    return status == "incomplete" and (reason or "").startswith(TIMED_OUT)


def failed_at_start(status: str, reason: str | None, measured: int) -> bool:
    """Whether a launch ended because a rank died by a signal, or the launcher itself failed,
    before it measured anything: worth one more start (a rank of Open MPI 4.1 crashes in
    MPI_Init over TCP now and then, and its orted fails to call back now and then). Open
    MPI's mpirun names the rank most times, not always (its notice is lost in a race now and
    then): its exit status, 128 + the signal, still tells a crash."""
    return status != "complete" and (reason or "").startswith((RANK_DIED, CRASHED, LAUNCHER_FAILED)) and measured == 0


#: What a launch's warning adds when it is started once more.
ONCE_MORE = "starting it once more (a second failure at start is final)"


def retried_note(reason: str | None) -> str:
    """What a run started once more keeps of its first start: "its first start failed (a rank
    died: rank 1 on vnode2 died by SIGSEGV; 0 points measured); started once more"."""
    return f"its first start failed ({reason}); started once more"
