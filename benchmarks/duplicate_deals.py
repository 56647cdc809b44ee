"""Duplicate deals: how much a shared deal reduces the variance of an A/B test's units.

    .venv/bin/python benchmarks/duplicate_deals.py [--quick] [--scale X] [--seed S]
        [--seats K] [--case NEW,BASE[,OPP...]]

In-process, built-in policies, base rules. For each case (NEW, BASE and the fixed
opponents of a K-seat table) every design of :mod:`arena.abtest.design` is played on
shared deals and, as the reference, with the same seat layouts on fresh deals. A game's
score is NEW's head-to-head result against BASE (win 1, level 1/2, loss 0), the model of
the SPRT. Printed per case and design:

* ``R within``: the variance ratio estimated from the duplicate units alone,
  ``Var(unit total) / sum of per-game variances`` (what ``arena test`` prints live), ± its
  standard error;
* ``R direct``: the variance of a duplicate unit's total over that of the same layouts
  played on fresh deals, ± its standard error (the two agree when the estimator is sound);
* for the rotation designs, ``R points``: the same within-sample ratio for NEW's
  placement points over the K rotations (NEW in every seat against fixed opponents, the
  design of duplicate tournaments);

and at the end, per case, the games an SPRT on 5 and 10 Elo needs with and without
duplicates, from the measured per-game variance and variance ratio of duplicate pairs.
A full run plays 228,000 games in about two minutes on one core; ``--quick`` a fifth.
"""

from __future__ import annotations

import argparse
import math
import random
import time
from collections.abc import Sequence
from dataclasses import dataclass, field

import numpy as np

from arena.abtest.design import (
    BASE,
    NEW,
    head_to_head,
    placement_points,
    unit_layouts,
)
from arena.abtest.pairs import RESULT_SCORE, variance_ratio
from arena.abtest.sprt import SprtSpec
from arena.abtest.theory import games_needed
from engine import RULESETS, Game
from engine.policies import PolicyError, make_policy, parse_policy

RULES = RULESETS["base"]


@dataclass(frozen=True)
class Case:
    new: str
    base: str
    opponents: tuple[str, ...]
    decks: int  # shared deals in a full run

    @property
    def seats(self) -> int:
        return 2 + len(self.opponents)

    def title(self) -> str:
        vs = f"{self.new} vs {self.base}"
        return f"{self.seats} seats: {vs}" + (
            f" + {', '.join(self.opponents)}" if self.opponents else ""
        )


DEFAULT_DECKS = {2: 20_000, 3: 3_000, 4: 2_000, 5: 1_500, 6: 1_200}

CASES = [
    Case("threshold:23", "threshold:21", (), 20_000),
    Case("threshold:24", "threshold:21", (), 20_000),
    Case("threshold:23", "threshold:21", ("ev",), 3_000),
    Case("threshold:23", "threshold:21", ("ev", "threshold:25"), 2_000),
]


@dataclass
class GameScore:
    h2h: str
    new_points: float


def play(case: Case, layout: Sequence[str], seed: int) -> GameScore:
    specs = {NEW: case.new, BASE: case.base}
    specs.update({f"OPP{i}": p for i, p in enumerate(case.opponents, 1)})
    policies = [make_policy(specs[role], seed + seat) for seat, role in enumerate(layout)]
    game = Game(RULES, len(layout), seed, record_events=False)
    step = game.step
    while not game.over:
        d = game.decision
        assert d is not None
        step(policies[d.seat](game, d))
    ns, bs = layout.index(NEW), layout.index(BASE)
    return GameScore(head_to_head(game.ranks, ns, bs), placement_points(game.ranks, ns))


@dataclass
class Samples:
    """Per design: one row per unit of NEW's head-to-head scores and placement points."""

    h2h: dict[str, list[list[float]]] = field(default_factory=dict)
    points: dict[str, list[list[float]]] = field(default_factory=dict)


def designs_for(seats: int) -> list[str]:
    return ["swap"] if seats == 2 else ["swap", "rotations", "rotations+swap"]


def run_case(case: Case, decks: int, rng: random.Random) -> tuple[Samples, Samples, int, float]:
    shared, fresh = Samples(), Samples()
    designs = designs_for(case.seats)
    games = 0
    t0 = time.perf_counter()
    for i in range(decks):
        deck = rng.getrandbits(62)
        played: dict[tuple[str, ...], GameScore] = {}
        fresh_played: dict[tuple[str, ...], GameScore] = {}
        for design in designs:
            layouts = unit_layouts(design, case.seats, i)
            for layout in layouts:
                if layout not in played:
                    played[layout] = play(case, layout, deck)
                    fresh_played[layout] = play(case, layout, rng.getrandbits(62))
                    games += 2
            for sink, results in ((shared, played), (fresh, fresh_played)):
                sink.h2h.setdefault(design, []).append(
                    [RESULT_SCORE[results[lay].h2h] for lay in layouts]
                )
                sink.points.setdefault(design, []).append(
                    [results[lay].new_points for lay in layouts]
                )
    return shared, fresh, games, time.perf_counter() - t0


def direct_ratio(dup: np.ndarray, ref: np.ndarray) -> tuple[float, float]:
    """Var of duplicate unit totals over Var of fresh-deal unit totals, delta-method SE."""
    x, y = dup.sum(axis=1), ref.sum(axis=1)
    vx, vy = x.var(), y.var()
    ex = ((x - x.mean()) ** 2).var() / (len(x) * vx * vx)
    ey = ((y - y.mean()) ** 2).var() / (len(y) * vy * vy)
    r = vx / vy
    return r, r * math.sqrt(ex + ey)


def fmt(pair: tuple[float, float] | None) -> str:
    return "—" if pair is None else f"{pair[0]:.3f} ± {pair[1]:.3f}"


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--quick", action="store_true", help="a fifth of the deals (about 25 s)")
    ap.add_argument("--scale", type=float, default=1.0, help="multiply the number of deals")
    ap.add_argument("--seed", type=int, default=7, help="seed of the deals (default 7)")
    ap.add_argument(
        "--seats", type=int, action="append", help="only the cases at this table size (repeatable)"
    )
    ap.add_argument(
        "--case",
        action="append",
        metavar="NEW,BASE[,OPP...]",
        help="study these policies instead of the built-in cases (repeatable), e.g. "
        "ev,threshold:23,threshold:25 for a 3-seat table",
    )
    args = ap.parse_args()
    cases = CASES
    if args.case:
        cases = []
        for text in args.case:
            try:
                specs = [parse_policy(p) for p in text.split(",")]
            except PolicyError as e:
                ap.error(str(e))
            if not 2 <= len(specs) <= 18:
                ap.error(f"--case {text!r}: give NEW,BASE and up to 16 opponents")
            decks = DEFAULT_DECKS.get(len(specs), 1_000)
            cases.append(Case(specs[0], specs[1], tuple(specs[2:]), decks))
    scale = args.scale * (0.2 if args.quick else 1.0)
    rng = random.Random(args.seed)

    print("head-to-head score of NEW against BASE; R < 1: the shared deal removes variance")
    print(
        f"{'case':58} {'design':15} {'games':>5} {'units':>6}  "
        f"{'R within':>15}  {'R direct':>15}  {'R points':>15}  {'Elo':>6}"
    )
    needs: list[tuple[str, float, float]] = []  # (case, per-game variance, R of swap pairs)
    for case in cases:
        if args.seats and case.seats not in args.seats:
            continue
        decks = max(50, round(case.decks * scale))
        shared, fresh, games, seconds = run_case(case, decks, rng)
        for design in designs_for(case.seats):
            dup = np.array(shared.h2h[design])
            ref = np.array(fresh.h2h[design])
            within = variance_ratio(dup)
            points = variance_ratio(np.array(shared.points[design])) if "rot" in design else None
            score = float(np.concatenate([dup.ravel(), ref.ravel()]).mean())
            elo = -400 * math.log10(1 / score - 1)
            print(
                f"{case.title():58} {design:15} {dup.shape[1]:5d} {len(dup):6d}  "
                f"{fmt(within):>15}  {fmt(direct_ratio(dup, ref)):>15}  "
                f"{fmt(points):>15}  {elo:+6.1f}"
            )
            if design == "swap" and within is not None:
                needs.append((case.title(), float(ref.var(axis=0).mean()), within[0]))
        print(f"{'':58} ({games:,} games in {seconds:.0f} s, {games / seconds:,.0f} games/s)")

    print()
    print("games an SPRT elo0=0 elo1=E (alpha = beta = 0.05) needs, from each case's measured")
    print("per-game variance and the variance ratio of duplicate pairs (the swap design):")
    print(
        f"{'case':58} {'E':>3} {'var':>6} {'R':>6}   {'independent: SPRT':>18} {'fixed':>7}"
        f"   {'duplicate: SPRT':>16} {'fixed':>7}"
    )
    for title, game_var, ratio in needs:
        for e in (5.0, 10.0):
            spec = SprtSpec(elo0=0.0, elo1=e)
            ind = games_needed(spec, game_var, 1.0)
            dup = games_needed(spec, game_var, ratio)
            print(
                f"{title:58} {e:3.0f} {game_var:6.3f} {ratio:6.3f}   {ind.sprt_at_elo1:18,.0f} "
                f"{ind.fixed:7,.0f}   {dup.sprt_at_elo1:16,.0f} {dup.fixed:7,.0f}"
            )
    print("(SPRT: expected games when the true difference is E, the same at 0; fixed: games")
    print(" of a fixed-length test with the same error rates)")


if __name__ == "__main__":
    main()
