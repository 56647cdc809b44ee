"""Search bot: determinized Monte Carlo within the deadline (README.md explains it).

For each decision it samples possible worlds behind what it has seen (engine.determinize
from the events it received: the unseen cards shuffled), tries every option in each world,
plays the round out with the ev policy at every seat, values the totals it ends with (the
result itself if the game ended, else the chance that each lead survives the rounds still
to come), and picks the option worth most — unless it beats ev's own choice by less than
``z`` standard errors, when it plays ev's. Every option is tried in the same worlds, so
the comparison is not blurred by luck.

    python bot.py                   # time-limited: 10 % of each request's deadline
    python bot.py --playouts 32     # a fixed number of worlds per decision: reproducible
    python bot.py --z 1             # standard errors needed to overrule ev (default 1)
"""

from __future__ import annotations

import argparse
import math
import random
import statistics
import time
from typing import ClassVar

from arena.sdk import Bot, GameInfo, Request, run
from engine import Game, determinize, get_ruleset
from engine.policies import EVPolicy
from engine.view import ruleset_for

EV = EVPolicy()


def playout(game: Game, round_: int) -> Game:
    """Play ``game`` with ev at every seat to the end of round ``round_`` (or of the game)."""
    step = game.step
    while not game.over and game.round == round_:
        d = game.decision
        assert d is not None
        step(EV(game, d))
    return game


class RoundScores:
    """The mean and spread of one seat's round score when every seat plays ev, measured
    once per variant and table size on single-round games (the same games every time)."""

    ROUNDS = 300
    known: ClassVar[dict[tuple[str, bool, int], RoundScores]] = {}

    def __init__(self, variant: str, brutal: bool, seats: int) -> None:
        rules = get_ruleset(variant, brutal=brutal)
        scores = []
        for seed in range(self.ROUNDS):
            g = Game(rules, seats, seed, single_round=True, record_events=False)
            playout(g, 1)
            scores += [p.total for p in g.players]
        self.mean = max(1.0, statistics.fmean(scores))
        self.sd = max(1.0, statistics.pstdev(scores))

    @classmethod
    def of(cls, variant: str, brutal: bool, seats: int) -> RoundScores:
        key = (variant, brutal, seats)
        if key not in cls.known:
            cls.known[key] = cls(*key)
        return cls.known[key]


def value(game: Game, seat: int, rounds: RoundScores) -> float:
    """The seat's expected share of placement points, from 0 (last) to 1 (first). A
    finished game counts what happened: every seat it beat 1, every tie ½. Otherwise each
    opponent is beaten with the chance that the seat's lead survives the rounds still to
    come — a normal approximation: the difference of two seats' round scores has a spread
    of sd·√2 per round, and about (target − leader's total) / mean rounds remain."""
    players = game.players
    me = players[seat].total
    if game.over:
        beaten = tied = 0
        for p in players:
            if p.seat != seat:
                beaten += p.total < me
                tied += p.total == me
        return (beaten + 0.5 * tied) / (game.n - 1)
    leader = max(p.total for p in players)
    left = max(1.0, (game.ruleset.target_score - leader) / rounds.mean)
    spread = rounds.sd * math.sqrt(2.0 * left)
    share = 0.0
    for p in players:
        if p.seat != seat:
            share += 0.5 * (1.0 + math.erf((me - p.total) / (spread * math.sqrt(2.0))))
    return share / (game.n - 1)


class SearchBot(Bot):
    name = "search"
    version = "search 1.0 (python)"

    def __init__(
        self,
        playouts: int | None = None,
        share: float = 0.1,
        most: int = 400,
        z: float = 1.0,
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
        # measured here, once per variant and table size: game_started is not timed
        game.state["rounds"] = RoundScores.of(game.variant, game.brutal, game.seats)

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
        return self.search(root, req, fallback, rng, info.state["rounds"])

    def search(
        self, root: Game, req: Request, fallback: int, rng: random.Random, rounds: RoundScores
    ) -> int:
        seat = req.seat
        round_ = root.round
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
                values.append(value(playout(g, round_), seat, rounds))
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
        "--z", type=float, default=1.0, help="standard errors needed to overrule ev (1)"
    )
    args = ap.parse_args()
    run(SearchBot(args.playouts, args.share, z=args.z), name="search")


if __name__ == "__main__":
    main()
