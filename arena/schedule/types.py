"""The value types every scheduler speaks: tables, round plans, standings."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Protocol, runtime_checkable

from arena import limits

MIN_SEATS = limits.MIN_EVENT_SEATS
MAX_SEATS = limits.MAX_TABLE_SEATS
FORMATS = limits.FORMATS


@dataclass(frozen=True)
class Table:
    """One table of a round: bot names in seat order (``seats[0]`` starts the match)."""

    seats: tuple[str, ...]

    def __post_init__(self) -> None:
        if not isinstance(self.seats, tuple):
            object.__setattr__(self, "seats", tuple(self.seats))
        if len(set(self.seats)) != len(self.seats):
            raise ValueError(f"a bot sits twice at one table: {self.seats}")

    def __len__(self) -> int:
        return len(self.seats)


@dataclass
class RoundPlan:
    """The tables of one round, the bots sitting it out, and why it looks the way it does."""

    tables: list[Table]
    byes: list[str] = field(default_factory=list)
    note: str = ""

    def seated(self) -> list[str]:
        """Every bot at a table this round, table by table, in seat order."""
        return [bot for table in self.tables for bot in table.seats]


@dataclass
class Standing:
    """What the caller knows about one bot before a round."""

    bot: str
    points: float
    games: int
    rating: float = 1500.0


@runtime_checkable
class Scheduler(Protocol):
    """A tournament format: how many rounds, and the tables of each."""

    format: str

    def total_rounds(self) -> int: ...

    def plan_round(
        self, index: int, standings: list[Standing], history: list[RoundPlan]
    ) -> RoundPlan: ...
