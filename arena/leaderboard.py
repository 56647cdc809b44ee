"""The Elo leaderboard from stored games (recomputable at any time)."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from sqlalchemy import Engine
from sqlmodel import Session, select

from arena.store.db import get_engine
from arena.store.models import Game

BATCH = 1000  # rows read or written at a time


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
    Returns the number of points stored.

    Games are streamed from the database in batches and the points written in batches, in
    one transaction: memory stays flat however many games are stored."""
    from sqlalchemy import insert
    from sqlmodel import delete

    from arena.ratings import GameResult
    from arena.ratings.elo import elo_steps
    from arena.store.models import RatingPoint

    eng = db if isinstance(db, Engine) else get_engine(db)
    stored = 0
    with Session(eng) as s:
        s.exec(delete(RatingPoint).where(RatingPoint.variant == variant))  # type: ignore[call-overload]
        rows = s.exec(
            select(Game.id, Game.seating, Game.ranks)
            .where(Game.status == "completed", Game.variant == variant)
            .order_by(Game.id)
            .execution_options(yield_per=BATCH)
        )
        ids: list[int] = []  # the game of each step still to be written

        def games() -> Iterator[GameResult]:
            for gid, seating, ranks in rows:
                ids.append(gid)
                yield GameResult(tuple(seating), tuple(ranks))

        batch: list[dict[str, Any]] = []
        for step in elo_steps(games()):
            gid = ids.pop()
            batch.extend(
                {"variant": variant, "bot": bot, "game_id": gid, "rating": rating}
                for bot, rating in step
            )
            if len(batch) >= BATCH:
                s.execute(insert(RatingPoint), batch)
                stored += len(batch)
                batch = []
        if batch:
            s.execute(insert(RatingPoint), batch)
            stored += len(batch)
        s.commit()
    return stored
