"""Counts in machine-readable output.

Games, rounds, decisions, faults and byes are whole numbers and are stored as ints. Wins
and placement points are counts too, but a shared win or a tied place splits them (two
winners get half a win each): :func:`split_count` prints them as an int when they are
whole and as a number with four decimals when a share made them fractional, so that
``--json`` never says ``3.0`` games won.
"""

from __future__ import annotations

DECIMALS = 4  # places kept of a split count


def split_count(value: float) -> int | float:
    """``value`` rounded to four decimals: an int when that is whole (``3.0`` → ``3``),
    else the float (``2.5``)."""
    rounded = round(value, DECIMALS)
    return int(rounded) if rounded.is_integer() else rounded
