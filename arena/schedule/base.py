"""What every format keeps: the field, the table size, the seed and the requested rounds;
``plan_round`` checks the round index before the format plans that round."""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from arena.schedule.common import check_index
from arena.schedule.types import RoundPlan, Standing, Table


class BaseScheduler:
    """The shared part of the schedulers (a :class:`~arena.schedule.types.Scheduler`).

    ``bots`` are in entry order; a bot's index in that list is its id in the plans that a
    format builds (:meth:`named_plan` turns those back into names). ``rounds`` is what the
    caller asked for (None: the format's default). ``prefer_byes`` (round robin and Swiss)
    plays full tables only and gives the leftover bots byes.
    """

    format: str

    def __init__(
        self,
        bots: list[str],
        seats: int,
        *,
        rounds: int | None = None,
        seed: int = 0,
        prefer_byes: bool = False,
    ) -> None:
        self.bots = list(bots)
        self.seats = seats
        self.seed = seed
        self.prefer_byes = prefer_byes
        self.requested_rounds = rounds
        self._index = {b: i for i, b in enumerate(self.bots)}

    def total_rounds(self) -> int:
        raise NotImplementedError

    def plan_round(
        self, index: int, standings: list[Standing], history: list[RoundPlan]
    ) -> RoundPlan:
        check_index(index, self.total_rounds())
        return self._plan(index, standings, history)

    def _plan(self, index: int, standings: list[Standing], history: list[RoundPlan]) -> RoundPlan:
        raise NotImplementedError

    def bot_id(self, bot: str) -> int:
        """The index of a bot that an earlier round seated; ValueError for an unknown one."""
        i = self._index.get(bot)
        if i is None:
            raise ValueError(f"history mentions an unknown bot: {bot!r}")
        return i

    def named_plan(
        self, tables: Iterable[Sequence[int]], byes: Iterable[int], note: str
    ) -> RoundPlan:
        """A plan of bot ids (tables in seat order, byes) as a plan of bot names."""
        return RoundPlan(
            tables=[Table(tuple(self.bots[b] for b in t)) for t in tables],
            byes=[self.bots[b] for b in byes],
            note=note,
        )
