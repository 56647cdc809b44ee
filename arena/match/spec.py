"""What a match is and what it gives back: plain data, so that it can travel to a worker.

``MatchSpec`` (one table of bots, how many games, the deal seed, the rules and the fault
policy) goes in; ``MatchResult`` (one ``GameRecord`` per game, the bots' logs) comes out.

**Duplicate deals.** With ``games_per_deal = n > 1`` the games come in sets of ``n``
consecutive indices that share one deal (game ``i`` is dealt from deal ``i // n``), e.g.
a deal played once in each rotation of the table (``arena tournament --duplicate``) or a
deal played twice with two seats exchanged (``arena test``, with ``seatings``). Each game
keeps its own bot seeds. A shared deal is never revealed in ``GameEnd`` (see
:meth:`MatchSpec.revealed_seed`): another game of its set may still be in play.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from arena.bots import BotSource, Remote
from arena.counts import split_count
from arena.faults import Fault, FaultPolicy
from arena.seeds import bot_seed, fresh_match_seed, game_seed
from arena.status import GameStatus


@dataclass
class BotEntry:
    """One seat-holder: its name at the table and where it runs from (``arena.bots``).

    ``token`` fixes the bot's token (a remote bot must be given one unless its link is
    shared by the caller; a started bot gets a random one otherwise). ``absent`` is why
    the bot failed its event's pre-flight (``arena.match.preflight``) when the event goes
    on without it: it is not started, and its seats forfeit every game with INIT_FAIL.
    """

    name: str
    source: BotSource
    token: str | None = None
    absent: str | None = None

    def __post_init__(self) -> None:
        if isinstance(self.source, Remote) and not (self.token or self.source.token_hash):
            raise ValueError(f"remote bot {self.name!r} needs a token")


@dataclass
class MatchSpec:
    bots: list[BotEntry]  # one per seat
    games: int = 1
    # the match's deal seed: every game's deal and bot seed derive from it with a keyed
    # function (arena.seeds). None: a fresh secret, so nobody can predict a card; give a
    # number only for a reproducible run (anyone who knows it can predict every deal).
    seed: int | None = None
    variant: str = "base"
    brutal: bool = False
    target_score: int = 200
    rotate: bool = True  # game i seats bot (s + i) % n at seat s
    concurrency: int = 16
    faults: FaultPolicy = field(default_factory=FaultPolicy)
    match_id: str = ""
    record_latency: bool = False
    # scripted games (compliance checks, tests): game i draws stacks[i] first
    stacks: list[list[str]] | None = None
    single_round: bool = False
    # resource limits for container bots (runtime/docker.py ContainerLimits; None: defaults)
    container_limits: Any = None
    # resource limits for process bots (runtime/sandbox.py ProcessLimits; None: defaults)
    process_limits: Any = None
    # the games to play, by index (None: all of range(games)); a match split over worker
    # processes gives each part some indices: game i is the same game wherever it is played
    game_indices: tuple[int, ...] | None = None
    # duplicate deals: consecutive games in sets of this many share one deal (game i is
    # dealt from deal i // games_per_deal); 1: every game has a deal of its own
    games_per_deal: int = 1
    # explicit seat plans, taken in turn: game i seats bot seatings[i % len][s] at seat s
    # (None: the rotation of ``rotate``)
    seatings: tuple[tuple[int, ...], ...] | None = None

    def __post_init__(self) -> None:
        if self.seed is None:
            self.seed = fresh_match_seed()
        if isinstance(self.games_per_deal, bool) or self.games_per_deal < 1:
            raise ValueError("games_per_deal must be a whole number of at least 1")
        if self.seatings is not None:
            n = len(self.bots)
            if not self.seatings or any(sorted(p) != list(range(n)) for p in self.seatings):
                raise ValueError("each seating must seat every bot of the match once")

    @property
    def seats(self) -> int:
        return len(self.bots)

    @property
    def indices(self) -> tuple[int, ...] | range:
        return self.game_indices if self.game_indices is not None else range(self.games)

    def split(self, parts: int) -> list[MatchSpec]:
        """This match as ``parts`` matches of every ``parts``-th game (same seeds, same
        match id, so each game is the one it would be in the whole)."""
        from dataclasses import replace

        indices = list(self.indices)
        out = []
        for k in range(min(parts, len(indices))):
            mine = tuple(indices[k::parts])
            out.append(replace(self, game_indices=mine))
        return out

    def seating(self, index: int) -> list[int]:
        """Which bot (index into ``bots``) sits at each seat in game ``index``."""
        if self.seatings is not None:
            return list(self.seatings[index % len(self.seatings)])
        n = self.seats
        shift = index % n if self.rotate else 0
        return [(s + shift) % n for s in range(n)]

    def game_seed(self, index: int) -> int:
        """The deal of game ``index`` (shared by its set under duplicate deals)."""
        assert self.seed is not None
        return game_seed(self.seed, index // self.games_per_deal)

    def revealed_seed(self, index: int) -> int:
        """What ``GameEnd.seed`` tells the players of game ``index``: its deal's seed, or 0
        (withheld) when the deal is shared with other games, which may still be in play
        (the seed is stored, and shown with the event once it is over)."""
        return 0 if self.games_per_deal > 1 else self.game_seed(index)

    def bot_seed(self, index: int, seat: int) -> int:
        """The seed for the randomness of the bot at ``seat`` in game ``index``."""
        assert self.seed is not None
        return bot_seed(self.seed, index, seat)


@dataclass
class GameRecord:
    index: int
    game_id: str
    seed: int
    seating: list[str]  # bot name at each seat
    status: GameStatus = GameStatus.COMPLETED
    ranks: list[int] = field(default_factory=list)
    totals: list[int] = field(default_factory=list)
    winners: list[int] = field(default_factory=list)
    rounds: int = 0
    decisions: int = 0
    choices: list[int] = field(default_factory=list)
    faults: list[Fault] = field(default_factory=list)
    events: list[dict[str, Any]] = field(default_factory=list)
    asked: list[tuple[int, str]] = field(default_factory=list)  # (seat, kind) sent to bots

    def as_dict(self, events: bool = True) -> dict[str, Any]:
        d = {
            "index": self.index,
            "game_id": self.game_id,
            "seed": self.seed,
            "seating": self.seating,
            "status": str(self.status),
            "ranks": self.ranks,
            "totals": self.totals,
            "winners": self.winners,
            "rounds": self.rounds,
            "decisions": self.decisions,
            "faults": [f.as_dict() for f in self.faults],
        }
        if events:
            d["events"] = self.events
        return d


@dataclass
class MatchResult:
    spec: MatchSpec
    games: list[GameRecord]
    seconds: float
    logs: dict[str, str] = field(default_factory=dict)  # bot name -> captured output
    latencies: list[float] = field(default_factory=list)
    play_seconds: float = 0.0  # from every bot being ready to the last game's end
    # per bot with a link: what its stream carried (requests, answers, batches)
    link_stats: dict[str, dict[str, Any]] = field(default_factory=dict)

    @property
    def decisions(self) -> int:
        return sum(g.decisions for g in self.games)

    @classmethod
    def merge(cls, spec: MatchSpec, parts: list[MatchResult], seconds: float) -> MatchResult:
        """The parts of a match that was split (MatchSpec.split) as one result."""
        games = sorted((g for p in parts for g in p.games), key=lambda g: g.index)
        logs: dict[str, str] = {}
        stats: dict[str, dict[str, Any]] = {}
        for k, p in enumerate(parts):
            for name, text in p.logs.items():
                head = f"[worker {k + 1} of {len(parts)}]\n" if len(parts) > 1 else ""
                logs[name] = logs.get(name, "") + head + text
            for name, st in p.link_stats.items():
                into = stats.setdefault(name, {})
                for key, value in st.items():
                    if isinstance(value, bool):
                        into[key] = into.get(key, False) or value
                    elif key == "largest_batch":
                        into[key] = max(into.get(key, 0), value)
                    else:
                        into[key] = into.get(key, 0) + value
        return cls(
            spec,
            games,
            seconds,
            logs,
            [x for p in parts for x in p.latencies],
            max((p.play_seconds for p in parts), default=0.0),
            link_stats=stats,
        )

    def seat_summary(self) -> list[dict[str, Any]]:
        """Per bot: wins (shared wins split), mean total, faults by kind."""
        rows = []
        for entry in self.spec.bots:
            wins = 0.0
            totals = []
            faults: dict[str, int] = {}
            for g in self.games:
                for seat, name in enumerate(g.seating):
                    if name != entry.name:
                        continue
                    if g.status == GameStatus.COMPLETED:
                        totals.append(g.totals[seat])
                        if seat in g.winners:
                            wins += 1 / len(g.winners)
                    for f in g.faults:
                        if f.seat == seat:
                            faults[str(f.kind)] = faults.get(str(f.kind), 0) + 1
            rows.append(
                {
                    "bot": entry.name,
                    "wins": split_count(wins),
                    "mean_total": round(sum(totals) / len(totals), 3) if totals else 0.0,
                    "faults": faults,
                }
            )
        return rows
