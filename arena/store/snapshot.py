"""Everything stored except the games' heavy columns, read in one transaction.

The report renders from this: every tournament, entry, round and match, and every game
without its event log and choices (those are streamed by ``games.logs``).
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import Any, NamedTuple

from sqlmodel import select

from arena.store.db import Db, session
from arena.store.models import Entry, Game, Match, Round, Tournament


class LightGame(NamedTuple):
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


_LIGHT = tuple(getattr(Game, name) for name in LightGame._fields)


@dataclass
class Snapshot:
    tournaments: list[Tournament]  # by id
    entries: list[Entry]  # by id
    rounds: list[Round]  # by tournament, then index
    matches: list[Match]  # by round, then table
    games: list[LightGame]  # by id (storage order)


def read(db: Db) -> Snapshot:
    with session(db) as s:
        tournaments = list(s.exec(select(Tournament).order_by(Tournament.id)))
        entries = list(s.exec(select(Entry).order_by(Entry.id)))
        rounds = list(s.exec(select(Round).order_by(Round.tournament_id, Round.index)))
        matches = list(s.exec(select(Match).order_by(Match.round_id, Match.table)))
        rows = s.exec(select(*_LIGHT).order_by(Game.id)).all()
    games = [
        LightGame(
            *r[:6],
            list(r[6] or []),  # type: ignore[arg-type]
            list(r[7] or []),
            list(r[8] or []),
            r[9],
            r[10],
            list(r[11] or []),
            r[12],
        )
        for r in rows
    ]
    return Snapshot(tournaments, entries, rounds, matches, games)
