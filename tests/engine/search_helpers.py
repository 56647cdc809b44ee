"""Shared pieces of the invariant and search-support property tests: rulesets, policies that
pick option indices, and fingerprints of a game's whole state."""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Callable
from typing import Any

from hypothesis import HealthCheck, settings
from hypothesis import strategies as st

from engine import RULESETS, Game, Ruleset, observe
from engine.policies import make_policy

RULES: dict[str, Ruleset] = {
    "base": RULESETS["base"],
    "vengeance": RULESETS["vengeance"],
    "brutal": RULESETS["vengeance"].with_options(brutal=True),
}
POLICY_SPECS = ("random-choice", "random", "threshold:18", "threshold:27", "ev")

Chooser = Callable[[Game], int]
# Observed games end within ~1,000 steps; a game past this bound is looping, not unlucky.
MAX_STEPS = 20_000

variants = st.sampled_from(sorted(RULES))
seat_counts = st.integers(1, 18)
seeds = st.integers(0, 2**32 - 1)
policies = st.sampled_from(POLICY_SPECS)
hit_probabilities = st.sampled_from([0.0, 0.3, 0.6, 0.85, 1.0])
# a seeded game of any variant, table size and policy: @given(**GAMES)
GAMES = {"variant": variants, "seats": seat_counts, "seed": seeds, "policy": policies}


def examples(n: int) -> settings:
    """Hypothesis settings of the engine's property tests: n examples, reproducible."""
    return settings(
        max_examples=n,
        deadline=None,
        derandomize=True,
        suppress_health_check=[HealthCheck.too_slow],
    )


def play_to_end(g: Game, choose: Chooser) -> Game:
    for _ in range(MAX_STEPS):
        if g.over:
            return g
        g.step(choose(g))
    raise AssertionError(f"game not over after {MAX_STEPS} steps")


def random_chooser(rng: random.Random, p_hit: float) -> Chooser:
    """Option indices from ``helpers.random_policy``: hit with probability ``p_hit``, any
    other choice uniformly at random."""
    from helpers import random_policy

    policy = random_policy(rng, p_hit)

    def choose(g: Game) -> int:
        d = g.decision
        return list(d.options).index(policy(d))

    return choose


def chooser(spec: str, seats: int, seed: int) -> Chooser:
    """Option indices for every seat: uniformly random ("random-choice") or a built-in
    policy per seat."""
    if spec == "random-choice":
        rng = random.Random(seed)
        return lambda g: rng.randrange(len(g.decision.options))
    policies = [make_policy(spec, seed + i) for i in range(seats)]
    return lambda g: policies[g.decision.seat](g, g.decision)


def decision_key(g: Game) -> tuple[Any, ...] | None:
    d = g.decision
    return None if d is None else (d.kind, d.seat, d.options, d.card)


def places(g: Game) -> list[tuple[str, int | None, int]]:
    """Every card's place, by uid, in each pile's order."""
    return [(pile, seat, c.uid) for pile, seat, c in g.card_locations()]


def fingerprint(g: Game) -> tuple[Any, ...]:
    """Everything that decides how a game goes on, and everything it has recorded."""
    return (
        places(g),
        list(g.events),
        list(g.choices),
        decision_key(g),
        [observe(g, s) for s in range(g.n)],
        [(p.total, p.round_score, p.penalty, p.status, p.flip7) for p in g.players],
        (g.round, g.dealer, g.extra_rounds, g.over, g.winners, g.ranks),
        dict(g.deck_count),
    )


def deck_labels(g: Game) -> list[str]:
    return [c.label for c in g.deck]


def label_counts(cards: Any) -> dict[str, int]:
    return dict(Counter(c.label for c in cards))
