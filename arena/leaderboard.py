"""The Elo leaderboard from stored games (recomputable at any time)."""

from __future__ import annotations

from typing import Any

from sqlalchemy import Engine
from sqlmodel import Session, select

from arena.store.db import get_engine
from arena.store.models import Game


def stored_results(
    db: str | Engine | None, *, variant: str | None = None, tournament: int | None = None
) -> list[Any]:
    """Completed games as rating inputs, in the order they were stored."""
    from arena.ratings import GameResult

    eng = db if isinstance(db, Engine) else get_engine(db)
    q = select(Game.seating, Game.ranks).where(Game.status == "completed").order_by(Game.id)
    if variant is not None:
        q = q.where(Game.variant == variant)
    if tournament is not None:
        q = q.where(Game.tournament_id == tournament)
    with Session(eng) as s:
        rows = s.exec(q).all()
    return [GameResult(tuple(seating), tuple(ranks)) for seating, ranks in rows]


def leaderboard_rows(
    db: str | Engine | None, *, variant: str | None = None, tournament: int | None = None
) -> list[dict[str, Any]]:
    from arena.ratings import fit_ratings

    results = stored_results(db, variant=variant, tournament=tournament)
    if not results:
        return []
    fit = fit_ratings(results)
    rows = []
    for i, bot in enumerate(fit.players):
        rows.append(
            {
                "rank": i + 1,
                "bot": bot,
                "elo": round(fit.ratings[bot], 1),
                "ci_low": round(fit.ci_low[bot], 1),
                "ci_high": round(fit.ci_high[bot], 1),
                "games": fit.games[bot],
                "score": round(fit.score[bot], 4),
                "los_next": None if fit.los_next[bot] is None else round(fit.los_next[bot], 4),
            }
        )
    return rows


def record_history(db: str | Engine | None, variant: str) -> int:
    """Recompute the incremental Elo history of a variant from its stored games and store
    it (rating_point rows: bot, game, rating after that game), replacing the old one.
    Returns the number of points stored."""
    from sqlmodel import delete

    from arena.ratings import GameResult, incremental_elo
    from arena.store.models import RatingPoint

    eng = db if isinstance(db, Engine) else get_engine(db)
    with Session(eng) as s:
        rows = s.exec(
            select(Game.id, Game.seating, Game.ranks)
            .where(Game.status == "completed", Game.variant == variant)
            .order_by(Game.id)
        ).all()
        elo = incremental_elo(GameResult(tuple(seat), tuple(rk)) for _, seat, rk in rows)
        ids = [gid for gid, _, _ in rows]
        s.exec(delete(RatingPoint).where(RatingPoint.variant == variant))  # type: ignore[call-overload]
        s.add_all(
            RatingPoint(variant=variant, bot=bot, game_id=ids[i], rating=rating)
            for i, bot, rating in elo.history
        )
        s.commit()
        return len(elo.history)
