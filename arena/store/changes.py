"""What the live site polls: a cheap signature of everything its pages show, and one
running event's progress."""

from __future__ import annotations

import hashlib
from typing import Any

from sqlmodel import col, func, select

from arena.status import RoundStatus, TournamentStatus
from arena.store.db import Db, session
from arena.store.models import Bot, BotVersion, Build, Game, Round, Tournament


def version(db: Db) -> str:
    """Changes whenever a game, an event, a round, a bot or a build is stored or changes
    status (a short hex digest of counts and maxima)."""
    with session(db) as s:
        parts: list[Any] = [
            *s.exec(select(func.count(col(Game.id)), func.max(col(Game.id)))).one(),
            *s.exec(select(func.count(col(Tournament.id)), func.max(col(Tournament.id)))).one(),
            s.exec(
                select(func.count(col(Tournament.id))).where(
                    Tournament.status == TournamentStatus.COMPLETED
                )
            ).one(),
            *s.exec(select(func.count(col(Round.id)), func.max(col(Round.id)))).one(),
            s.exec(
                select(func.count(col(Round.id))).where(Round.status == RoundStatus.COMPLETED)
            ).one(),
            s.exec(select(func.max(col(BotVersion.id)))).one(),
            s.exec(select(func.count(col(Bot.id))).where(Bot.removed == False)).one(),  # noqa: E712
            *s.exec(select(func.count(col(Build.id)), func.max(col(Build.finished)))).one(),
        ]
    return hashlib.sha256(repr(parts).encode()).hexdigest()[:16]


def progress(db: Db, tid: int) -> dict[str, Any] | None:
    """A tournament's games played, current round (rounds planned so far), rounds in all
    and status; None if there is no such tournament."""
    with session(db) as s:
        t = s.get(Tournament, tid)
        if t is None:
            return None
        played = s.exec(select(func.count(col(Game.id))).where(Game.tournament_id == tid)).one()
        planned = s.exec(select(func.count(col(Round.id))).where(Round.tournament_id == tid)).one()
        return {
            "id": tid,
            "games_done": int(played or 0),
            "round": int(planned or 0),
            "rounds": t.rounds,
            "status": str(t.status),
        }
