"""`commscope report`: self-contained HTML (and Markdown), escaped; tests/browser renders it."""

from __future__ import annotations

import os
import re
import socket

import pytest

from fixtures.analysis.report_runs import SJTU_FIXTURE


@pytest.mark.slow
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
    # each run's headline value, as history follows it: latency's median over 0-8 B
    assert "<td>1.00 µs at 0-8 B</td>" in html and "<td>0.79 µs at 0-8 B</td>" in html
    assert "<td>1.00 µs at 1-2 B</td>" in html  # the run cut short has sizes 1 and 2 only
    assert "peak bandwidth" not in html  # a column no run fills is left out
    assert "α 1.00 µs, β 5,000 MB/s" in html  # the model of the hand-made Hockney runs
    warnings = html[html.index('id="warnings"') : html.index('id="bench-1"')]
    assert "run 10 (latency, cut short) is incomplete: timed out after 5 s" in warnings
    assert "<td>9</td><td>latency, shaky</td><td>24 of 24</td>" in warnings
    assert f"{socket.gethostname()} ran {os.cpu_count() + 1} ranks on {os.cpu_count()} CPUs" in warnings
    assert "far" not in warnings  # 1 rank on 1 CPU is fine
    # Provenance of every run, in collapsible blocks.
    assert html[html.index('id="provenance"') :].count("<details><summary>run ") == 6


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


@pytest.mark.slow
def test_last_invocation_reports_the_newest_run_command(cli, fake_core, db, tmp_path):
    assert cli("run", "latency", "--launcher", "mpirun", "--db", db, "--", "-m", "1:4").exit_code == 0
    assert (
        cli(
            "run", "latency", "bw", "--launcher", "mpirun", "--label", "newest", "--db", db, "--", "-m", "1:8"
        ).exit_code
        == 0
    )
    assert cli("import", SJTU_FIXTURE, "--db", db).exit_code == 0  # an import is not a run
    out = tmp_path / "results" / "report.html"
    result = cli("report", "--last-invocation", "-o", out, "--db", db)
    assert result.exit_code == 0, result.output
    assert "(2 runs)" in result.stderr
    html = out.read_text()
    assert html[html.index('id="provenance"') :].count("<details><summary>run ") == 2 and "newest" in html


@pytest.mark.parametrize(
    "args, message",
    [
        ([], "name the runs to report on"),
        (["--all", "1"], "--all reports on every run"),
        (["1", "--baseline", "nope"], "no baseline 'nope'"),
        (["7", "--baseline", "ref"], "every run reported on is part of baseline 'ref'"),
        (["424242"], "no run 424242"),
    ],
)
def test_bad_report_requests(cli, stored, tmp_path, args, message):
    before = stored.read_bytes()
    result = cli("report", *args, "-o", tmp_path / "r.html", "--db", stored)
    assert result.exit_code == 2 and message in result.stderr, result.output
    assert not (tmp_path / "r.html").exists() and stored.read_bytes() == before
