"""`commscope report`: one self-contained HTML file (and optionally Markdown) about runs.

The HTML page needs nothing from the network: its CSS is inline, its figures are
SVG embedded as data: URIs (an SVG shown through <img> cannot run scripts), and
a Content-Security-Policy forbids every fetch and every script, so even a label
that slipped past escaping could not do anything. Templates are rendered by
jinja2 with autoescaping on; the Markdown template escapes every value through
its `finalize` hook instead, since Markdown renderers pass HTML through.
"""

from __future__ import annotations

import base64
from pathlib import Path

import jinja2
from markupsafe import Markup

from commscope.output.report.content import Report, metric_heading

__all__ = ["Report", "render_html", "render_markdown"]

_LOADER = jinja2.PackageLoader("commscope", "output/report/templates")


def _data_uri(svg: bytes) -> str:
    return "data:image/svg+xml;base64," + base64.b64encode(svg).decode("ascii")


def _html_environment() -> jinja2.Environment:
    env = jinja2.Environment(
        loader=_LOADER, autoescape=True, undefined=jinja2.StrictUndefined, trim_blocks=True, lstrip_blocks=True
    )
    env.filters["data_uri"] = _data_uri
    env.globals["metric_heading"] = metric_heading
    return env


def markdown_escape(value: object) -> object:
    """Everything printed into Markdown, made inert: HTML specials become entities and
    pipes cannot end table cells. Values already marked safe are left alone."""
    if isinstance(value, Markup) or not isinstance(value, str):
        return value
    return value.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;").replace("|", "\\|").replace("\n", " ")


def _markdown_environment() -> jinja2.Environment:
    env = jinja2.Environment(
        loader=_LOADER,
        autoescape=False,
        finalize=markdown_escape,
        undefined=jinja2.StrictUndefined,
        trim_blocks=True,
        lstrip_blocks=True,
        keep_trailing_newline=True,
    )
    env.globals["metric_heading"] = metric_heading
    return env


def render_html(report: Report) -> str:
    return _html_environment().get_template("report.html.j2").render(report=report)


def render_markdown(report: Report, markdown_path: Path) -> dict[Path, bytes]:
    """The Markdown file and its figures (SVG files in a folder beside it, linked relatively)."""
    folder = markdown_path.with_name(markdown_path.stem + "-figures")
    figures, files = [], {}
    for index, section in enumerate(report.sections, start=1):
        if section.figure_svg:
            path = folder / f"{index}-{_slug(section.benchmark)}.svg"
            files[path] = section.figure_svg
            figures.append(Markup(f"{folder.name}/{path.name}"))
        else:
            figures.append(None)
    sweep_figures = []
    for sweep in report.sweeps:
        paths = []
        for heatmap in sweep.heatmaps:
            path = folder / f"sweep-{sweep.run_id}-{heatmap.metric}.svg"
            files[path] = heatmap.svg
            paths.append((heatmap.metric, Markup(f"{folder.name}/{path.name}")))
        sweep_figures.append(paths)
    timeline_figures = []
    for index, timeline in enumerate(report.timelines, start=1):
        path = folder / f"timeline-{index}.svg"
        files[path] = timeline.figure_svg
        timeline_figures.append(Markup(f"{folder.name}/{path.name}"))
    hosts_figure = None
    if report.hosts is not None:
        path = folder / "hosts-over-time.svg"
        files[path] = report.hosts.figure_svg
        hosts_figure = Markup(f"{folder.name}/{path.name}")
    text = (
        _markdown_environment()
        .get_template("report.md.j2")
        .render(
            report=report,
            figures=figures,
            sweep_figures=sweep_figures,
            timeline_figures=timeline_figures,
            hosts_figure=hosts_figure,
        )
    )
    return {markdown_path: text.encode(), **files}


def _slug(text: str) -> str:
    return "".join(char if char.isalnum() else "_" for char in text) or "benchmark"
