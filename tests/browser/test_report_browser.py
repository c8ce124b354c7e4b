"""The HTML report in headless Chromium: it renders, runs no script, shows its figures."""

from __future__ import annotations

import base64
import os
import shutil
import subprocess
from html.parser import HTMLParser
from pathlib import Path

import pytest

from fixtures.analysis.report_runs import EVIL
from paths import REPO

ARTIFACTS = REPO / "test-artifacts"
CHROMIUM = next(filter(None, map(shutil.which, ("chromium", "chromium-browser", "google-chrome"))), None)


class _Page(HTMLParser):
    """Counts what the browser's DOM holds."""

    def __init__(self) -> None:
        super().__init__()
        self.tags: dict[str, int] = {}
        self.images: list[str] = []
        self.image_alts: list[str] = []
        self.text: list[str] = []

    def handle_starttag(self, tag, attrs):
        self.tags[tag] = self.tags.get(tag, 0) + 1
        if tag == "img":
            self.images.append(dict(attrs).get("src", ""))
            self.image_alts.append(dict(attrs).get("alt", ""))

    def handle_data(self, data):
        self.text.append(data)


def _chromium(profile: Path, *args: str) -> subprocess.CompletedProcess:
    return subprocess.run(
        [
            CHROMIUM,
            "--headless",
            "--disable-gpu",
            "--no-sandbox",
            "--no-first-run",
            "--disable-extensions",
            "--hide-scrollbars",
            f"--user-data-dir={profile}",
            "--enable-logging=stderr",
            "--v=0",
            *args,
        ],
        capture_output=True,
        text=True,
        timeout=120,
    )


def _console_messages(stderr: str) -> list[str]:
    return [line for line in stderr.splitlines() if ":CONSOLE" in line]


def _pixels_like(png: Path, colours, rows: slice = slice(None), tolerance: int = 30) -> int:
    """Pixels within `rows` of the screenshot that have one of `colours` (RGB, ±tolerance)."""
    import numpy as np
    from matplotlib import image

    pixels = (image.imread(png)[rows, :, :3] * 255).astype(int)
    return sum(int(np.sum(np.all(np.abs(pixels - colour) < tolerance, axis=-1))) for colour in colours)


def _plot_pixels(png: Path) -> int:
    """Pixels in the colours of the first two plot lines (matplotlib's tab:blue, tab:orange)."""
    return _pixels_like(png, ((31, 119, 180), (255, 127, 14)))


def _require_chromium() -> None:
    if CHROMIUM is None:
        if os.environ.get("COMMSCOPE_REQUIRE_BROWSER"):
            pytest.fail("COMMSCOPE_REQUIRE_BROWSER is set but chromium is not installed")
        pytest.skip(
            "chromium is not installed (Debian: apt-get install chromium); "
            "set COMMSCOPE_REQUIRE_BROWSER=1 to make that a failure"
        )


def test_the_report_renders_in_headless_chromium(cli, stored, tmp_path):
    _require_chromium()
    out = tmp_path / "report.html"
    assert cli("report", "1", "2", "3", "7", "8", "9", "-o", out, "--baseline", "ref", "--db", stored).exit_code == 0

    dump = _chromium(tmp_path / "profile", "--dump-dom", out.as_uri())
    assert dump.returncode == 0, dump.stderr[-2000:]
    assert _console_messages(dump.stderr) == []
    page = _Page()
    page.feed(dump.stdout)
    assert page.tags.get("script", 0) == 0
    assert page.tags["table"] >= 5 and page.tags["tr"] > 50
    assert len(page.images) == 1 and page.images[0].startswith("data:image/svg+xml;base64,")
    assert base64.b64decode(page.images[0].split(",", 1)[1]).startswith(b"<?xml")
    text = "".join(page.text)
    assert EVIL in text and "思源一号 v5.7.1" in text and "Side by side" in text

    ARTIFACTS.mkdir(exist_ok=True)
    screenshot = ARTIFACTS / "analysis-report.png"
    screenshot.unlink(missing_ok=True)
    shot = _chromium(tmp_path / "profile", "--window-size=1280,2400", f"--screenshot={screenshot}", out.as_uri())
    assert shot.returncode == 0, shot.stderr[-2000:]
    assert _console_messages(shot.stderr) == []
    assert screenshot.read_bytes().startswith(b"\x89PNG")
    assert _plot_pixels(screenshot) > 2000, "the figure did not render"


class _Order(HTMLParser):
    """Where the flagged table, the pair table and the heatmaps of a sweep sit in the DOM."""

    def __init__(self) -> None:
        super().__init__()
        self.seen: list[str] = []

    def handle_starttag(self, tag, attrs):
        attrs = dict(attrs)
        if attrs.get("id", "").startswith(("flagged-", "pairs-")):
            self.seen.append(attrs["id"].split("-")[0])
        elif tag == "img" and attrs.get("alt", "").endswith("flagged cells outlined"):
            self.seen.append("heatmap")


def test_a_sweep_renders_with_its_flags_before_the_heatmaps(cli, monkeypatch, clean_env, tmp_path):
    from fixtures.analysis.sweep_runs import planted_sweep

    _require_chromium()
    outcome = planted_sweep(monkeypatch, tmp_path, 4, "node")
    out = tmp_path / "sweep.html"
    assert cli("report", "1", "2", "-o", out, "--db", outcome.db).exit_code == 0

    dump = _chromium(tmp_path / "profile", "--dump-dom", out.as_uri())
    assert dump.returncode == 0, dump.stderr[-2000:]
    assert _console_messages(dump.stderr) == []
    order = _Order()
    order.feed(dump.stdout)
    assert order.seen == ["flagged", "pairs", "heatmap", "heatmap", "heatmap"]
    page = _Page()
    page.feed(dump.stdout)
    assert page.tags.get("script", 0) == 0
    assert "bad with 3 of 3 partners" in "".join(page.text)

    # On screen: the flagged rows are in the first screenful, above the heatmaps.
    ARTIFACTS.mkdir(exist_ok=True)
    screenshot = ARTIFACTS / "sweep-report.png"
    screenshot.unlink(missing_ok=True)
    shot = _chromium(tmp_path / "profile", "--window-size=1280,3000", f"--screenshot={screenshot}", out.as_uri())
    assert shot.returncode == 0, shot.stderr[-2000:]
    flagged_background, healthy_cell = (255, 235, 233), (253, 231, 37)  # #ffebe9; viridis's bright end
    # a tight tolerance: the page's white is 20 from the pale pink
    assert _pixels_like(screenshot, [flagged_background], slice(0, 900), 4) > 5000, "no flagged table on screen"
    assert _pixels_like(screenshot, [healthy_cell], slice(900, None)) > 5000, "no heatmap below the flags"


def test_a_locate_sweep_beyond_the_limit_renders_as_a_summary_with_the_fabric_map_alone(
    cli, monkeypatch, clean_env, tmp_path
):
    """A locate run of more hosts than kinds.locate.SUMMARY_HOSTS (made 20 here): its bad
    node, the hosts by verdict and the bad node's pairs, and no picture but the fabric map
    (every host at any scale): no heatmap of pairs."""
    import json
    import shlex
    import sys

    from commscope.kinds import locate

    _require_chromium()
    network = tmp_path / "network.json"
    network.write_text(json.dumps({"seed": 5, "slow_nodes": {"cn007": 0.5}}))
    oracle = f"{shlex.quote(sys.executable)} -m commscope.sweep.simulate {shlex.quote(str(network))}"
    hosts = ",".join(f"cn{index:03d}" for index in range(40))
    db = tmp_path / "runs.db"
    assert cli("sweep", "locate", "--hosts", hosts, "--oracle", oracle, "--seed", "2", "--db", db).exit_code == 1
    monkeypatch.setattr(locate, "SUMMARY_HOSTS", 20)
    out = tmp_path / "locate.html"
    assert cli("report", "1", "-o", out, "--db", db).exit_code == 0

    dump = _chromium(tmp_path / "profile", "--dump-dom", out.as_uri())
    assert dump.returncode == 0, dump.stderr[-2000:]
    assert _console_messages(dump.stderr) == []
    order = _Order()
    order.feed(dump.stdout)
    assert order.seen == ["flagged", "pairs"]  # no heatmap
    page = _Page()
    page.feed(dump.stdout)
    text = "".join(page.text)
    assert len(page.images) == 1 and "the fabric map" in page.image_alts[0]
    assert page.images[0].startswith("data:image/svg+xml")
    assert "Hosts by verdict" in text and "bad node cn007" in text
