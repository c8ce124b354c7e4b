"""The fabric's shape from Slurm's topology.conf (tree plugin) and `scontrol show topology`:
hostlist expressions expanded, the tree's questions answered (leaf of a host, hosts under a
switch, the path between two hosts, hosts not named), and every input Slurm would refuse or
read otherwise a UsageError (exit 2) naming FILE:LINE."""

from __future__ import annotations

import os
import time
from pathlib import Path

import pytest

from commscope.cluster.topology import site_topology
from commscope.errors import EXIT_USAGE, CommscopeError, UsageError
from commscope.records.topology import Coverage, parse_scontrol_topology, read_topology

TWO_LEVELS = """\
##################################################################
# Slurm's network topology configuration file (topology.conf(5)'s example, with a core)
##################################################################
SwitchName=s0 Nodes=dev[0-5]
SwitchName=s1 Nodes=dev[6-11]
SwitchName=s2 Nodes=dev[12-17]   # a comment after a line
SwitchName=s3 Switches=s[0-1]
SwitchName=s4 Switches=s2
SwitchName=core Switches=s[3-4] LinkSpeed=100
"""


def write(tmp_path: Path, text: str, name: str = "topology.conf") -> Path:
    path = tmp_path / name
    path.write_text(text)
    return path


def refused(tmp_path: Path, text: str, line: int, *words: str) -> str:
    path = write(tmp_path, text)
    with pytest.raises(UsageError) as caught:
        read_topology(path)
    message = str(caught.value)
    assert caught.value.exit_code == EXIT_USAGE
    assert message.startswith(f"{path}:{line}: "), message
    for word in words:
        assert word in message, message
    return message


def test_the_man_pages_example_read_as_a_tree(tmp_path):
    topology = read_topology(write(tmp_path, TWO_LEVELS))
    assert topology.leaves == {
        "s0": tuple(f"dev{i}" for i in range(0, 6)),
        "s1": tuple(f"dev{i}" for i in range(6, 12)),
        "s2": tuple(f"dev{i}" for i in range(12, 18)),
    }
    assert topology.roots == ("core",)
    assert dict(topology.parent) == {"s0": "s3", "s1": "s3", "s2": "s4", "s3": "core", "s4": "core"}
    assert topology.switches["core"].link_speed == 100
    assert topology.switches["s2"].where == f"{tmp_path / 'topology.conf'}:6"
    assert topology.leaf_of("dev7") == "s1"
    assert topology.leaf_of("elsewhere") is None
    assert topology.hosts_under("s3") == tuple(f"dev{i}" for i in range(12))
    assert topology.hosts_under("s1") == topology.leaves["s1"]
    assert len(topology.hosts_under("core")) == len(topology.hosts) == 18
    assert topology.ancestors("s0") == ("s0", "s3", "core")


def test_the_path_between_two_hosts_goes_up_to_their_lowest_common_switch(tmp_path):
    topology = read_topology(write(tmp_path, TWO_LEVELS))
    assert topology.path("dev0", "dev1") == ("s0",)
    assert topology.common_switch("dev0", "dev1") == "s0"
    assert topology.path("dev0", "dev7") == ("s0", "s3", "s1")
    assert topology.common_switch("dev0", "dev7") == "s3"
    assert topology.path("dev0", "dev13") == ("s0", "s3", "core", "s4", "s2")
    assert topology.path("dev13", "dev0") == ("s2", "s4", "core", "s3", "s0")
    with pytest.raises(KeyError, match="nowhere"):
        topology.path("dev0", "nowhere")


def test_two_separate_trees_have_no_path(tmp_path):
    topology = read_topology(write(tmp_path, "SwitchName=a Nodes=n[1-2]\nSwitchName=b Nodes=n[3-4]\n"))
    assert topology.roots == ("a", "b")
    assert topology.common_switch("n1", "n3") is None
    assert topology.path("n1", "n3") is None


def test_hostlist_expressions_as_slurm_writes_them(tmp_path):
    text = (
        "SwitchName=l1 Nodes=cn[00000-00003]\n"
        "SwitchName=l2 Nodes=cn[10-12,17],gpu[01-02]\n"
        "SwitchName=top Switches=l[1-2]\n"
    )
    topology = read_topology(write(tmp_path, text))
    assert topology.leaves["l1"] == ("cn00000", "cn00001", "cn00002", "cn00003")
    assert topology.leaves["l2"] == ("cn10", "cn11", "cn12", "cn17", "gpu01", "gpu02")
    assert topology.switches["top"].children == ("l1", "l2")


def test_hosts_not_named_and_named_but_not_swept_are_both_stated(tmp_path):
    topology = read_topology(
        write(tmp_path, "SwitchName=l1 Nodes=n[1-3]\nSwitchName=l2 Nodes=n[4-6]\nSwitchName=t Switches=l[1-2]\n")
    )
    assert topology.coverage(["n1", "n2", "x9", "n4", "x1"]) == Coverage(
        unplaced=("x9", "x1"), unswept=("n3", "n5", "n6")
    )
    assert not topology.coverage(["x9"]).complete
    assert topology.coverage(["n1", "n6"]).complete
    assert topology.by_leaf(["n5", "x9", "n1", "n4", "n1"]) == {"l1": ("n1",), "l2": ("n5", "n4")}


def test_slurm_syntax_keywords_in_any_case_continuation_escapes_and_quotes(tmp_path):
    text = (
        "switchname=leaf1 NODES=n[1-2],\\\n"  # continued on the next line, as Slurm's parser joins it
        "n3   \n"
        'SwitchName=leaf2 Nodes="n[4-5]" linkspeed=10 \\  # a continuation with a comment\n'
        "\n"
        "  # a comment alone, and a blank line above\n"
        "\tSwitchName = leaf\\#3 Nodes=n6\n"
        "SwitchName=spine Switches=leaf1,leaf2,leaf\\#3\n"
    )
    topology = read_topology(write(tmp_path, text))
    assert topology.leaves == {"leaf1": ("n1", "n2", "n3"), "leaf2": ("n4", "n5"), "leaf#3": ("n6",)}
    assert topology.switches["leaf2"].link_speed == 10
    assert topology.switches["leaf2"].where.endswith(":3")
    assert topology.switches["leaf#3"].where.endswith(":6")
    assert topology.roots == ("spine",)


@pytest.mark.parametrize(
    "text, line, words",
    [
        ("SwitchName=s0 Nodes=n1\nSwitchName=s1 Nodes=n2 Bandwidth=10\n", 2, ["unknown keyword Bandwidth="]),
        ("SwitchName=s0 Nodes=n1\nNodes=n2\n", 2, ["without SwitchName="]),
        ("SwitchName=s0 Nodes=n1\nSwitchName s1 Nodes=n2\n", 2, ["cannot read 'SwitchName'"]),
        ("# two\nSwitchName=s0 Nodes=n[1-\n", 2, ["Nodes=n[1-", "not a hostlist expression"]),
        ("SwitchName=s0 Nodes=n1 LinkSpeed=fast\n", 1, ["LinkSpeed=fast"]),
        ("SwitchName=s0\n", 1, ["neither Nodes= nor Switches="]),
        ("SwitchName=s0 Nodes=n1 Nodes=n2\n", 1, ["Nodes= given twice"]),
        ("SwitchName=s0 Nodes=n1 Switches=s1\nSwitchName=s1 Nodes=n2\n", 1, ["both Nodes= and Switches="]),
        ("SwitchName=s0 Nodes=n1\nSwitchName=s0 Nodes=n2\n", 2, ["defined again", ":1)"]),
        ("Include /etc/slurm/more.conf\n", 1, ["Include"]),
    ],
    ids=[
        "unknown-keyword",
        "no-switchname",
        "not-key-value",
        "bad-hostlist",
        "bad-linkspeed",
        "no-children",
        "key-twice",
        "nodes-and-switches",
        "switch-twice",
        "include",
    ],
)
def test_unknown_syntax_names_the_line(tmp_path, text, line, words):
    refused(tmp_path, text, line, *words)


def test_a_host_under_two_leaves(tmp_path):
    text = "SwitchName=l1 Nodes=n[1-4]\n# between\nSwitchName=l2 Nodes=n[4-8]\nSwitchName=t Switches=l[1-2]\n"
    message = refused(tmp_path, text, 3, "host n4", "l1", "l2")
    assert f"{tmp_path / 'topology.conf'}:1" in message  # where the first leaf took it


def test_a_switch_under_two_parents(tmp_path):
    text = "SwitchName=l1 Nodes=n1\nSwitchName=a Switches=l1\nSwitchName=b Switches=l1\n"
    refused(tmp_path, text, 3, "switch l1 is under b and under a")


def test_a_child_switch_no_line_defines(tmp_path):
    refused(tmp_path, "SwitchName=l1 Nodes=n1\nSwitchName=top Switches=l[1-2]\n", 2, "switch l2, which no line defines")


@pytest.mark.parametrize(
    "text, line",
    [
        ("SwitchName=s0 Switches=s0\n", 1),
        ("SwitchName=l1 Nodes=n1\nSwitchName=a Switches=l1,b\nSwitchName=b Switches=a\n", 2),
    ],
    ids=["own-child", "two-switch-loop"],
)
def test_a_loop_of_switches(tmp_path, text, line):
    refused(tmp_path, text, line, "its own ancestor")


def test_a_file_that_names_no_switch(tmp_path):
    for text in ("", "# only comments\n\n"):
        path = write(tmp_path, text)
        with pytest.raises(UsageError, match=rf"^{path}: no SwitchName= line"):
            read_topology(path)


def test_an_unreadable_file(tmp_path):
    with pytest.raises(UsageError, match="cannot read topology file .*missing"):
        read_topology(tmp_path / "missing")
    with pytest.raises(UsageError, match="cannot read topology file"):
        read_topology(tmp_path)  # a folder
    with pytest.raises(UsageError, match="larger than the limit"):
        read_topology("/dev/zero")
    path = tmp_path / "binary.conf"
    path.write_bytes(b"SwitchName=s0 Nodes=n1\n\xff\n")
    with pytest.raises(UsageError, match=r"binary.conf:2: topology file is not UTF-8"):
        read_topology(path)


@pytest.mark.skipif(os.geteuid() == 0, reason="root reads a file of mode 000")
def test_a_file_without_read_permission(tmp_path):
    path = write(tmp_path, TWO_LEVELS)
    path.chmod(0)
    with pytest.raises(UsageError, match="cannot read topology file"):
        read_topology(path)


def test_ten_thousand_hosts_under_250_leaves_in_well_under_a_second(tmp_path):
    lines = [f"SwitchName=leaf{leaf:03d} Nodes=cn[{leaf * 40:05d}-{leaf * 40 + 39:05d}]" for leaf in range(250)]
    lines += [f"SwitchName=spine{spine} Switches=leaf[{spine * 25:03d}-{spine * 25 + 24:03d}]" for spine in range(10)]
    lines.append("SwitchName=core Switches=spine[0-9]")
    path = write(tmp_path, "\n".join(lines) + "\n")
    started = time.perf_counter()
    topology = read_topology(path)
    elapsed = time.perf_counter() - started
    assert len(topology.hosts) == 10_000 and len(topology.leaves) == 250
    assert topology.leaf_of("cn09999") == "leaf249"
    assert topology.path("cn00000", "cn09999") == ("leaf000", "spine0", "core", "spine9", "leaf249")
    assert topology.coverage(f"cn{i:05d}" for i in range(10_000)).complete
    assert elapsed < 0.5, f"{elapsed:.2f} s to read 10,000 hosts"


# What `scontrol show topology` printed on the virtual cluster (`vcluster up 6 --leaves 2
# --slurm`, Slurm 22.05): a switch above others lists every host below it in Nodes=.
SCONTROL = """\
SwitchName=leaf1 Level=0 LinkSpeed=1 Nodes=vnode[1-3]
SwitchName=leaf2 Level=0 LinkSpeed=1 Nodes=vnode[4-6]
SwitchName=spine Level=1 LinkSpeed=1 Nodes=vnode[1-6] Switches=leaf[1-2]
"""


def test_scontrol_show_topology_read_into_the_same_tree():
    topology = parse_scontrol_topology(SCONTROL)
    assert topology.leaves == {"leaf1": ("vnode1", "vnode2", "vnode3"), "leaf2": ("vnode4", "vnode5", "vnode6")}
    assert topology.roots == ("spine",)
    assert topology.switches["spine"].hosts == ()  # its Nodes= is its leaves' hosts, not its own
    assert topology.hosts_under("spine") == tuple(f"vnode{i}" for i in range(1, 7))
    assert topology.path("vnode1", "vnode6") == ("leaf1", "spine", "leaf2")
    assert topology.source == "scontrol show topology"


def test_scontrol_empty_children_written_as_null():
    """Other Slurm versions print `Switches=(null)` for a leaf and `Nodes=(null)` where empty."""
    text = SCONTROL.replace("Nodes=vnode[4-6]", "Nodes=vnode[4-6] Switches=(null)")
    assert parse_scontrol_topology(text).leaves == parse_scontrol_topology(SCONTROL).leaves
    assert parse_scontrol_topology(text.replace("Nodes=vnode[1-6]", "Nodes=(null)")).roots == ("spine",)


def test_scontrol_without_a_topology_says_none():
    assert parse_scontrol_topology("") is None
    assert parse_scontrol_topology("No topology information available\n") is None


def test_scontrol_output_slurm_would_not_print_is_refused_with_its_line():
    with pytest.raises(UsageError, match=r"^scontrol show topology:2: host vnode3 is under leaf switches leaf1"):
        parse_scontrol_topology(SCONTROL.replace("vnode[4-6]", "vnode[3-6]"))


def test_the_topology_a_sweep_uses_the_file_given_else_the_controller_inside_an_allocation(tmp_path, monkeypatch):
    path = write(tmp_path, TWO_LEVELS)
    assert site_topology(path, environ={"SLURM_JOB_ID": "7"}).source == str(path)  # the file wins
    assert site_topology(None, environ={}) is None  # outside an allocation: none is known
    monkeypatch.setenv("PATH", str(tmp_path))  # inside one, where Slurm's client is missing
    with pytest.raises(CommscopeError, match="no scontrol on PATH"):
        site_topology(None, environ={"SLURM_JOB_ID": "7"})


# A file in Slurm's looser syntax, and what slurmctld 22.05 made of it on the virtual
# cluster (`scontrol reconfigure`, then `scontrol show topology`): both read the same.
LOOSE = (
    "switchname=leaf1 NODES=vnode[1-2],\\\n"
    "vnode3   \n"
    "\n"
    'SwitchName=leaf2 nodes="vnode[4-6]" linkspeed=10 \\  # comment\n'
    "  # alone\n"
    "\tSwitchName = spine Switches=leaf[1-2]\n"
)
LOOSE_AS_SLURM_READ_IT = """\
SwitchName=leaf1 Level=0 LinkSpeed=1 Nodes=vnode[1-2],vnode3
SwitchName=leaf2 Level=0 LinkSpeed=10 Nodes=vnode[4-6]
SwitchName=spine Level=1 LinkSpeed=1 Nodes=vnode[1-6] Switches=leaf[1-2]
"""


def test_a_file_reads_as_slurm_read_it(tmp_path):
    ours = read_topology(write(tmp_path, LOOSE))
    slurms = parse_scontrol_topology(LOOSE_AS_SLURM_READ_IT)
    assert ours.leaves == slurms.leaves
    assert dict(ours.parent) == dict(slurms.parent)
    assert ours.switches["leaf2"].link_speed == slurms.switches["leaf2"].link_speed == 10


def test_a_separator_inside_a_comment_does_not_move_the_lines(tmp_path):
    """Slurm ends a line at a newline only; a form feed, a file separator or U+2028 in a
    comment is part of the comment, and errors name the line an editor shows."""
    text = "# switches\fof hall\x1cB\u2028and C\x85\nSwitchName=s0 Nodes=n1\r\nSwitchName=s1 Nodes=n[\n"
    refused(tmp_path, text, 3, "Nodes=n[ is not a hostlist expression")
    crlf = write(tmp_path, "# hall\fB\r\nSwitchName=s0 Nodes=n[1-2]\r\nSwitchName=top Switches=s0\r\n")
    assert read_topology(crlf).leaves == {"s0": ("n1", "n2")}


def _comb(depth: int) -> str:
    """A chain of `depth` switches, each with a leaf of one host hanging off it."""
    lines = []
    for level in range(depth):
        below = f"leaf{level}" + (f",s{level + 1}" if level < depth - 1 else "")
        lines += [f"SwitchName=s{level} Switches={below}", f"SwitchName=leaf{level} Nodes=cn{level:04d}"]
    return "\n".join(lines) + "\n"


@pytest.mark.slow
def test_a_chain_of_3200_switches_is_walked_once(tmp_path):
    """Each switch kept its whole chain of ancestors, searched again for every switch a
    sweep asked about: a sweep over a 3,200-deep chain took more than 5 minutes (800: 8 s,
    1,600: 44 s). Every host of the chain swept, each switch's hosts and the uplinks that
    can be crossed asked for, in a child with a time limit, so that such a walk fails."""
    import subprocess
    import sys

    path = write(tmp_path, _comb(3200))
    script = f"""
from commscope.analysis.fabric import Fabric
from commscope.records.topology import read_topology
topology = read_topology({str(path)!r})
fabric = Fabric.of_topology(list(topology.hosts), topology)
under = [len(fabric.hosts_under(switch)) for switch in range(len(fabric.switches))]
print(under[fabric.switches.index("s0")], under[fabric.switches.index("s3000")], int(fabric.crossable().sum()))
a, b = fabric.leaf[[0, 266]].tolist()
print(*[fabric.switches[part - fabric.n] for part in fabric.crossed(a, b)][:4])
"""
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    assert done.stdout.split("\n")[:2] == ["3200 200 6399", "leaf0 leaf266 s266 s265"]
