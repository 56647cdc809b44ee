"""In-process simulation of built-in policies (``arena simulate``), no network."""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from arena.counts import split_count
from arena.seeds import derive_seed
from engine import Game, Ruleset
from engine.policies import make_policy


@dataclass
class SeatStats:
    policy: str
    wins: float = 0.0
    rounds: int = 0
    round_score_sum: int = 0
    busts: int = 0
    flip7s: int = 0
    total_sum: int = 0

    def as_dict(self, games: int) -> dict[str, Any]:
        r = self.rounds or 1
        return {
            "policy": self.policy,
            "wins": split_count(self.wins),
            "mean_round_score": round(self.round_score_sum / r, 4),
            "bust_rate": round(self.busts / r, 4),
            "flip7_rate": round(self.flip7s / r, 4),
            "mean_total": round(self.total_sum / (games or 1), 4),
        }


@dataclass
class SimResult:
    games: int
    rounds: int
    seconds: float
    seats: list[SeatStats] = field(default_factory=list)

    def as_dict(self) -> dict[str, Any]:
        return {
            "games": self.games,
            "rounds": self.rounds,
            "seconds": round(self.seconds, 4),
            "rounds_per_second": round(self.rounds / self.seconds, 1) if self.seconds else None,
            "mean_rounds_per_game": round(self.rounds / self.games, 4) if self.games else 0,
            "seats": [s.as_dict(self.games) for s in self.seats],
        }


def play_game(game: Game, policies: Sequence[Callable[[Game, Any], int]]) -> Game:
    """Drive one game to the end with one policy per seat."""
    step = game.step
    while not game.over:
        d = game.decision
        assert d is not None
        step(policies[d.seat](game, d))
    return game


def simulate(
    ruleset: Ruleset,
    seats: int,
    policies: Sequence[str],
    games: int,
    seed: int,
    *,
    single_round: bool = False,
    progress: Callable[[int], None] | None = None,
) -> SimResult:
    """Play ``games`` games; seat i uses ``policies[i]``. Game g has seed derive_seed(seed, g)."""
    if len(policies) != seats:
        raise ValueError("one policy per seat is required")
    stats = [SeatStats(p) for p in policies]
    rounds = 0
    every = max(1, games // 200)
    t0 = time.perf_counter()
    for g in range(games):
        gseed = derive_seed(seed, g)
        pols = [make_policy(spec, derive_seed(gseed, "seat", i)) for i, spec in enumerate(policies)]
        game = play_game(Game(ruleset, seats, gseed, single_round=single_round), pols)
        rounds += game.round
        share = 1.0 / len(game.winners)
        for w in game.winners:
            stats[w].wins += share
        for ev in game.events:
            k = ev[0]
            if k == "round_end":
                for st, sc in zip(stats, ev[2], strict=True):
                    st.round_score_sum += sc
                    st.rounds += 1
            elif k == "bust":
                stats[ev[1]].busts += 1
            elif k == "flip7":
                stats[ev[1]].flip7s += 1
        for st, p in zip(stats, game.players, strict=True):
            st.total_sum += p.total
        if progress is not None and (g + 1) % every == 0:
            progress(g + 1)
    seconds = time.perf_counter() - t0
    if progress is not None:
        progress(games)
    return SimResult(games, rounds, seconds, stats)
