"""Taking bad nodes out of service through Slurm's own commands, with a reason an operator
reads in `sinfo -R`, and bringing them back.

`scontrol update NodeName=H State=DRAIN Reason="commscope: bw 48% of median with 4 healthy
partners, run 17"`: Slurm gives the node no new job and lets the running ones end. The
reason is the only record: commscope keeps no state of its own that could disagree with
slurmctld, and `sweep recheck` finds the nodes it drained by the reason's "commscope:".

Nothing is half done: Slurm is asked whether it answers, whether this user may change
nodes and whether it knows every node before the first is drained; a drain that fails
after others worked says which were drained. A safety valve refuses to drain more than
--max-drain nodes at all: a broken spine makes many hosts look bad at once, and draining
them would empty the partition.
"""

from __future__ import annotations

import getpass
import os
import re
import sys
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

from commscope import ui
from commscope.cluster import slurm
from commscope.errors import EXIT_FAILED, CommscopeError, UsageError
from commscope.records.textsafe import shell_word

if TYPE_CHECKING:  # `sweep --help` reads MAX_DRAIN_SHARE without loading the analysis (numpy)
    from commscope.analysis.bad_nodes import NodeFinding

#: How every reason commscope writes begins; `sweep recheck` looks for it.
REASON_PREFIX = "commscope:"
#: The share of the hosts swept that --max-drain allows by default (at least one node).
MAX_DRAIN_SHARE = 0.05
#: Slurm keeps a reason as given, but quotes, '=' and control characters confuse the
#: operators' own scripts over `scontrol show node`/`sinfo -R`: anything else becomes '_'.
_UNSAFE = re.compile(r"[^A-Za-z0-9 .,:%_+/()-]")
#: The longest reason written: `sinfo -R` shows 20 characters by default, `%50E` fits this.
REASON_LIMIT = 120
#: Node states that already keep a node out of service.
OUT_OF_SERVICE = ("DRAIN", "DOWN", "FAIL")


class DrainRefused(CommscopeError):
    """Nothing was drained (the valve, or Slurm refused the first), or only some (said)."""

    exit_code = EXIT_FAILED


def default_max_drain(hosts_swept: int) -> int:
    """--max-drain's default: 5 % of the hosts swept, rounded down, at least one."""
    return max(1, int(hosts_swept * MAX_DRAIN_SHARE))


def drain_reason(evidence: str, stored_as: str | None) -> str:
    """The Reason written: "commscope: EVIDENCE, run N" (`stored_as` "run N"), safe characters only."""
    run = f", {stored_as}" if stored_as is not None else ""
    text = f"{REASON_PREFIX} {evidence}"[: REASON_LIMIT - len(run)] + run
    return _UNSAFE.sub("_", text)


def update_argv(host: str, state: str, reason: str | None = None) -> list[str]:
    return ["scontrol", "update", f"NodeName={host}", f"State={state}", *([f"Reason={reason}"] if reason else [])]


def shown(argv: Sequence[str]) -> str:
    """A command as a shell line a user may copy: every word quoted as the shell needs it
    (a node name with a line break or ESC in ANSI-C quotes: it neither forges a line nor
    reaches the terminal); the reason in double quotes (it has no character a shell
    expands inside them: see _UNSAFE)."""
    return " ".join(
        f'Reason="{word[7:]}"' if word.startswith("Reason=") and not _UNSAFE.search(word[7:]) else shell_word(word)
        for word in argv
    )


@dataclass(frozen=True)
class NodeState:
    name: str
    state: str  # Slurm's, e.g. IDLE, IDLE+DRAIN, MIXED+DRAIN, DOWN*
    reason: str | None

    @property
    def out_of_service(self) -> bool:
        return any(word in self.state.upper() for word in OUT_OF_SERVICE)

    @property
    def ours(self) -> bool:
        return self.out_of_service and (self.reason or "").startswith(REASON_PREFIX)


def _answer(argv: list[str], doing: str) -> str:
    done = slurm.run_slurm(argv)
    if done.returncode != 0:
        message = " ".join((done.stderr or done.stdout).split()) or f"exit status {done.returncode}"
        raise DrainRefused(f"{doing}: `{' '.join(argv[:4])}` failed ({message}); nothing was changed")
    return done.stdout


def node_states(hosts: Sequence[str] | None = None) -> dict[str, NodeState]:
    """What slurmctld says of each node (of all where `hosts` is None); an unknown host is an error."""
    argv = ["scontrol", "-o", "show", "node", *([",".join(hosts)] if hosts else [])]
    found = {}
    for line in _answer(argv, "asking Slurm for the nodes").split("\n"):
        fields = node_fields(line)
        if "NodeName" in fields:
            reason = fields.get("Reason")
            reason = None if reason in (None, "", "(null)", "None") else reason
            found[fields["NodeName"]] = NodeState(fields["NodeName"], fields.get("State", ""), reason)
    missing = [host for host in hosts or () if host not in found]
    if missing:
        raise DrainRefused(f"Slurm knows no node {', '.join(missing)}; nothing was changed")
    return found


#: What slurmctld adds after the first line of a reason: " [user@2026-11-23T10:15:00]".
_REASON_STAMP = re.compile(r" \[[^]\s]*@\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\]")


def node_fields(line: str) -> dict[str, str]:
    """One node's record of `scontrol -o show node`: its own fields (Key=Value, the first of
    each key), then Reason, which Slurm prints after them all, read as the rest of the
    record up to the user and time slurmctld stamps it with. An operator writes what they
    like in a reason (`RMA ticket 42, vendor says State=IDLE`): read as pairs, its words
    became the node's state."""
    head, separator, reason = line.partition(" Reason=")
    if not separator and line.startswith("Reason="):
        head, reason, separator = "", line[len("Reason=") :], "Reason="
    fields: dict[str, str] = {}
    for key, value in slurm._PAIR.findall(head):
        fields.setdefault(key, value.strip())
    if separator:
        stamp = _REASON_STAMP.search(reason)  # else another SLURM_TIME_FORMAT's, at the end
        fields["Reason"] = reason[: stamp.start()] if stamp else re.sub(r"\s*\[[^]]*\]\s*$", "", reason).strip()
    return fields


def _may_change_nodes() -> str | None:
    """Why this user may not change nodes' states (None: it may): root, SlurmUser, or an
    Operator/Administrator of the accounting database, as slurmctld allows."""
    if os.geteuid() == 0:
        return None
    user = getpass.getuser()
    config = _answer(["scontrol", "show", "config"], "asking Slurm for its configuration")
    match = re.search(r"^SlurmUser\s*=\s*([^(\s]+)", config, re.M)
    if match and match.group(1) == user:
        return None
    try:
        done = slurm.run_slurm(["sacctmgr", "-n", "-P", "show", "user", user, "format=AdminLevel"])
        level = done.stdout.strip() if done.returncode == 0 else ""
    except CommscopeError:
        level = ""
    if level in ("Operator", "Administrator"):
        return None
    return (
        f"{user} may not change nodes' states: Slurm lets root, its SlurmUser "
        f"({match.group(1) if match else 'unknown'}) and accounting Operators or Administrators drain nodes"
    )


def check_can_drain(doing: str = "--drain", changed: str = "nothing was drained") -> None:
    """Before measuring: Slurm's scontrol is here, slurmctld answers, and this user may drain;
    a refusal begins with `doing` (the option or command asking) and ends with `changed`."""
    slurm.command_path("scontrol")
    _answer(["scontrol", "ping"], "asking whether slurmctld answers")
    why = _may_change_nodes()
    if why:
        raise DrainRefused(f"{doing}: {why}; {changed}")


def drain_nodes(
    nodes: Sequence[NodeFinding], stored_as: str | None, max_drain: int, dry_run: bool = False
) -> list[str]:
    """Drain each bad node with its reason, which ends with where the evidence is stored
    (`stored_as`: "run 17"); the hosts drained (or, dry, that would be).

    Refuses (DrainRefused, nothing drained) when more than `max_drain` would be, when
    Slurm does not answer, knows a node not, or refuses the first; a node already out of
    service for another reason is left as it is (an operator's reason is not overwritten)."""
    if not nodes:
        ui.note("drain: no bad node named; nothing to drain")
        return []
    names = ", ".join(node.host for node in nodes)
    if len(nodes) > max_drain:
        counted = f"{len(nodes)} bad node{'s' if len(nodes) != 1 else ''}"
        raise DrainRefused(
            f"drain: {counted} named ({names}), more than --max-drain {max_drain}: draining none. "
            "So many at once is more likely the network (a switch, a spine) than the nodes; look at the "
            "fabric, or drain them yourself, or raise --max-drain"
        )
    if dry_run:
        for node in nodes:
            sys.stdout.write(shown(update_argv(node.host, "DRAIN", drain_reason(node.evidence, stored_as))) + "\n")
        ui.note(f"drain: --dry-run: {len(nodes)} node(s) would be drained; nothing was changed")
        return [node.host for node in nodes]
    check_can_drain()
    states = node_states([node.host for node in nodes])
    drained: list[str] = []
    for node in nodes:
        state = states[node.host]
        if state.out_of_service and not state.ours:
            ui.warn(f"drain: {node.host} is out of service already ({state.state}: {state.reason}); left as it is")
            continue
        argv = update_argv(node.host, "DRAIN", drain_reason(node.evidence, stored_as))
        done = slurm.run_slurm(argv)
        if done.returncode != 0:
            message = " ".join((done.stderr or done.stdout).split())
            before = f"drained {', '.join(drained)} before it" if drained else "nothing was drained"
            raise DrainRefused(f"drain: `{shown(argv)}` failed ({message}); {before}")
        ui.note(f"drain: {shown(argv)}")
        drained.append(node.host)
    return drained


@dataclass(frozen=True)
class DrainPlan:
    """What --drain was asked to do with a verdict's bad nodes: at most `max_drain` (None: the
    default share of the hosts swept), or only print the commands (`dry_run`)."""

    max_drain: int | None = None
    dry_run: bool = False

    def act(self, nodes: Sequence[NodeFinding], hosts_swept: int, stored_as: str) -> list[str]:
        """Drain `nodes` (their reasons end with `stored_as`: "run 17", "job 812"); the hosts
        taken out of service (none for a dry run, which printed them)."""
        limit = self.max_drain if self.max_drain is not None else default_max_drain(hosts_swept)
        drained = drain_nodes(nodes, stored_as, limit, self.dry_run)
        return [] if self.dry_run else drained


def plan_drain(drain: bool, max_drain: int | None, dry_run: bool) -> DrainPlan | None:
    """--drain's plan (None without --drain), Slurm checked first, before anything is
    measured, unless this is a dry run; --max-drain and --dry-run go with --drain."""
    if not drain:
        if max_drain is not None or dry_run:
            raise UsageError(f"{'--max-drain' if max_drain is not None else '--dry-run'} goes with --drain")
        return None
    if not dry_run:
        check_can_drain()
    return DrainPlan(max_drain, dry_run)
