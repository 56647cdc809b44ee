"""The figures on the pages, computed from the stored games (never from anything else).

Standings reuse the tournament's own rules (:func:`arena.standings.compute_standings`,
:func:`arena.standings.bye_credits`), ratings come from :mod:`arena.leaderboard`, so the
report and the CLI cannot disagree.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any

from arena.faults import FaultKind, forfeited_seats
from arena.report.data import GameInfo, TournamentInfo
from arena.standings import (
    GameRow,
    StandingRow,
    bye_credits,
    compute_standings,
    placement_points,
)

# "Provisional" ratings (shown with a flag on the leaderboard): too few games, or an
# interval too wide to rank the bot with any confidence.
PROVISIONAL_MIN_GAMES = 20
PROVISIONAL_MAX_INTERVAL = 200.0  # width of the 95 % interval, in Elo points (±100)

FAULT_KINDS = [str(k) for k in FaultKind]


def is_provisional(games: int, ci_low: float, ci_high: float) -> bool:
    """Fewer than PROVISIONAL_MIN_GAMES games, or a 95 % interval wider than
    PROVISIONAL_MAX_INTERVAL Elo points."""
    return games < PROVISIONAL_MIN_GAMES or (ci_high - ci_low) > PROVISIONAL_MAX_INTERVAL


# ---------------------------------------------------------------- one tournament
def standings(t: TournamentInfo, elo: dict[str, float] | None) -> list[StandingRow]:
    """As ``arena.tournament.standings_of`` computes them: the same bye credits, and the
    event's fitted ratings (``elo``) as the last tie-break and rating rank."""
    byes = bye_credits(
        [r.row.byes for r in t.rounds],
        t.row.games_per_match,
        format=t.row.format,
        challengers=[e.name for e in t.entries if e.challenger],
    )
    rows = [GameRow(g.seating, g.ranks, g.status, forfeited_seats(g.faults)) for g in t.games]
    return compute_standings(
        [e.name for e in t.entries], rows, table_size=t.row.seats, byes=byes, elo=elo
    )


@dataclass
class Record:
    """Head-to-head placements of one bot against another (games where both sat)."""

    above: int = 0
    below: int = 0
    tied: int = 0

    @property
    def games(self) -> int:
        return self.above + self.below + self.tied

    @property
    def score(self) -> float | None:
        return (self.above + 0.5 * self.tied) / self.games if self.games else None


def head_to_head(games: Iterable[GameInfo]) -> dict[tuple[str, str], Record]:
    """(a, b) → how a placed against b, over the completed games where both sat."""
    out: dict[tuple[str, str], Record] = defaultdict(Record)
    for g in games:
        if not g.completed:
            continue
        for i, a in enumerate(g.seating):
            for j, b in enumerate(g.seating):
                if i == j:
                    continue
                rec = out[(a, b)]
                if g.ranks[i] < g.ranks[j]:
                    rec.above += 1
                elif g.ranks[i] > g.ranks[j]:
                    rec.below += 1
                else:
                    rec.tied += 1
    return dict(out)


def fault_bot(f: dict[str, Any]) -> str:
    return f.get("bot") or "(arena)"


def fault_table(
    games: Iterable[GameInfo],
) -> tuple[list[str], list[str], dict[tuple[str, str], int]]:
    """(kinds, bots, counts[(bot, kind)]) of every fault recorded in the games."""
    counts: dict[tuple[str, str], int] = defaultdict(int)
    for g in games:
        for f in g.faults:
            counts[(fault_bot(f), str(f.get("kind", "?")))] += 1
    kinds_seen = {k for _, k in counts}
    kinds = [k for k in FAULT_KINDS if k in kinds_seen] + sorted(kinds_seen - set(FAULT_KINDS))
    bots = sorted({b for b, _ in counts})
    return kinds, bots, dict(counts)


@dataclass
class SeatStat:
    table: int  # seats at the table
    seat: int
    games: int = 0
    wins: float = 0.0  # a shared win counts 1/k
    total_sum: int = 0
    rank_sum: int = 0

    @property
    def win_rate(self) -> float:
        return self.wins / self.games if self.games else 0.0

    @property
    def mean_total(self) -> float:
        return self.total_sum / self.games if self.games else 0.0

    @property
    def mean_rank(self) -> float:
        return self.rank_sum / self.games if self.games else 0.0


def seat_stats(games: Iterable[GameInfo]) -> list[SeatStat]:
    """Win rate by seat position (seat 0 deals first, so it acts last in round 1)."""
    stats: dict[tuple[int, int], SeatStat] = {}
    for g in games:
        if not g.completed:
            continue
        k = len(g.seating)
        firsts = [s for s, r in enumerate(g.ranks) if r == 1]
        for s in range(k):
            st = stats.setdefault((k, s), SeatStat(k, s))
            st.games += 1
            st.total_sum += g.totals[s] if s < len(g.totals) else 0
            st.rank_sum += g.ranks[s]
            if s in firsts:
                st.wins += 1 / len(firsts)
    return [stats[key] for key in sorted(stats, key=lambda key: (-key[0], key[1]))]


@dataclass
class MatchLine:
    """One bot's results at one table: a cell per game and its placement points."""

    bot: str
    cells: list[tuple[int, int, int] | None] = field(default_factory=list)  # (rank, total, gid)
    points: float = 0.0


def match_lines(
    seats: Sequence[str], games: Sequence[GameInfo], table_size: int
) -> list[MatchLine]:
    lines = {b: MatchLine(b) for b in seats}
    for g in games:
        pts = placement_points(g.ranks, table_size) if g.completed else None
        for bot, line in lines.items():
            if bot in g.seating and g.completed:
                s = g.seating.index(bot)
                line.cells.append((g.ranks[s], g.totals[s], g.id))
                assert pts is not None
                line.points += pts[s]
            else:
                line.cells.append(None)
    return [lines[b] for b in seats]
