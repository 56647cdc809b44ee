"""One table of bots plays a series of games: ``run_match(MatchSpec) -> MatchResult``.

* :mod:`~arena.match.spec` — the data in and out (MatchSpec, BotEntry, GameRecord,
  MatchResult);
* :mod:`~arena.match.lineup` — the bots' lifecycle (start through their runtimes, wait
  for them to connect, stop);
* :mod:`~arena.match.referee` — one game: drives the engine and asks the seats;
* :mod:`~arena.match.clock` — one seat's deadline, time bank, strikes and forfeit (pure);
* :mod:`~arena.match.runner` — the match: gateway, bounded pool of games, results.

It touches no database, so matches can run on worker processes or machines.
"""

from arena.match.clock import SeatClock, default_option
from arena.match.referee import final_ranks
from arena.match.runner import MatchRunner, run_match
from arena.match.spec import BotEntry, GameRecord, MatchResult, MatchSpec

__all__ = [
    "BotEntry",
    "GameRecord",
    "MatchResult",
    "MatchRunner",
    "MatchSpec",
    "SeatClock",
    "default_option",
    "final_ranks",
    "run_match",
]
