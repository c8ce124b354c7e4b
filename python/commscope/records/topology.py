"""The fabric's shape as Slurm describes it: switches, the hosts under each leaf switch, and
the switches above them.

Two sources give it: a `topology.conf` of Slurm's tree plugin (read_topology), and what
`scontrol show topology` prints inside an allocation (parse_scontrol_topology; the command
itself is run by cluster/topology.py, as this layer starts no processes). Both become one
`Topology`.

topology.conf is read as Slurm's own parser reads it (src/common/parse_config.c and the
topology.conf(5) man page): keywords are case-insensitive (SwitchName, Switches, Nodes,
LinkSpeed), a `#` not escaped by a backslash starts a comment, a line ending in an odd
number of backslashes goes on on the next line, `\\x` stands for x, and a value may be
"quoted". Host and switch lists are Slurm hostlist expressions (`cn[00000-00039]`,
`cn[1-3,7],gpu[01-02]`), expanded by python-hostlist. What the tree plugin refuses (an
unknown keyword: slurmctld stops), and what it reads otherwise than it looks or only warns
of (a host under two leaves: "Multiple leaf switches contain nodes"; a loop, a switch under
two parents, a child switch never defined, a switch with both Nodes= and Switches=), is a
UsageError naming FILE:LINE: a verdict about a switch needs each host under one leaf.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from types import MappingProxyType

import hostlist

from commscope.errors import UsageError
from commscope.records.inputs import read_text

#: topology.conf's keywords (tree plugin), by their lower-case spelling.
_KEYWORDS = {"switchname": "SwitchName", "switches": "Switches", "nodes": "Nodes", "linkspeed": "LinkSpeed"}
#: What `scontrol show topology` prints where a switch has no such children.
_EMPTY = ("", "(null)")
# Key=Value, the value "quoted" or up to the next blank (parse_config.c's own rule).
_PAIR = re.compile(r'([A-Za-z][A-Za-z0-9_.]*)\s*=\s*(?:"([^"]*)"|([^\s"]+))')
_INCLUDE = re.compile(r"include\s", re.I)


@dataclass(frozen=True)
class Switch:
    """One switch: the hosts directly under it (a leaf switch) or its child switches."""

    name: str
    hosts: tuple[str, ...] = ()
    children: tuple[str, ...] = ()
    link_speed: int | None = None
    where: str = ""  # "FILE:LINE" (or "scontrol show topology:LINE") that defined it


@dataclass(frozen=True)
class Coverage:
    """Hosts of a sweep against a topology, both differences stated, in the given order."""

    unplaced: tuple[str, ...]  # hosts of the list the topology does not name
    unswept: tuple[str, ...]  # hosts the topology names that the list lacks

    @property
    def complete(self) -> bool:
        return not self.unplaced


@dataclass(frozen=True)
class Topology:
    """A tree (or several) of switches; every host is under exactly one leaf switch."""

    switches: Mapping[str, Switch]  # by name, in the order they were defined
    source: str  # the file, or "scontrol show topology"
    parent: Mapping[str, str] = field(repr=False)  # switch -> the switch above it
    host_leaf: Mapping[str, str] = field(repr=False)  # host -> its leaf switch

    @property
    def leaves(self) -> dict[str, tuple[str, ...]]:
        """Leaf switch -> its hosts, in the order defined."""
        return {name: switch.hosts for name, switch in self.switches.items() if switch.hosts}

    @property
    def roots(self) -> tuple[str, ...]:
        """The switches with no switch above them (one in a connected fabric)."""
        return tuple(name for name in self.switches if name not in self.parent)

    @property
    def hosts(self) -> tuple[str, ...]:
        """Every host the topology names, leaf by leaf."""
        return tuple(self.host_leaf)

    def leaf_of(self, host: str) -> str | None:
        """The leaf switch of `host`; None where the topology does not name it."""
        return self.host_leaf.get(host)

    def ancestors(self, switch: str) -> tuple[str, ...]:
        """`switch`, the switch above it, and so on up to its root."""
        self._known(switch)
        chain = [switch]
        while chain[-1] in self.parent:
            chain.append(self.parent[chain[-1]])
        return tuple(chain)

    def hosts_under(self, switch: str) -> tuple[str, ...]:
        """Every host below `switch`, at any depth, leaf by leaf."""
        self._known(switch)
        found, todo = [], [switch]
        while todo:
            current = self.switches[todo.pop(0)]
            found.extend(current.hosts)
            todo.extend(current.children)
        return tuple(found)

    def common_switch(self, a: str, b: str) -> str | None:
        """The lowest switch above both hosts (their leaf when they share one); None where
        they are in separate trees. A KeyError for a host the topology does not name."""
        above_a = set(self.ancestors(self._leaf(a)))
        return next((switch for switch in self.ancestors(self._leaf(b)) if switch in above_a), None)

    def path(self, a: str, b: str) -> tuple[str, ...] | None:
        """The switches traffic from host `a` to host `b` crosses: up from a's leaf to the
        lowest common switch, then down to b's leaf; (leaf,) for two hosts of one leaf;
        None where they are in separate trees."""
        top = self.common_switch(a, b)
        if top is None:
            return None
        up = self.ancestors(self._leaf(a))
        down = self.ancestors(self._leaf(b))
        return up[: up.index(top) + 1] + tuple(reversed(down[: down.index(top)]))

    def by_leaf(self, hosts: Iterable[str]) -> dict[str, tuple[str, ...]]:
        """The given hosts under their leaf switches, leaves in the topology's order and
        hosts in the order given; hosts the topology does not name are left out (coverage()
        states them)."""
        grouped: dict[str, list[str]] = {leaf: [] for leaf in self.leaves}
        for host in dict.fromkeys(hosts):
            if host in self.host_leaf:
                grouped[self.host_leaf[host]].append(host)
        return {leaf: tuple(under) for leaf, under in grouped.items() if under}

    def coverage(self, hosts: Iterable[str]) -> Coverage:
        """What `hosts` and the topology do not share: for the caller to state, not guess."""
        given = list(dict.fromkeys(hosts))
        wanted = set(given)
        return Coverage(
            unplaced=tuple(host for host in given if host not in self.host_leaf),
            unswept=tuple(host for host in self.host_leaf if host not in wanted),
        )

    def _leaf(self, host: str) -> str:
        if host not in self.host_leaf:
            raise KeyError(f"host {host!r} is not under any switch of {self.source}")
        return self.host_leaf[host]

    def _known(self, switch: str) -> None:
        if switch not in self.switches:
            raise KeyError(f"no switch {switch!r} in {self.source}")


# ---------------------------------------------------------------- topology.conf


def read_topology(path: Path | str) -> Topology:
    """The topology.conf at `path` (Slurm's tree plugin); a UsageError naming FILE:LINE
    for what Slurm would not read so."""
    path = Path(path)
    text = read_text(path, "topology file")
    switches: list[Switch] = []
    for line_number, line in _logical_lines(text):
        where = f"{path}:{line_number}"
        switch = _switch_of_line(line, where)
        if switch is not None:
            switches.append(switch)
    if not switches:
        raise UsageError(f"{path}: no SwitchName= line: a topology file (Slurm's topology.conf) names its switches")
    return build_topology(switches, str(path))


def _logical_lines(text: str) -> Iterable[tuple[int, str]]:
    """(first line number, text) of each line as Slurm's parser sees it: comments cut at an
    unescaped '#', lines ending in an odd number of backslashes joined to the next one."""
    pending, start = "", 0
    # Slurm ends a line at "\n" only: str.splitlines() would also end one at a form feed,
    # "\x1c" or U+2028 inside a comment, and every later error would name the wrong line.
    for number, raw in enumerate(text.removesuffix("\n").split("\n"), 1):
        line = _strip_comment(raw).rstrip()
        trailing = len(line) - len(line.rstrip("\\"))
        if not pending:
            start = number
        if trailing % 2:
            pending += line[:-1]
            continue
        yield start, re.sub(r"\\(.)", r"\1", pending + line)
        pending = ""
    if pending:
        yield start, re.sub(r"\\(.)", r"\1", pending)


def _strip_comment(line: str) -> str:
    backslashes = 0
    for index, char in enumerate(line):
        if char == "#" and backslashes % 2 == 0:
            return line[:index]
        backslashes = backslashes + 1 if char == "\\" else 0
    return line


def _pairs(line: str, where: str) -> list[tuple[str, str]]:
    """The Key=Value pairs of a line; a UsageError for anything else on it."""
    pairs, position = [], 0
    while True:
        while position < len(line) and line[position].isspace():
            position += 1
        if position == len(line):
            return pairs
        match = _PAIR.match(line, position)
        if match is None:
            word = line[position:].split()[0]
            raise UsageError(f"{where}: cannot read {word!r}: topology.conf lines are Key=Value pairs")
        pairs.append((match.group(1), match.group(2) if match.group(2) is not None else match.group(3)))
        position = match.end()


def _switch_of_line(line: str, where: str) -> Switch | None:
    if not line.strip():
        return None
    if _INCLUDE.match(line.lstrip()):
        raise UsageError(f"{where}: Include is not followed: give one topology file that names every switch")
    values: dict[str, str] = {}
    for key, value in _pairs(line, where):
        keyword = _KEYWORDS.get(key.lower())
        if keyword is None:
            known = ", ".join(_KEYWORDS.values())
            raise UsageError(f"{where}: unknown keyword {key}= (topology.conf's tree plugin knows {known})")
        if keyword in values:
            raise UsageError(f"{where}: {keyword}= given twice on one line")
        values[keyword] = value
    if "SwitchName" not in values:
        raise UsageError(f"{where}: a line without SwitchName=: each line defines one switch")
    return _switch(values, where, scontrol=False)


def _switch(values: Mapping[str, str], where: str, scontrol: bool) -> Switch:
    name = values["SwitchName"]
    if not name or name in _EMPTY:
        raise UsageError(f"{where}: SwitchName= has no name")
    nodes = _expand(values.get("Nodes", ""), "Nodes", where)
    children = _expand(values.get("Switches", ""), "Switches", where)
    if children and nodes and not scontrol:
        raise UsageError(
            f"{where}: switch {name} has both Nodes= and Switches=: Slurm's tree plugin reads only "
            "Nodes= of such a switch; a leaf switch names hosts, a switch above it names switches"
        )
    if not children and not nodes:
        raise UsageError(f"{where}: switch {name} has neither Nodes= nor Switches=")
    speed = values.get("LinkSpeed", "")
    if speed not in _EMPTY and not speed.isdigit():
        raise UsageError(f"{where}: LinkSpeed={speed} of switch {name} is not a whole number")
    # scontrol lists, for a switch above others, every host below it: its children say that
    return Switch(
        name,
        hosts=() if children else nodes,
        children=children,
        link_speed=int(speed) if speed not in _EMPTY else None,
        where=where,
    )


def _expand(expression: str, keyword: str, where: str) -> tuple[str, ...]:
    if expression in _EMPTY:
        return ()
    try:
        return tuple(hostlist.expand_hostlist(expression))
    except hostlist.BadHostlist as problem:
        raise UsageError(f"{where}: {keyword}={expression} is not a hostlist expression ({problem})") from None


# ---------------------------------------------------------------- scontrol show topology


def parse_scontrol_topology(text: str) -> Topology | None:
    """The topology in what `scontrol show topology` printed (one switch a line:
    `SwitchName=s0 Level=0 LinkSpeed=1 Nodes=vnode[1-3] Switches=(null)`); None where it
    names no switch (Slurm runs without a topology plugin). Keys other than SwitchName,
    Nodes, Switches and LinkSpeed (Level, those of later Slurm versions) are not needed."""
    switches = []
    for number, line in enumerate(text.split("\n"), 1):
        if not line.lstrip().startswith("SwitchName="):
            continue
        where = f"scontrol show topology:{number}"
        values = {key: value for key, value in _pairs(line, where)}
        switches.append(_switch(values, where, scontrol=True))
    return build_topology(switches, "scontrol show topology") if switches else None


# ---------------------------------------------------------------- the tree


def build_topology(switches: Iterable[Switch], source: str) -> Topology:
    """The Topology of these switches, checked as a tree: each switch defined once, each
    child switch defined, each switch and host under one parent, no switch its own ancestor."""
    by_name: dict[str, Switch] = {}
    for switch in switches:
        if switch.name in by_name:
            raise UsageError(
                f"{switch.where}: switch {switch.name} defined again (first at {by_name[switch.name].where})"
            )
        by_name[switch.name] = switch
    parent: dict[str, str] = {}
    host_leaf: dict[str, str] = {}
    for switch in by_name.values():
        for child in switch.children:
            if child not in by_name:
                raise UsageError(f"{switch.where}: switch {switch.name} names switch {child}, which no line defines")
            if child in parent and parent[child] != switch.name:
                first = by_name[parent[child]].where
                raise UsageError(
                    f"{switch.where}: switch {child} is under {switch.name} and under {parent[child]} (at {first}): "
                    "a switch has one switch above it"
                )
            parent[child] = switch.name
        for host in switch.hosts:
            if host in host_leaf and host_leaf[host] != switch.name:
                first = by_name[host_leaf[host]].where
                raise UsageError(
                    f"{switch.where}: host {host} is under leaf switches {host_leaf[host]} (at {first}) and "
                    f"{switch.name}: a host is under one leaf switch (Slurm only warns of this; "
                    "which is the host's cannot be told)"
                )
            host_leaf[host] = switch.name
    _refuse_loops(by_name, parent)
    return Topology(
        switches=MappingProxyType(by_name),
        source=source,
        parent=MappingProxyType(parent),
        host_leaf=MappingProxyType(host_leaf),
    )


def _refuse_loops(by_name: Mapping[str, Switch], parent: Mapping[str, str]) -> None:
    """Every chain of parents ends at a root: a switch met twice going up is in a loop."""
    settled: set[str] = set()
    for start in by_name:
        seen: dict[str, None] = {}  # in order, and found at once (a chain may be thousands deep)
        current: str | None = start
        while current is not None and current not in settled:
            if current in seen:
                climbed = list(seen)
                loop = climbed[climbed.index(current) :] + [current]
                raise UsageError(
                    f"{by_name[current].where}: switch {current} is its own ancestor "
                    f"({' under '.join(loop)}): the switches must form a tree"
                )
            seen[current] = None
            current = parent.get(current)
        settled.update(seen)
