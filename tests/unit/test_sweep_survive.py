"""Issue 45: a sweep survives the node it looks for. The real sweep code (sweep/run.py,
sweep/survive.py, sweep/locate.py) over launches that fail as a bad node makes them fail,
told in the launcher's and the core's own words (srun's death line, the core's start
lines): a host whose ranks die at start in two launches, one that hangs at MPI start (found
by its missing start line and a start-up probe, or by probes over halves where rank 0's
host hangs and no start line comes at all), a death that moves from host to host, and a host
that hangs half-way through measuring. The virtual cluster does it for real
(tests/cluster/test_survive.py)."""

from __future__ import annotations

import dataclasses
import json
from dataclasses import dataclass, field
from pathlib import Path

import pytest

from commscope.analysis.locate_stored import stored_verdict
from commscope.analysis.start_faults import FAILS, HANGS
from commscope.analysis.sweep_verdicts import judge_stored
from commscope.execute.outcome import LAUNCHER_FAILED, NO_START
from commscope.records.run import Run
from commscope.records.run_kinds import SWEEP_KEY
from commscope.store.db import Store
from fixtures.analysis.sweep_runs import PlantedNetwork

HOSTS = [f"node{k:02d}" for k in range(1, 7)]
HEADER = b'{"header":{}}\n'


def started(hosts, missing=()) -> bytes:
    return "".join(
        f'{{"started":{{"rank":{rank},"host":"{host}","pid":{100 + rank}}}}}\n'
        for rank, host in enumerate(hosts)
        if host not in missing
    ).encode()


@dataclass
class Faulty:
    """Launches on hosts of which some fail at MPI start: `dead` die by SIGSEGV right after
    MPI_Init (srun names them), `hung` hang there (no start line; where rank 0's host hangs,
    none at all), `half` stops half-way through its first launch's pairs, `deaths` kill a
    different host at each launch, `rank0_deaths` pairs launches kill their rank 0 whatever
    its host (Open MPI's TCP wire-up on a loaded machine; a probe of the host starts).
    `launches` records (benchmark, hosts) of each."""

    dead: set = field(default_factory=set)
    hung: set = field(default_factory=set)
    fence: set = field(default_factory=set)  # hang inside MPI_Init, holding every rank there
    half: str | None = None
    deaths: list[str] = field(default_factory=list)
    rank0_deaths: int = 0
    unnamed: int = 0  # pairs launches that fail first as MPICH's MPI_Init does, naming no host
    launches: list = field(default_factory=list)
    schedules: list = field(default_factory=list)  # each pairs launch's --schedule, a FILE's lines

    def launch(self, sweeper, flags, signals, hosts, how) -> Run:
        hosts = list(hosts)
        self.launches.append((how.benchmark, hosts))
        if how.benchmark == "pairs":
            given = flags[flags.index("--schedule") + 1]
            self.schedules.append(Path(given).read_text().splitlines()[1:] if Path(given).is_file() else given)
        if self.unnamed and how.benchmark == "pairs":
            self.unnamed -= 1  # another rank's MPI_Init gave up on the dying host first
            said = b"Abort(339332623) on node 1 (rank 1 in comm 0): Fatal error in internal_Init: Other MPI error\n"
            reason = f'{LAUNCHER_FAILED}: MPI_Init failed on a rank: "Fatal error in internal_Init" (exit status 15)'
            return Run(benchmark="pairs", status="failed", status_reason=reason, raw={"stderr": said, "jsonl": b""})
        dead = [host for host in hosts if host in self.dead]
        if self.deaths:
            dead = [self.deaths[(len(self.launches) - 1) % len(self.deaths)]]
        if self.rank0_deaths and how.benchmark == "pairs":
            self.rank0_deaths -= 1
            dead = [hosts[0]]
        if dead:  # srun: a line per task that died, then the ranks it killed for them
            rank = hosts.index(dead[0])
            said = "".join(f"srun: error: {host}: task {hosts.index(host)}: Segmentation fault\n" for host in dead)
            said += "".join(
                f"srun: error: {host}: task {k}: Killed\n" for k, host in enumerate(hosts) if host not in dead
            )
            return Run(
                benchmark=how.benchmark,
                status="failed",
                status_reason=f"a rank died: rank {rank} on {dead[0]} died by SIGSEGV; 0 points measured",
                raw={"stderr": said.encode(), "jsonl": started(hosts, dead)},
            )
        if (self.hung | self.fence) & set(hosts):
            lines = b"" if hosts[0] in self.hung or self.fence & set(hosts) else started(hosts, self.hung)
            reason = f"{NO_START} within 120 s ({lines.count(b'started')} of {len(hosts)} ranks started)"
            return Run(benchmark=how.benchmark, status="incomplete", status_reason=reason, raw={"jsonl": lines})
        if how.benchmark == "hello":
            stream = started(hosts) + HEADER + b'{"end":{"end_time":"x","status":"complete"}}\n'
            return Run(benchmark="hello", status="failed", status_reason="no records", raw={"jsonl": stream})
        run = PlantedNetwork(hosts, bad_node=None).run(flags)
        run.raw = {"jsonl": started(hosts) + HEADER}
        if self.half in hosts:
            self.half = None  # once
            run.points = run.points[: len(run.points) // 2]
            run.status, run.status_reason = "incomplete", f"timed out after 300 s; {len(run.points)} points measured"
        return run


@pytest.fixture
def faulty(monkeypatch, tmp_path):
    import commscope.sweep.run as sweep_run

    network = Faulty()
    monkeypatch.setattr(sweep_run, "find_core", lambda: Path("commscope-bench"))
    monkeypatch.setattr(sweep_run, "core_mpi_flavour", lambda core: "openmpi")
    monkeypatch.setattr(sweep_run, "resolve_launcher", lambda choice, flavour, environ=None: None)
    monkeypatch.setattr(sweep_run.Sweeper, "launch_here", lambda self, *args: network.launch(self, *args))
    monkeypatch.setenv("COMMSCOPE_SWEEP_TMP", str(tmp_path))
    return network


def sweep(tmp_path, mode_name: str, hosts=HOSTS, retries: int = 1, **own):
    from commscope.sweep.modes import MODES
    from commscope.sweep.modes.base import SweepRequest

    mode = next(mode for mode in MODES if mode.name == mode_name)
    metrics = ("bw",) if mode_name == "locate" else ("latency", "bw", "bibw")
    request = SweepRequest(
        mode=mode, hosts=tuple(hosts), json_out=tmp_path / "sweep.json", argv=["commscope", "sweep"], own=own
    )
    request = dataclasses.replace(request, metrics=metrics, retest=False, retries=retries)
    code = mode.run(request, tmp_path / "sweep.db").finish()
    document = json.loads((tmp_path / "sweep.json").read_text())
    with Store(tmp_path / "sweep.db", create=False) as store:
        run = store.run(document["run_id"])
    return code, document, run


def pairs_launches(network) -> list[list[str]]:
    return [hosts for benchmark, hosts in network.launches if benchmark == "pairs"]


@pytest.mark.parametrize("unnamed, named", [(0, "2 of 2"), (1, "1 of 2")])
def test_a_host_whose_ranks_die_at_start_is_named_and_the_others_measured(faulty, tmp_path, capsys, unnamed, named):
    """Named by the launcher in both starts; or (MPICH 4.0 over UCX, where another rank's
    MPI_Init gave up on node03 first) in the last start allowed after one that named no
    host: the probe confirms it either way, and the sweep goes on without it."""
    faulty.unnamed, faulty.dead = unnamed, {"node03"}
    code, document, run = sweep(tmp_path, "all-pairs")
    assert code == 1
    [node] = document["bad_nodes"]
    assert node == {
        "host": "node03",
        "reason": FAILS,
        "evidence": f"MPI fails to start on node03: rank 2 died by SIGSEGV in {named} launches and a probe with node01",
    }
    others = [host for host in HOSTS if host != "node03"]
    assert document["hosts"] == others and not document["flags"]
    matrix = document["matrices"]["bw"]
    assert all(matrix[i][j] for i in range(5) for j in range(5) if i != j)  # every pair of the others
    # two starts that named it, a probe with it second that failed too, then one launch of the rest
    assert pairs_launches(faulty) == [HOSTS, HOSTS, others]
    assert [hosts for benchmark, hosts in faulty.launches if benchmark == "hello"] == [["node01", "node03"]]
    assert run.status == "complete" and run.ranks == 5
    assert run.provenance[SWEEP_KEY]["set_aside"] == [node]
    # judged again from the store as the sweep judged it
    assert [(fault.host, fault.reason) for fault in judge_stored(run, None).set_aside] == [("node03", FAILS)]
    err = capsys.readouterr().err
    assert "bad node node03 (fails at MPI start): MPI fails to start on node03: rank 2 died by SIGSEGV" in err


def test_every_host_the_launcher_names_dead_in_both_launches_is_set_aside_at_once(faulty, tmp_path):
    """Ten dead hosts of 10,000 cost two launches, not twenty: srun names each task that died."""
    faulty.dead = {"node02", "node05"}
    code, document, _ = sweep(tmp_path, "all-pairs")
    assert code == 1
    assert sorted(node["host"] for node in document["bad_nodes"]) == ["node02", "node05"]
    assert pairs_launches(faulty) == [HOSTS, HOSTS, ["node01", "node03", "node04", "node06"]]


def test_a_host_that_hangs_at_start_is_found_by_its_missing_start_line_and_one_probe(faulty, tmp_path):
    faulty.hung = {"node04"}
    code, document, _ = sweep(tmp_path, "all-pairs")
    assert code == 1
    [node] = document["bad_nodes"]
    assert node["host"] == "node04" and node["reason"] == HANGS
    assert node["evidence"] == (
        "MPI hangs at start on node04: its rank never started in the launch (5 of 6 did), nor in a start-up probe "
        "with node01"
    )
    assert faulty.launches[1] == ("hello", ["node04", "node01"])
    assert len(faulty.launches) == 3  # the launch that hung, one probe, the launch of the rest


def test_where_rank_0s_host_hangs_a_probe_with_another_first_names_it(faulty, tmp_path):
    """Rank 0 writes the start lines: its host hanging, none comes. A start-up probe of every
    host with rank 0 moved shows which never started, and one more probe confirms it."""
    faulty.hung = {"node01"}
    code, document, _ = sweep(tmp_path, "all-pairs")
    assert code == 1
    [node] = document["bad_nodes"]
    assert node == {
        "host": "node01",
        "reason": HANGS,
        "evidence": "MPI hangs at start on node01: its rank never started in a start-up probe of every host "
        "(5 of 6 did), nor in a start-up probe with node02",
    }
    probes = [hosts for benchmark, hosts in faulty.launches if benchmark == "hello"]
    assert probes == [[*HOSTS[1:], "node01"], ["node01", "node02"]]


def test_where_no_start_line_comes_at_all_probes_over_halves_find_the_host(faulty, tmp_path):
    """A host that holds every rank inside MPI_Init: no start line in any launch with it.
    Probes over halves, side by side, down to the host."""
    faulty.fence = {"node05"}
    code, document, _ = sweep(tmp_path, "all-pairs")
    assert code == 1
    [node] = document["bad_nodes"]
    assert node["host"] == "node05" and node["reason"] == HANGS
    assert node["evidence"].startswith("MPI hangs at start on node05: start-up probes failed with it and passed")
    probes = [hosts for benchmark, hosts in faulty.launches if benchmark == "hello"]
    assert probes[1:3] == [HOSTS[:3], HOSTS[3:]]  # after the probe of all: halves, side by side
    assert len(probes) <= 1 + 2 * 3  # about 2 log2(6)


def test_one_to_all_keeps_its_source_first_without_the_host_set_aside(faulty, tmp_path):
    faulty.dead = {"node04"}
    code, document, _ = sweep(tmp_path, "one-to-all", **{"source": "node02"})
    assert code == 1 and [node["host"] for node in document["bad_nodes"]] == ["node04"]
    assert document["hosts"] == ["node02", "node01", "node03", "node05", "node06"]


def test_a_death_that_moves_from_host_to_host_is_blamed_on_none(faulty, tmp_path, capsys):
    faulty.deaths = ["node02", "node05"]
    from commscope.errors import CommscopeError

    with pytest.raises(CommscopeError, match="the sweep did not complete"):
        sweep(tmp_path, "all-pairs")
    assert "moved from host to host (node02, node05): none is blamed" in capsys.readouterr().err


def test_what_a_launch_measured_before_it_stopped_is_kept_and_only_the_rest_measured_again(faulty, tmp_path):
    faulty.half = "node05"
    code, document, run = sweep(tmp_path, "all-pairs")
    assert code == 0 and not document["bad_nodes"]
    assert run.status == "complete"
    assert len({(p.pair.src, p.pair.dst, p.pair.metric) for p in run.points}) == 15 * 3  # every pair, once
    first, second = pairs_launches(faulty)
    assert first == second == HOSTS
    # the second launch measures the pairs the first did not, in the schedule's own order
    assert faulty.schedules[0] == "all-pairs" and 0 < len(faulty.schedules[1]) < 15


def test_deaths_at_start_that_follow_rank_0_name_no_host_and_the_sweep_goes_on(faulty, tmp_path, capsys):
    """Open MPI 4.1's TCP wire-up on a loaded machine kills rank 0 when its peers' connects to
    it time out: node01 died at start in two launches in a row (a healthy host of the virtual
    cluster was named so beside two busy loops, and would have been drained). A probe of
    node01 second, with node02 first, starts: no host is named, the launch starts again as
    --retries allows, and the sweep measures every host."""
    faulty.rank0_deaths = 2
    code, document, run = sweep(tmp_path, "all-pairs", retries=2)
    assert code == 0 and document["bad_nodes"] == [] and document["hosts"] == HOSTS
    assert pairs_launches(faulty) == [HOSTS, HOSTS, HOSTS]
    assert [hosts for benchmark, hosts in faulty.launches if benchmark == "hello"] == [["node02", "node01"]]
    assert run.status == "complete" and run.ranks == 6 and not run.provenance[SWEEP_KEY].get("set_aside")
    err = capsys.readouterr().err
    assert "node01: its rank died at start in 2 launches, yet started in a start-up probe with node02" in err


def test_with_no_retry_left_a_death_a_probe_clears_ends_the_sweep_naming_none(faulty, tmp_path):
    """The same with the default single retry: nothing is left to start, so the sweep ends as
    a launch that failed, naming the launcher's words, and no host is named or set aside."""
    faulty.rank0_deaths = 2
    with pytest.raises(Exception, match=r"the sweep did not complete \(run 1: a rank died: rank 0 on node01") as ended:
        sweep(tmp_path, "all-pairs")
    assert type(ended.value).__name__ == "_Stopped"  # the sweep's own end, not a crash
    assert pairs_launches(faulty) == [HOSTS, HOSTS] and len(faulty.launches) == 3  # and the probe
    assert not (tmp_path / "sweep.json").exists()


def test_locate_sets_the_host_aside_judges_the_others_and_stores_it(faulty, tmp_path):
    faulty.dead = {"node06"}
    code, document, run = sweep(tmp_path, "locate", hosts=[*HOSTS, "node07", "node08"], seed=3)
    assert code == 1
    aside = [node for node in document["bad_nodes"] if node["reason"] == FAILS]
    assert [node["host"] for node in aside] == ["node06"]
    assert aside[0]["evidence"] == (
        "MPI fails to start on node06: rank 5 died by SIGSEGV in 2 of 2 launches and a probe with node01"
    )
    assert not [node for node in document["bad_nodes"] if node["reason"] != FAILS]  # none of the others
    assert document["certain"]
    verdict, labels = stored_verdict(run)
    assert [(labels[node.host], node.reason) for node in verdict.set_aside] == [("node06", FAILS)]
    assert all("node06" not in hosts for hosts in pairs_launches(faulty)[2:])


def test_the_stored_sweep_shows_and_reports_the_host_set_aside(faulty, tmp_path, cli):
    """`show` and `report` judge the stored run again: the host set aside is in the verdict's
    lines, the report's summary line and a table of its own, for a link sweep and locate."""
    faulty.dead = {"node03"}
    _, document, _ = sweep(tmp_path, "all-pairs")
    shown = cli("show", str(document["run_id"]), "--db", tmp_path / "sweep.db")
    assert "bad node node03 (fails at MPI start): MPI fails to start on node03" in shown.output
    report = tmp_path / "r.html"
    assert cli("report", str(document["run_id"]), "-o", report, "--db", tmp_path / "sweep.db").exit_code == 0
    html = report.read_text()
    assert "Bad nodes MPI could not start on, set aside" in html and "bad node node03 (fails at MPI start)" in html

    located = tmp_path / "locate"
    located.mkdir()
    faulty.launches.clear()
    _, document, _ = sweep(located, "locate", hosts=[*HOSTS, "node07", "node08"], seed=3)
    report = located / "r.html"
    assert cli("report", str(document["run_id"]), "-o", report, "--db", located / "sweep.db").exit_code == 0
    assert "1 bad node(s) (node03)" in report.read_text()
