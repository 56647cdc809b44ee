"""Read-only measures of a schedule: seat counts, pair meetings, repeats."""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable

from arena.schedule.types import RoundPlan


def seat_counts(plans: Iterable[RoundPlan], seats: int) -> dict[str, list[int]]:
    """bot -> how often it sat at each seat position 0..seats-1."""
    counts: dict[str, list[int]] = {}
    for plan in plans:
        for table in plan.tables:
            for pos, bot in enumerate(table.seats[:seats]):
                counts.setdefault(bot, [0] * seats)[pos] += 1
    return counts


def seat_spread(plans: Iterable[RoundPlan], seats: int) -> int:
    """The largest, over bots, of (most used seat position - least used), positions < seats."""
    counts = seat_counts(plans, seats)
    return max((max(c) - min(c) for c in counts.values()), default=0)


def pair_key(a: str, b: str) -> tuple[str, str]:
    return (a, b) if a < b else (b, a)


def pair_counts(plans: Iterable[RoundPlan]) -> Counter[tuple[str, str]]:
    """(bot, bot) in name order -> how many times the two sat at the same table."""
    meets: Counter[tuple[str, str]] = Counter()
    for plan in plans:
        for table in plan.tables:
            s = table.seats
            for i in range(len(s)):
                for j in range(i + 1, len(s)):
                    meets[pair_key(s[i], s[j])] += 1
    return meets


def repeat_meetings(plans: Iterable[RoundPlan]) -> int:
    """Meetings of a pair beyond its first."""
    return sum(n - 1 for n in pair_counts(plans).values() if n > 1)


def common_seat_spread(plans: Iterable[RoundPlan]) -> int:
    """Like :func:`seat_spread`, over the positions that every table of the event has.

    With tables of mixed sizes the extra seats of the larger tables are used less by
    construction; this measures the balance that is always achievable.
    """
    plans = list(plans)
    smallest = min((len(t.seats) for p in plans for t in p.tables), default=0)
    if not smallest:
        return 0
    counts = seat_counts(plans, smallest)
    return max(max(c[:smallest]) - min(c[:smallest]) for c in counts.values())
