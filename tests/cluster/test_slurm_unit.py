"""commscope's Slurm layer without the daemons: rendered job scripts (golden files), hostile
values kept inert (the script is run by bash to prove it), site configuration and its
precedence, allocation presets, and job states parsed from `scontrol show job` output
captured on the virtual cluster (fixtures/scontrol/)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner

from cluster_support import SUBMIT_QUICK_ON_TWO_NODES
from commscope.cli import main
from commscope.cluster import config as site
from commscope.cluster import slurm
from commscope.cluster.script import JobRequest, render, shape
from commscope.cluster.submit import SubmitOptions, build_request
from commscope.errors import UsageError
from commscope.records.suite import Entry
from old_databases import database_at

HERE = Path(__file__).resolve().parent
GOLDEN = HERE / "golden"
SCONTROL = HERE / "fixtures" / "scontrol"
UPDATE = os.environ.get("COMMSCOPE_UPDATE_GOLDEN") == "1"
HOSTILE = [
    "$(touch {marker})",
    "`touch {marker}`",
    "x; touch {marker}",
    'it\'s "quoted"',
    "two words",
    "line one\ntouch {marker}",
    "$HOME ${{PATH}} \\ * ?",
]


@pytest.fixture
def isolated(monkeypatch, tmp_path):
    """No site configuration or database of the developer's."""
    monkeypatch.setenv("COMMSCOPE_CONFIG", str(tmp_path / "config.yaml"))
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "data"))
    monkeypatch.delenv("COMMSCOPE_DB", raising=False)
    return tmp_path


def invoke(*args):
    return CliRunner().invoke(main, [str(arg) for arg in args], catch_exceptions=False)


def fixed(**fields) -> JobRequest:
    """A request with everything that changes between runs pinned, for golden files."""
    base = dict(
        targets=["quick"],
        folder=Path("/home/alice/commscope-jobs/job-1"),
        nodes=2,
        ntasks_per_node=1,
        commscope=["/opt/commscope/bin/commscope"],
        submitted_at="2026-11-23T10:00:00+00:00",
    )
    return JobRequest(**{**base, **fields})


def check_golden(name: str, text: str) -> None:
    path = GOLDEN / name
    if UPDATE:
        path.parent.mkdir(exist_ok=True)
        path.write_text(text)
    assert path.exists(), f"no golden file {path}; make it with COMMSCOPE_UPDATE_GOLDEN=1"
    assert text == path.read_text()


# -- rendered scripts -------------------------------------------------------------------


def test_inter_node_script_matches_its_golden_file():
    check_golden("inter-node.sh", render(fixed()))


def test_script_with_every_directive_matches_its_golden_file():
    request = fixed(
        targets=["latency", "bw"],
        nodes=4,
        ntasks_per_node=8,
        partition="64c512g",
        account="hpc",
        qos="normal",
        time="0:30:00",
        constraint="ib&intel",
        exclusive=True,
        modules=["openmpi/4.1.5", "osu"],
        env=[("UCX_NET_DEVICES", "mlx5_0:1")],
        sbatch_lines=["--mem=0"],
        setup=["ulimit -l unlimited"],
        launcher="srun",
        transport="net",
        label="acceptance",
        np=4,
        repeat=3,
        timeout=600.0,
        core_flags=["-m", "1:1M", "-c"],
    )
    check_golden("collective-all-directives.sh", render(request))


@pytest.mark.parametrize(
    "flag, field",
    [
        ("--partition", "partition"),
        ("--account", "account"),
        ("--qos", "qos"),
        ("--time", "time"),
        ("--constraint", "constraint"),
    ],
)
@pytest.mark.parametrize("value", ["debug\n#SBATCH --uid=0", "a b", "it's", 'x"y', "a\\b"])
def test_directive_values_that_could_break_a_line_are_refused(flag, field, value):
    with pytest.raises(UsageError, match=f"^{flag} "):
        render(fixed(**{field: value}))


def test_bad_env_name_is_refused():
    with pytest.raises(UsageError, match="--env 'A;B'"):
        render(fixed(env=[("A;B", "1")]))


def test_hostile_values_reach_the_program_verbatim_and_run_nothing(tmp_path):
    """The rendered script run by bash: labels, modules, env values, core flags with shell
    syntax arrive as the very bytes given, and no command hidden in them runs."""
    marker = tmp_path / "pwned-XYZ"
    values = [value.format(marker=marker) for value in HOSTILE]
    record = tmp_path / "argv.json"
    fake = tmp_path / "fake-commscope"
    fake.write_text(
        f"#!{sys.executable}\nimport json, os, sys\n"
        f"json.dump({{'argv': sys.argv[1:], 'env': {{k: v for k, v in os.environ.items() "
        f"if k.startswith('HOSTILE_')}}}}, open({str(record)!r}, 'w'))\n"
    )
    fake.chmod(0o755)
    modules = tmp_path / "modules.txt"
    request = fixed(
        folder=tmp_path / "job",
        commscope=[str(fake)],
        label=values[0],
        modules=values,
        env=[(f"HOSTILE_{i}", value) for i, value in enumerate(values)],
        core_flags=values,
        setup=[f"module() {{ shift; printf '%s\\0' \"$@\" >> {modules}; }}"],
    )
    request.folder.mkdir()
    script = request.folder / "job.sh"
    script.write_text(render(request))
    done = subprocess.run(["bash", str(script)], capture_output=True, text=True, timeout=60, cwd=request.folder)
    assert done.returncode == 0, done.stderr
    assert not marker.exists(), "a value was run as a command"
    seen = json.loads(record.read_text())
    assert seen["argv"][seen["argv"].index("--label") + 1] == values[0]
    assert seen["argv"][seen["argv"].index("--") + 1 :] == values
    assert seen["env"] == {f"HOSTILE_{i}": value for i, value in enumerate(values)}
    assert modules.read_text().split("\0")[:-1] == values
    assert (request.folder / "exit-status").read_text().strip() == "0"


def test_dry_run_prints_the_script_and_makes_nothing(isolated):
    result = invoke(
        *SUBMIT_QUICK_ON_TWO_NODES,
        "--label",
        "$(reboot)",
        "--output-dir",
        isolated / "jobs",
        "--dry-run",
    )
    assert result.exit_code == 0, result.output
    assert result.stdout.startswith("#!/bin/bash\n")
    assert "#SBATCH --nodes=2\n#SBATCH --ntasks-per-node=1\n" in result.stdout
    assert "--label '$(reboot)'" in result.stdout
    assert not (isolated / "jobs").exists()


@pytest.mark.parametrize(
    "tool, options", [("hpl", ["--n", "2000", "--nb", "80"]), ("storage", ["--dir", "/scratch/cs", "--size", "1G"])]
)
def test_submit_of_a_tool_runs_it_on_every_task_of_the_allocation(isolated, tool, options):
    result = invoke(
        "submit", tool, "--nodes", "2", "--ntasks-per-node", "3", "--label", "x", "--dry-run", "--", *options
    )
    assert result.exit_code == 0, result.output
    (command,) = [line for line in result.stdout.splitlines() if " -m commscope run " in line]
    argv = command.split()
    assert argv[argv.index("run") + 1 :][: 1 + len(options)] == [tool, *options]
    assert argv[argv.index("--np") + 1] == "6" and "--no-store" in argv and "--output-dir" in argv


@pytest.mark.parametrize(
    "args, named",
    [
        (["hpl", "latency"], "runs hpl alone"),
        (["hpl", "--repeat", "2"], "--repeat"),
        (["storage", "--transport", "net"], "--transport"),
        (["hpl", "--", "--np", "4"], "--np after --"),
        (["hpl", "--", "--grid", "3"], "--grid"),
    ],
)
def test_submit_of_a_tool_refuses_what_does_not_apply(isolated, args, named):
    result = invoke("submit", "--dry-run", *args)
    assert result.exit_code == 2 and named in result.stderr, result.output


def test_bad_partition_value_is_one_usage_error(isolated):
    result = invoke("submit", "quick", "--partition", "a b", "--dry-run")
    assert result.exit_code == 2
    assert "--partition 'a b'" in result.stderr and "Traceback" not in result.output


# -- allocation shape ----------------------------------------------------------------------


def test_presets_follow_the_seeds():
    assert shape([], "intra-node", None, None) == (1, 2)
    assert shape([], "inter-node", None, None) == (2, 1)
    assert shape([], "collective", 4, 8) == (4, 8)
    assert shape([], "inter-node", None, 2) == (2, 2)  # a flag wins over the preset


def test_shape_from_suite_entries():
    assert shape([Entry("latency", placement="inter-node")], None, None, None) == (2, 1)
    assert shape([Entry("latency", placement="intra-node")], None, None, None) == (1, 2)
    mixed = [Entry("latency", placement="intra-node"), Entry("latency", placement="inter-node")]
    assert shape(mixed, None, None, None) == (2, 2)
    assert shape([Entry("allreduce", ranks=4)], None, None, None) == (1, 4)


def test_transports_suite_needs_two_nodes_with_two_tasks():
    options = SubmitOptions(targets=["transports"], output_dir=Path("/x"))
    request = build_request(options, site.SiteConfig())
    assert (request.nodes, request.ntasks_per_node) == (2, 2)


# -- configuration -----------------------------------------------------------------------------


def test_config_precedence_flag_over_file_over_default(isolated):
    (isolated / "config.yaml").write_text(
        "partition: cpu\naccount: acct\nmodules: [openmpi]\nlauncher: mpirun\n"
        "env: {UCX_NET_DEVICES: 'mlx5_0:1'}\nexclusive: true\n"
    )
    config = site.load()
    request = build_request(
        SubmitOptions(targets=["quick"], partition="gpu", modules=["osu"], output_dir=isolated), config
    )
    assert request.partition == "gpu"  # flag
    assert request.account == "acct"  # file
    assert request.modules == ["openmpi", "osu"]  # both, the file's first
    assert request.launcher == "mpirun" and request.exclusive
    assert ("UCX_NET_DEVICES", "mlx5_0:1") in request.env
    assert build_request(SubmitOptions(targets=["quick"], output_dir=isolated), site.SiteConfig()).launcher == "auto"


def test_commscope_config_names_the_file(monkeypatch, tmp_path):
    monkeypatch.setenv("COMMSCOPE_CONFIG", str(tmp_path / "site.yaml"))
    assert site.config_path() == tmp_path / "site.yaml"
    monkeypatch.delenv("COMMSCOPE_CONFIG")
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "xdg"))
    assert site.config_path() == tmp_path / "xdg" / "commscope" / "config.yaml"


def test_config_set_show_unset(isolated):
    assert invoke("config", "set", "partition", "debug").exit_code == 0
    assert invoke("config", "set", "modules", "gcc/12", "openmpi/4").exit_code == 0
    assert invoke("config", "set", "env", "A=1", "B=x y").exit_code == 0
    shown = invoke("config").stdout
    assert f"# {isolated / 'config.yaml'}" in shown
    assert "partition: debug" in shown and "modules: [gcc/12, openmpi/4]" in shown
    assert "# account: (not set)" in shown
    assert invoke("config", "--show").stdout == shown
    assert site.load().env == {"A": "1", "B": "x y"}
    assert invoke("config", "unset", "partition").exit_code == 0
    assert site.load().partition is None and site.load().modules == ["gcc/12", "openmpi/4"]


def test_config_errors_name_file_line_and_key(isolated):
    (isolated / "config.yaml").write_text("partition: cpu\npartiton: gpu\n")
    result = invoke("submit", "quick", "--dry-run")
    assert result.exit_code == 2
    assert f"{isolated / 'config.yaml'}:2: partiton: unknown key" in result.stderr
    (isolated / "config.yaml").write_text("modules: openmpi\n")
    result = invoke("config")
    assert result.exit_code == 2 and ":1: modules 'openmpi':" in result.stderr
    assert invoke("config", "set", "nosuch", "1").exit_code == 2


# -- job states ------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "name, state, reason, exit_code",
    [
        ("pending", "pending", "Resources", "0:0"),
        ("pending2", "pending", "Priority", "0:0"),
        ("running", "running", None, "0:0"),
        ("completed", "completed", None, "0:0"),
        ("failed", "failed", "NonZeroExitCode", "3:0"),
        ("cancelled", "cancelled", None, "0:15"),
        ("timeout", "timeout", "TimeLimit", "0:15"),
    ],
)
def test_states_from_captured_scontrol_output(name, state, reason, exit_code):
    jobs = slurm.parse_scontrol_jobs((SCONTROL / f"{name}.txt").read_text())
    (fields,) = jobs.values()
    info = slurm.info_from_scontrol(fields)
    assert (info.state, info.reason, info.exit_code) == (state, reason, exit_code)
    assert info.partition == "vcluster"
    assert (
        fields["Command"].endswith(".sh")
        or fields["Command"] == "(null)"
        or "sleep" in fields["Command"]
        or fields["Command"]
    )


def test_completed_job_names_its_nodes_and_paths_with_spaces_survive():
    (fields,) = slurm.parse_scontrol_jobs((SCONTROL / "completed.txt").read_text()).values()
    assert fields["NodeList"] == "vnode[1-2]" and fields["BatchHost"] == "vnode1"
    text = (SCONTROL / "completed.txt").read_text().replace("WorkDir=/", "WorkDir=/a b/")
    (fields,) = slurm.parse_scontrol_jobs(text).values()
    assert fields["WorkDir"].startswith("/a b/") and fields["StdIn"] == "/dev/null"


def test_multi_line_scontrol_output_parses_like_one_line():
    one_line = (SCONTROL / "completed.txt").read_text()
    multi = one_line.strip().replace(" UserId=", "\n   UserId=").replace(" Priority=", "\n   Priority=")
    assert slurm.parse_scontrol_jobs(multi + "\n\n" + multi.replace("JobId=1 ", "JobId=2 ")).keys() == {"1", "2"}


@pytest.mark.parametrize(
    "word, state",
    [
        ("CANCELLED by 0", "cancelled"),
        ("NODE_FAIL", "failed"),
        ("OUT_OF_MEMORY", "failed"),
        ("PREEMPTED", "cancelled"),
        ("COMPLETING", "running"),
        ("REQUEUED", "pending"),
        ("DEADLINE", "timeout"),
        ("", "unknown"),
        ("BOGUS", "unknown"),
    ],
)
def test_every_slurm_state_has_a_word(word, state):
    assert slurm.job_state(word) == state


def test_sacct_lines():
    text = "17|CANCELLED by 0|0:15|vnode[1-2]|batch|vcluster|root|None\n18|TIMEOUT|0:0|vnode1|batch|vcluster||None\n"
    jobs = slurm.parse_sacct(text)
    assert jobs["17"].state == "cancelled" and jobs["17"].node_list == "vnode[1-2]" and jobs["17"].source == "sacct"
    assert jobs["18"].state == "timeout" and jobs["18"].account is None


# -- no Slurm --------------------------------------------------------------------------------------------


def test_no_sbatch_on_path_is_one_clear_message(isolated, monkeypatch):
    bare = isolated / "bin"
    bare.mkdir()
    monkeypatch.setenv("PATH", str(bare))
    result = invoke("submit", "quick", "--output-dir", isolated / "jobs", "--db", isolated / "r.db")
    assert result.exit_code == 1
    assert "no sbatch on PATH" in result.stderr and "Traceback" not in result.output
    assert not (isolated / "jobs").exists() or not any((isolated / "jobs").iterdir()), "an unsubmitted folder stays"


def test_status_of_an_unknown_job(isolated):
    assert invoke("submit", "quick", "--dry-run").exit_code == 0
    db = isolated / "r.db"
    from commscope.store.db import Store

    Store(db).close()
    result = invoke("status", "999", "--db", db)
    assert result.exit_code == 1 and "no job 999" in result.stderr


# -- the jobs table ----------------------------------------------------------------------------------------


def test_migrating_a_version_3_database_adds_jobs_and_keeps_runs(tmp_path):
    from commscope.store.db import Store

    path = tmp_path / "v3.db"
    conn = database_at(path, 3)
    conn.execute("INSERT INTO runs (invocation_id, benchmark, status) VALUES (1, 'latency', 'complete')")
    conn.close()
    with Store(path) as store:
        assert store.run(1).benchmark == "latency"
        row = store.add_job(
            {
                "job_id": "7",
                "cluster": "c",
                "submitted_at": "2026-11-23T10:00:00+00:00",
                "label": None,
                "targets": ["quick"],
                "nodes": 2,
                "ntasks_per_node": 1,
                "partition": None,
                "folder": "/x",
                "script": "#!/bin/bash\n",
                "state": "pending",
            }
        )
        (job,) = store.jobs(["7"])
        assert job["targets"] == ["quick"] and job["collected_at"] is None
        from commscope.records.run import Run

        assert store.collect_job(row, [Run(benchmark="latency")], 1) is not None
        assert store.collect_job(row, [Run(benchmark="latency")], 1) is None  # once only
        assert len(store.summaries()) == 2 and store.jobs(["7"])[0]["run_ids"] == [2]
        assert store.jobs(uncollected=True) == []
