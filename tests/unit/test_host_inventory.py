"""The link inventory of every host of a run (execute.host_inventory): the frames each host's
process prints, read back whole or not at all, the one-process-per-host launch, and the
inter-node peak worked out from the inventories stored (recorded sysfs trees of real machines:
an HDR InfiniBand node and a 100 GbE RoCE node, tests/support/fixtures/links/README.md)."""

from __future__ import annotations

import json
import random
import sys

from commscope.analysis import peaks
from commscope.execute.host_inventory import HostsLinks, every_host, frames, inventory, inventory_command, read_frames
from commscope.execute.launchers import HydraLauncher, Launcher, LaunchSpec, OpenMpiLauncher, SrunLauncher
from commscope.execute.signals import StopSignals
from commscope.records.run import Run
from paths import FIXTURES

LINKS = FIXTURES / "links"


def recorded(tree: str, host: str) -> dict:
    found = inventory(environ={"COMMSCOPE_SYSFS": str(LINKS / tree / "sys"), "COMMSCOPE_NVIDIA_SMI": "/nonexistent"})
    return {**found, "host": host}


def test_frames_come_back_whole_through_interleaved_output():
    n1, n2 = recorded("hdr-ib-node", "n1"), recorded("roce-100g-node", "n2")
    lines = frames(n1, 11) + frames(n2, 22) + ["some launcher chatter", "#commscope-links n3 33 1/2 not base64!"]
    random.Random(4).shuffle(lines)
    found, problems = read_frames(lines)
    assert found == {"n1": json.loads(json.dumps(n1)), "n2": json.loads(json.dumps(n2))}
    assert problems == []


def test_a_damaged_or_cut_inventory_is_left_out_with_the_reason():
    big = recorded("hdr-ib-node", "n1")
    big["padding"] = random.Random(1).randbytes(2000).hex()  # several frames
    lines = frames(big, 11)
    assert len(lines) > 2
    found, problems = read_frames(lines[:1] + lines[2:])
    assert found == {} and problems == [f"n1: 1 of {len(lines)} lines of its inventory lost"]
    damaged = [*lines[:-1], lines[-1][:-8] + "AAAAAAAA"]  # another rank's text cut into it
    found, problems = read_frames(damaged)
    assert found == {} and "n1: its inventory came back damaged" in problems[0]


def test_one_process_per_host_whatever_the_slots():
    spec = LaunchSpec(np=8, hosts=("n1:4", "n2:4"), known_nodes=2, local_cores=2, placement="intra-node")
    argv = inventory_command(OpenMpiLauncher("mpirun"), spec)
    assert argv[:7] == ["mpirun", "-np", "2", "--host", "n1:1,n2:1", "--bind-to", "none"]
    assert argv[-2:] == ["-m", "commscope.execute.host_inventory"]
    hostfile = LaunchSpec(np=2, hostfile="hosts", known_nodes=3, local_cores=2)
    assert inventory_command(HydraLauncher("mpiexec"), hostfile)[:9] == [
        "mpiexec", "-n", "3", "-print-all-exitcodes", "-f", "hosts", "-ppn", "1", "-bind-to",
    ]  # fmt: skip
    allocation = LaunchSpec(np=2, known_nodes=2, local_cores=2)
    assert inventory_command(SrunLauncher("srun"), allocation)[:6] == [
        "srun",
        "-n",
        "2",
        "--kill-on-bad-exit=1",
        "-N",
        "2",
    ]
    assert inventory_command(OpenMpiLauncher("mpirun"), LaunchSpec(np=2, local_cores=2)) is None  # this host only


class _Replay(Launcher):
    """A launcher that ignores what it is asked to start and prints a prepared output."""

    flavour = summary = "replay"
    programs = ()

    def __init__(self, output: str, status: int = 0):
        super().__init__(sys.executable)
        self.script = f"import sys; sys.stdout.write({output!r}); sys.exit({status})"

    def argv(self, spec):
        return [sys.executable, "-c", self.script]


def _two_host_run(links: HostsLinks) -> Run:
    run = Run("bw", hosts=[{"name": "n1", "ranks": [0]}, {"name": "n2", "ranks": [1]}])
    run.provenance = {"links": links.provenance()}
    return run


def test_every_host_of_a_run_is_inventoried_and_the_slower_host_sets_the_peak():
    output = "\n".join(frames(recorded("hdr-ib-node", "n1"), 11) + frames(recorded("roce-100g-node", "n2"), 22))
    local = recorded("hdr-ib-node", "login")
    spec = LaunchSpec(np=2, hosts=("n1", "n2"), known_nodes=2, placement="inter-node")
    with StopSignals() as signals:
        links = every_host(local, _Replay(output + "\n"), spec, signals)
    assert sorted(links.hosts) == ["login", "n1", "n2"] and links.not_inventoried is None
    peak = peaks.run_peak(_two_host_run(links))
    assert peak.gbs == 12.5 and peak.basis == "mlx5_0:1 RoCE 100 Gb/s on n2"


def test_an_inventory_launch_that_fails_leaves_the_peak_unknown_with_its_reason():
    local = recorded("hdr-ib-node", "n1")
    spec = LaunchSpec(np=2, hosts=("n1", "n2"), known_nodes=2, placement="inter-node")
    with StopSignals() as signals:
        links = every_host(local, _Replay("", status=3), spec, signals)
    assert list(links.hosts) == ["n1"]
    assert links.not_inventoried == "the inventory launch exited with 3"
    peak = peaks.run_peak(_two_host_run(links))
    assert not peak.known and peak.basis == "no link inventory of n2 (the inventory launch exited with 3)"


def test_runs_stored_before_every_host_was_inventoried_still_read():
    old = Run("bw", hosts=[{"name": "n1", "ranks": [0]}, {"name": "n2", "ranks": [1]}])
    old.provenance = {"links": {"hosts": {"n1": recorded("hdr-ib-node", "n1")}}}
    assert peaks.run_peak(old).basis == "no link inventory of n2"


def test_info_links_of_named_hosts(cli, clean_env, tmp_path):
    """`info --links --hosts`: one process per host through the launcher (here one that plays
    back two recorded hosts' frames), each host's links, and the peak between them."""
    frames_file = tmp_path / "frames.txt"
    lines = frames(recorded("hdr-ib-node", "n1"), 11) + frames(recorded("roce-100g-node", "n2"), 22)
    frames_file.write_text("\n".join(lines) + "\n")
    launcher = tmp_path / "mpirun"
    launcher.write_text(
        f"#!{sys.executable}\nimport sys\n"
        "if sys.argv[1:] == ['--version']:\n    print('mpirun (Open MPI) 5.0.0-fake')\n    sys.exit(0)\n"
        f"sys.stdout.write(open({str(frames_file)!r}).read())\n"
    )
    launcher.chmod(0o755)
    text = cli("info", "--links", "--hosts", "n1,n2", "--launcher", launcher)
    assert text.exit_code == 0, text.output
    assert "# links of n1" in text.stdout and "# links of n2" in text.stdout
    assert "# network peak between these hosts: 12.5 GB/s (mlx5_0:1 RoCE 100 Gb/s on n2)" in text.stdout
    document = json.loads(cli("info", "--links", "--hosts", "n1,n2", "--launcher", launcher, "--format", "json").stdout)
    assert sorted(document["hosts"]) == ["n1", "n2"] and "not_inventoried" not in document
    refused = cli("info", "--hosts", "n1")
    assert refused.exit_code == 2 and "--hosts and --hostfile go with --links" in refused.stderr
