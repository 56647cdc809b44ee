"""The seat clock: one seat's deadline, time bank, strikes and forfeit in one game.

Pure: it keeps the accounts and turns what a link reports into the fault policy's verdict;
it owns no timer and reads time only through the ``now`` it is given, so its rules are
tested in milliseconds against a scripted fake link (tests/match/test_seat_clock.py).

The policy (docs/architecture.md, "Fault policy"): each decision may take the deadline plus
what is left of the seat's time bank; time past the deadline is taken from the bank. A
timeout (the bank is then empty), an illegal answer or an error the bot reports from its
own code is a strike and plays the safe
default; after ``max_strikes`` strikes, or at once when the bot is gone (crash, lost
stream past the reconnect grace of its link, failed start), the seat forfeits: it plays
the default for the rest of the game and ranks last. A failure of the arena's own (INFRA)
is not the seat's: it is raised, and the game is void. A seat whose bot failed to start
(INIT_FAIL) before it answered anything in the game is marked absent (``Fault.absent``):
the game does not count for that bot's rating.
"""

from __future__ import annotations

import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Any, Protocol

from arena.faults import BotError, BotGone, Fault, FaultKind, FaultPolicy, IllegalAnswer
from engine import STAY, Decision, DecisionKind


def default_option(d: Decision) -> int:
    """The safe default: STAY where legal, else the first option."""
    if d.kind == DecisionKind.HIT_OR_STAY and STAY in d.options:
        return d.options.index(STAY)
    return 0


class Link(Protocol):
    """What the clock needs of a bot's link (arena.gateway.link.BotLink)."""

    def next_request_id(self) -> int: ...

    def request(
        self, request_id: int, msg: Any, n_options: int, timeout: float
    ) -> Awaitable[int]: ...


class SeatLink(Link, Protocol):
    """What the referee needs of a seat-holder's link: a bot over the gateway
    (arena.gateway.link.BotLink) or a bot loaded in-process (arena.match.local.LocalLink)."""

    @property
    def gone(self) -> BotGone | None: ...

    @property
    def want_forced(self) -> bool: ...

    def send(self, msg: Any) -> None: ...


@dataclass
class Verdict:
    """What a seat plays for one decision, and the fault it earned (if any)."""

    index: int
    fault: Fault | None = None


class SeatClock:
    """The accounts of one seat for one game."""

    def __init__(
        self,
        seat: int,
        name: str,
        policy: FaultPolicy,
        now: Callable[[], float] = time.perf_counter,
    ) -> None:
        self.seat = seat
        self.name = name
        self.deadline = policy.deadline
        self.bank = policy.time_bank
        self.max_strikes = policy.max_strikes
        self.now = now
        self.strikes = 0
        self.forfeit = False
        self.answers = 0  # answers the bot sent in this game (legal or not)

    @property
    def budget(self) -> float:
        """Seconds the next decision may take: the deadline plus what is left of the bank."""
        return self.deadline + self.bank

    def spend(self, elapsed: float) -> None:
        """A decision took ``elapsed`` seconds: time past the deadline comes off the bank."""
        over = elapsed - self.deadline
        if over > 0:
            self.bank = max(0.0, self.bank - over)

    def strike(self, kind: FaultKind, detail: str, rnd: int) -> Fault:
        self.strikes += 1
        if self.strikes >= self.max_strikes:
            self.forfeit = True
        return Fault(kind, self.seat, self.name, detail, self.forfeit, rnd)

    def give_up(self, kind: FaultKind, detail: str, rnd: int) -> Fault:
        """The bot is gone: the seat forfeits the game at once (absent if it never
        started and has not answered anything in this game)."""
        self.forfeit = True
        absent = kind == FaultKind.INIT_FAIL and not self.answers
        return Fault(kind, self.seat, self.name, detail, True, rnd, absent)

    async def ask(
        self,
        link: Link,
        encode: Callable[[int, int, int], Any],
        d: Decision,
        rnd: int,
    ) -> Verdict:
        """Ask the bot on ``link`` for decision ``d``; ``encode(request_id, deadline_ms,
        bank_ms)`` builds the request. Raises BotGone for the arena's own failures."""
        rid = link.next_request_id()
        msg = encode(rid, int(self.deadline * 1000), int(self.bank * 1000))
        t0 = self.now()
        try:
            index = await link.request(rid, msg, len(d.options), self.budget)
        except TimeoutError:
            self.bank = 0.0
            detail = f"no answer to {d.kind} within {self.deadline:g} s + time bank"
            return Verdict(default_option(d), self.strike(FaultKind.TIMEOUT, detail, rnd))
        except IllegalAnswer as e:
            self.answers += 1
            self.spend(self.now() - t0)
            return Verdict(default_option(d), self.strike(FaultKind.ILLEGAL, f"{d.kind}: {e}", rnd))
        except BotError as e:
            self.answers += 1
            self.spend(self.now() - t0)
            detail = f"{d.kind}: the bot's code failed: {e}"
            return Verdict(default_option(d), self.strike(FaultKind.BOT_ERROR, detail, rnd))
        except BotGone as e:
            if e.kind == FaultKind.INFRA:
                raise  # the arena's failure, not the bot's: the game is void
            return Verdict(default_option(d), self.give_up(e.kind, e.detail, rnd))
        self.answers += 1
        self.spend(self.now() - t0)
        return Verdict(index)
