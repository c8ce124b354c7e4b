"""The congestion kind on hand-made runs: recognised by its benchmark, compared as impact
factors side by side, checked on the impact (an impact that grew fails), reported with its
tables and chart; its axes survive the store."""

from __future__ import annotations

from commscope.analysis.check import Policy
from commscope.analysis.congestion import headline, impact_table, phases_table
from commscope.kinds import CompareRequest, check, kind_of
from commscope.kinds.base import ReportContext
from commscope.records.invocation import invocation
from commscope.records.run import Axes, Point, Run
from commscope.store.db import Store


def _point(canary, congestor, iso, cong, unit="us"):
    bandwidth = unit == "MBps"
    impact = (iso / cong) if bandwidth else (cong / iso)
    metrics = {
        f"isolated_avg_{unit}": iso,
        f"isolated_p99_{unit}": iso * 2,
        f"congested_avg_{unit}": cong,
        f"congested_p99_{unit}": cong * 2,
        "impact_avg": impact,
        "impact_p99": impact,
    }
    size = 131072 if bandwidth else 8
    return Point(size=size, metrics=metrics, axes=Axes(canary=canary, congestor=congestor), iterations=10)


def _run(label, lat_cong=4.0, bw_cong=500.0):
    return Run(
        benchmark="congestion",
        label=label,
        points=[_point("rr_lat", "alltoall", 2.0, lat_cong), _point("rr_bw", "alltoall", 1000.0, bw_cong, "MBps")],
    )


def test_kind_tables_and_headline():
    a, b = _run("a"), _run("b", lat_cong=8.0)
    assert kind_of(a).name == "congestion"
    table = impact_table([a, b])
    assert table.header[2:] == ["a impact avg", "a impact p99", "b impact avg", "b impact p99"]
    assert table.rows[0][:2] == ["Alltoall (4096 B)", "RR Two-sided Lat (8 B)"]
    assert table.rows[0][2:] == ["2.00X", "2.00X", "4.00X", "4.00X"]
    assert table.rows[1][2] == "2.00X"  # bandwidth: isolated / congested
    assert phases_table(a).rows[1][2:] == ["1000.00", "2000.00", "500.00", "1000.00", "MB/s"]
    assert headline(b) == "worst impact 4.00X (rr_lat beside alltoall)"
    compared = kind_of(a).compare([a, b], CompareRequest())
    assert "b impact avg" in compared.text("csv")


def test_check_fails_an_impact_that_grew():
    base, same, worse = _run("base"), _run("new"), _run("new", lat_cong=8.0)
    base.id, same.id, worse.id = 1, 2, 3
    assert check("b", [base], [same], Policy()).passed
    result = check("b", [base], [worse], Policy())
    assert not result.passed
    failing = [curve for curve in result.curves if not curve.passed]
    assert [curve.axes.canary for curve in failing] == ["rr_lat"]


def test_report_part_and_store_round_trip(tmp_path):
    run = _run("a")
    with Store(tmp_path / "db.sqlite") as store:
        loaded = store.run(store.add_run(run, store.add_invocation(invocation("run", ["commscope", "run"]))))
    assert {(p.axes.canary, p.axes.congestor) for p in loaded.points} == {("rr_lat", "alltoall"), ("rr_bw", "alltoall")}
    part = kind_of(loaded).report([loaded], ReportContext())
    (section,) = part.system_sections
    assert section.figure_svg.startswith(b"<?xml") and len(section.tables) == 2
