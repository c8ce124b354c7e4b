"""`commscope plot`: PNG and SVG files with bands and a ratio panel."""

from __future__ import annotations

import pytest

from commscope.output.plot import figure, figure_style, render
from fixtures.analysis.handmade import SIZES, run_of, store_runs

PNG_SIGNATURE = b"\x89PNG\r\n\x1a\n"


@pytest.fixture
def stored(db, clean_env):
    store_runs(
        db,
        [
            run_of({size: 1.0 + size / 5000 for size in SIZES}, label="before", spread=0.05),
            run_of(
                {size: (1.0 + size / 5000) * (1.3 if size == 64 else 1.0) for size in SIZES},
                label="after <b>",
                spread=0.05,
            ),
            run_of(
                {size: size / (1 + size / 9000) for size in SIZES if size},
                metric="bandwidth_MBps",
                benchmark="bw",
                label="bw",
            ),
        ],
    )
    return db


def test_png_with_ratio_panel(cli, stored, tmp_path):
    out = tmp_path / "figs" / "latency.png"
    result = cli("plot", "1", "2", "-o", out, "--ratio-to", "1", "--db", stored)
    assert result.exit_code == 0, result.output
    data = out.read_bytes()
    assert data.startswith(PNG_SIGNATURE) and len(data) > 20_000


def test_svg_of_a_bandwidth_run(cli, stored, tmp_path):
    out = tmp_path / "bw.svg"
    assert cli("plot", "bw", "-o", out, "--band", "minmax", "--db", stored).exit_code == 0
    text = out.read_text()
    assert text.startswith("<?xml") and "<svg" in text[:500] and text.rstrip().endswith("</svg>")


def test_the_figure_has_a_line_and_band_per_run_and_marks_failing_sizes(stored):
    from commscope.store.db import Store

    with Store(stored) as store:
        before, after = store.run(1), store.run(2)
    fig = figure([after], ratio_to=before, tolerance=0.1)
    top, bottom = fig.axes
    assert [line.get_label() for line in top.get_lines()] == ["before", "after <b>"]
    assert len(top.collections) == 2  # one CI band per run
    assert top.get_xscale() == "log" and top.get_yscale() == "log"
    assert top.get_ylabel() == "Latency (us)" and bottom.get_xlabel() == "message size"
    [marks] = [c for c in bottom.collections if c.get_label() == "outside tolerance"]
    assert marks.get_offsets().tolist() == [[64, pytest.approx(1.3)]]
    labels = [label.get_text() for label in bottom.get_xticklabels()]
    assert "1 KiB" in labels and "4 MiB" in labels
    assert render(fig, "svg").startswith(b"<?xml")


@pytest.mark.slow
@pytest.mark.parametrize("fmt", ["svg", "png"])
def test_render_draws_a_figure_once_and_lays_it_out_as_savefig_would(stored, fmt, monkeypatch):
    """With its layout engine left on, savefig draws a figure twice (once only to lay it
    out); render lays it out by itself and draws once, writing the same file."""
    import io

    import matplotlib
    from matplotlib.figure import Figure

    from commscope.store.db import Store

    with Store(stored) as store:
        before, after = store.run(1), store.run(2)
    expected = io.BytesIO()
    with matplotlib.rc_context(figure_style()):
        figure([after], ratio_to=before).savefig(
            expected, format=fmt, dpi=120, metadata={"Date": None} if fmt == "svg" else None
        )
    draws = []
    real_draw = Figure.draw
    monkeypatch.setattr(Figure, "draw", lambda fig, renderer: draws.append(fig) or real_draw(fig, renderer))
    assert render(figure([after], ratio_to=before), fmt) == expected.getvalue()
    assert len(draws) == 1


@pytest.mark.parametrize(
    "args, message",
    [
        (["1", "-o", "x.jpg"], "name it .png or .svg"),
        (["1", "bw", "-o", "x.png"], "different metrics"),
        (["1", "-o", "x.png", "--ratio-to", "before", "--ratio-to", "label:nobody"], "no run matches 'label:nobody'"),
        (["-o", "x.png"], "name the runs to plot"),
    ],
)
def test_bad_plot_requests(cli, stored, tmp_path, monkeypatch, args, message):
    monkeypatch.chdir(tmp_path)
    result = cli("plot", *args, "--db", stored)
    assert result.exit_code == 2 and message in result.stderr, result.output
    assert not list(tmp_path.glob("x.*"))


def test_unwritable_output(cli, stored, tmp_path):
    (tmp_path / "file").write_text("")
    result = cli("plot", "1", "-o", tmp_path / "file" / "x.png", "--db", stored)
    assert result.exit_code == 2 and "cannot write" in result.stderr and "x.png" in result.stderr


def test_svg_text_is_text_in_fonts_a_browser_has(stored):
    """Labels are <text> a reader can search and copy, not glyphs drawn as paths, and every
    font list ends in the browser's sans-serif: the "10²" labels of a log axis too, written
    as text rather than as a formula whose glyphs each name a single font."""
    import re

    from commscope.store.db import Store

    with Store(stored) as store:
        before, after = store.run(1), store.run(2)
    svg = render(figure([after], ratio_to=before), "svg").decode()
    assert "<text" in svg and ">message size</text>" in svg and "glyph" not in svg.split("</defs>")[0].lower()
    families = re.findall(r"font-family: ([^;\"]*)", svg)
    assert families and all(family.endswith("sans-serif") for family in families), set(families)
    assert "<tspan" not in svg and "mathdefault" not in svg
    assert re.search(r">10⁰</text>", svg) and re.search(r">10¹</text>", svg)  # the log axis's labels


def test_log_axis_labels_are_plain_text():
    """matplotlib's choice of labels (decades; on an axis spanning less than a decade, the
    minor ticks too, "2×10⁻³"), written without mathtext."""
    from matplotlib.figure import Figure

    from commscope.output.plot import log_scale

    axis = Figure().subplots()
    log_scale(axis)
    axis.set_ylim(0.01, 1000)
    assert {"10⁻²", "10⁰", "10³"} <= {label.get_text() for label in axis.get_yticklabels()}
    axis.set_ylim(1.5e-3, 4.5e-3)
    minor = [label.get_text() for label in axis.get_yticklabels(minor=True)]
    assert {"2×10⁻³", "3×10⁻³", "4×10⁻³"} <= set(minor) and not any("$" in label for label in minor)


def test_labels_are_shown_as_written(stored):
    """A label with dollar signs is text, not a formula."""
    from commscope.store.db import Store

    with Store(stored) as store:
        before = store.run(1)
    fig = figure([before], title="costs $5 or $6")
    assert ">costs $5 or $6</text>" in render(fig, "svg").decode()
