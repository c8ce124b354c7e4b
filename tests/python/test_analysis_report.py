"""`commscope report`: self-contained HTML (and Markdown), escaped, checked in headless Chromium."""
from __future__ import annotations

import base64
import os
import re
import shutil
import socket
import subprocess
from html.parser import HTMLParser
from pathlib import Path

import pytest

from conftest import REPO
from fixtures.analysis.handmade import SIZES, run_of, store_runs

SEED_FIXTURE = Path(__file__).parent / "fixtures" / "parse" / "seed000_cluster_comparison.rst"
EVIL = "<script>alert(1)</script>"
ARTIFACTS = REPO / "test-artifacts"
CHROMIUM = next(filter(None, map(shutil.which, ("chromium", "chromium-browser", "google-chrome"))), None)


def latency(factor: float = 1.0) -> dict[int, float]:
    return {size: (1.0 + size / 5000) * factor for size in SIZES}


@pytest.fixture
def stored(cli, db, clean_env, tmp_path):
    """Seed 000 imported from a file whose name needs escaping, a hand-made baseline and a
    slower run labelled with a script, an unstable run, an incomplete one, and an
    oversubscribed one."""
    source = tmp_path / "<img src=x onerror=alert(2)>seed.rst"
    source.write_bytes(SEED_FIXTURE.read_bytes())
    assert cli("import", source, "--db", db).exit_code == 0  # runs 1-6
    here = socket.gethostname()
    store_runs(db, [run_of(latency(), label="before", system="a|b", spread=0.01),  # 7
                    run_of(latency(1.25), label=EVIL, system="a|b", spread=0.01),  # 8
                    run_of(latency(), label="shaky", spread=0.6, samples=20),  # 9
                    run_of({1: 1.0, 2: 1.0}, label="cut short", status="incomplete"),  # 10
                    run_of(latency(), label="crowded", hosts=[{"name": here, "ranks": list(range(os.cpu_count() + 1))},
                                                              {"name": "far", "ranks": [0], "cpus": 1}])])  # 11
    assert cli("baseline", "set", "ref", "7", "--db", db).exit_code == 0
    return db


def test_html_report_escapes_user_strings_and_needs_no_network(cli, stored, tmp_path):
    out = tmp_path / "out" / "report.html"
    result = cli("report", "--all", "-o", out, "--baseline", "ref", "--db", stored)
    assert result.exit_code == 0, result.output
    html = out.read_text()
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in html and "<script" not in html
    assert "&lt;img src=x onerror=alert(2)&gt;seed.rst" in html and "<img src=x" not in html
    assert "a|b" in html and "思源一号 v5.7.1" in html
    # Self-contained: no fetches of any kind, figures inline, and a policy that forbids the rest.
    assert not re.search(r"""(?:src|href)\s*=\s*["'](?!data:|#)""", html)
    assert "default-src 'none'" in html
    assert html.count('src="data:image/svg+xml;base64,') == 2  # one per benchmark: latency, bcast


def test_report_sections_summary_and_warnings(cli, stored, tmp_path):
    out = tmp_path / "report.html"
    cli("report", "7", "8", "9", "10", "11", "1", "-o", out, "--baseline", "ref", "--db", stored)
    html = out.read_text()
    assert "Against baseline <strong>ref</strong>" in html and '<span class="verdict failed">FAIL</span>' in html
    assert "24 of 24 sizes fail" in html
    assert "1.00 µs at 0 B" in html and "0.79 µs at 0 B" in html  # small-message latency
    assert "α 1.00 µs, β 5,000 MB/s" in html  # the model of the hand-made Hockney runs
    warnings = html[html.index('id="warnings"'):html.index('id="bench-1"')]
    assert "run 10 (latency, cut short) is incomplete: timed out after 5 s" in warnings
    assert "run 9 (latency, shaky): 24 unstable size(s)" in warnings
    assert f"{socket.gethostname()} ran {os.cpu_count() + 1} ranks on {os.cpu_count()} CPUs" in warnings
    assert "far" not in warnings  # 1 rank on 1 CPU is fine
    # Provenance of every run, in collapsible blocks.
    assert html[html.index('id="provenance"'):].count("<details><summary>run ") == 6


def test_markdown_report_with_figure_files(cli, stored, tmp_path):
    md = tmp_path / "r.md"
    result = cli("report", "7", "8", "-o", tmp_path / "r.html", "--markdown", md, "--db", stored)
    assert result.exit_code == 0, result.output
    text = md.read_text()
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in text and "<script" not in text
    assert "a\\|b" in text  # a pipe must not split a table cell
    assert "![latency](r-figures/1-latency.svg)" in text
    assert (tmp_path / "r-figures" / "1-latency.svg").read_bytes().startswith(b"<?xml")
    assert "| Size (B) | before | &lt;script&gt;alert(1)&lt;/script&gt; |" in text


def test_last_invocation_reports_the_newest_run_command(cli, fake_core, db, tmp_path):
    assert cli("run", "latency", "--launcher", "mpirun", "--db", db, "--", "-m", "1:4").exit_code == 0
    assert cli("run", "latency", "bw", "--launcher", "mpirun", "--label", "newest", "--db", db,
               "--", "-m", "1:8").exit_code == 0
    assert cli("import", SEED_FIXTURE, "--db", db).exit_code == 0  # an import is not a run
    out = tmp_path / "results" / "report.html"
    result = cli("report", "--last-invocation", "-o", out, "--db", db)
    assert result.exit_code == 0, result.output
    assert "(2 runs)" in result.stderr
    html = out.read_text()
    assert html[html.index('id="provenance"'):].count("<details><summary>run ") == 2 and "newest" in html


@pytest.mark.parametrize("args, message", [
    ([], "name the runs to report on"),
    (["--all", "1"], "--all reports on every run"),
    (["1", "--baseline", "nope"], "no baseline 'nope'"),
    (["7", "--baseline", "ref"], "every run reported on is part of baseline 'ref'"),
    (["424242"], "no run 424242"),
])
def test_bad_report_requests(cli, stored, tmp_path, args, message):
    before = stored.read_bytes()
    result = cli("report", *args, "-o", tmp_path / "r.html", "--db", stored)
    assert result.exit_code == 2 and message in result.stderr, result.output
    assert not (tmp_path / "r.html").exists() and stored.read_bytes() == before


# -- in a real browser ------------------------------------------------------------------

class _Page(HTMLParser):
    """Counts what the browser's DOM holds."""

    def __init__(self) -> None:
        super().__init__()
        self.tags: dict[str, int] = {}
        self.images: list[str] = []
        self.text: list[str] = []

    def handle_starttag(self, tag, attrs):
        self.tags[tag] = self.tags.get(tag, 0) + 1
        if tag == "img":
            self.images.append(dict(attrs).get("src", ""))

    def handle_data(self, data):
        self.text.append(data)


def _chromium(profile: Path, *args: str) -> subprocess.CompletedProcess:
    return subprocess.run(
        [CHROMIUM, "--headless", "--disable-gpu", "--no-sandbox", "--no-first-run", "--disable-extensions",
         "--hide-scrollbars", f"--user-data-dir={profile}", "--enable-logging=stderr", "--v=0", *args],
        capture_output=True, text=True, timeout=120)


def _console_messages(stderr: str) -> list[str]:
    return [line for line in stderr.splitlines() if ":CONSOLE" in line]


def _plot_pixels(png: Path) -> int:
    """Pixels in the colours of the first two plot lines (matplotlib's tab:blue, tab:orange)."""
    import numpy as np
    from matplotlib import image

    pixels = (image.imread(png)[..., :3] * 255).astype(int)
    count = 0
    for colour in ((31, 119, 180), (255, 127, 14)):
        count += int(np.sum(np.all(np.abs(pixels - colour) < 30, axis=-1)))
    return count


def test_the_report_renders_in_headless_chromium(cli, stored, tmp_path):
    if CHROMIUM is None:
        if os.environ.get("COMMSCOPE_REQUIRE_BROWSER"):
            pytest.fail("COMMSCOPE_REQUIRE_BROWSER is set but chromium is not installed")
        pytest.skip("chromium is not installed (Debian: apt-get install chromium); "
                    "set COMMSCOPE_REQUIRE_BROWSER=1 to make that a failure")
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
