"""The seat clock's fault policy, against a scripted fake link and a fake clock: every rule
of deadlines, time banks, strikes and forfeits, in milliseconds (no bot, no gateway)."""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import pytest

from arena.faults import BotGone, FaultKind, FaultPolicy, IllegalAnswer
from arena.match.clock import SeatClock, default_option
from engine import Decision

HIT_STAY = Decision("HIT_OR_STAY", 0, ("HIT", "STAY"), None)
HIT_ONLY = Decision("HIT_OR_STAY", 0, ("HIT",), None)
TARGET = Decision("CHOOSE_TARGET", 0, (2, 1, 0), "FREEZE")
POLICY = FaultPolicy(deadline=1.0, time_bank=10.0, max_strikes=3)


class FakeTime:
    def __init__(self) -> None:
        self.t = 100.0

    def __call__(self) -> float:
        return self.t


@dataclass
class Step:
    """What the fake bot does with one request: answer ``index`` after ``seconds``, or
    raise ``error`` (what the real link raises on timeout, an illegal answer, a crash)."""

    seconds: float = 0.0
    index: int = 0
    error: BaseException | None = None


@dataclass
class FakeLink:
    time: FakeTime
    script: list[Step]
    asked: list[tuple[int, Any, int, float]] = field(default_factory=list)
    _ids: int = 0

    def next_request_id(self) -> int:
        self._ids += 1
        return self._ids

    async def request(self, rid: int, msg: Any, n_options: int, timeout: float) -> int:
        self.asked.append((rid, msg, n_options, timeout))
        step = self.script.pop(0)
        # the real link times out by itself at ``timeout``: a slower bot never answers
        if step.error is None and step.seconds > timeout:
            self.time.t += timeout
            raise TimeoutError
        self.time.t += step.seconds
        if step.error is not None:
            raise step.error
        return step.index


def encoder() -> tuple[Callable[[int, int, int], Any], list[tuple[int, int, int]]]:
    sent: list[tuple[int, int, int]] = []

    def encode(rid: int, deadline_ms: int, bank_ms: int) -> tuple[int, int, int]:
        sent.append((rid, deadline_ms, bank_ms))
        return (rid, deadline_ms, bank_ms)

    return encode, sent


def run(clock: SeatClock, link: FakeLink, d: Decision = HIT_STAY) -> Any:
    encode, _ = encoder()
    return asyncio.run(clock.ask(link, encode, d, rnd=2))


def fixture(*steps: Step, policy: FaultPolicy = POLICY) -> tuple[SeatClock, FakeLink]:
    t = FakeTime()
    return SeatClock(1, "bot", policy, now=t), FakeLink(t, list(steps))


def test_an_answer_within_the_deadline_is_played_and_costs_no_bank() -> None:
    clock, link = fixture(Step(0.2, index=0))
    verdict = run(clock, link)
    assert verdict.index == 0 and verdict.fault is None
    assert clock.bank == 10.0 and clock.strikes == 0
    (rid, _, n, timeout) = link.asked[0]
    assert rid == 1 and n == 2 and timeout == 11.0  # deadline + the whole bank


def test_time_past_the_deadline_comes_off_the_bank_without_a_strike() -> None:
    clock, link = fixture(Step(3.5, index=1), Step(1.0, index=0))
    assert run(clock, link).fault is None
    assert clock.bank == pytest.approx(7.5)
    run(clock, link)
    assert clock.bank == pytest.approx(7.5)  # exactly the deadline costs nothing
    assert link.asked[1][3] == pytest.approx(8.5)  # the next budget is what is left


def test_the_request_tells_the_bot_its_deadline_and_remaining_bank_in_milliseconds() -> None:
    clock, link = fixture(Step(2.25), Step(0.0))
    encode, sent = encoder()
    asyncio.run(clock.ask(link, encode, HIT_STAY, 1))
    asyncio.run(clock.ask(link, encode, HIT_STAY, 1))
    assert sent == [(1, 1000, 10000), (2, 1000, 8750)]


def test_a_timeout_empties_the_bank_strikes_and_plays_stay() -> None:
    clock, link = fixture(Step(30.0))
    verdict = run(clock, link)
    assert verdict.index == HIT_STAY.options.index("STAY")
    assert verdict.fault is not None and verdict.fault.kind == FaultKind.TIMEOUT
    assert not verdict.fault.forfeit and verdict.fault.round == 2 and verdict.fault.seat == 1
    assert clock.bank == 0.0 and clock.strikes == 1
    assert "HIT_OR_STAY within 1 s + time bank" in verdict.fault.detail


def test_after_a_timeout_only_the_deadline_is_left() -> None:
    clock, link = fixture(Step(30.0), Step(1.5))
    run(clock, link)
    verdict = run(clock, link)
    assert link.asked[1][3] == 1.0
    assert verdict.fault is not None and verdict.fault.kind == FaultKind.TIMEOUT


def test_an_illegal_answer_strikes_spends_its_time_and_plays_the_default() -> None:
    clock, link = fixture(Step(2.0, error=IllegalAnswer("option 7 of 3 options")))
    verdict = run(clock, link, TARGET)
    assert verdict.index == 0  # no STAY here: the first option
    assert verdict.fault is not None and verdict.fault.kind == FaultKind.ILLEGAL
    assert verdict.fault.detail == "CHOOSE_TARGET: option 7 of 3 options"
    assert clock.bank == pytest.approx(9.0)


def test_the_third_strike_forfeits_the_game() -> None:
    bad = IllegalAnswer("nonsense")
    clock, link = fixture(Step(error=bad), Step(30.0), Step(error=bad))
    faults = [run(clock, link).fault for _ in range(3)]
    assert [f.kind for f in faults] == [FaultKind.ILLEGAL, FaultKind.TIMEOUT, FaultKind.ILLEGAL]
    assert [f.forfeit for f in faults] == [False, False, True]
    assert clock.forfeit and clock.strikes == 3


def test_max_strikes_of_one_forfeits_at_the_first_fault() -> None:
    clock, link = fixture(Step(error=IllegalAnswer("x")), policy=FaultPolicy(max_strikes=1))
    assert run(clock, link).fault.forfeit and clock.forfeit


@pytest.mark.parametrize("kind", [FaultKind.CRASH, FaultKind.DISCONNECT, FaultKind.INIT_FAIL])
def test_a_bot_that_is_gone_forfeits_at_once(kind: FaultKind) -> None:
    clock, link = fixture(Step(error=BotGone(kind, "stream lost and not back within 3 s")))
    verdict = run(clock, link)
    assert verdict.fault is not None and verdict.fault.kind == kind and verdict.fault.forfeit
    assert clock.forfeit and clock.strikes == 0
    assert verdict.index == 1  # STAY


def test_the_arenas_own_failure_is_not_the_seats_it_is_raised() -> None:
    clock, link = fixture(Step(error=BotGone(FaultKind.INFRA, "out of descriptors")))
    with pytest.raises(BotGone):
        run(clock, link)
    assert not clock.forfeit and clock.strikes == 0


def test_a_forced_decision_defaults_to_its_only_option() -> None:
    clock, link = fixture(Step(30.0))
    assert run(clock, link, HIT_ONLY).index == 0


def test_default_option_is_stay_where_legal_else_the_first() -> None:
    assert default_option(HIT_STAY) == 1
    assert default_option(Decision("HIT_OR_STAY", 0, ("STAY", "HIT"), None)) == 0
    assert default_option(HIT_ONLY) == 0
    assert default_option(TARGET) == 0


def test_request_ids_come_from_the_link() -> None:
    clock, link = fixture(Step(), Step(), Step())
    for _ in range(3):
        run(clock, link)
    assert [a[0] for a in link.asked] == [1, 2, 3]
