"""Search bot: determinized Monte Carlo within the deadline (README.md explains it).

For each decision it samples possible worlds behind what it has seen (engine.determinize
from the events it received: the unseen cards shuffled), tries every option in each world,
plays each game out to its end with the ev policy at every seat, and picks the option that
wins most often — unless it beats ev's own choice by less than ``z`` standard errors, when
it plays ev's. Every option is tried in the same worlds, so the comparison is not blurred
by luck.

    python bot.py                   # time-limited: 10 % of each request's deadline
    python bot.py --playouts 32     # a fixed number of worlds per decision: reproducible
    python bot.py --z 2             # standard errors needed to overrule ev (default 2)
"""

from __future__ import annotations

import argparse
import math
import random
import time

from arena.sdk import Bot, GameInfo, Request, run
from engine import Game, determinize
from engine.policies import EVPolicy
from engine.view import ruleset_for

EV = EVPolicy()


def playout(game: Game) -> Game:
    """Play ``game`` to its end with ev at every seat."""
    step = game.step
    while not game.over:
        d = game.decision
        assert d is not None
        step(EV(game, d))
    return game


def utility(game: Game, seat: int) -> float:
    """The seat's share of placement points in a finished game, from 0 (last) to 1 (first):
    every seat it beats counts 1, every seat it ties ½ (2 seats: win 1, tie ½, loss 0)."""
    me = game.players[seat].total
    beaten = tied = 0
    for p in game.players:
        if p.seat != seat:
            beaten += p.total < me
            tied += p.total == me
    return (beaten + 0.5 * tied) / (game.n - 1)


class SearchBot(Bot):
    name = "search"
    version = "search 1.0 (python)"

    def __init__(
        self,
        playouts: int | None = None,
        share: float = 0.1,
        most: int = 400,
        z: float = 2.0,
        least: int = 16,
    ) -> None:
        """``playouts``: worlds per decision (fixed, reproducible); otherwise as many as
        ``share`` of the deadline allows, at least ``least`` and at most ``most``. The
        search's choice replaces ev's only when it wins by more than ``z`` standard errors."""
        self.playouts = playouts
        self.share = share
        self.most = most
        self.least = least
        self.z = z

    def game_started(self, game: GameInfo) -> None:
        game.state["rng"] = random.Random(game.bot_seed)  # the same game replays exactly
        game.state["log"] = []  # every event of the game so far

    def choose(self, req: Request) -> int:
        info = req.game
        assert info is not None
        log: list[dict] = info.state["log"]
        log.extend(req.events)
        fallback = EV(req.view, req.decision)
        if len(req.options) < 2 or info.seats < 2:
            return fallback
        obs = req.observation
        rules = ruleset_for(info.variant, info.brutal, int(obs.get("target_score", 0)))
        rng: random.Random = info.state["rng"]
        root = determinize(rules, info.seats, req.seat, log, rng, unseen=obs["unseen"])
        d = root.decision
        if d is None or d.seat != req.seat or d.options != req.options:
            return fallback  # cannot happen with a consistent log; play safe
        return self.search(root, req, fallback, rng)

    def search(self, root: Game, req: Request, fallback: int, rng: random.Random) -> int:
        seat = req.seat
        n = len(req.options)
        stop_at = time.perf_counter() + self.share * req.deadline
        fixed = self.playouts
        # per option: the sum of (its utility - the fallback's) and of its square
        diff = [0.0] * n
        diff2 = [0.0] * n
        k = 0
        while True:
            world = root.determinized(seat, rng)
            values = []
            for i in range(n):
                g = world.clone(record_events=False)
                g.step(i)
                values.append(utility(playout(g), seat))
            base = values[fallback]
            for i, v in enumerate(values):
                diff[i] += v - base
                diff2[i] += (v - base) ** 2
            k += 1
            if fixed is not None:
                if k >= fixed:
                    break
            elif k >= self.most or (k >= self.least and time.perf_counter() >= stop_at):
                break
        best = max(range(n), key=lambda i: (diff[i], i == fallback))
        if best == fallback:
            return fallback
        mean = diff[best] / k
        var = max(0.0, diff2[best] / k - mean * mean)
        se = math.sqrt(var / max(1, k - 1))
        return best if mean > self.z * se else fallback


def main() -> None:
    ap = argparse.ArgumentParser(description="Determinized Monte Carlo search bot.")
    ap.add_argument("--playouts", type=int, help="worlds per decision (default: by time)")
    ap.add_argument(
        "--share", type=float, default=0.1, help="share of the deadline to search (0.1)"
    )
    ap.add_argument(
        "--z", type=float, default=2.0, help="standard errors needed to overrule ev (2)"
    )
    args = ap.parse_args()
    run(SearchBot(args.playouts, args.share, z=args.z), name="search")


if __name__ == "__main__":
    main()
