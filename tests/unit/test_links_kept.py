"""nvidia-smi's answers kept per host and boot (execute.gpu_links): a second
inventory on the same host since boot does not run the tool, and nothing it depends on can
change without it being asked again. sysfs is read every time, so a changed link is never
served stale."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest

from commscope.execute import gpu_links
from commscope.execute.gpu_links import gpu_inventory
from commscope.execute.host_inventory import inventory
from paths import FIXTURES

LINKS = FIXTURES / "links"
RECORDED = LINKS / "h100-4gpu-nvlink"


@pytest.fixture
def counted_tool(tmp_path, monkeypatch):
    """An nvidia-smi on PATH that plays back a recording and counts its calls; the kept answers
    in the test's folder."""
    folder = tmp_path / "bin"
    folder.mkdir()
    calls = tmp_path / "calls"
    tool = folder / "nvidia-smi"
    shutil.copy(RECORDED / "topo-m.txt", folder / "topo-m.txt")  # recorded-nvidia-smi reads beside $0
    (folder / "recorded-nvidia-smi").symlink_to(LINKS / "recorded-nvidia-smi")
    hang = tmp_path / "hang"  # while it exists, the matrix never comes
    tool.write_text(
        f'#!/bin/sh\necho "$*" >> {calls}\nif [ -e {hang} ] && [ "$1" = topo ]; then sleep 30; fi\n'
        f'exec {folder / "recorded-nvidia-smi"} "$@"\n'
    )
    tool.chmod(0o755)
    monkeypatch.setenv("PATH", f"{folder}{os.pathsep}{os.environ['PATH']}")
    monkeypatch.delenv("COMMSCOPE_NVIDIA_SMI", raising=False)
    monkeypatch.setenv("XDG_RUNTIME_DIR", str(tmp_path / "run"))
    (tmp_path / "run").mkdir(mode=0o700)
    return tool, calls


def asked(calls: Path) -> int:
    return len(calls.read_text().splitlines()) if calls.exists() else 0


def of_tree(tree: str, **options) -> dict:
    return inventory(environ={**os.environ, "COMMSCOPE_SYSFS": str(LINKS / tree / "sys")}, **options)


def test_a_second_inventory_since_boot_does_not_run_nvidia_smi(counted_tool):
    tool, calls = counted_tool
    first = of_tree("hdr-ib-node")
    assert first["gpus"]["available"] and len(first["gpus"]["pairs"]) == 6
    assert asked(calls) == 3
    again = of_tree("hdr-ib-node")
    assert asked(calls) == 3  # the failures (exit 9: the recording lacks them) are answers too
    assert again["gpus"] == first["gpus"] and len(again["gpus"]["notes"]) == 2
    of_tree("hdr-ib-node", fresh=True)  # info --links asks anew
    assert asked(calls) == 3 + 3


def test_a_changed_link_is_read_anew_while_the_gpus_are_kept(counted_tool):
    _, calls = counted_tool
    hdr = of_tree("hdr-ib-node")
    roce = of_tree("roce-100g-node")  # COMMSCOPE_SYSFS now names another machine's tree
    assert [a["rate_gbps"] for a in hdr["adapters"]] == [200.0]
    assert [a["rate_gbps"] for a in roce["adapters"]] == [100.0, 100.0]
    assert "topo -m" not in calls.read_text().splitlines()[3:]  # the matrix was kept


def test_another_boot_or_another_tool_asks_again(counted_tool, tmp_path, monkeypatch):
    tool, calls = counted_tool
    of_tree("hdr-ib-node")

    def topo_calls() -> int:
        return calls.read_text().splitlines().count("topo -m")

    boot = tmp_path / "boot_id"
    boot.write_text("another-boot\n")
    monkeypatch.setattr(gpu_links, "BOOT_ID", boot)
    of_tree("hdr-ib-node")
    assert topo_calls() == 2
    of_tree("hdr-ib-node")
    assert topo_calls() == 2
    tool.write_text(tool.read_text() + "# a new version of the tool\n")
    of_tree("hdr-ib-node")
    assert topo_calls() == 3


def test_a_tool_stopped_on_its_timeout_is_asked_again(counted_tool, tmp_path):
    (tmp_path / "hang").touch()
    assert "timed out after 1 s" in gpu_inventory(LINKS, timeout=1)["reason"]
    (tmp_path / "hang").unlink()
    assert gpu_inventory(LINKS)["available"]


def test_a_recorded_tool_is_never_kept(counted_tool, monkeypatch):
    tool, calls = counted_tool
    monkeypatch.setenv("COMMSCOPE_NVIDIA_SMI", str(tool))
    of_tree("hdr-ib-node")
    of_tree("hdr-ib-node")
    assert calls.read_text().splitlines().count("topo -m") == 2


def test_a_folder_others_could_write_is_not_used(counted_tool, tmp_path):
    _, calls = counted_tool
    kept = tmp_path / "run" / f"commscope-{os.getuid()}"
    kept.mkdir(mode=0o700)
    kept.chmod(0o777)
    of_tree("hdr-ib-node")
    of_tree("hdr-ib-node")
    assert calls.read_text().splitlines().count("topo -m") == 2 and list(kept.iterdir()) == []
