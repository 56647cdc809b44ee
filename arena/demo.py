"""The demo event: every 4-player table of a field of built-in policies, in-process."""

from __future__ import annotations

from itertools import combinations
from typing import Any

from rich.console import Console

from arena.console import progress_bar
from arena.seeds import derive_seed
from arena.simulate import play_game
from engine import Game, Ruleset
from engine.policies import make_policy

FIELD = ["ev", "threshold:27", "threshold:23", "threshold:18", "threshold:13", "random"]
TABLE = 4


def placement_points(ranks: tuple[int, ...]) -> list[float]:
    """First gets K−1 … last 0; tied seats share the points of the places they cover."""
    k = len(ranks)
    pts = []
    for r in ranks:
        tied = ranks.count(r)
        places = range(r - 1, r - 1 + tied)  # 0-based places covered by the tie
        pts.append(sum(k - 1 - p for p in places) / tied)
    return pts


def run_demo(rules: Ruleset, games: int, seed: int, console: Console) -> list[dict[str, Any]]:
    tables = list(combinations(range(len(FIELD)), TABLE))
    points = [0.0] * len(FIELD)
    wins = [0.0] * len(FIELD)
    played = [0] * len(FIELD)
    totals = [0] * len(FIELD)
    total = len(tables) * games
    done = 0
    with progress_bar(console, "demo event", total) as advance:
        for t, table in enumerate(tables):
            for g in range(games):
                # rotate seats so every entrant sits in every position equally often
                shift = g % TABLE
                seating = table[shift:] + table[:shift]
                gseed = derive_seed(seed, t, g)
                pols = [make_policy(FIELD[e], derive_seed(gseed, i)) for i, e in enumerate(seating)]
                game = play_game(Game(rules, TABLE, gseed), pols)
                for seat, entrant in enumerate(seating):
                    points[entrant] += placement_points(game.ranks)[seat]
                    played[entrant] += 1
                    totals[entrant] += game.players[seat].total
                for w in game.winners:
                    wins[seating[w]] += 1 / len(game.winners)
                done += 1
                advance(done)
    order = sorted(range(len(FIELD)), key=lambda e: (-points[e], -wins[e], FIELD[e]))
    rows = []
    for e in order:
        rank = 1 + sum(1 for o in range(len(FIELD)) if points[o] > points[e])
        rows.append(
            {
                "rank": rank,
                "bot": FIELD[e],
                "points": round(points[e], 2),
                "games": played[e],
                "wins": round(wins[e], 2),
                "mean_total": totals[e] / played[e],
            }
        )
    return rows
