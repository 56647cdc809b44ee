"""Fault kinds and records (docs/architecture.md, fault policy): every game ends with a reason.

Also what a pre-flight finds (:class:`Absence`: an entrant that did not start) and what
readers of stored games need of their faults: the seats that forfeited
(:func:`forfeited_seats`: standings mark them) and the seats whose bot never played the
game at all (:func:`absent_seats`: ratings leave them out).
"""

from __future__ import annotations

import math
import re
from collections.abc import Iterable
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
    # the seat's bot never played this game: it failed to start or to connect (INIT_FAIL)
    # before the seat made any decision. Standings still count the forfeit; ratings leave
    # the seat out of the game (arena.leaderboard).
    absent: bool = False

    def as_dict(self) -> dict[str, Any]:
        d = asdict(self)
        d["kind"] = str(self.kind)
        return d


FaultLike = Fault | dict[str, Any]  # a fault, or a fault as stored (Fault.as_dict)


def _as_dict(f: FaultLike) -> dict[str, Any]:
    return f.as_dict() if isinstance(f, Fault) else f


def forfeited_seats(faults: Iterable[FaultLike]) -> frozenset[int]:
    """The seats of one game that forfeited it."""
    return frozenset(
        d["seat"] for d in map(_as_dict, faults) if d.get("forfeit") and d.get("seat") is not None
    )


def absent_seats(faults: Iterable[FaultLike]) -> frozenset[int]:
    """The seats of one game whose bot never played it (see ``Fault.absent``)."""
    return frozenset(
        d["seat"] for d in map(_as_dict, faults) if d.get("absent") and d.get("seat") is not None
    )


def first_line(text: str) -> str:
    """The first line of ``text`` that is not blank, stripped."""
    return next((ln.strip() for ln in text.splitlines() if ln.strip()), "")


# a line of a bot's output that says what went wrong (an interpreter's or a shell's)
_TELLING = re.compile(
    r"error\b|exception\b|not found|no such file|cannot|can't|failed|denied|refused", re.I
)
MAX_REASON = 300  # characters of a bot's output quoted in a reason


def telling_line(output: str) -> str:
    """The line of a bot's output that best says why it stopped: the first one that names
    an error ("node: not found", "ModuleNotFoundError: ...", "Error: Cannot find module"),
    else the first line; shortened to MAX_REASON characters ("" for no output)."""
    lines = [ln.strip() for ln in output.splitlines() if ln.strip()]
    line = next((ln for ln in lines if _TELLING.search(ln)), lines[0] if lines else "")
    return line if len(line) <= MAX_REASON else line[: MAX_REASON - 1] + "…"


@dataclass(frozen=True)
class Absence:
    """An entrant that failed an event's pre-flight: it could not be started, exited
    before it said hello, or did not connect in time. ``kind`` is INIT_FAIL, or INFRA
    when the arena itself could not start it (out of file descriptors)."""

    bot: str
    reason: str
    kind: FaultKind = FaultKind.INIT_FAIL

    @property
    def blames_the_arena(self) -> bool:
        return self.kind == FaultKind.INFRA


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
        if not (math.isfinite(self.start_timeout) and self.start_timeout > 0):
            raise ValueError(f"start_timeout must be positive, got {self.start_timeout}")
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


@dataclass
class FaultLine:
    """All faults of one kind of one bot (None: the arena's own) in a set of games."""

    bot: str | None
    kind: str
    count: int = 0
    forfeits: int = 0
    games: int = 0
    first: str = ""  # the first line of the first fault's detail

    def as_dict(self) -> dict[str, Any]:
        return asdict(self)


def summarize(games: Iterable[Iterable[FaultLike]]) -> list[FaultLine]:
    """Faults by bot and kind over ``games`` (each: its faults, as Fault or stored dicts),
    worst first: the operator's summary after a match or an event."""
    lines: dict[tuple[str | None, str], FaultLine] = {}
    for faults in games:
        seen: set[tuple[str | None, str]] = set()
        for f in faults:
            d = _as_dict(f)
            k = (d.get("bot"), str(d["kind"]))
            line = lines.get(k)
            if line is None:
                line = lines[k] = FaultLine(
                    k[0], k[1], first=first_line(str(d.get("detail") or ""))
                )
            line.count += 1
            line.forfeits += bool(d.get("forfeit"))
            if k not in seen:
                seen.add(k)
                line.games += 1
    return sorted(lines.values(), key=lambda ln: (-ln.forfeits, -ln.count, ln.bot or "", ln.kind))
