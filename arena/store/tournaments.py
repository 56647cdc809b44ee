"""Stored tournaments and their entries."""

from __future__ import annotations

from sqlmodel import col, func, select

from arena.status import TournamentStatus
from arena.store.db import Db, add_with_children, session, update
from arena.store.models import Entry, Game, Tournament, now


def create(db: Db, tournament: Tournament, entries: list[Entry]) -> int:
    """Store a new tournament with its entries in one transaction; returns its id."""
    add_with_children(db, tournament, entries, "tournament_id")
    assert tournament.id is not None
    return tournament.id


def get(db: Db, tid: int) -> tuple[Tournament, list[Entry]] | None:
    """A tournament and its entries in entry order; None if there is no such id."""
    with session(db) as s:
        t = s.get(Tournament, tid)
        if t is None:
            return None
        entries = list(
            s.exec(select(Entry).where(Entry.tournament_id == tid).order_by(col(Entry.id)))
        )
    return t, entries


def with_game_counts(db: Db) -> list[tuple[Tournament, int]]:
    """Every tournament by id, with its number of stored games (counted by the database)."""
    with session(db) as s:
        counts: dict[int | None, int] = dict(
            s.exec(select(Game.tournament_id, func.count()).group_by(col(Game.tournament_id))).all()
        )
        every = s.exec(select(Tournament).order_by(col(Tournament.id)))
        return [(t, counts.get(t.id, 0)) for t in every]


def mark_completed(db: Db, tid: int) -> Tournament:
    """Record that every round of the tournament is played."""
    return update(db, Tournament, tid, status=TournamentStatus.COMPLETED, finished=now())


def mark_failed(db: Db, tid: int, reason: str) -> Tournament:
    """Record that the tournament stopped for good (it is not resumed again), and why:
    ``options["failure"]``, one line."""
    found = get(db, tid)
    assert found is not None, f"no stored tournament {tid}"
    options = {**(found[0].options or {}), "failure": reason}
    return update(
        db, Tournament, tid, status=TournamentStatus.FAILED, finished=now(), options=options
    )


def failure(t: Tournament) -> str | None:
    """Why a failed tournament stopped (see :func:`mark_failed`); None for any other."""
    if t.status != TournamentStatus.FAILED:
        return None
    return str((t.options or {}).get("failure") or "stopped for good")
