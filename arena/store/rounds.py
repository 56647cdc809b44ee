"""Stored round plans: rounds, their matches (tables), and a match's completion.

A match's games are written together with its completion, in one transaction
(:func:`complete_match`), so a run killed at any moment has either all of a match's
games or none of them.
"""

from __future__ import annotations

from typing import Any

from sqlmodel import col, select

from arena.status import MatchStatus, RoundStatus
from arena.store.db import Db, add_with_children, session, update
from arena.store.models import Game, Match, Round, now


def planned(db: Db, tid: int, index: int) -> tuple[Round, list[Match]] | None:
    """Round ``index`` of a tournament and its matches by table, if it is stored."""
    with session(db) as s:
        rnd = s.exec(select(Round).where(Round.tournament_id == tid, Round.index == index)).first()
        if rnd is None:
            return None
        matches = list(
            s.exec(select(Match).where(Match.round_id == rnd.id).order_by(col(Match.table)))
        )
        return rnd, matches


def plans(db: Db, tid: int) -> list[tuple[Round, list[Match]]]:
    """Every stored round of a tournament in order, each with its matches by table."""
    with session(db) as s:
        rounds = list(
            s.exec(select(Round).where(Round.tournament_id == tid).order_by(col(Round.index)))
        )
        return [
            (
                r,
                list(
                    s.exec(select(Match).where(Match.round_id == r.id).order_by(col(Match.table)))
                ),
            )
            for r in rounds
        ]


def byes(db: Db, tid: int) -> list[list[str]]:
    """The bots sitting out each stored round of a tournament."""
    with session(db) as s:
        q = select(Round.byes).where(Round.tournament_id == tid).order_by(col(Round.index))
        return [list(b or []) for b in s.exec(q)]


def add(db: Db, rnd: Round, tables: list[dict[str, Any]]) -> tuple[Round, list[Match]]:
    """Store a newly planned round with its matches (one per table: the Match columns but
    the round's id), in one transaction."""
    matches = [Match(round_id=0, **table) for table in tables]  # the id is set on storing
    add_with_children(db, rnd, matches, "round_id")
    return rnd, matches


def mark_completed(db: Db, round_id: int | None) -> None:
    """Record that every match of the round is stored."""
    update(db, Round, round_id, status=RoundStatus.COMPLETED)


def start_match(db: Db, match_id: int | None) -> None:
    """Record that a match's games are being played."""
    update(db, Match, match_id, status=MatchStatus.RUNNING, started=now())


def match_completed(db: Db, match_id: int | None) -> bool:
    """Whether the match's games are stored."""
    with session(db) as s:
        row = s.get(Match, match_id)
        return row is not None and row.status == MatchStatus.COMPLETED


def complete_match(db: Db, match_id: int | None, games: list[Game]) -> None:
    """The match's games and its completion, in one transaction."""
    update(db, Match, match_id, also=games, status=MatchStatus.COMPLETED, finished=now())
