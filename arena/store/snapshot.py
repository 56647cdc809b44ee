"""Everything stored except the games' heavy columns, read in one transaction.

The report renders from this: every tournament, entry, round and match, and every game
without its event log and choices (those are streamed by ``games.logs``).
"""

from __future__ import annotations

from dataclasses import dataclass, fields
from datetime import datetime
from typing import Any

from sqlmodel import col, select

from arena.status import GameStatus
from arena.store.db import Db, session
from arena.store.models import Entry, Game, Match, Round, Tournament


@dataclass
class LightGame:
    """A stored game without its event log and choices."""

    id: int
    match_id: int
    tournament_id: int
    index: int
    seed: int
    variant: str
    seating: list[str]
    ranks: list[int]
    totals: list[int]
    rounds: int
    status: str
    faults: list[dict[str, Any]]
    played: datetime | None

    @property
    def completed(self) -> bool:
        return self.status == GameStatus.COMPLETED


_NAMES = tuple(f.name for f in fields(LightGame))
_LISTS = ("seating", "ranks", "totals", "faults")  # JSON columns, NULL read as empty


@dataclass
class Snapshot:
    tournaments: list[Tournament]  # by id
    entries: list[Entry]  # by id
    rounds: list[Round]  # by tournament, then index
    matches: list[Match]  # by round, then table
    games: list[LightGame]  # by id (storage order)


def read(db: Db) -> Snapshot:
    with session(db) as s:
        tournaments = list(s.exec(select(Tournament).order_by(col(Tournament.id))))
        entries = list(s.exec(select(Entry).order_by(col(Entry.id))))
        rounds = list(s.exec(select(Round).order_by(col(Round.tournament_id), col(Round.index))))
        matches = list(s.exec(select(Match).order_by(col(Match.round_id), col(Match.table))))
        rows = s.exec(select(*(col(getattr(Game, n)) for n in _NAMES)).order_by(col(Game.id)))
        games = [_light(dict(zip(_NAMES, r, strict=True))) for r in rows]
    return Snapshot(tournaments, entries, rounds, matches, games)


def _light(values: dict[str, Any]) -> LightGame:
    for name in _LISTS:
        values[name] = list(values[name] or [])
    return LightGame(**values)
