"""In-process games (``arena simulate``), no network: built-in policies, and bot files
loaded into this process (:mod:`arena.sdk.load`, played by :mod:`arena.match.local`).

Game ``g`` of a run with seed S is dealt from ``game_seed(S, g)`` and the policy (or bot) at
seat ``s`` gets ``bot_seed(S, g, s)``: the seeds of game ``g`` of ``arena match --seed S``
(:mod:`arena.seeds`). Policies alone are played by the engine directly (the fast path);
with bots, or with seats rotating, every game goes through the arena's referee.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from arena.bots import Policy
from arena.counts import split_count
from arena.faults import Fault
from arena.match.spec import MatchSpec
from arena.sdk.load import LoadedBot
from arena.seeds import bot_seed, game_seed
from arena.status import GameStatus
from engine import Game, Ruleset
from engine.policies import make_policy


@dataclass
class SeatStats:
    """One row: a seat (seats fixed) or an entry (seats rotating), over every game."""

    policy: str | None  # the built-in policy, None for a bot
    name: str = ""
    bot: str | None = None  # the bot as given (FILE[:NAME] [ARGS]), None for a policy
    wins: float = 0.0
    rounds: int = 0
    round_score_sum: int = 0
    busts: int = 0
    flip7s: int = 0
    total_sum: int = 0
    faults: dict[str, int] = field(default_factory=dict)

    def as_dict(self, games: int) -> dict[str, Any]:
        r = self.rounds or 1
        return {
            "name": self.name or self.policy,
            "policy": self.policy,
            "bot": self.bot,
            "wins": split_count(self.wins),
            "mean_round_score": round(self.round_score_sum / r, 4),
            "bust_rate": round(self.busts / r, 4),
            "flip7_rate": round(self.flip7s / r, 4),
            "mean_total": round(self.total_sum / (games or 1), 4),
            "faults": dict(sorted(self.faults.items())),
        }

    def count(self, events: Iterable[Mapping[str, Any]], seat: int) -> None:
        """Add one game's round scores, busts and Flip 7s of ``seat`` (its events as the
        dicts of engine.events.event_dict)."""
        for ev in events:
            k = ev["kind"]
            if k == "round_end":
                self.round_score_sum += ev["scores"][seat]
                self.rounds += 1
            elif k == "bust" and ev["seat"] == seat:
                self.busts += 1
            elif k == "flip7" and ev["seat"] == seat:
                self.flip7s += 1


@dataclass
class SimResult:
    games: int
    rounds: int
    seconds: float
    seats: list[SeatStats] = field(default_factory=list)
    void: int = 0  # games voided by a failure of the arena's own (not counted above)
    decisions: int = 0  # decisions asked of bots (not of policies)
    faults: list[list[Fault]] = field(default_factory=list)  # per game that had any

    def as_dict(self) -> dict[str, Any]:
        return {
            "games": self.games,
            "void": self.void,
            "decisions": self.decisions,
            "rounds": self.rounds,
            "seconds": round(self.seconds, 4),
            "rounds_per_second": round(self.rounds / self.seconds, 1) if self.seconds else None,
            "mean_rounds_per_game": round(self.rounds / self.games, 4) if self.games else 0,
            "seats": [s.as_dict(self.games) for s in self.seats],
        }


def play_game(game: Game, policies: Sequence[Callable[[Game, Any], int]]) -> Game:
    """Drive one game to the end with one policy per seat."""
    step = game.step
    while not game.over:
        d = game.decision
        assert d is not None
        step(policies[d.seat](game, d))
    return game


def simulate(
    ruleset: Ruleset,
    seats: int,
    policies: Sequence[str],
    games: int,
    seed: int,
    *,
    single_round: bool = False,
    progress: Callable[[int], None] | None = None,
) -> SimResult:
    """Play ``games`` games of built-in policies; seat i uses ``policies[i]``. Game g is
    dealt from game_seed(seed, g), seat i's policy seeded with bot_seed(seed, g, i)."""
    if len(policies) != seats:
        raise ValueError("one policy per seat is required")
    stats = [SeatStats(p, name=p) for p in policies]
    rounds = 0
    every = max(1, games // 200)
    t0 = time.perf_counter()
    for g in range(games):
        pols = [make_policy(spec, bot_seed(seed, g, i)) for i, spec in enumerate(policies)]
        game = play_game(Game(ruleset, seats, game_seed(seed, g), single_round=single_round), pols)
        rounds += game.round
        share = 1.0 / len(game.winners)
        for w in game.winners:
            stats[w].wins += share
        _count_events(stats, game.events)
        for st, p in zip(stats, game.players, strict=True):
            st.total_sum += p.total
        if progress is not None and (g + 1) % every == 0:
            progress(g + 1)
    seconds = time.perf_counter() - t0
    if progress is not None:
        progress(games)
    return SimResult(games, rounds, seconds, stats)


def _count_events(stats: list[SeatStats], events: list[Any]) -> None:
    """Round scores, busts and Flip 7s of one game (event tuples), seat by seat."""
    for ev in events:
        k = ev[0]
        if k == "round_end":
            for st, sc in zip(stats, ev[2], strict=True):
                st.round_score_sum += sc
                st.rounds += 1
        elif k == "bust":
            stats[ev[1]].busts += 1
        elif k == "flip7":
            stats[ev[1]].flip7s += 1


def simulate_match(
    spec: MatchSpec,
    bots: Mapping[str, LoadedBot],
    given: Mapping[str, str] | None = None,
    *,
    progress: Callable[[int], None] | None = None,
) -> SimResult:
    """Play ``spec`` in this process (:func:`arena.match.local.play_local`) and gather the
    statistics per entry of ``spec.bots`` (each bot entry's loaded bot in ``bots``, the
    text it was given as in ``given``). Void games are counted apart."""
    from arena.match.local import play_local

    given = given or {}
    stats = [
        SeatStats(
            e.source.spec if isinstance(e.source, Policy) else None,
            name=e.name,
            bot=None if isinstance(e.source, Policy) else given.get(e.name, e.name),
        )
        for e in spec.bots
    ]
    every = max(1, len(spec.indices) // 200)

    def advance(done: int, total: int) -> None:
        if progress is not None and (done % every == 0 or done == total):
            progress(done)

    result = play_local(spec, bots, advance)
    rounds = void = 0
    for rec in result.games:
        seating = spec.seating(rec.index)
        for f in rec.faults:
            if f.seat is not None:
                row = stats[seating[f.seat]].faults
                row[str(f.kind)] = row.get(str(f.kind), 0) + 1
        if rec.status != GameStatus.COMPLETED:
            void += 1
            continue
        rounds += rec.rounds
        for w in rec.winners:
            stats[seating[w]].wins += 1.0 / len(rec.winners)
        for seat, entry in enumerate(seating):
            stats[entry].count(rec.events, seat)
            stats[entry].total_sum += rec.totals[seat]
    faults = [rec.faults for rec in result.games if rec.faults]
    return SimResult(
        len(result.games) - void, rounds, result.seconds, stats, void, result.decisions, faults
    )
