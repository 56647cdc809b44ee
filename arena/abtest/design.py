"""Seat layouts of the games of one unit, and how a finished game is scored for a test.

Players of a test are named by role: ``NEW``, ``BASE`` and, at tables of more than two
seats, the fixed opponents ``OPP1 .. OPP(K-2)``. A layout is the tuple of roles by seat.
Every game of one unit is played on the same deal (the same game seed); the designs:

``independent``
    one game per unit (a fresh deal each time); the layout rotates with the unit index
    so that NEW and BASE sit in every seat equally often over K units.
``swap``
    two games on one deal, NEW and BASE exchanging seats, the opponents staying put —
    for two seats the classical pair with the seats swapped. At more seats the pair's
    layout rotates with the unit index.
``rotations``
    the K cyclic rotations of one table on one deal: everybody sits in every seat once.
``rotations+swap``
    both: 2K games on one deal (for two seats the same as ``swap``).

A game's score for the test is the head-to-head result of NEW against BASE in the
final ranking (:func:`head_to_head`), as the pentanomial model needs; placement points
(:func:`placement_points`) are what tournaments' standings use.

:data:`RECOMMENDED` is ``swap`` at every table size: in the duplicate-deal study
(``benchmarks/duplicate_deals.py``, figures in this package's README) it cut the variance
of a unit to 0.63–0.87 of independent deals at two seats and 0.76–0.94 at three and four,
while the rotations did worse (0.91–0.98) and rotations with the swap at best as well.
"""

from __future__ import annotations

from collections.abc import Sequence

__all__ = [
    "DESIGNS",
    "RECOMMENDED",
    "base_layout",
    "games_per_unit",
    "head_to_head",
    "placement_points",
    "unit_layouts",
]

DESIGNS = ("independent", "swap", "rotations", "rotations+swap")
RECOMMENDED = "swap"
NEW, BASE = "NEW", "BASE"


def base_layout(seats: int) -> tuple[str, ...]:
    if not 2 <= seats <= 18:
        raise ValueError("an A/B test needs 2 to 18 seats")
    return (NEW, BASE, *(f"OPP{i}" for i in range(1, seats - 1)))


def _rotate(layout: tuple[str, ...], r: int) -> tuple[str, ...]:
    r %= len(layout)
    return layout[-r:] + layout[:-r] if r else layout


def _swap(layout: tuple[str, ...]) -> tuple[str, ...]:
    return tuple(BASE if x == NEW else NEW if x == BASE else x for x in layout)


def games_per_unit(design: str, seats: int) -> int:
    return len(unit_layouts(design, seats, 0))


def unit_layouts(design: str, seats: int, index: int) -> list[tuple[str, ...]]:
    """The layouts of the games of unit number ``index`` (all on one deal)."""
    base = base_layout(seats)
    if design == "independent":
        # over 2K units NEW and BASE see every seat and both orders
        layout = _rotate(base, index)
        return [_swap(layout) if (index // seats) % 2 else layout]
    if design == "swap":
        # two seats: always (NEW, BASE) then (BASE, NEW), so each game position of a unit
        # keeps one layout; larger tables rotate the pair round the table unit by unit
        layout = _rotate(base, index) if seats > 2 else base
        return [layout, _swap(layout)]
    if design == "rotations":
        order = _swap(base) if index % 2 else base
        return [_rotate(order, r) for r in range(seats)]
    if design == "rotations+swap":
        if seats == 2:
            return [base, _swap(base)]
        return [_rotate(o, r) for o in (base, _swap(base)) for r in range(seats)]
    raise ValueError(f"unknown design {design!r} (choose from {', '.join(DESIGNS)})")


def head_to_head(ranks: Sequence[int], new_seat: int, base_seat: int) -> str:
    """``W``, ``D`` or ``L``: did NEW finish above, level with, or below BASE (rank 1 best)."""
    a, b = ranks[new_seat], ranks[base_seat]
    return "W" if a < b else "D" if a == b else "L"


def placement_points(ranks: Sequence[int], seat: int) -> float:
    """Players finishing below this seat, ties counting half (first K-1 ... last 0)."""
    me = ranks[seat]
    return sum(1.0 if me < r else 0.5 if me == r else 0.0 for i, r in enumerate(ranks) if i != seat)
