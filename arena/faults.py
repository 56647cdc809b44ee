"""Fault kinds and records (docs/architecture.md, fault policy): every game ends with a reason."""

from __future__ import annotations

import math
from dataclasses import asdict, dataclass
from enum import StrEnum
from typing import Any

from arena import limits


class FaultKind(StrEnum):
    TIMEOUT = "TIMEOUT"  # no answer within deadline + time bank
    ILLEGAL = "ILLEGAL"  # bad option index, or an answer to an unknown request
    CRASH = "CRASH"  # the bot process died
    DISCONNECT = "DISCONNECT"  # the stream dropped and did not come back in time
    INIT_FAIL = "INIT_FAIL"  # never connected, or a bad hello
    INFRA = "INFRA"  # the arena's own failure: the game is void
    BOT_ERROR = "BOT_ERROR"  # the bot's own code failed to choose (it said so: Answer.error)


@dataclass
class Fault:
    kind: FaultKind
    seat: int | None  # the seat to blame; None for INFRA
    bot: str | None
    detail: str
    forfeit: bool = False
    round: int = 0

    def as_dict(self) -> dict[str, Any]:
        d = asdict(self)
        d["kind"] = str(self.kind)
        return d


@dataclass(frozen=True)
class FaultPolicy:
    """Limits a match enforces on bots."""

    deadline: float = limits.DEFAULT_DEADLINE  # seconds per decision before the bank is used
    time_bank: float = limits.DEFAULT_TIME_BANK  # seconds per seat per game
    max_strikes: int = limits.DEFAULT_MAX_STRIKES  # faults before the seat forfeits the game
    start_timeout: float = limits.DEFAULT_START_TIMEOUT  # seconds for a started bot to connect
    reconnect_grace: float = limits.DEFAULT_RECONNECT_GRACE  # seconds to come back

    def __post_init__(self) -> None:
        # what the protocol carries (uint32 milliseconds) and what a run can wait for
        for name, value, high in (
            ("deadline", self.deadline, limits.MAX_DEADLINE),
            ("time_bank", self.time_bank, limits.MAX_TIME_BANK),
        ):
            if not math.isfinite(value) or not 0 <= value <= high:
                raise ValueError(f"{name} must be between 0 and {high:g} seconds, got {value}")
        if self.deadline <= 0:
            raise ValueError(f"deadline must be positive, got {self.deadline}")
        if not 1 <= self.max_strikes <= limits.MAX_STRIKES:
            raise ValueError(
                f"max_strikes must be between 1 and {limits.MAX_STRIKES}, got {self.max_strikes}"
            )


class BotGone(Exception):
    """The bot can no longer answer (crashed, disconnected for good, never started)."""

    def __init__(self, kind: FaultKind, detail: str) -> None:
        super().__init__(detail)
        self.kind = kind
        self.detail = detail


class IllegalAnswer(Exception):
    """The bot answered with something that is not a legal option."""


class BotError(Exception):
    """The bot reported that its own code failed to choose (``Answer.error``)."""
