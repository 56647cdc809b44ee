"""Stored games, read the way each reader needs them.

Standings and ratings read only a game's seating, ranks and faults (never its event
log): standings mark the seats that forfeited, ratings leave out the seats whose bot never
played (``arena.faults.absent_seats``). The report streams the heavy columns a batch at a
time (:func:`logs`).
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any, NamedTuple

from sqlmodel import col, func, select

from arena.faults import absent_seats, forfeited_seats
from arena.status import GameStatus
from arena.store.db import Db, session
from arena.store.models import Game, Match, Tournament

BATCH = 1000  # rows fetched from the database at a time when results are streamed


class Result(NamedTuple):
    """What ratings need of a completed game (``absent``: the seats whose bot never
    played it, see ``arena.faults.Fault.absent``)."""

    game_id: int
    round_id: int
    seating: list[str]
    ranks: list[int]
    absent: frozenset[int] = frozenset()


def count(db: Db, tid: int) -> int:
    """Stored games of a tournament, counted by the database."""
    with session(db) as s:
        return s.exec(select(func.count()).select_from(Game).where(Game.tournament_id == tid)).one()


def of_tournament(db: Db, tid: int) -> list[Game]:
    """Every stored game of a tournament with all its columns (event logs too), in storage
    order: for tools and tests."""
    with session(db) as s:
        return list(s.exec(select(Game).where(Game.tournament_id == tid).order_by(col(Game.id))))


def placements(db: Db, tid: int) -> Iterator[tuple[list[str], list[int], str, frozenset[int]]]:
    """(seating, ranks, status, the seats that forfeited) of each stored game of a
    tournament, streamed in batches: no event logs, and never the whole tournament in
    memory at once."""
    q = (
        select(Game.seating, Game.ranks, Game.status, Game.faults)
        .where(Game.tournament_id == tid)
        .order_by(col(Game.id))
        .execution_options(yield_per=BATCH)
    )
    with session(db) as s:
        for seating, ranks, status, found in s.exec(q):
            yield list(seating), list(ranks), status, forfeited_seats(found or [])


def faults(db: Db, tid: int) -> Iterator[list[dict[str, Any]]]:
    """The faults of each stored game of a tournament (void games too), streamed in
    batches, in storage order: what the fault summary after an event counts."""
    q = (
        select(Game.faults)
        .where(Game.tournament_id == tid)
        .order_by(col(Game.id))
        .execution_options(yield_per=BATCH)
    )
    with session(db) as s:
        for found in s.exec(q):
            yield list(found or [])


def _completed(variant: str | None, brutal: bool | None, tournament: int | None) -> Any:
    columns = (Game.id, Match.round_id, Game.seating, Game.ranks, Game.faults)
    q = select(*(col(c) for c in columns)).join(Match, col(Match.id) == Game.match_id)
    q = q.where(Game.status == GameStatus.COMPLETED)
    if variant is not None:
        q = q.where(Game.variant == variant)
    if brutal is not None:
        q = q.join(Tournament, col(Tournament.id) == Game.tournament_id).where(
            Tournament.brutal == brutal
        )
    if tournament is not None:
        q = q.where(Game.tournament_id == tournament)
    # the order of planning (match by match, game by game), not of storage: the same games
    # give the same input whichever match of a round finished first
    return q.order_by(col(Game.match_id), col(Game.index))


def results(
    db: Db,
    *,
    variant: str | None = None,
    brutal: bool | None = None,
    tournament: int | None = None,
) -> list[Result]:
    """Every completed game that matches the filters (``None``: any), in the order the
    games were planned."""
    q = _completed(variant, brutal, tournament).execution_options(yield_per=BATCH)
    with session(db) as s:
        return [
            Result(gid, rid, list(seating), list(ranks), absent_seats(found or []))
            for gid, rid, seating, ranks, found in s.exec(q)
        ]


def kinds(db: Db) -> list[tuple[str, bool]]:
    """Every (variant, brutal) of which completed games are stored, sorted."""
    q = (
        select(Game.variant, Tournament.brutal)
        .join(Tournament, col(Tournament.id) == Game.tournament_id)
        .where(Game.status == GameStatus.COMPLETED)
        .distinct()
    )
    with session(db) as s:
        return sorted((v, bool(b)) for v, b in s.exec(q).all())


def logs(db: Db, after: int, limit: int) -> list[tuple[int, list[int], list[Any]]]:
    """(id, choices, events) of up to ``limit`` games whose id is above ``after``, in id
    order."""
    with session(db) as s:
        rows = s.exec(
            select(Game.id, Game.choices, Game.events)
            .where(col(Game.id) > after)
            .order_by(col(Game.id))
            .limit(limit)
        ).all()
    out = []
    for gid, choices, events in rows:
        assert gid is not None  # a stored row has its id
        out.append((gid, list(choices or []), list(events or [])))
    return out


def logs_of(db: Db, ids: list[int]) -> list[tuple[int, list[int], list[Any]]]:
    """(id, choices, events) of the games with these ids (at most a few hundred at a
    time), in id order."""
    if not ids:
        return []
    with session(db) as s:
        rows = s.exec(
            select(Game.id, Game.choices, Game.events)
            .where(col(Game.id).in_(ids))
            .order_by(col(Game.id))
        ).all()
    return [(gid, list(c or []), list(e or [])) for gid, c, e in rows if gid is not None]
