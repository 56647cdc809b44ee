"""The report's page of an A/B test, from a test played for real (built-in policies)."""

from __future__ import annotations

import asyncio
from pathlib import Path

from htmltree import load, table_rows

from arena.abtest_runner import AbTestConfig, Player, create_test, run_test
from arena.bots import Policy
from arena.report import render_site


def test_the_report_has_a_page_per_test_linked_from_the_index(tmp_path: Path) -> None:
    db = f"sqlite:///{tmp_path / 'a.db'}"
    cfg = AbTestConfig(
        new=Player("ev", Policy("ev")), base=Player("random", Policy("random")), seed=2
    )
    d = asyncio.run(run_test(db, create_test(cfg, db), workers=1)).as_dict()
    out = tmp_path / "site"
    render_site(db, out)
    index = load(out / "index.html")
    row = index.find("tr", data_test=str(d["id"]))
    assert row.find("a").get("href") == f"test/{d['id']}.html"
    assert row.find(cls="verdict").clean() == "H1"
    page = load(out / "test" / f"{d['id']}.html")
    assert "H1 accepted" in page.find(cls="verdict").clean()
    assert page.find(cls="decided-at").clean() == str(d["decided_at"])
    assert page.find(cls="pairs").clean() == str(d["pairs"])
    counts = [int(r.find(cls="count").clean()) for r in table_rows(page.find(cls="pair-outcomes"))]
    assert counts == d["unit_counts"]
    chart = page.find("svg", cls="llr-chart")
    points = chart.find("polyline").get("points") or ""
    assert len(points.split()) == d["pairs"] + 1  # the start and every counted pair
    assert chart.find(cls="decision") is not None
    assert {
        b.get("class") for b in chart.find_all("line") if "bound" in (b.get("class") or "")
    } == {
        "bound bound-h1",
        "bound bound-h0",
    }
