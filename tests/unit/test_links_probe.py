"""What a hostile probe of the link inventory found (issue 38), each held: sysfs files that
never end or never open, implausible rates, a missing recorded tree, an nvidia-smi that hangs
with a child or speaks another encoding, names that are not UTF-8, and hosts that cannot be
reached. Recorded trees are copied into the test's folder and spoiled there."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import time
from pathlib import Path

import pytest

from commscope.analysis import peaks
from commscope.errors import UsageError
from commscope.execute.gpu_links import gpu_inventory
from commscope.execute.host_inventory import inventory
from commscope.store.db import Store
from paths import FIXTURES
from processes import processes_mentioning

LINKS = FIXTURES / "links"
NO_TOOL = str(LINKS / "no-such-tool")


def hdr_tree(tmp_path: Path) -> Path:
    """A copy of the HDR InfiniBand node's tree to spoil."""
    tree = tmp_path / "sys"
    shutil.copytree(LINKS / "hdr-ib-node" / "sys", tree)
    return tree


def rate_file(tree: Path) -> Path:
    return tree / "class" / "infiniband" / "mlx5_0" / "ports" / "1" / "rate"


def inventory_in_a_child(tree: Path) -> dict:
    """The inventory of `tree` read by another process with 256 MB of memory and 20 s: what
    reads a file without end fails there, instead of filling this machine's memory."""
    code = (
        "import json, resource, sys\n"
        "resource.setrlimit(resource.RLIMIT_AS, (256 << 20, 256 << 20))\n"
        "from commscope.execute.host_inventory import inventory\n"
        "json.dump(inventory(), sys.stdout)\n"
    )
    env = {**os.environ, "COMMSCOPE_SYSFS": str(tree), "COMMSCOPE_NVIDIA_SMI": NO_TOOL}
    try:
        done = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, timeout=20)
    except subprocess.TimeoutExpired:
        pytest.fail("the inventory did not end within 20 s")
    assert done.returncode == 0, done.stderr[-2000:]
    return json.loads(done.stdout)


def test_a_rate_that_links_to_dev_zero_or_is_a_gigabyte_is_not_read_whole(tmp_path):
    tree = hdr_tree(tmp_path)
    rate = rate_file(tree)
    rate.unlink()
    rate.symlink_to("/dev/zero")
    (port,) = inventory_in_a_child(tree)["adapters"]
    assert port["rate"] is None and port["rate_gbps"] is None and port["up"]  # the other files still read
    rate.unlink()
    with open(rate, "wb") as file:
        file.truncate(1 << 30)  # sparse: a gigabyte of zeros on no disk
    (port,) = inventory_in_a_child(tree)["adapters"]
    assert port["rate"] is None


def test_a_fifo_in_the_tree_does_not_block(tmp_path):
    tree = hdr_tree(tmp_path)
    rate = rate_file(tree)
    rate.unlink()
    os.mkfifo(rate)
    os.mkfifo(tree / "class" / "infiniband" / "mlx5_0" / "device" / "numa_node")
    (port,) = inventory_in_a_child(tree)["adapters"]
    assert port["rate"] is None and port["numa_node"] is None and port["pcie"]["generation"] == 4


def test_an_implausible_line_rate_is_a_note_not_a_peak(tmp_path):
    tree = hdr_tree(tmp_path)
    rate_file(tree).write_text("100000000000000000000000000000 Gb/sec (4X HDR)\n")  # 10^29 Gb/s
    found = inventory(environ={"COMMSCOPE_SYSFS": str(tree), "COMMSCOPE_NVIDIA_SMI": NO_TOOL})
    (port,) = found["adapters"]
    assert port["rate_gbps"] is None and port["rate"].startswith("1000000")
    assert any("more than a port can carry" in item for item in found["unknown"])
    assert not peaks.adapter_peak(found).known
    rate_file(tree).write_text("800 Gb/sec (4X XDR)\n")  # the fastest ports of today
    found = inventory(environ={"COMMSCOPE_SYSFS": str(tree), "COMMSCOPE_NVIDIA_SMI": NO_TOOL})
    assert found["adapters"][0]["rate_gbps"] == 800


def test_an_ethernet_speed_beyond_any_port_is_refused_too(tmp_path):
    """/sys/class/net/*/speed is Mb/s: 10^400 would overflow a float."""
    interface = tmp_path / "sys" / "class" / "net" / "eth9"
    (interface / "device").mkdir(parents=True)
    (interface / "speed").write_text("1" + "0" * 400 + "\n")
    (interface / "operstate").write_text("up\n")
    found = inventory(environ={"COMMSCOPE_SYSFS": str(tmp_path / "sys"), "COMMSCOPE_NVIDIA_SMI": NO_TOOL})
    (adapter,) = found["adapters"]
    assert adapter["name"] == "eth9" and adapter["rate_gbps"] is None


@pytest.mark.slow
def test_a_missing_recorded_tree_is_an_error_not_an_empty_machine(cli, fake_core, db, clean_env, tmp_path):
    """`info --links` fails; `run` measures (the folder may be there on the other hosts only)
    and says why this host's links are unknown, in a warning and in the run it stores."""
    clean_env.setenv("COMMSCOPE_SYSFS", str(tmp_path / "nosuch"))
    clean_env.setenv("COMMSCOPE_NVIDIA_SMI", NO_TOOL)
    missing = f"COMMSCOPE_SYSFS={tmp_path / 'nosuch'}: no such folder"
    shown = cli("info", "--links")
    assert shown.exit_code == 1 and missing in shown.stderr and "Traceback" not in shown.output
    from commscope.execute.pairs import host_links

    host_links.cache_clear()
    ran = cli("run", "latency", "--launcher", "mpirun", "--db", db, "--", "-m", "1:4")
    host_links.cache_clear()
    assert ran.exit_code == 0, ran.output
    assert f"warning: link inventory: {missing}" in ran.stderr
    with Store(db, readonly=True) as store:
        (run,) = [store.run(row.id) for row in store.summaries()]
    (host,) = run.provenance["links"]["hosts"].values()
    assert host["adapters"] == [] and any(missing in item for item in host["unknown"])


def test_core_pairs_of_a_missing_recorded_tree_run_once_saying_why(cli, fake_core, db, clean_env, tmp_path):
    clean_env.setenv("COMMSCOPE_SYSFS", str(tmp_path / "nosuch"))
    result = cli("run", "procurement", "--dry-run", "--launcher", "mpirun", "--db", db)
    assert result.exit_code == 0, result.output
    unknown = "core_pairs one-to-all: the sockets and NUMA nodes of this node's cores are unknown"
    assert f"{unknown} (COMMSCOPE_SYSFS={tmp_path / 'nosuch'}: no such folder" in result.stderr
    assert "--cpu-list" not in result.stdout


def fake_tool(tmp_path: Path, body: str) -> Path:
    tool = tmp_path / "bin" / "nvidia-smi"
    tool.parent.mkdir(exist_ok=True)
    tool.write_text(f"#!/bin/sh\n{body}\n")
    tool.chmod(0o755)
    return tool


def test_a_hung_nvidia_smi_is_stopped_with_its_children(tmp_path):
    marker = f"hung-child-{os.getpid()}-{time.monotonic_ns()}"
    tool = fake_tool(tmp_path, f'sh -c "exec -a {marker} sleep 120" &\nsleep 120')
    start = time.monotonic()
    found = gpu_inventory(tmp_path, {"COMMSCOPE_NVIDIA_SMI": str(tool)}, timeout=1)
    assert time.monotonic() - start < 15  # stopped: TERM, then KILL after the grace
    assert found["available"] is False and "timed out after 1 s" in found["reason"]
    assert processes_mentioning(marker) == []


TOPO_1GPU = "\tGPU0\tCPU Affinity\tNUMA Affinity\nGPU0\t X \t0-63\t0\n"


def test_nvidia_smi_output_that_is_not_utf8_is_read_with_replacement(cli, tmp_path, clean_env):
    topo = tmp_path / "topo.txt"
    topo.write_text("\tGPU0\tGPU1\tCPU Affinity\nGPU0\t X \tNV4\t0-63\nGPU1\tNV4\t X \t0-63\n")
    query = tmp_path / "query.csv"
    query.write_bytes(b"0, Tesla \xff\xfe V100, 00000000:07:00.0\n1, Tesla V100, 00000000:08:00.0\n")
    tool = fake_tool(
        tmp_path,
        f'case "$1" in topo) cat {topo} ;; --query-gpu*) cat {query} ;; *) printf "GPU 0: \\377\\n" ;; esac',
    )
    found = gpu_inventory(tmp_path, {"COMMSCOPE_NVIDIA_SMI": str(tool)})
    assert found["available"] and found["devices"][0]["name"] == "Tesla \ufffd\ufffd V100"
    json.dumps(found, ensure_ascii=False).encode()  # storable and exportable as it is
    clean_env.setenv("COMMSCOPE_NVIDIA_SMI", str(tool))
    clean_env.setenv("COMMSCOPE_SYSFS", str(LINKS / "hdr-ib-node" / "sys"))
    shown = cli("info", "--links")
    assert shown.exit_code == 0 and "Tesla \ufffd\ufffd V100" in shown.stdout


@pytest.mark.slow
def test_a_run_still_runs_when_nvidia_smi_is_not_utf8(cli, fake_core, db, clean_env, tmp_path):
    tool = fake_tool(tmp_path, 'printf "\\tGPU0\\tCPU Affinity\\nGPU0\\t X \\t0-1\\n"; printf "\\377\\376\\n"')
    clean_env.setenv("COMMSCOPE_NVIDIA_SMI", str(tool))
    from commscope.execute.pairs import host_links

    host_links.cache_clear()
    ran = cli("run", "latency", "--launcher", "mpirun", "--db", db, "--", "-m", "1:4")
    host_links.cache_clear()
    assert ran.exit_code == 0, ran.output
    exported = cli("export", "last", "--format", "json", "--db", db)
    assert exported.exit_code == 0 and json.loads(exported.stdout)["runs"]


@pytest.mark.slow
def test_a_name_that_is_not_utf8_is_stored_and_exported(cli, fake_core, db, clean_env, tmp_path):
    interface = Path(os.fsdecode(bytes(tmp_path / "sys" / "class" / "net") + b"/eth\xff"))
    (interface / "device").mkdir(parents=True)
    (interface / "operstate").write_text("up\n")
    found = inventory(environ={"COMMSCOPE_SYSFS": str(tmp_path / "sys"), "COMMSCOPE_NVIDIA_SMI": NO_TOOL})
    assert found["adapters"][0]["name"] == "eth\\xff"
    clean_env.setenv("COMMSCOPE_SYSFS", str(tmp_path / "sys"))
    clean_env.setenv("COMMSCOPE_NVIDIA_SMI", NO_TOOL)
    from commscope.execute.pairs import host_links

    host_links.cache_clear()
    assert cli("run", "latency", "--launcher", "mpirun", "--db", db, "--", "-m", "1:4").exit_code == 0
    host_links.cache_clear()
    out = tmp_path / "runs.json"
    exported = cli("export", "last", "--format", "json", "-o", out, "--db", db)
    assert exported.exit_code == 0, exported.output
    (run,) = json.loads(out.read_text())["runs"]
    (host,) = run["provenance"]["links"]["hosts"].values()
    assert host["adapters"][0]["name"] == "eth\\xff"


def test_an_output_file_is_whole_or_untouched(tmp_path):
    """Text that cannot be written (a lone surrogate, as runs stored before kept a name that
    was not UTF-8) leaves no empty file and an earlier file as it was."""
    from commscope.cli.common import write_output

    target = tmp_path / "export.json"
    with pytest.raises(UsageError, match="export.json"):
        write_output(target, '{"name": "eth\udcff"}\n', make_folder=False)
    assert not target.exists()
    target.write_text("earlier\n")
    with pytest.raises(UsageError):
        write_output(target, '{"name": "eth\udcff"}\n', make_folder=False)
    assert target.read_text() == "earlier\n" and [path.name for path in tmp_path.iterdir()] == ["export.json"]
    target.chmod(0o600)
    write_output(target, "new\n", make_folder=False)
    assert target.read_text() == "new\n" and target.stat().st_mode & 0o777 == 0o600
    link = tmp_path / "link.json"
    link.symlink_to(target)
    write_output(link, "through the link\n", make_folder=False)
    assert link.is_symlink() and target.read_text() == "through the link\n"


def test_info_links_of_hosts_that_cannot_be_reached_fails_naming_them(cli, clean_env, tmp_path):
    launcher = tmp_path / "mpirun"
    launcher.write_text(
        f"#!{sys.executable}\nimport sys\n"
        "if sys.argv[1:] == ['--version']:\n    print('mpirun (Open MPI) 5.0.0-fake')\n    sys.exit(0)\n"
        "sys.stderr.write('ssh: Could not resolve hostname nosuch-a: Name or service not known\\n')\n"
        "sys.stderr.write('-' * 74 + '\\nORTE was unable to reliably start one or more daemons.\\n')\n"
        "sys.exit(255)\n"
    )
    launcher.chmod(0o755)
    clean_env.setenv("COMMSCOPE_NVIDIA_SMI", NO_TOOL)
    shown = cli("info", "--links", "--hosts", "nosuch-a,nosuch-b", "--launcher", launcher)
    assert shown.exit_code == 1, shown.output
    assert (
        "no link inventory of nosuch-a, nosuch-b: the inventory launch exited with 255: "
        "ssh: Could not resolve hostname nosuch-a" in shown.stderr
    )
    assert "# links of" not in shown.stdout


def test_info_links_of_a_hostfile_keeps_every_host_that_answered_and_names_how_many_did_not(cli, clean_env, tmp_path):
    """The launching host among a hostfile's hosts is kept (its own process answered); a host
    of the file that did not answer fails the command."""
    from commscope.execute.host_inventory import frames, inventory

    here = inventory(environ={"COMMSCOPE_SYSFS": str(LINKS / "hdr-ib-node" / "sys"), "COMMSCOPE_NVIDIA_SMI": NO_TOOL})
    answers = tmp_path / "answers.txt"
    answers.write_text("\n".join(frames(here, 11) + frames({**here, "host": "n2"}, 22)) + "\n")
    launcher = tmp_path / "mpirun"
    launcher.write_text(
        f"#!{sys.executable}\nimport sys\n"
        "if sys.argv[1:] == ['--version']:\n    print('mpirun (Open MPI) 5.0.0-fake')\n    sys.exit(0)\n"
        f"sys.stdout.write(open({str(answers)!r}).read())\n"
    )
    launcher.chmod(0o755)
    clean_env.setenv("COMMSCOPE_NVIDIA_SMI", NO_TOOL)
    hostfile = tmp_path / "hosts"
    hostfile.write_text(f"{here['host']}\nn2\n")
    shown = cli("info", "--links", "--hostfile", hostfile, "--launcher", launcher, "--format", "json")
    assert shown.exit_code == 0, shown.output
    assert sorted(json.loads(shown.stdout)["hosts"]) == sorted([here["host"], "n2"])
    hostfile.write_text(f"{here['host']}\nn2\nn3\n")
    shown = cli("info", "--links", "--hostfile", hostfile, "--launcher", launcher)
    assert shown.exit_code == 1 and f"no link inventory of 1 of the 3 hosts of {hostfile}" in shown.stderr


def test_a_name_stored_before_names_were_made_safe_exports_as_utf8(cli, db, tmp_path):
    """A run stored by an older commscope with a name that is not UTF-8 in its inventory
    exports all the same, the bytes written as \\xNN, to stdout and to a file."""
    from fixtures.analysis.handmade import run_of, store_runs

    run = run_of({8: 1.0})
    run.provenance = {"links": {"hosts": {"h\udcfe": {"adapters": [{"name": "eth\udcff"}]}}}}
    store_runs(db, [run])
    out = tmp_path / "runs.json"
    written = cli("export", "last", "--format", "json", "-o", out, "--db", db)
    assert written.exit_code == 0, written.output
    text = out.read_bytes().decode("utf-8")
    assert "eth\\\\xff" in text and "h\\\\xfe" in text
    printed = cli("export", "last", "--format", "json", "--db", db)
    assert printed.exit_code == 0 and "eth\\\\xff" in printed.stdout
