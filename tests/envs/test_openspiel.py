"""The OpenSpiel game: OpenSpiel's own random simulation test, chance nodes that draw with
the pile's odds, histories that are engine games, information states, clones, and one of
OpenSpiel's algorithms (MCTS) playing it."""

from __future__ import annotations

import random

import pytest
from hostkit import lab_package

pyspiel = lab_package("pyspiel")

import numpy as np  # noqa: E402

import arena.envs.openspiel as flip7_spiel  # noqa: E402
from arena.envs.encoding import outcome  # noqa: E402
from engine import Game, get_ruleset, observe  # noqa: E402

TABLES = [
    {"players": 2},
    {"players": 3, "variant": "vengeance"},
    {"players": 4, "variant": "vengeance", "brutal": True},
]


def ids(table: dict) -> str:
    return "-".join(f"{k}={v}" for k, v in table.items())


@pytest.mark.parametrize("table", TABLES, ids=ids)
def test_openspiel_random_simulation_test_passes(table: dict) -> None:
    game = pyspiel.load_game("flip7", table)
    pyspiel.random_sim_test(game, num_sims=2, serialize=False, verbose=False)


def play_randomly(state, rng: random.Random, each=None):
    while not state.is_terminal():
        if each is not None:
            each(state)
        if state.is_chance_node():
            outcomes, probs = zip(*state.chance_outcomes(), strict=True)
            state.apply_action(rng.choices(outcomes, probs)[0])
        else:
            state.apply_action(rng.choice(state.legal_actions()))
    return state


@pytest.mark.parametrize("table", TABLES[:2], ids=ids)
def test_chance_nodes_draw_each_label_with_its_share_of_the_pile(table: dict) -> None:
    game = pyspiel.load_game("flip7", table)
    checked = 0

    def check(state) -> None:
        nonlocal checked
        if not state.is_chance_node() or not state.game.deck:
            return
        unseen = observe(state.game, 0)["unseen"]
        size = sum(unseen.values())
        want = sorted((flip7_spiel.LABEL_ID[lb], n / size) for lb, n in unseen.items())
        got = state.chance_outcomes()
        assert [a for a, _ in got] == [a for a, _ in want]
        assert [p for _, p in got] == pytest.approx([p for _, p in want])
        checked += 1

    play_randomly(game.new_initial_state(), random.Random(4), check)
    assert checked > 30


def test_a_history_is_the_engine_game_with_that_deck() -> None:
    """The labels drawn at chance nodes, stacked as a deck in that order, and the actions
    chosen, replay in the engine as the same game (a short game, so no reshuffle)."""
    params = {"players": 3, "variant": "vengeance", "target_score": 40}
    game = pyspiel.load_game("flip7", params)
    rules = get_ruleset("vengeance", target_score=40)
    for seed in range(5):
        end = play_randomly(game.new_initial_state(), random.Random(seed))
        draws, choices = end.at.draws, end.at.choices
        if any(e[0] == "reshuffle" for e in end.game.events):
            continue
        rest = [c.label for c in end.game.deck][::-1]  # the pile, top first
        ref = Game.replay(rules, 3, 0, choices, deck=draws + rest)
        assert ref.over and ref.events == end.game.events
        assert end.returns() == pytest.approx([outcome(ref, s) for s in range(3)])
        assert sum(end.returns()) == pytest.approx(0.0)
        return
    pytest.fail("every game reshuffled")


def test_information_states_are_the_public_history_per_seat() -> None:
    game = pyspiel.load_game("flip7", {"players": 3})
    state = play_randomly(game.new_initial_state(), random.Random(8))
    strings = [state.information_state_string(p) for p in range(3)]
    heads = [s.split("\n", 1)[0] for s in strings]
    bodies = {s.split("\n", 1)[1] for s in strings}
    assert heads == ["seat 0", "seat 1", "seat 2"] and len(bodies) == 1
    body = bodies.pop().splitlines()
    assert len(body) == len(state.game.events)
    assert sum(1 for line in body if line.startswith(("deal", "draw"))) >= 20


def test_observations_are_the_public_state_from_each_chair() -> None:
    game = pyspiel.load_game("flip7", {"players": 2, "variant": "vengeance"})
    state = game.new_initial_state()
    rng = random.Random(2)
    while state.is_chance_node():
        play_step(state, rng)
    enc = game.encoding
    for p in range(2):
        tensor = np.asarray(state.observation_tensor(p), dtype=np.float32)
        assert np.array_equal(tensor, enc.encode(observe(state.game, p)))
        assert state.observation_string(p).startswith(f"seat {p} |")
    mover = state.current_player()
    kind = str(state.game.decision.kind)
    assert kind in state.observation_string(mover)  # only the mover is asked
    assert kind not in state.observation_string(1 - mover)


def play_step(state, rng: random.Random) -> None:
    if state.is_chance_node():
        outcomes, probs = zip(*state.chance_outcomes(), strict=True)
        state.apply_action(rng.choices(outcomes, probs)[0])
    else:
        state.apply_action(rng.choice(state.legal_actions()))


def test_a_clone_evolves_like_its_original_at_chance_and_decision_nodes() -> None:
    game = pyspiel.load_game("flip7", {"players": 2, "variant": "vengeance"})
    state = game.new_initial_state()
    rng = random.Random(6)
    clones = steps = 0
    while not state.is_terminal():
        steps += 1
        if steps % 25 == 0:
            twin = state.clone()
            seed = rng.random()
            a, b = random.Random(seed), random.Random(seed)
            for _ in range(30):
                if state.is_terminal():
                    break
                before = str(state)
                play_step(state, a)
                play_step(twin, b)
                assert str(twin) == str(state) and twin.history() == state.history(), before
            clones += 1
        else:
            play_step(state, rng)
    assert clones >= 3


def test_openspiel_mcts_plays_flip7() -> None:
    from open_spiel.python.algorithms import mcts

    game = pyspiel.load_game("flip7", {"players": 2, "target_score": 40})
    rs = np.random.RandomState(0)
    bot = mcts.MCTSBot(game, 2.0, 8, mcts.RandomRolloutEvaluator(1, rs), random_state=rs)
    state = game.new_initial_state()
    rng = random.Random(0)
    moves = 0
    while not state.is_terminal():
        if not state.is_chance_node() and state.current_player() == 0:
            action = bot.step(state)
            assert action in state.legal_actions()
            state.apply_action(action)
            moves += 1
        else:
            play_step(state, rng)
    assert moves > 0 and sorted(state.returns()) in ([-1.0, 1.0], [0.0, 0.0])


def test_bad_parameters_are_refused() -> None:
    with pytest.raises(ValueError, match="players must be between 1 and 18"):
        pyspiel.load_game("flip7", {"players": 19})
    with pytest.raises(ValueError, match="unknown variant"):
        pyspiel.load_game("flip7", {"variant": "chess"})
