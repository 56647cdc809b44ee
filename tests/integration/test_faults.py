"""The fault policy against real misbehaving bot processes over real gRPC.

Each test plays a short match between good example bots and one deliberately broken bot
from tests/bots/, on a gateway the test starts itself (TCP + Unix socket), and checks:

* the fault recorded (kind, blamed seat and bot, forfeit flag) and nothing blamed on others;
* a forfeited seat ranks last; every game still completes with totals for every seat;
* afterwards the gateway is healthy: gRPC health checking says SERVING over TCP, no bot is
  left registered, and a good match on the same gateway plays cleanly.

Two more tests use a spy bot that records everything it is sent: a bot only ever receives
requests for its own seats, and no request reveals the order of the draw pile.

No test sleeps to synchronise: every wait is on a real condition (a match finishing); the
broken bots sleep only to be slow on purpose. Deadlines are small but with wide margins
between the timers a test depends on, so that a loaded machine does not change outcomes.
"""

from __future__ import annotations

import asyncio
import base64
import json
import random
import shutil
import sys
import tempfile
from collections import Counter
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import grpc
import pytest
from grpc_health.v1 import health_pb2, health_pb2_grpc

from arena.bots import Command
from arena.faults import Fault, FaultPolicy
from arena.gateway.server import Gateway
from arena.match import BotEntry, GameRecord, MatchResult, MatchSpec, run_match
from arena.protocol import SERVICE_NAME, pb
from arena.protocol.convert import event_pb, observation_pb, ruleset_pb
from engine import Game, get_ruleset

pytestmark = pytest.mark.timeout(240)

ROOT = Path(__file__).resolve().parents[2]
EXAMPLES = ROOT / "bots" / "examples" / "python"
BROKEN = ROOT / "tests" / "bots"

# Bots here answer in milliseconds; the deadline only matters to the bots that are slow on
# purpose, so it is small, with a time bank that absorbs a loaded machine's hiccups.
POLICY = FaultPolicy(
    deadline=0.25, time_bank=1.0, max_strikes=3, start_timeout=15.0, reconnect_grace=1.0
)
# Stream faults: a dropped stream must be judged by the grace period (1 s), not by the
# pending request's own timeout running out first, so deadline + bank (2.5 s) is far longer.
STREAM_POLICY = FaultPolicy(
    deadline=0.5, time_bank=2.0, max_strikes=3, start_timeout=15.0, reconnect_grace=1.0
)
MATCH_TIMEOUT = 120.0  # a hung match fails the test instead of hanging it


# ---------------------------------------------------------------------------- helpers
def example(name: str, token: str | None = None) -> BotEntry:
    return BotEntry(name, Command(f"{sys.executable} {EXAMPLES / name / 'bot.py'}"), token=token)


def broken(name: str, script: str, log: Path | None = None, **env: str) -> BotEntry:
    share = []
    if log is not None:
        # the bot may run sandboxed as a user of its own: the one file it may write
        log.touch()
        log.chmod(0o666)
        env["BOT_LOG"] = str(log)
        share.append(str(log))
    return BotEntry(
        name, Command(f"{sys.executable} {BROKEN / script}", env=env, share=tuple(share))
    )


def notes(log: Path) -> list[dict[str, Any]]:
    """What a broken bot noted in its BOT_LOG (see tests/bots/botkit.py)."""
    if not log.exists():
        return []
    return [json.loads(line) for line in log.read_text().splitlines() if line.strip()]


def spec_with(bad: BotEntry, *, games: int = 2, policy: FaultPolicy = POLICY) -> MatchSpec:
    """Two good example bots and the broken one in the middle; seats rotate every game."""
    return MatchSpec(
        bots=[example("ev"), bad, example("random")], games=games, seed=5, faults=policy
    )


async def check_gateway_healthy(gw: Gateway) -> None:
    """Health checking says SERVING over TCP, nothing is left registered, and a good match
    still plays cleanly on the same gateway."""
    assert gw.tcp_address is not None
    async with grpc.aio.insecure_channel(gw.tcp_address) as channel:
        health = health_pb2_grpc.HealthStub(channel)
        for service in ("", SERVICE_NAME):
            reply = await health.Check(health_pb2.HealthCheckRequest(service=service), timeout=30)
            assert reply.status == health_pb2.HealthCheckResponse.SERVING, service
    assert gw.links == {}, "a bot of the finished match is still registered"
    after = await asyncio.wait_for(
        run_match(
            MatchSpec(bots=[example("ev"), example("threshold")], games=1, seed=3, faults=POLICY),
            gateway=gw,
        ),
        MATCH_TIMEOUT,
    )
    assert [g.status for g in after.games] == ["completed"]
    assert after.games[0].faults == [], after.games[0].faults
    assert after.decisions > 0
    assert gw.links == {}


def play(spec: MatchSpec, sock_dir: Path) -> MatchResult:
    """Run ``spec`` on a gateway of our own, then check that the gateway is still healthy.
    The gateway's own reconnect grace (3 s by default) is deliberately left alone: the
    match's fault policy is what must apply."""

    async def main() -> MatchResult:
        gw = Gateway(tcp="127.0.0.1:0", unix=sock_dir / "a.sock")
        await gw.start()
        try:
            result = await asyncio.wait_for(run_match(spec, gateway=gw), MATCH_TIMEOUT)
            await check_gateway_healthy(gw)
        finally:
            await gw.stop()
        return result

    return asyncio.run(main())


def faults_of(g: GameRecord, bot: str) -> list[Fault]:
    return [f for f in g.faults if f.bot == bot]


def assert_games_completed(result: MatchResult, bad: str) -> None:
    """Every game completed with totals and ranks for every seat; nothing blamed on anyone
    but ``bad``, and every fault of ``bad`` names the seat it held in that game."""
    seats = result.spec.seats
    assert len(result.games) == result.spec.games
    for g in result.games:
        assert g.status == "completed", (g.status, g.faults, result.logs)
        assert len(g.totals) == len(g.ranks) == seats
        assert g.rounds >= 1 and g.winners
        seat = g.seating.index(bad)
        for f in g.faults:
            assert f.bot == bad, f"{f} blamed on a good bot; logs: {result.logs}"
            assert f.seat == seat, f
        # the seats still playing are ranked by their totals
        forfeited = {f.seat for f in g.faults if f.forfeit}
        playing = [s for s in range(seats) if s not in forfeited]
        for s in playing:
            better = sum(1 for t in playing if g.totals[t] > g.totals[s])
            assert g.ranks[s] == 1 + better, (g.ranks, g.totals, forfeited)


def assert_forfeits_last(g: GameRecord, bad: str) -> None:
    seat = g.seating.index(bad)
    assert g.ranks[seat] == len(g.ranks), g.ranks  # last of three, alone
    assert all(r < g.ranks[seat] for s, r in enumerate(g.ranks) if s != seat)
    assert seat not in g.winners


def assert_strikes_then_forfeit(g: GameRecord, bad: str, kind: str, max_strikes: int) -> None:
    mine = faults_of(g, bad)
    assert [str(f.kind) for f in mine] == [kind] * max_strikes, mine
    assert [f.forfeit for f in mine] == [False] * (max_strikes - 1) + [True]
    assert_forfeits_last(g, bad)


def assert_one_forfeit(g: GameRecord, bad: str, kind: str) -> Fault:
    mine = faults_of(g, bad)
    assert len(mine) == 1 and str(mine[0].kind) == kind and mine[0].forfeit, mine
    assert_forfeits_last(g, bad)
    return mine[0]


# ---------------------------------------------------------------------------- starting
def test_fault_crash_at_start_is_recorded_as_init_fail_and_forfeits_every_game(
    sock_dir: Path,
) -> None:
    spec = spec_with(broken("crasher", "crash_at_start.py"))
    result = play(spec, sock_dir)
    assert_games_completed(result, "crasher")
    for g in result.games:
        f = assert_one_forfeit(g, "crasher", "INIT_FAIL")
        assert "exited with code 3" in f.detail and f.round <= 1  # before any play
    assert "giving up before connecting" in result.logs["crasher"]
    # a bot that has exited is failed at once, not after the whole start timeout
    assert result.seconds < POLICY.start_timeout


def test_fault_wrong_token_is_refused_with_bad_token_and_recorded_as_init_fail(
    sock_dir: Path,
) -> None:
    result = play(spec_with(broken("forger", "wrong_token.py")), sock_dir)
    assert_games_completed(result, "forger")
    for g in result.games:
        assert_one_forfeit(g, "forger", "INIT_FAIL")
    assert "BAD_TOKEN" in result.logs["forger"]  # the SDK prints the arena's refusal


def test_fault_malformed_hello_bytes_get_bad_hello_and_init_fail(sock_dir: Path) -> None:
    log = sock_dir / "bot.jsonl"
    result = play(spec_with(broken("garbler", "malformed.py", log, MODE="hello")), sock_dir)
    assert_games_completed(result, "garbler")
    for g in result.games:
        assert_one_forfeit(g, "garbler", "INIT_FAIL")
    [reply] = [n for n in notes(log) if n["event"] == "first_reply"]
    assert (reply["reply"], reply.get("code")) == ("error", "BAD_HELLO"), reply


def test_fault_oversized_hello_is_rejected_and_recorded_as_init_fail(sock_dir: Path) -> None:
    log = sock_dir / "bot.jsonl"
    result = play(spec_with(broken("bloater", "oversized.py", log, MODE="hello")), sock_dir)
    assert_games_completed(result, "bloater")
    for g in result.games:
        assert_one_forfeit(g, "bloater", "INIT_FAIL")
    [reply] = [n for n in notes(log) if n["event"] == "first_reply"]
    assert reply["reply"] is None and reply["status"] == "RESOURCE_EXHAUSTED", reply


# ---------------------------------------------------------------------------- answering
def test_fault_crash_mid_game_is_recorded_as_crash_and_forfeits(sock_dir: Path) -> None:
    log = sock_dir / "bot.jsonl"
    result = play(spec_with(broken("crasher", "crash_mid_game.py", log, CRASH_AFTER="2")), sock_dir)
    assert_games_completed(result, "crasher")
    for g in result.games:
        f = assert_one_forfeit(g, "crasher", "CRASH")
        assert "exited with code 17" in f.detail
        assert f.round >= 1  # it had played before it died
    assert [n["event"] for n in notes(log)] == ["crash"]


def test_fault_never_answering_bot_times_out_three_times_and_forfeits(sock_dir: Path) -> None:
    log = sock_dir / "bot.jsonl"
    result = play(spec_with(broken("mute", "never_answers.py", log)), sock_dir)
    assert_games_completed(result, "mute")
    for g in result.games:
        assert_strikes_then_forfeit(g, "mute", "TIMEOUT", POLICY.max_strikes)
    # it was asked exactly three times per game, and never again once forfeited
    asked = Counter(n["game_id"] for n in notes(log) if n["event"] == "request")
    assert sorted(asked.values()) == [POLICY.max_strikes] * len(result.games), asked


def test_fault_late_answers_spend_the_time_bank_then_time_out_once(sock_dir: Path) -> None:
    """Two answers 0.25 s past a 0.5 s deadline come in time on the 1.5 s bank; the third
    request is left past deadline + what is left of the bank: one TIMEOUT strike, no
    forfeit, and the bank is empty from then on. Its answer, sent late (just before the
    answer to the game's next request), is dropped, not blamed on the next request."""
    policy = FaultPolicy(
        deadline=0.5, time_bank=1.5, max_strikes=3, start_timeout=15.0, reconnect_grace=1.0
    )
    log = sock_dir / "bot.jsonl"
    bot = broken("slowpoke", "late_answers.py", log, SLOW="2", SLOW_BY="0.25")
    result = play(spec_with(bot, policy=policy), sock_dir)
    assert_games_completed(result, "slowpoke")
    for g in result.games:
        [f] = faults_of(g, "slowpoke")
        assert str(f.kind) == "TIMEOUT" and not f.forfeit, f
    seen = notes(log)
    requests = [n for n in seen if n["event"] == "request"]
    assert {n["game_id"] for n in requests} == {g.game_id for g in result.games}
    for g in result.games:
        banks = [n["time_bank_ms"] for n in requests if n["game_id"] == g.game_id]
        assert len(banks) >= 4, "the game never asked again after the timeout"
        assert banks[0] == 1500  # the full bank
        assert 0 < banks[1] <= 1500 - 250  # the first slow answer spent at least 0.25 s
        assert 0 < banks[2] <= banks[1] - 250  # so did the second
        assert all(b == 0 for b in banks[3:]), banks  # the timeout took the rest
    late = [n for n in seen if n["event"] == "late_answer"]
    assert len(late) == len(result.games)  # every late answer reached the arena, harmlessly


def test_fault_illegal_option_index_is_recorded_as_illegal_and_forfeits_after_three_strikes(
    sock_dir: Path,
) -> None:
    result = play(spec_with(broken("cheat", "illegal_option.py")), sock_dir)
    assert_games_completed(result, "cheat")
    for g in result.games:
        assert_strikes_then_forfeit(g, "cheat", "ILLEGAL", POLICY.max_strikes)
        for f in faults_of(g, "cheat"):
            n = f.detail.rsplit(" of ", 1)[1].split()[0]
            assert f"option {n} of {n} options" in f.detail, f.detail  # one past the last


def test_fault_an_exception_in_the_bots_code_is_a_bot_error_with_its_message(
    sock_dir: Path,
) -> None:
    """The SDK does not hide a bot's bug: from round 3 on its choose() raises; every such
    decision is a BOT_ERROR strike naming the exception and where it was raised, and the
    seat forfeits after three."""
    result = play(spec_with(broken("buggy", "raises_later.py"), games=2), sock_dir)
    assert_games_completed(result, "buggy")
    for g in result.games:
        mine = faults_of(g, "buggy")
        assert mine, "the bug reached round 3"
        assert_strikes_then_forfeit(g, "buggy", "BOT_ERROR", POLICY.max_strikes)
        for f in mine:
            assert f.round >= 3
            assert "ValueError: no idea what to do in round" in f.detail, f.detail
            assert "(raises_later.py:" in f.detail, f.detail
    assert "Traceback" in result.logs["buggy"]  # and the traceback is in the bot's log


def test_fault_wrong_request_id_is_recorded_as_illegal_and_forfeits(sock_dir: Path) -> None:
    result = play(spec_with(broken("confused", "wrong_request_id.py")), sock_dir)
    assert_games_completed(result, "confused")
    for g in result.games:
        assert_strikes_then_forfeit(g, "confused", "ILLEGAL", POLICY.max_strikes)
        for f in faults_of(g, "confused"):
            assert "answer to unknown request id " in f.detail, f.detail
            assert int(f.detail.rsplit(" ", 1)[1]) >= 10**12  # the bot's made-up id


def test_fault_message_flood_is_cut_off_as_illegal_and_the_gateway_keeps_serving(
    sock_dir: Path,
) -> None:
    """Thousands of answers to requests that were never issued, as fast as the bot can send
    them: the flooder forfeits every game as ILLEGAL, and as soon as its stream has sent
    more answers than it was sent requests (beyond a small allowance) the stream is closed
    with a protocol error; the good bots are not slowed into faults, and the gateway stays
    healthy. (tests/robustness/test_answer_flood.py measures the good bots' latency.)"""
    log = sock_dir / "bot.jsonl"
    games = 4
    bot = broken("flooder", "flood.py", log, FLOOD="3000")
    result = play(spec_with(bot, games=games), sock_dir)
    assert_games_completed(result, "flooder")
    details = []
    for g in result.games:
        mine = faults_of(g, "flooder")
        assert mine and all(str(f.kind) == "ILLEGAL" for f in mine), mine
        assert mine[-1].forfeit, mine
        assert_forfeits_last(g, "flooder")
        details += [f.detail for f in mine]
    # every game forfeited (by strikes, each unknown id blaming an open request) and the
    # stream cut off with a protocol error once the answers outnumbered the requests
    seen = notes(log)
    assert seen[-1] == {"event": "ended", "how": "error PROTOCOL"}, seen[-3:]
    flooded = [n for n in seen if n["event"] == "flooded"]
    assert 1 <= len(flooded) <= POLICY.max_strikes * games, flooded
    assert all("unknown request id" in d or "answer flood" in d for d in details), details


# ---------------------------------------------------------------------------- streams
def test_fault_oversized_answer_closes_the_stream_and_forfeits_as_disconnect(
    sock_dir: Path,
) -> None:
    log = sock_dir / "bot.jsonl"
    bot = broken("bloater", "oversized.py", log, MODE="answer", AFTER="2")
    result = play(spec_with(bot, policy=STREAM_POLICY), sock_dir)
    assert_games_completed(result, "bloater")
    for g in result.games:
        f = assert_one_forfeit(g, "bloater", "DISCONNECT")
        assert "not back within 1 s" in f.detail
    # (a request of the other game may reach it before the stream is torn down)
    seen = notes(log)
    assert {n["event"] for n in seen[:-1]} == {"oversized"}, seen
    assert seen[-1]["event"] == "ended" and seen[-1]["status"] == "RESOURCE_EXHAUSTED", seen


def test_fault_malformed_answer_bytes_get_a_protocol_error_and_forfeit_as_disconnect(
    sock_dir: Path,
) -> None:
    log = sock_dir / "bot.jsonl"
    bot = broken("garbler", "malformed.py", log, MODE="answer", AFTER="2")
    result = play(spec_with(bot, policy=STREAM_POLICY), sock_dir)
    assert_games_completed(result, "garbler")
    for g in result.games:
        f = assert_one_forfeit(g, "garbler", "DISCONNECT")
        assert "bad message" in f.detail and "not back within 1 s" in f.detail, f.detail
    # the arena says why it closes the stream
    seen = notes(log)
    assert {n["event"] for n in seen[:-1]} == {"garbage"}, seen
    assert seen[-1] == {"event": "ended", "how": "error PROTOCOL"}, seen


def test_fault_reconnect_within_grace_resends_the_pending_request_and_records_no_fault(
    sock_dir: Path,
) -> None:
    log = sock_dir / "bot.jsonl"
    bot = broken("flaky", "reconnect.py", log, DROP_AT="3", AWAY="0.2")
    result = play(spec_with(bot, policy=STREAM_POLICY), sock_dir)
    assert_games_completed(result, "flaky")
    assert all(g.faults == [] for g in result.games), [g.faults for g in result.games]
    seen = notes(log)
    welcomes = [n for n in seen if n["event"] == "welcome"]
    assert [w["session"] for w in welcomes] == [1, 2]
    # the grace the bot is told is the match's, even on a gateway configured otherwise
    assert {w["reconnect_grace_ms"] for w in welcomes} == {1000}
    [drop] = [n for n in seen if n["event"] == "drop"]
    again = [n["request_id"] for n in seen if n["event"] == "request" and n["session"] == 2]
    assert drop["request_id"] in again, "the pending request was not sent again"
    assert len(again) > 1  # and play went on after it


def test_a_reconnected_stream_gets_the_game_start_of_every_game_in_flight_again(
    sock_dir: Path,
) -> None:
    """A bot that keeps nothing across streams can still play on after a reconnect: the
    new stream announces each game in flight again before the requests sent again (the
    bot exits on a request for a game it was not told of on the live stream)."""
    log = sock_dir / "bot.jsonl"
    bot = broken("forgetful", "reconnect.py", log, DROP_AT="3", AWAY="0.2", PER_STREAM="1")
    result = play(spec_with(bot, policy=STREAM_POLICY), sock_dir)
    assert_games_completed(result, "forgetful")
    assert all(g.faults == [] for g in result.games), [g.faults for g in result.games]
    seen = notes(log)
    assert not [n for n in seen if n["event"] == "unknown_game"], seen
    [drop] = [n for n in seen if n["event"] == "drop"]
    second = [n for n in seen if n.get("session") == 2]
    first_start = next(i for i, n in enumerate(second) if n["event"] == "game_start")
    resent = next(i for i, n in enumerate(second) if n.get("request_id") == drop["request_id"])
    assert second[first_start]["game_id"] == drop["game_id"] and first_start < resent, second
    # once per game in flight, and only those: the game of the dropped request is one
    starts = [n["game_id"] for n in second if n["event"] == "game_start"]
    assert len(starts) == len(set(starts)), starts


def test_fault_disconnect_longer_than_grace_is_recorded_as_disconnect_and_forfeits(
    sock_dir: Path,
) -> None:
    log = sock_dir / "bot.jsonl"
    bot = broken("flaky", "reconnect.py", log, DROP_AT="3", AWAY="-1")
    result = play(spec_with(bot, policy=STREAM_POLICY), sock_dir)
    assert_games_completed(result, "flaky")
    for g in result.games:
        f = assert_one_forfeit(g, "flaky", "DISCONNECT")
        assert "not back within 1 s" in f.detail
    assert [n["event"] for n in notes(log) if n["event"] not in ("request", "game_start")] == [
        "welcome",
        "drop",
        "staying_away",
    ]


def test_fault_stolen_token_is_refused_while_its_owner_is_connected(sock_dir: Path) -> None:
    """An impostor holding another bot's token cannot open a second stream with it: the
    arena answers ALREADY_CONNECTED, the owner plays on undisturbed and is blamed for
    nothing, and the impostor only ever hears about its own seats."""
    log = sock_dir / "bot.jsonl"
    stolen = "victim-token-" + "x" * 20
    spec = MatchSpec(
        bots=[
            example("ev", token=stolen),
            broken("impostor", "impostor.py", log, STOLEN_TOKEN=stolen),
            example("random"),
        ],
        games=2,
        seed=5,
        faults=POLICY,
    )
    result = play(spec, sock_dir)
    assert_games_completed(result, "impostor")
    assert all(g.faults == [] for g in result.games), [g.faults for g in result.games]
    seen = notes(log)
    [attempt] = [n for n in seen if n["event"] == "stolen_token"]
    assert (attempt["reply"], attempt.get("code")) == ("error", "ALREADY_CONNECTED"), attempt
    own = {(n["game_id"], n["seat"]) for n in seen if n["event"] == "game_start"}
    by_id = {g.game_id: g.seating.index("impostor") for g in result.games}
    assert own == set(by_id.items())
    asked = {(n["game_id"], n["seat"]) for n in seen if n["event"] == "request"}
    assert asked and asked <= own


# ---------------------------------------------------------------------------- what bots see
@pytest.fixture(scope="module", params=["base", "vengeance"])
def spied(request: pytest.FixtureRequest) -> Iterator[tuple[MatchResult, list[dict[str, Any]]]]:
    """A four-seat match with a spy bot that records every message it gets (raw bytes)."""
    work = Path(tempfile.mkdtemp(prefix="f7-spy-"))
    try:
        log = work / "spy.jsonl"
        spec = MatchSpec(
            bots=[
                example("ev"),
                broken("spy", "spy.py", log),
                example("random"),
                example("threshold"),
            ],
            games=4,
            seed=21,
            variant=request.param,
            faults=POLICY,
        )
        result = play(spec, work)
        yield result, notes(log)
    finally:
        shutil.rmtree(work, ignore_errors=True)


def test_bot_never_receives_requests_for_another_bots_seats(
    spied: tuple[MatchResult, list[dict[str, Any]]],
) -> None:
    result, seen = spied
    assert all(g.faults == [] and g.status == "completed" for g in result.games)
    spy_seat = {g.game_id: g.seating.index("spy") for g in result.games}
    started = {}
    for n in seen:
        if n["event"] == "game_start":
            assert n["game_id"] not in started, "two game starts for one seat"
            started[n["game_id"]] = n["seat"]
        elif n["event"] == "request":
            gid = n["game_id"]
            assert gid in started, "a request before its game's start"
            req = pb.DecisionRequest.FromString(base64.b64decode(n["raw"]))
            assert req.seat == started[gid] == n["seat"], (gid, req.seat, started[gid])
            assert req.observation.seat == req.seat
    assert started == spy_seat  # one start per game, with the seat it really holds
    asked = Counter(n["game_id"] for n in seen if n["event"] == "request")
    assert set(asked) == set(spy_seat) and min(asked.values()) >= 3


def _walk(msg: Any) -> Iterator[tuple[str, Any]]:
    """Every scalar (or list of scalars, or map) in a message, recursively."""
    for fd, value in msg.ListFields():
        if fd.message_type is not None and fd.message_type.GetOptions().map_entry:
            yield fd.name, dict(value)
        elif fd.message_type is not None:
            for item in value if fd.is_repeated else [value]:
                yield from _walk(item)
        else:
            yield fd.name, list(value) if fd.is_repeated else value


def _contains_run(values: list[str], run: list[str]) -> bool:
    k = len(run)
    return any(values[i : i + k] == run for i in range(len(values) - k + 1))


def test_requests_never_reveal_the_draw_order(
    spied: tuple[MatchResult, list[dict[str, Any]]],
) -> None:
    """Replay every game with the engine and compare each request the spy got with the
    real hidden state at that moment: the observation is exactly the public one (and the
    same whatever the order of the draw pile), the draw pile appears only as a multiset
    (a map label -> count), the events are exactly the past ones, no list of labels anywhere
    in a request holds the upcoming cards in order, and the seed is not revealed before
    the game's end."""
    result, seen = spied
    spec = result.spec
    rules = get_ruleset(spec.variant, brutal=spec.brutal, target_score=spec.target_score)
    rules_msg = ruleset_pb(rules)
    unseen_field = pb.Observation.DESCRIPTOR.fields_by_name["unseen"]
    assert unseen_field.message_type.GetOptions().map_entry  # a map: no order to leak
    checked = 0
    shuffler = random.Random(0)
    for g in result.games:
        seat = g.seating.index("spy")
        msgs = [n for n in seen if n.get("game_id") == g.game_id]
        [start] = [
            pb.GameStart.FromString(base64.b64decode(n["raw"]))
            for n in msgs
            if n["event"] == "game_start"
        ]
        assert start.bot_seed != g.seed
        requests = [
            pb.DecisionRequest.FromString(base64.b64decode(n["raw"]))
            for n in msgs
            if n["event"] == "request"
        ]
        [end] = [
            pb.GameEnd.FromString(base64.b64decode(n["raw"]))
            for n in msgs
            if n["event"] == "game_end"
        ]
        game = Game(rules, spec.seats, g.seed)
        heard: list[pb.Event] = []
        pending = iter(requests)
        for choice in g.choices:
            d = game.decision
            assert d is not None
            if d.seat == seat and len(d.options) > 1:
                req = next(pending)
                assert (req.seat, pb.DecisionKind.Name(req.kind), len(req.options)) == (
                    seat,
                    d.kind,
                    len(d.options),
                )
                # exactly the public observation of the real state ...
                assert req.observation == observation_pb(game, seat, rules_msg)
                # ... whatever order the draw pile is in
                real = game.deck
                game.deck = shuffler.sample(real, len(real))
                try:
                    assert req.observation == observation_pb(game, seat, rules_msg)
                finally:
                    game.deck = real
                # the draw pile as a multiset only
                assert dict(req.observation.unseen) == Counter(c.label for c in real)
                assert req.observation.deck_size == len(real)
                # the events are the past, all of it, nothing more
                heard.extend(req.events)
                assert heard == [event_pb(e) for e in game.events]
                # no list of labels holds the next cards in draw order; no field the seed
                upcoming = [c.label for c in reversed(real)][:8]
                for name, value in _walk(req):
                    assert value != g.seed, f"the seed in {name}"
                    if len(upcoming) == 8 and isinstance(value, list) and value:
                        assert not _contains_run(value, upcoming), (name, value)
                checked += 1
            game.step(choice)
        assert next(pending, None) is None, "the spy got requests the replay did not make"
        assert game.over and [p.total for p in game.players] == g.totals
        # the game end completes the public log, and only now reveals the seed
        heard.extend(end.events)
        assert heard == [event_pb(e) for e in game.events]
        assert end.seed == g.seed
    assert checked >= 12


def test_a_shared_deal_is_withheld_at_the_end_of_each_of_its_games(sock_dir: Path) -> None:
    """Duplicate deals: one deal serves two games that may be in play together, so a game's
    end must not give its seed away (the spy would know the other game's cards)."""
    log = sock_dir / "spy.jsonl"
    spec = MatchSpec(
        bots=[example("ev"), broken("spy", "spy.py", log)],
        games=4,
        seed=8,
        games_per_deal=2,
        faults=POLICY,
    )
    result = play(spec, sock_dir)
    assert all(g.status == "completed" and g.faults == [] for g in result.games)
    by_index = sorted(result.games, key=lambda g: g.index)
    assert by_index[0].seed == by_index[1].seed != by_index[2].seed == by_index[3].seed
    ends = [
        pb.GameEnd.FromString(base64.b64decode(n["raw"]))
        for n in notes(log)
        if n["event"] == "game_end"
    ]
    assert len(ends) == 4 and [e.seed for e in ends] == [0, 0, 0, 0]
