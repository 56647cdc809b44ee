"""The PettingZoo AEC environment: PettingZoo's own API test, action masks that match the
engine's legal options, observations that carry nothing hidden, seeded replays, rewards."""

from __future__ import annotations

import random
import warnings

import pytest
from hostkit import lab_package

lab_package("pettingzoo")

import numpy as np  # noqa: E402
from pettingzoo.test import api_test  # noqa: E402

from arena.envs.encoding import Encoding  # noqa: E402
from arena.envs.pettingzoo import env  # noqa: E402
from engine import observe  # noqa: E402

TABLES = [
    {"variant": "base", "seats": 2},
    {"variant": "vengeance", "seats": 3},
    {"variant": "vengeance", "brutal": True, "seats": 4},
    {"variant": "base", "seats": 1},
]


@pytest.mark.parametrize("table", TABLES, ids=lambda t: "-".join(map(str, t.values())))
def test_pettingzoo_api_test_passes(table: dict) -> None:
    with warnings.catch_warnings():
        # api_test's generic advice for dict observations (observation + action_mask)
        warnings.simplefilter("ignore", UserWarning)
        api_test(env(**table), num_cycles=400)


def random_game(e, rng: random.Random, each_step=None) -> None:
    for agent in e.agent_iter():
        obs, _, terminated, truncated, info = e.last()
        if each_step is not None:
            each_step(agent, obs, info)
        if terminated or truncated:
            e.step(None)
            continue
        legal = np.flatnonzero(obs["action_mask"])
        e.step(int(rng.choice(list(legal))))


@pytest.mark.parametrize("table", TABLES[:3], ids=lambda t: "-".join(map(str, t.values())))
def test_masks_are_the_pending_decisions_options_and_nobody_elses(table: dict) -> None:
    e = env(**table)
    e.reset(seed=3)
    asked = 0

    def check(agent: str, obs: dict, info: dict) -> None:
        nonlocal asked
        d = e.game.decision
        if d is None:
            return
        assert agent == f"player_{d.seat}"
        assert info["options"] == list(d.options) and info["kind"] == d.kind
        mask = obs["action_mask"]
        assert mask.dtype == np.int8
        assert list(np.flatnonzero(mask)) == list(range(len(d.options)))
        for other in e.agents:
            if other != agent:
                assert not e.observe(other)["action_mask"].any()
        asked += 1

    random_game(e, random.Random(3), check)
    assert asked > 20


@pytest.mark.parametrize("table", TABLES[:3], ids=lambda t: "-".join(map(str, t.values())))
def test_observations_do_not_depend_on_the_hidden_draw_order(table: dict) -> None:
    """Every agent's observation equals the one it would get in a game that shares
    everything public but has the unseen cards in another order (a determinization): so
    it holds nothing of the draw order. Such games do differ in their draw piles."""
    e = env(**table)
    e.reset(seed=11)
    rng = random.Random(5)
    differing_piles = 0

    def check(agent: str, obs: dict, info: dict) -> None:
        nonlocal differing_piles
        g = e.game
        if g.over:
            return
        for other in e.agents:
            seat = e.agent_seat[other]
            twin = g.determinized(seat, rng)
            differing_piles += [c.label for c in twin.deck] != [c.label for c in g.deck]
            mine = e.observe(other)["observation"]
            assert np.array_equal(mine, e.encoding.encode(observe(twin, seat)))

    random_game(e, random.Random(11), check)
    assert differing_piles > 10


def test_the_encoding_turns_the_table_to_put_the_observer_first() -> None:
    e = env(variant="base", seats=3)
    e.reset(seed=2)
    random_game(e, random.Random(2))  # to the end: every seat has a total
    g = e.game
    enc = Encoding(g.ruleset, 3)
    for seat in range(3):
        v = enc.encode(observe(g, seat))
        totals = [v[k * enc.per_seat] for k in range(3)]
        assert totals == [g.players[(seat + k) % 3].total for k in range(3)]


def test_a_seed_replays_the_same_game_and_rewards_follow_the_ranks() -> None:
    runs = []
    for _ in range(2):
        e = env(variant="vengeance", seats=3)
        e.reset(seed=99)
        seen: list[tuple[str, bytes]] = []
        rewards: dict[str, float] = {}

        def record(agent, obs, info, e=e, seen=seen, rewards=rewards) -> None:
            seen.append((agent, obs["observation"].tobytes()))
            rewards[agent] = e._cumulative_rewards[agent]

        random_game(e, random.Random(1), record)
        runs.append((seen, rewards, list(e.game.ranks)))
    (seen_a, rewards_a, ranks), (seen_b, rewards_b, _) = runs
    assert seen_a == seen_b and rewards_a == rewards_b
    assert sum(rewards_a.values()) == pytest.approx(0.0)
    best = min(ranks)
    for seat, rank in enumerate(ranks):
        r = rewards_a[f"player_{seat}"]
        assert -1.0 <= r <= 1.0
        assert (r == max(rewards_a.values())) == (rank == best)


def test_an_illegal_action_is_refused() -> None:
    e = env()
    e.reset(seed=1)
    with pytest.raises(ValueError, match="not legal"):
        e.step(e.n_actions - 1)
    with pytest.raises(ValueError, match="not legal"):
        e.step(None)


def test_bad_tables_are_refused() -> None:
    with pytest.raises(ValueError, match="seats must be between 1 and 18"):
        env(seats=0)
    with pytest.raises(ValueError, match="unknown variant"):
        env(variant="chess")


def test_the_evaluation_example_runs_and_the_simple_agent_beats_random() -> None:
    import subprocess
    import sys
    from pathlib import Path

    script = Path(__file__).resolve().parents[2] / "examples" / "lab" / "pettingzoo_evaluate.py"
    r = subprocess.run(
        [sys.executable, str(script), "--games", "40", "--variant", "vengeance"],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert r.returncode == 0, r.stderr
    rows = dict(line.split(maxsplit=1) for line in r.stdout.strip().splitlines())
    assert set(rows) == {"stop-at-20", "random"}
    mean = float(rows["stop-at-20"].split()[2])
    assert mean > 0.3, r.stdout  # stopping at 20 wins most games against random play
