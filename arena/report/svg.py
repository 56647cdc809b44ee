"""Inline SVG drawn by the report itself: interval bars and rating-history charts.

Only numbers go into the drawings' geometry; every text is escaped. No namespace URL is
written (HTML5 parsers do not need one), so pages hold no external address at all.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

from markupsafe import Markup, escape


def _f(x: float) -> str:
    return f"{x:.1f}".rstrip("0").rstrip(".")


def scale_of(lows: Sequence[float], highs: Sequence[float]) -> tuple[float, float]:
    """A common axis for a leaderboard's interval bars (rounded out to 50 Elo)."""
    if not lows:
        return 1400.0, 1600.0
    lo = math.floor(min(lows) / 50) * 50
    hi = math.ceil(max(highs) / 50) * 50
    if hi <= lo:
        hi = lo + 50
    return float(lo), float(hi)


def interval_bar(
    elo: float, low: float, high: float, axis: tuple[float, float], width: int = 160
) -> Markup:
    """The 95 % interval as a bar with a dot at the rating, on the table's common axis."""
    a, b = axis
    h = 16

    def x(v: float) -> float:
        return 4 + (width - 8) * (min(max(v, a), b) - a) / (b - a)

    label = f"95% interval {low:.0f} to {high:.0f}, Elo {elo:.0f}"
    return Markup(
        f'<svg class="ci" width="{width}" height="{h}" viewBox="0 0 {width} {h}" '
        f'role="img" aria-label="{escape(label)}">'
        f"<title>{escape(label)}</title>"
        f'<line class="axis" x1="4" y1="{h / 2}" x2="{width - 4}" y2="{h / 2}"/>'
        f'<rect class="bar" x="{_f(x(low))}" y="4" width="{_f(max(x(high) - x(low), 1))}" '
        f'height="{h - 8}" rx="2"/>'
        f'<circle class="dot" cx="{_f(x(elo))}" cy="{h / 2}" r="3.5"/>'
        "</svg>"
    )


def _ticks(lo: float, hi: float, n: int = 5) -> list[float]:
    span = hi - lo
    raw = span / max(n - 1, 1)
    mag = 10 ** math.floor(math.log10(raw)) if raw > 0 else 1
    step = next(m * mag for m in (1, 2, 2.5, 5, 10) if m * mag >= raw)
    start = math.ceil(lo / step) * step
    out = []
    v = start
    while v <= hi + 1e-9:
        out.append(v)
        v += step
    return out


def rating_chart(
    ratings: Sequence[float],
    *,
    initial: float = 1500.0,
    title: str = "",
    x_label: str = "games",
    width: int = 640,
) -> Markup:
    """A rating after each step (x: the step number from ``initial`` at 0, y: rating)."""
    height = 240
    left, right, top, bottom = 48, 12, 14, 30
    ys = [initial, *ratings]
    lo, hi = min(ys), max(ys)
    pad = max(10.0, (hi - lo) * 0.08)
    lo, hi = lo - pad, hi + pad
    n = len(ys) - 1
    pw, ph = width - left - right, height - top - bottom

    def px(i: int) -> float:
        return left + (pw * i / n if n else pw / 2)

    def py(v: float) -> float:
        return top + ph * (hi - v) / (hi - lo)

    parts = [
        f'<svg class="chart" viewBox="0 0 {width} {height}" preserveAspectRatio="xMidYMid meet" '
        f'role="img" aria-label="{escape(title or "rating history")}">',
        f"<title>{escape(title or 'rating history')}</title>",
    ]
    for t in _ticks(lo, hi):
        y = py(t)
        parts.append(
            f'<line class="grid" x1="{left}" y1="{_f(y)}" x2="{width - right}" y2="{_f(y)}"/>'
        )
        parts.append(
            f'<text class="tick" x="{left - 6}" y="{_f(y + 4)}" text-anchor="end">{t:.0f}</text>'
        )
    if n:
        for t in _ticks(0, n, 6):
            if t != int(t):
                continue
            x = px(int(t))
            parts.append(
                f'<text class="tick" x="{_f(x)}" y="{height - bottom + 16}" '
                f'text-anchor="middle">{int(t)}</text>'
            )
    y0 = py(initial)
    parts.append(
        f'<line class="base" x1="{left}" y1="{_f(y0)}" x2="{width - right}" y2="{_f(y0)}"/>'
    )
    points = " ".join(f"{_f(px(i))},{_f(py(v))}" for i, v in enumerate(ys))
    parts.append(f'<polyline class="line" points="{points}"/>')
    parts.append(f'<circle class="dot" cx="{_f(px(n))}" cy="{_f(py(ys[-1]))}" r="3.5"/>')
    parts.append(
        f'<text class="label" x="{width - right}" y="{height - 4}" '
        f'text-anchor="end">{escape(x_label)}</text>'
    )
    parts.append("</svg>")
    return Markup("".join(parts))


SEAT_STYLES = 8  # the stylesheet colours seats s0 … s7, then repeats with a dashed line


def score_chart(
    rounds: Sequence[tuple[int, int, Sequence[int]]],
    names: Sequence[str],
    *,
    width: int = 640,
) -> Markup:
    """Every seat's total after each round: a line per seat, a point per round and seat.

    ``rounds``: (round, replay step of its scoring, totals by seat), as
    :func:`arena.report.moves.score_rounds` gives them. Each point links to its step
    (``#step-N``), so a click opens the replay at that round's scoring; a legend names the
    seats (escaped)."""
    height = 260
    left, right, top, bottom = 44, 12, 14, 30
    n = len(rounds)
    values = [0, *(t for _, _, totals in rounds for t in totals)]
    pad = max(5.0, (max(values) - min(values)) * 0.06)
    lo, hi = min(values) - pad, max(values) + pad
    pw, ph = width - left - right, height - top - bottom

    def px(i: int) -> float:  # i: 0 before the first round, k after round k
        return left + pw * i / n if n else left + pw / 2

    def py(v: float) -> float:
        return top + ph * (hi - v) / (hi - lo)

    title = "totals after each round"
    parts = [
        f'<svg class="chart score-chart" id="score-chart" viewBox="0 0 {width} {height}" '
        f'preserveAspectRatio="xMidYMid meet" role="img" aria-label="{title}">',
        f"<title>{title}</title>",
    ]
    for t in _ticks(lo, hi):
        y = py(t)
        parts.append(
            f'<line class="grid" x1="{left}" y1="{_f(y)}" x2="{width - right}" y2="{_f(y)}"/>'
        )
        parts.append(
            f'<text class="tick" x="{left - 6}" y="{_f(y + 4)}" text-anchor="end">{t:.0f}</text>'
        )
    for t in _ticks(1, max(n, 1), 8):
        if t != int(t) or not 1 <= t <= n:
            continue
        parts.append(
            f'<text class="tick" x="{_f(px(int(t)))}" y="{height - bottom + 16}" '
            f'text-anchor="middle">{int(t)}</text>'
        )
    parts.append(
        f'<line class="base" x1="{left}" y1="{_f(py(0))}" x2="{width - right}" y2="{_f(py(0))}"/>'
    )
    parts.append(
        f'<line class="now" id="score-now" x1="{_f(px(0))}" y1="{top}" x2="{_f(px(0))}" '
        f'y2="{top + ph}" data-x0="{_f(px(0))}" data-dx="{_f(px(1) - px(0)) if n else 0}"/>'
    )
    for seat, name in enumerate(names):
        style = f"s{seat % SEAT_STYLES}" + (" dashed" if seat >= SEAT_STYLES else "")
        pts = [(px(0), py(0))] + [
            (px(k), py(totals[seat])) for k, (_, _, totals) in enumerate(rounds, 1)
        ]
        line = " ".join(f"{_f(x)},{_f(y)}" for x, y in pts)
        parts.append(f'<g class="seat {style}" data-seat="{seat}">')
        parts.append(f'<polyline class="line" points="{line}"/>')
        for k, (rnd, step, totals) in enumerate(rounds, 1):
            label = f"{name} after round {rnd}: {totals[seat]}"
            parts.append(
                f'<a href="#step-{step}"><circle class="point" cx="{_f(px(k))}" '
                f'cy="{_f(py(totals[seat]))}" r="3.5" data-total="{totals[seat]}">'
                f"<title>{escape(label)}</title></circle></a>"
            )
        parts.append("</g>")
    parts.append(
        f'<text class="label" x="{width - right}" y="{height - 4}" text-anchor="end">rounds</text>'
    )
    parts.append("</svg>")
    legend = "".join(
        f'<li class="s{seat % SEAT_STYLES}{" dashed" if seat >= SEAT_STYLES else ""}" '
        f'data-seat="{seat}"><span class="swatch"></span>{escape(name)}</li>'
        for seat, name in enumerate(names)
    )
    return Markup("".join(parts) + f'<ul class="chart-legend">{legend}</ul>')
