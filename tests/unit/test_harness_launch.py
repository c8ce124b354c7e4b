"""Launchers build argv lists: compared here as lists, nothing is launched."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from commscope.errors import CommscopeError, UsageError
from commscope.execute.launchers import (
    LAUNCHERS,
    Binding,
    Command,
    HydraLauncher,
    LaunchSpec,
    OpenMpiLauncher,
    SrunLauncher,
    hostfile_nodes,
    program_flavour,
    register_launcher,
    resolve_launcher,
)

ROOT_ENV = {"OMPI_ALLOW_RUN_AS_ROOT": "1", "OMPI_ALLOW_RUN_AS_ROOT_CONFIRM": "1"}


@pytest.fixture(autouse=True)
def fresh_flavour_cache():
    program_flavour.cache_clear()
    yield
    program_flavour.cache_clear()


def fake_program(folder: Path, name: str, version_text: str) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / name
    path.write_text(f"#!/bin/sh\ncat <<'TEXT'\n{version_text}\nTEXT\n")
    path.chmod(0o755)
    return path


def test_registry_holds_the_three_launchers():
    assert LAUNCHERS == {"mpirun": OpenMpiLauncher, "mpiexec": HydraLauncher, "srun": SrunLauncher}


def test_register_launcher_adds_a_class_under_its_name():
    try:

        @register_launcher("test-only")
        class Dummy(OpenMpiLauncher):
            pass

        assert LAUNCHERS["test-only"] is Dummy and Dummy.name == "test-only"
    finally:
        LAUNCHERS.pop("test-only", None)


# -- Open MPI -----------------------------------------------------------------


def test_mpirun_on_this_machine():
    spec = LaunchSpec(np=2, local_cores=2)
    assert OpenMpiLauncher("mpirun").command(spec, ["bench", "latency"]) == Command(
        ["mpirun", "-np", "2", "--bind-to", "core", "bench", "latency"], {}
    )


def test_mpirun_oversubscribes_only_beyond_the_cores():
    assert OpenMpiLauncher("mpirun").argv(LaunchSpec(np=2, local_cores=2)) == [
        "mpirun",
        "-np",
        "2",
        "--bind-to",
        "core",
    ]
    # oversubscribed: Open MPI refuses to bind more ranks than cores, so they stay unbound
    assert OpenMpiLauncher("mpirun").argv(LaunchSpec(np=4, local_cores=2)) == [
        "mpirun",
        "-np",
        "4",
        "--oversubscribe",
        "--bind-to",
        "none",
    ]


def test_mpirun_as_root_sets_the_variables_not_a_flag():
    command = OpenMpiLauncher("/usr/bin/mpirun.openmpi").command(LaunchSpec(np=2, as_root=True), ["b"])
    assert command.env == ROOT_ENV
    assert "--allow-run-as-root" not in command.argv


@pytest.mark.parametrize(
    "placement, np, expected",
    [
        ("inter-node", 2, "a:1,b:1"),
        ("inter-node", 4, "a:2,b:2"),  # blocks: ranks 0,1 on a; 2,3 on b (pairs i, i+2 cross nodes)
        ("any", 3, "a:2,b:2"),
        ("intra-node", 2, "a:2"),  # everything on the first host
    ],
)
def test_mpirun_hosts_get_slots_by_placement(placement, np, expected):
    spec = LaunchSpec(np=np, hosts=("a", "b"), placement=placement, local_cores=1)
    assert OpenMpiLauncher("mpirun").argv(spec) == ["mpirun", "-np", str(np), "--host", expected, "--bind-to", "core"]


def test_mpirun_keeps_slots_the_user_gave_and_oversubscribes_past_them():
    spec = LaunchSpec(np=8, hosts=("a:4", "b:4"), placement="inter-node")
    assert OpenMpiLauncher("mpirun").argv(spec) == ["mpirun", "-np", "8", "--host", "a:4,b:4", "--bind-to", "core"]
    spec = LaunchSpec(np=10, hosts=("a:4", "b:4"))
    assert OpenMpiLauncher("mpirun").argv(spec)[-3:] == ["--oversubscribe", "--bind-to", "none"]


def test_mpirun_hostfile_maps_ranks_per_node():
    hostfile = ["mpirun", "-np", "4", "--hostfile", "hosts.txt"]
    spec = LaunchSpec(np=4, hostfile="hosts.txt", placement="inter-node", known_nodes=2, local_cores=1)
    assert OpenMpiLauncher("mpirun").argv(spec) == [*hostfile, "--map-by", "ppr:2:node", "--bind-to", "core"]
    spec = LaunchSpec(np=4, hostfile="hosts.txt", placement="any", local_cores=1)
    assert OpenMpiLauncher("mpirun").argv(spec) == [*hostfile, "--bind-to", "core"]


# -- MPICH Hydra --------------------------------------------------------------


def test_mpiexec_on_this_machine_never_needs_oversubscribe():
    spec = LaunchSpec(np=4, local_cores=2, as_root=True)
    command = HydraLauncher("mpiexec.mpich").command(spec, ["bench", "bw"])
    assert command == Command(
        ["mpiexec.mpich", "-n", "4", "-print-all-exitcodes", "-bind-to", "none", "bench", "bw"], {}
    )
    spec = LaunchSpec(np=2, local_cores=2)
    assert HydraLauncher("mpiexec").argv(spec) == ["mpiexec", "-n", "2", "-print-all-exitcodes", "-bind-to", "core"]


@pytest.mark.parametrize("placement, expected", [("inter-node", "a:1,b:1"), ("intra-node", "a:2")])
def test_mpiexec_hosts(placement, expected):
    spec = LaunchSpec(np=2, hosts=("a", "b"), placement=placement)
    assert HydraLauncher("mpiexec").argv(spec) == [
        "mpiexec",
        "-n",
        "2",
        "-print-all-exitcodes",
        "-hosts",
        expected,
        "-bind-to",
        "core",
    ]


def test_mpiexec_hostfile_with_ranks_per_node():
    spec = LaunchSpec(np=2, hostfile="hf", placement="intra-node", known_nodes=3)
    assert HydraLauncher("mpiexec").argv(spec) == [
        "mpiexec",
        "-n",
        "2",
        "-print-all-exitcodes",
        "-f",
        "hf",
        "-ppn",
        "2",
        "-bind-to",
        "core",
    ]
    spec = LaunchSpec(np=2, hostfile="hf", placement="inter-node", known_nodes=2)
    assert HydraLauncher("mpiexec").argv(spec) == [
        "mpiexec",
        "-n",
        "2",
        "-print-all-exitcodes",
        "-f",
        "hf",
        "-ppn",
        "1",
        "-bind-to",
        "core",
    ]


# -- Slurm --------------------------------------------------------------------


@pytest.mark.parametrize("flavour, pmi", [("openmpi", ["--mpi=pmix"]), ("mpich", ["--mpi=pmi2"]), (None, [])])
def test_srun_picks_the_pmi_of_the_core(flavour, pmi):
    assert SrunLauncher("srun").argv(LaunchSpec(np=2, core_flavour=flavour)) == [
        "srun",
        "-n",
        "2",
        "--kill-on-bad-exit=1",
        *pmi,
        "--cpu-bind=cores",
    ]


def test_srun_placement_in_an_allocation():
    inter = LaunchSpec(np=4, placement="inter-node", known_nodes=2, core_flavour="mpich")
    assert SrunLauncher("srun").argv(inter) == [
        "srun",
        "-n",
        "4",
        "--kill-on-bad-exit=1",
        "--mpi=pmi2",
        "-N",
        "2",
        "--cpu-bind=cores",
    ]
    intra = LaunchSpec(np=2, placement="intra-node", known_nodes=2)
    assert SrunLauncher("srun").argv(intra) == [
        "srun",
        "-n",
        "2",
        "--kill-on-bad-exit=1",
        "-N",
        "1",
        "--cpu-bind=cores",
    ]


def test_srun_hosts_and_hostfile():
    spec = LaunchSpec(np=2, hosts=("a:1", "b:1"), placement="inter-node")
    assert SrunLauncher("srun").argv(spec) == [
        "srun",
        "-n",
        "2",
        "--kill-on-bad-exit=1",
        "-w",
        "a,b",
        "-N",
        "2",
        "--cpu-bind=cores",
    ]
    spec = LaunchSpec(np=2, hosts=("a", "b"), placement="intra-node")
    assert SrunLauncher("srun").argv(spec) == [
        "srun",
        "-n",
        "2",
        "--kill-on-bad-exit=1",
        "-w",
        "a",
        "-N",
        "1",
        "--cpu-bind=cores",
    ]
    spec = LaunchSpec(np=2, hostfile="hf")
    assert SrunLauncher("srun").argv(spec) == [
        "srun",
        "-n",
        "2",
        "--kill-on-bad-exit=1",
        "-w",
        os.path.abspath("hf"),
        "--cpu-bind=cores",
    ]


@pytest.mark.parametrize(
    "launcher, unbound",
    [
        (OpenMpiLauncher, ["--bind-to", "none"]),
        (HydraLauncher, ["-bind-to", "none"]),
        (SrunLauncher, ["--cpu-bind=none"]),
    ],
)
def test_bind_none_leaves_ranks_unbound_and_says_why(launcher, unbound):
    spec = LaunchSpec(np=2, local_cores=4, bind="none")
    assert launcher("x").argv(spec)[-len(unbound) :] == unbound
    assert launcher("x").binding(spec) == Binding("none", "none", "--bind none")


def test_oversubscribed_binding_is_recorded_with_its_reason():
    spec = LaunchSpec(np=4, local_cores=2)
    assert OpenMpiLauncher("x").binding(spec) == Binding("none", "core", "oversubscribed: 4 ranks on 2 core(s)")
    assert HydraLauncher("x").binding(spec) == Binding("none", "core", "oversubscribed: 4 ranks on 2 core(s)")
    assert OpenMpiLauncher("x").binding(LaunchSpec(np=2, local_cores=2)) == Binding("core", "core")


def test_command_shell_line_quotes_and_prefixes_the_environment():
    command = Command(["mpirun", "-np", "2", "my bench"], {"A": "1 2"})
    assert command.shell() == "A='1 2' mpirun -np 2 'my bench'"


def test_hostfile_nodes_counts_distinct_hosts(tmp_path):
    hostfile = tmp_path / "hosts"
    hostfile.write_text("# cluster\nnode1 slots=4\nnode2 slots=4\n\nnode1 # again\n")
    assert hostfile_nodes(str(hostfile)) == 2
    with pytest.raises(UsageError, match="cannot read hostfile"):
        hostfile_nodes(str(tmp_path / "missing"))


# -- telling launchers apart --------------------------------------------------


@pytest.mark.parametrize(
    "name, flavour",
    [
        ("mpirun.openmpi", "openmpi"),
        ("mpiexec.openmpi", "openmpi"),
        ("orterun", "openmpi"),
        ("mpiexec.mpich", "mpich"),
        ("mpiexec.hydra", "mpich"),
        ("mpirun.mpich", "mpich"),
        ("srun", "slurm"),
    ],
)
def test_flavour_from_the_program_name(tmp_path, name, flavour):
    # The version text contradicts the name: the name must win without running the program.
    program = fake_program(tmp_path, name, "nothing useful")
    assert program_flavour(str(program)) == flavour


@pytest.mark.parametrize(
    "text, flavour",
    [
        ("mpirun (Open MPI) 5.0.3\n\nReport bugs to https://www.open-mpi.org/community/help/", "openmpi"),
        ("mpirun.openmpi (OpenRTE) 4.1.4\n\nReport bugs to http://www.open-mpi.org/community/help/", "openmpi"),
        ("HYDRA build details:\n    Version:                                 4.0.2", "mpich"),
        ("Intel(R) MPI Library for Linux* OS, Version 2021.6", "mpich"),
        ("slurm 22.05.8", "slurm"),
        ("some other program 1.0", None),
    ],
)
def test_flavour_from_version_output_of_a_venv_launcher(tmp_path, text, flavour):
    program = fake_program(tmp_path / "venv" / "bin", "mpiexec", text)
    assert program_flavour(str(program)) == flavour


def test_flavour_follows_symlinks(tmp_path):
    target = fake_program(tmp_path, "orterun", "no version")
    link = tmp_path / "mpiexec"
    link.symlink_to(target)
    assert program_flavour(str(link)) == "openmpi"


# -- resolving --launcher -----------------------------------------------------


@pytest.fixture
def launcher_path(tmp_path):
    """A PATH with Open MPI's mpirun/mpiexec (as on Debian with Open MPI as default), MPICH's
    mpiexec.mpich and srun."""
    folder = tmp_path / "bin"
    for name in ("mpirun", "mpiexec"):
        fake_program(folder, name, "mpirun (Open MPI) 5.0.3")
    fake_program(folder, "mpiexec.mpich", "HYDRA build details")
    fake_program(folder, "srun", "slurm 22.05.8")
    return folder


def test_auto_picks_the_launcher_of_the_cores_mpi(launcher_path):
    env = {"PATH": str(launcher_path)}
    launcher = resolve_launcher("auto", "mpich", env)
    assert isinstance(launcher, HydraLauncher) and launcher.program == str(launcher_path / "mpiexec.mpich")
    launcher = resolve_launcher("auto", "openmpi", env)
    assert isinstance(launcher, OpenMpiLauncher) and launcher.program == str(launcher_path / "mpirun")


def test_auto_with_unknown_core_trusts_mpiexec_on_path(launcher_path):
    launcher = resolve_launcher("auto", None, {"PATH": str(launcher_path)})
    assert isinstance(launcher, OpenMpiLauncher) and launcher.program == str(launcher_path / "mpiexec")


def test_auto_inside_slurm_uses_srun(launcher_path):
    launcher = resolve_launcher("auto", "mpich", {"PATH": str(launcher_path), "SLURM_JOB_ID": "42"})
    assert isinstance(launcher, SrunLauncher) and launcher.program == str(launcher_path / "srun")


def test_named_launcher_skips_programs_of_the_other_mpi(launcher_path):
    # `mpiexec` on PATH is Open MPI's here; --launcher mpiexec means MPICH's.
    launcher = resolve_launcher("mpiexec", None, {"PATH": str(launcher_path)})
    assert launcher.program == str(launcher_path / "mpiexec.mpich")


def test_launcher_given_as_a_path(launcher_path):
    launcher = resolve_launcher(str(launcher_path / "mpiexec.mpich"), "mpich", {"PATH": ""})
    assert isinstance(launcher, HydraLauncher)


def test_launcher_errors_are_clear(launcher_path, tmp_path):
    with pytest.raises(UsageError, match="unknown launcher 'mpiruns'"):
        resolve_launcher("mpiruns", None, {"PATH": str(launcher_path)})
    with pytest.raises(UsageError, match="not an executable"):
        resolve_launcher(str(tmp_path / "nothing"), None, {})
    unknown = fake_program(tmp_path / "other", "launch", "who knows")
    with pytest.raises(UsageError, match="cannot tell"):
        resolve_launcher(str(unknown), None, {})
    with pytest.raises(CommscopeError, match="no Slurm's srun found on PATH"):
        resolve_launcher("srun", None, {"PATH": str(tmp_path / "other")})
    with pytest.raises(CommscopeError, match="built with mpich"):
        resolve_launcher("auto", "mpich", {"PATH": str(tmp_path / "other")})


@pytest.mark.parametrize("core_flavour", [None, "openmpi"])
def test_the_unit_tests_launch_through_the_fake_launchers(fake_core, core_flavour):
    """With the fake core, whatever MPI the harness takes it for, the launcher it picks is a
    fake: the fast tier (`make check`) never starts a real mpiexec or mpirun."""
    launcher = resolve_launcher("auto", core_flavour)
    assert Path(launcher.program).parent == fake_core.parent, launcher.program
