"""Everything the report shows, read from the database in a few bulk queries.

The heavy columns of a game (its event log and choices) are not loaded here: the game pages
stream them one batch at a time (:func:`iter_game_logs`), so memory stays flat however many
games are stored.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

from arena.store import games as store_games
from arena.store import snapshot
from arena.store.db import Db
from arena.store.models import Entry, Match, Round, Tournament

GameInfo = snapshot.LightGame  # a stored game without its event log


@dataclass
class MatchInfo:
    row: Match
    games: list[GameInfo] = field(default_factory=list)


@dataclass
class RoundInfo:
    row: Round
    matches: list[MatchInfo] = field(default_factory=list)


@dataclass
class TournamentInfo:
    row: Tournament
    entries: list[Entry]
    rounds: list[RoundInfo]
    games: list[GameInfo]

    @property
    def id(self) -> int:
        assert self.row.id is not None
        return self.row.id


@dataclass
class SiteData:
    tournaments: list[TournamentInfo]
    games: list[GameInfo]  # every game, in storage order (the rating order)
    match_of: dict[int, Match]
    round_of: dict[int, Round]  # by round id
    tournament_of: dict[int, TournamentInfo]

    def bots(self) -> list[str]:
        """Every bot name that entered an event or sat at a table, sorted."""
        names = {e.name for t in self.tournaments for e in t.entries}
        for g in self.games:
            names.update(g.seating)
        return sorted(names, key=lambda n: (n.lower(), n))


def load_site(db: Db) -> SiteData:
    snap = snapshot.read(db)  # one transaction: the rows agree with each other
    tournaments, entries, rounds, matches = (
        snap.tournaments,
        snap.entries,
        snap.rounds,
        snap.matches,
    )
    games = snap.games

    by_match: dict[int, list[GameInfo]] = defaultdict(list)
    by_tournament: dict[int, list[GameInfo]] = defaultdict(list)
    for g in games:
        by_match[g.match_id].append(g)
        by_tournament[g.tournament_id].append(g)
    for lst in by_match.values():
        lst.sort(key=lambda g: g.index)

    matches_of_round: dict[int, list[MatchInfo]] = defaultdict(list)
    for m in matches:
        assert m.id is not None
        matches_of_round[m.round_id].append(MatchInfo(m, by_match.get(m.id, [])))
    rounds_of: dict[int, list[RoundInfo]] = defaultdict(list)
    for r in rounds:
        assert r.id is not None
        rounds_of[r.tournament_id].append(RoundInfo(r, matches_of_round.get(r.id, [])))
    entries_of: dict[int, list[Entry]] = defaultdict(list)
    for e in entries:
        entries_of[e.tournament_id].append(e)

    infos = []
    for t in tournaments:
        assert t.id is not None
        infos.append(
            TournamentInfo(
                t, entries_of.get(t.id, []), rounds_of.get(t.id, []), by_tournament.get(t.id, [])
            )
        )
    return SiteData(
        tournaments=infos,
        games=games,
        match_of={m.id: m for m in matches if m.id is not None},
        round_of={r.id: r for r in rounds if r.id is not None},
        tournament_of={t.id: t for t in infos},
    )


def iter_game_logs(db: Db, batch: int = 200) -> Iterator[tuple[int, list[int], list[Any]]]:
    """(game id, choices, events) for every game, in id order, a batch at a time."""
    last = 0
    while True:
        rows = store_games.logs(db, last, batch)
        if not rows:
            return
        yield from rows
        last = rows[-1][0]
