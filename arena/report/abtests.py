"""The report's pages of A/B tests: ``test/<id>.html`` per test and the list on the index.

Everything comes from the store (the tests and their units) and is counted the way the
test runner counts it (:func:`arena.abtest_runner.replay`: units in index order, up to
where the test stops), so a page shows what ``arena test`` printed. A page holds the
verdict, the LLR after every pair as an inline SVG with the bounds, the pair outcomes,
the Elo with its interval and the variance reduction of the duplicate deals. Names are
escaped by the templates (autoescape) and in the drawing.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
from markupsafe import Markup, escape
from sqlalchemy import Engine

from arena.abtest import llr
from arena.abtest.pairs import RESULT_SCORE
from arena.abtest_runner import AbOutcome, Tally, replay
from arena.bots import source_from_dict
from arena.store import abtests
from arena.store.models import AbTest

MAX_POINTS = 600  # points of the LLR line at most (a long test is sampled evenly)
PAIR_SCORES = ("0", "¼", "½", "¾", "1")
PAIR_RESULTS = ("LL", "LD DL", "LW WL DD", "WD DW", "WW")


@dataclass
class TestPage:
    test: AbTest
    outcome: AbOutcome
    tally: Tally
    llr_points: list[tuple[int, float]]  # (games, LLR) after each counted unit (sampled)
    decided_games: int | None  # games counted when the verdict fell

    __test__ = False  # not a test class, whatever its name

    @property
    def id(self) -> int:
        assert self.test.id is not None
        return self.test.id


def llr_points(tally: Tally) -> tuple[list[tuple[int, float]], int | None]:
    """The LLR after the units counted so far, in counting order (at most MAX_POINTS,
    always with the first, the deciding and the last), and the games at the decision."""
    state = tally.state
    m = state.tally.games_per_unit
    n = len(tally.counted)
    if n == 0:
        return [(0, 0.0)], None
    rows = np.zeros((n, 2 * m + 1))
    for i, key in enumerate(tally.counted):
        rows[i, int(sum(2 * RESULT_SCORE[c] for c in key))] = 1
    cum = np.cumsum(rows, axis=0)
    decided = state.decided_at
    picks = set(np.linspace(0, n - 1, min(n, MAX_POINTS)).round().astype(int).tolist())
    if decided is not None:
        picks.add(decided - 1)
    order = sorted(picks)
    values = llr(cum[order], state.spec)
    points = [(0, 0.0)] + [((i + 1) * m, float(v)) for i, v in zip(order, values, strict=True)]
    return points, None if decided is None else decided * m


def load(eng: Engine) -> list[TestPage]:
    pages = []
    for t, units in abtests.every_test(eng):
        tally = replay(t, units)
        outcome = AbOutcome(t, tally.state, tally.stopped_by, void_units=tally.void)
        points, decided = llr_points(tally)
        pages.append(TestPage(t, outcome, tally, points, decided))
    return pages


def _f(x: float) -> str:
    return f"{x:.1f}".rstrip("0").rstrip(".")


def _ticks(lo: float, hi: float, n: int = 5) -> list[float]:
    raw = (hi - lo) / max(n - 1, 1)
    mag = 10 ** math.floor(math.log10(raw)) if raw > 0 else 1
    step = next(k * mag for k in (1, 2, 2.5, 5, 10) if k * mag >= raw)
    out, v = [], math.ceil(lo / step) * step
    while v <= hi + 1e-9:
        out.append(v)
        v += step
    return out


def llr_chart(
    points: Sequence[tuple[int, float]],
    lower: float,
    upper: float,
    decided: int | None,
    *,
    title: str,
    width: int = 640,
) -> Markup:
    """The LLR (y) after each game count (x), with Wald's bounds and the decision."""
    height = 260
    left, right, top, bottom = 48, 14, 14, 32
    ys = [v for _, v in points]
    lo = min(min(ys), lower) - 0.3
    hi = max(max(ys), upper) + 0.3
    xmax = max(points[-1][0], 1)
    pw, ph = width - left - right, height - top - bottom

    def px(x: float) -> float:
        return left + pw * x / xmax

    def py(v: float) -> float:
        return top + ph * (hi - v) / (hi - lo)

    label = escape(title)
    parts = [
        f'<svg class="chart llr-chart" viewBox="0 0 {width} {height}" '
        f'preserveAspectRatio="xMidYMid meet" role="img" aria-label="{label}">',
        f"<title>{label}</title>",
    ]
    for t in _ticks(lo, hi):
        y = _f(py(t))
        parts.append(f'<line class="grid" x1="{left}" y1="{y}" x2="{width - right}" y2="{y}"/>')
        parts.append(
            f'<text class="tick" x="{left - 6}" y="{_f(py(t) + 4)}" text-anchor="end">{t:g}</text>'
        )
    for t in _ticks(0, xmax, 6):
        if t != int(t):
            continue
        parts.append(
            f'<text class="tick" x="{_f(px(t))}" y="{height - bottom + 16}" '
            f'text-anchor="middle">{int(t)}</text>'
        )
    parts.append(
        f'<line class="base" x1="{left}" y1="{_f(py(0))}" x2="{width - right}" y2="{_f(py(0))}"/>'
    )
    for value, name, colour in ((upper, "H1", "#1f7a3a"), (lower, "H0", "#b3261e")):
        y = _f(py(value))
        parts.append(
            f'<line class="bound bound-{name.lower()}" x1="{left}" y1="{y}" x2="{width - right}" '
            f'y2="{y}" stroke="{colour}" stroke-width="1.2" stroke-dasharray="6 3"/>'
        )
        parts.append(
            f'<text class="label" x="{width - right - 2}" y="{_f(py(value) - 4)}" '
            f'text-anchor="end">{name} {value:+.2f}</text>'
        )
    line = " ".join(f"{_f(px(x))},{_f(py(v))}" for x, v in points)
    parts.append(f'<polyline class="line" points="{line}"/>')
    if decided is not None:
        at = next((v for x, v in points if x == decided), None)
        if at is not None:
            parts.append(
                f'<circle class="decision" cx="{_f(px(decided))}" cy="{_f(py(at))}" r="4.5" '
                'fill="none" stroke="#1d2330" stroke-width="1.5"/>'
            )
    parts.append(f'<circle class="dot" cx="{_f(px(points[-1][0]))}" cy="{_f(py(ys[-1]))}" r="3"/>')
    parts.append(
        f'<text class="label" x="{width - right}" y="{height - 4}" text-anchor="end">games</text>'
    )
    parts.append("</svg>")
    return Markup("".join(parts))


def index_rows(pages: list[TestPage]) -> list[dict[str, Any]]:
    rows = []
    for p in pages:
        e = p.outcome.state.status().estimate
        rows.append(
            {
                "t": p.test,
                "id": p.id,
                "verdict": p.outcome.verdict,
                "elo": e.elo if math.isfinite(e.elo) else None,
                "games": e.games,
            }
        )
    return rows


def context(p: TestPage) -> dict[str, Any]:
    """What ``abtest.html`` shows of one test."""
    st = p.outcome.state.status()
    e = st.estimate
    t = p.test
    counts = list(e.counts)
    biggest = max(counts) if counts else 0
    labels = (
        list(zip(PAIR_SCORES, PAIR_RESULTS, strict=True))
        if e.games_per_unit == 2
        else [(f"{i}/{2 * e.games_per_unit}", "") for i in range(len(counts))]
    )
    outcomes = [
        {"score": lab[0], "results": lab[1], "count": c, "share": c / biggest if biggest else 0}
        for lab, c in zip(labels, counts, strict=True)
    ]
    bots = [
        {
            "role": b["role"],
            "name": b["name"],
            "source": source_from_dict(b["source"]).describe(),
        }
        for b in t.bots
    ]
    vr, vr_se = e.variance_ratio, e.variance_ratio_se
    return {
        "t": t,
        "o": p.outcome,
        "st": st,
        "e": e,
        "bots": bots,
        "outcomes": outcomes,
        "sequences": sorted(p.outcome.state.tally.outcomes.items()),
        "chart": llr_chart(
            p.llr_points,
            st.lower,
            st.upper,
            p.decided_games,
            title=f"test {p.id}: log-likelihood ratio after each pair, {t.new} against {t.base}",
        ),
        "variance": None if vr is None or vr_se is None else (vr, vr_se),
        "elo_finite": all(math.isfinite(x) for x in (e.elo, e.elo_low, e.elo_high)),
        "decided_games": p.decided_games,
    }


def write_pages(site: Any, pages: list[TestPage]) -> None:
    """One page per test, through the site's writer (its environment and progress)."""
    for p in pages:
        site.write(f"test/{p.id}.html", "abtest.html", **context(p))
