"""Differential test: the engine against a tiny independent model of solo base play.

The model below is written from docs/rules.md alone (solo: every target is oneself) and shares
no code with the engine. Both play "stay once the numbers sum to N" on their own random
decks; their statistics must agree within sampling error. This catches scoring-order and
action-resolution bugs that scripted tests can miss.
"""

from __future__ import annotations

import random

import pytest

from engine import RULESETS, Game
from engine.policies import ThresholdPolicy

GAMES = 20_000


def reference_round(rng: random.Random, threshold: int) -> tuple[int, bool, bool]:
    deck: list[object] = [0] + [n for n in range(1, 13) for _ in range(n)]
    deck += ["+2", "+4", "+6", "+8", "+10", "x2"] + ["F"] * 3 + ["T"] * 3 + ["S"] * 3
    rng.shuffle(deck)
    nums: set[int] = set()
    mods: list[str] = []
    st = {"over": False, "bust": False, "flip7": False, "sc": False}

    def receive(card: object) -> None:
        if isinstance(card, int):
            if card in nums:
                if st["sc"]:
                    st["sc"] = False
                else:
                    st["bust"] = st["over"] = True
                return
            nums.add(card)
            if len(nums) == 7:
                st["flip7"] = st["over"] = True
        elif card == "F":
            st["over"] = True  # frozen: banks the line
        elif card == "T":
            flip_three()
        elif card == "S":
            st["sc"] = True  # a second one would be discarded: nobody else to give it to
        else:
            mods.append(str(card))

    def flip_three() -> None:
        aside = []
        for _ in range(3):
            if st["over"]:
                break
            card = deck.pop()
            if card in ("F", "T"):
                aside.append(card)
            else:
                receive(card)
        for card in aside:
            if st["over"]:
                break
            receive(card)

    while not st["over"] and sum(nums) < threshold:
        receive(deck.pop())
    if st["bust"]:
        return 0, True, False
    score = sum(nums) * (2 if "x2" in mods else 1)
    score += sum(int(m) for m in mods if m != "x2")
    return score + (15 if st["flip7"] else 0), False, bool(st["flip7"])


def engine_round(seed: int, threshold: int) -> tuple[int, bool, bool]:
    g = Game(RULESETS["base"], 1, seed, single_round=True)
    policy = ThresholdPolicy(threshold)
    while not g.over:
        g.step(policy(g, g.decision))
    p = g.players[0]
    return p.total, p.status == "busted", p.flip7


@pytest.mark.parametrize("threshold", [15, 23, 30])
def test_b_solo_engine_agrees_with_independent_reference_model(threshold: int) -> None:
    rng = random.Random(threshold)
    ref = [reference_round(rng, threshold) for _ in range(GAMES)]
    eng = [engine_round(10_000 * threshold + i, threshold) for i in range(GAMES)]
    mean_ref = sum(x[0] for x in ref) / GAMES
    mean_eng = sum(x[0] for x in eng) / GAMES
    bust_ref = sum(x[1] for x in ref) / GAMES
    bust_eng = sum(x[1] for x in eng) / GAMES
    # the standard error of a mean round score is about 0.1 at 20,000 rounds
    assert abs(mean_ref - mean_eng) < 0.45, (mean_ref, mean_eng)
    assert abs(bust_ref - bust_eng) < 0.015, (bust_ref, bust_eng)
