"""Helpers shared by the schedulers: validation, table sizes, seeded randomness, notes."""

from __future__ import annotations

import random
from collections import Counter

from arena.schedule.types import MAX_SEATS, MIN_SEATS, RoundPlan
from arena.seeds import derive_seed


def check_bots(bots: list[str]) -> list[str]:
    """The bot list as a new list; ValueError unless it holds at least 2 distinct names."""
    if isinstance(bots, str) or not hasattr(bots, "__iter__"):
        raise ValueError("bots must be a list of bot names")
    out = list(bots)
    for name in out:
        if not isinstance(name, str) or not name:
            raise ValueError(f"bot names must be non-empty strings, got {name!r}")
    dup = sorted(name for name, n in Counter(out).items() if n > 1)
    if dup:
        raise ValueError(f"duplicate bot names: {', '.join(dup)}")
    if len(out) < 2:
        raise ValueError(f"a tournament needs at least 2 bots, got {len(out)}")
    return out


def check_seats(seats: int) -> int:
    if isinstance(seats, bool) or not isinstance(seats, int):
        raise ValueError(f"seats must be an integer, got {seats!r}")
    if not MIN_SEATS <= seats <= MAX_SEATS:
        raise ValueError(f"seats must be between {MIN_SEATS} and {MAX_SEATS}, got {seats}")
    return seats


def check_rounds(rounds: int | None) -> int | None:
    if rounds is None:
        return None
    if isinstance(rounds, bool) or not isinstance(rounds, int):
        raise ValueError(f"rounds must be an integer, got {rounds!r}")
    if rounds < 1:
        raise ValueError(f"rounds must be at least 1, got {rounds}")
    return rounds


def check_seed(seed: int) -> int:
    if isinstance(seed, bool) or not isinstance(seed, int):
        raise ValueError(f"seed must be an integer, got {seed!r}")
    return seed


def check_index(index: int, total: int) -> None:
    if isinstance(index, bool) or not isinstance(index, int):
        raise ValueError(f"round index must be an integer, got {index!r}")
    if not 0 <= index < total:
        raise ValueError(f"round index {index} is out of range: this event has {total} rounds")


def rng_for(seed: int, *path: int | str) -> random.Random:
    """A private random stream for one purpose (``path``) of one event (``seed``)."""
    return random.Random(derive_seed(seed, "schedule", *path))


def split_sizes(n: int, k: int, prefer_byes: bool = False) -> tuple[list[int], int]:
    """Table sizes (largest first) and the number of byes for ``n`` bots at ``k``-seat tables.

    Default: ``ceil(n / k)`` tables whose sizes differ by at most one (so the smaller
    tables have ``k - 1`` seats whenever that is enough); a bye only when a table would
    otherwise seat a single bot (``k == 2`` and ``n`` odd). ``prefer_byes``: full tables
    only and ``n mod k`` byes (one table of ``n`` when ``n < k``).
    """
    if n < 2:
        return [], n
    if n <= k:
        return [n], 0
    if prefer_byes:
        return [k] * (n // k), n % k
    if k == 2:
        return [2] * (n // 2), n % 2
    tables = -(-n // k)
    q, r = divmod(n, tables)
    return [q + 1] * r + [q] * (tables - r), 0


def sizes_note(n: int, k: int, sizes: list[int], byes: int) -> str:
    """Explains tables smaller than ``k`` and byes; empty when every table is full."""
    parts = []
    small = Counter(s for s in sizes if s < k)
    if small:
        if len(sizes) == 1:
            parts.append(f"1 table of {n} because there are only {n} bots for {k} seats")
        else:
            tables = " and ".join(
                f"{plural(count, 'table')} of {s}"
                for s, count in sorted(small.items(), reverse=True)
            )
            parts.append(f"{tables} because {n} is not divisible by {k}")
    if byes:
        who = "1 bot sits" if byes == 1 else f"{byes} bots sit"
        why = (
            f"{n} bots cannot all be paired"
            if k == 2
            else f"only full tables of {k} are played and {n} is not divisible by {k}"
        )
        parts.append(f"{who} out because {why}")
    return "; ".join(parts)


def join_notes(*parts: str) -> str:
    return "; ".join(p for p in parts if p)


def plural(n: int, word: str) -> str:
    return f"{n} {word}" if n == 1 else f"{n} {word}s"


def copy_plan(plan: RoundPlan) -> RoundPlan:
    """A copy the caller may change without touching the scheduler's own plan."""
    return RoundPlan(tables=list(plan.tables), byes=list(plan.byes), note=plan.note)
