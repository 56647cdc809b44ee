"""The arena's hand-assembled request bytes and the bot side's lazily decoded view.

Both are speed paths; each must give exactly what the plain protobuf API gives.
"""

from __future__ import annotations

import random

import pytest

from arena.protocol import pb
from arena.protocol.convert import (
    KIND_TO_PB,
    event_pb,
    observation_dict,
    observation_pb,
    options_pb,
    public_game,
    ruleset_pb,
)
from arena.protocol.wire import RequestEncoder, batch_message, request_message
from engine import RULESETS, Game
from engine.policies import make_policy
from engine.view import PublicGame

VARIANTS = [("base", False), ("vengeance", False), ("vengeance", True)]


def _games(variant: str, brutal: bool, n: int):  # type: ignore[no-untyped-def]
    rules = RULESETS[variant].with_options(brutal=brutal, auto_single=False)
    for seed in range(n):
        yield Game(rules, 1 + seed % 6, seed)


@pytest.mark.parametrize(("variant", "brutal"), VARIANTS)
def test_request_bytes_parse_to_the_message_the_protobuf_api_builds(
    variant: str, brutal: bool
) -> None:
    rng = random.Random(7)
    checked = 0
    for game in _games(variant, brutal, 25):
        rules_msg = ruleset_pb(game.ruleset)
        enc = RequestEncoder(game, f"g{game.seed}", rules_msg)
        heard = [0] * game.n
        rid = 1
        while not game.over:
            d = game.decision
            bank = rng.choice([0, 1, 2999, 30000])
            got = pb.ArenaMessage.FromString(
                request_message(enc.encode(rid, d, KIND_TO_PB[d.kind], heard[d.seat], 5000, bank))
            )
            want = pb.ArenaMessage(
                request=pb.DecisionRequest(
                    request_id=rid,
                    game_id=f"g{game.seed}",
                    seat=d.seat,
                    kind=KIND_TO_PB[d.kind],
                    card=d.card or "",
                    observation=observation_pb(game, d.seat, rules_msg),
                    events=[event_pb(e) for e in game.events[heard[d.seat] :]],
                    options=options_pb(d),
                    deadline_ms=5000,
                    time_bank_ms=bank,
                )
            )
            assert got == want, (game.seed, rid, d)
            heard[d.seat] = len(game.events)
            rid += rng.choice([1, 1000, 10**9])  # ids of every varint length
            game.step(rng.randrange(len(d.options)))
            checked += 1
    assert checked > 500


@pytest.mark.parametrize(("variant", "brutal"), VARIANTS)
def test_policies_choose_the_same_on_the_lazy_view_as_on_the_game(
    variant: str, brutal: bool
) -> None:
    specs = ["ev", "threshold:24", "random"]
    checked = 0
    for game in _games(variant, brutal, 30):
        here = [make_policy(specs[s % 3], s) for s in range(game.n)]
        there = [make_policy(specs[s % 3], s) for s in range(game.n)]
        while not game.over:
            d = game.decision
            obs = pb.Observation.FromString(observation_pb(game, d.seat).SerializeToString())
            a = here[d.seat](game, d)
            assert there[d.seat](public_game(obs), d) == a, (game.seed, d)
            game.step(a)
            checked += 1
    assert checked > 1000


def test_the_lazy_view_holds_what_the_view_of_the_observation_dict_holds() -> None:
    for game in _games("vengeance", True, 12):
        while not game.over:
            obs = observation_pb(game, 0)
            lazy = public_game(obs)
            eager = PublicGame.from_observation(observation_dict(obs))
            assert (lazy.n, lazy.round, lazy.order) == (eager.n, eager.round, eager.order)
            assert lazy.ruleset == eager.ruleset
            assert lazy.discard == eager.discard
            assert lazy.deck_count == eager.deck_count
            assert len(lazy.deck) == len(eager.deck)
            assert len(lazy.players) == len(eager.players)
            for a, b in zip(lazy.players, eager.players, strict=True):
                assert (a.seat, a.status, a.numbers, a.modifiers, a.extras) == (
                    b.seat,
                    b.status,
                    b.numbers,
                    b.modifiers,
                    b.extras,
                )
                assert (a.total, a.flip7, a.sum, a.ranks) == (b.total, b.flip7, b.sum, b.ranks)
            assert [p.seat for p in lazy.players[1:]] == [p.seat for p in eager.players[1:]]
            d = game.decision
            game.step(len(d.options) - 1)


def test_the_lazy_view_puts_players_out_of_seat_order_back_in_order() -> None:
    game = list(_games("base", False, 4))[3]  # four seats
    game.step(0)
    obs = observation_pb(game, 0)
    shuffled = pb.Observation()
    shuffled.CopyFrom(obs)
    del shuffled.players[:]
    shuffled.players.extend(reversed(obs.players))
    assert game.n == 4
    assert [p.seat for p in public_game(shuffled).players] == [0, 1, 2, 3]
    assert [p.total for p in public_game(shuffled).players] == [
        p.total for p in public_game(obs).players
    ]


def test_a_batch_of_encoded_requests_parses_to_the_batch_message_the_api_builds() -> None:
    """ArenaMessage{batch} is assembled from encoded DecisionRequests as they are; it must
    parse to exactly what the protobuf API builds from the same requests."""
    rules = RULESETS["vengeance"]
    bodies, want = [], []
    for seed in range(6):
        game = Game(rules, 3, seed)
        d = game.decision
        assert d is not None
        enc = RequestEncoder(game, f"g{seed}", ruleset_pb(rules))
        body = enc.encode(seed + 1, d, KIND_TO_PB[d.kind], 0, 1000, 2500)
        bodies.append(body)
        want.append(pb.DecisionRequest.FromString(body))
    got = pb.ArenaMessage.FromString(batch_message(bodies))
    assert got.WhichOneof("msg") == "batch"
    assert list(got.batch.requests) == want
    assert got == pb.ArenaMessage(batch=pb.Batch(requests=want))
    single = pb.ArenaMessage.FromString(request_message(bodies[0]))
    assert single == pb.ArenaMessage(request=want[0])


@pytest.mark.parametrize(
    "variant,brutal", [("base", False), ("vengeance", False), ("vengeance", True)]
)
def test_hand_encoded_events_parse_to_what_the_protobuf_api_builds(
    variant: str, brutal: bool
) -> None:
    """Every event of many seeded games (swaps, unlucky 7s, negative Brutal scores, optional
    seats that are 0) encodes to bytes that parse exactly to event_pb's message."""
    from arena.protocol.convert import event_pb
    from arena.protocol.wire import event_bytes

    kinds = set()
    for game in _games(variant, brutal, 40):
        rng = random.Random(game.seed)
        while not game.over:
            d = game.decision
            assert d is not None
            game.step(rng.randrange(len(d.options)))
        for e in game.events:
            kinds.add(e[0])
            assert pb.Event.FromString(event_bytes(e)) == event_pb(e), e
    assert len(kinds) >= 12
