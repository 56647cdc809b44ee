"""A ladder's leaderboard: the full fit of its games (arena.leaderboard) with each bot
version's state on the ladder."""

from __future__ import annotations

from typing import Any

from sqlalchemy import Engine

from arena.ladder.field import is_provisional
from arena.leaderboard import ratings
from arena.status import LadderBotStatus
from arena.store import ladders
from arena.store.models import Ladder


def rows(eng: Engine, ladder: Ladder) -> list[dict[str, Any]]:
    """One row per bot version on the ladder, best rating first (versions without a rated
    game last): rank, bot, status, reason, elo, ci_low, ci_high, games, provisional."""
    fit = ratings(
        eng, variant=ladder.variant, brutal=ladder.brutal, tournament=ladder.tournament_id
    ).fit
    out = []
    for lb, entry in ladders.bots(eng, ladder.id or 0):
        name = entry.name
        rated = name in fit.ratings
        games = fit.games.get(name, 0)
        out.append(
            {
                "bot": name,
                "status": str(lb.status),
                "reason": lb.reason,
                "elo": round(fit.ratings[name], 1) if rated else None,
                "ci_low": round(fit.ci_low[name], 1) if rated else None,
                "ci_high": round(fit.ci_high[name], 1) if rated else None,
                "games": games,
                "provisional": lb.status == LadderBotStatus.ACTIVE
                and (not rated or is_provisional(games, fit.stderr(name))),
            }
        )
    out.sort(key=lambda r: (r["elo"] is None, -float(r["elo"] or 0.0), str(r["bot"])))
    for i, row in enumerate(out):
        row["rank"] = i + 1
    return out
