"""The database schema (SQLModel). Schema changes go through migrations (store/migrations).

Everything a tournament needs to resume after a crash lives here: the plan of every round,
every match with its seed and status, and every game played, written together with its
match's completion in one transaction. An A/B test (``arena test``) is an ``AbTest`` with
its units (``AbUnit``: the games played on one deal) and their games (``AbGame``), a unit
written with its games in one transaction; its games are not tournament games and are not
rated on the leaderboard.
"""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

from sqlalchemy import JSON, BigInteger, Column, UniqueConstraint, event
from sqlmodel import Field, SQLModel

from arena.bots import BotSource, Command, Image, Policy, Remote, source_dict, source_from_dict
from arena.names import ENTRY_NAME_MAX, NAME_MAX, name_key
from arena.seeds import DealKey
from arena.status import (
    AbTestStatus,
    BuildStatus,
    GameStatus,
    LadderBotStatus,
    MatchStatus,
    Role,
    RoundStatus,
    TournamentStatus,
    UnitStatus,
)

KEY_MAX = 4 * NAME_MAX + 24  # a name's key (NFKC may lengthen it) and a "#<id>" suffix


def now() -> datetime:
    return datetime.now(UTC)


class Bot(SQLModel, table=True):
    """A bot in the registry; its runnable form is a BotVersion."""

    __tablename__ = "bot"
    id: int | None = Field(default=None, primary_key=True)
    name: str = Field(index=True, unique=True, max_length=NAME_MAX)
    # arena.names.name_key(name): names differing only in case are one bot (unique here);
    # a row migrated beside an older one of the same key keeps "<key>#<id>" (0011)
    name_key: str | None = Field(default=None, index=True, unique=True, max_length=KEY_MAX)
    runtime: str = Field(max_length=16)  # process | docker | remote
    created: datetime = Field(default_factory=now)
    removed: bool = Field(default=False)
    # the participant who uploaded it on the competition server; None: the organiser's
    owner_id: int | None = Field(default=None, foreign_key="participant.id", index=True)


class Participant(SQLModel, table=True):
    """Someone who signs in to the competition server with a login token (stored hashed,
    as bot tokens are)."""

    __tablename__ = "participant"
    id: int | None = Field(default=None, primary_key=True)
    name: str = Field(index=True, unique=True, max_length=64)
    name_key: str | None = Field(default=None, index=True, unique=True, max_length=KEY_MAX)
    token_hash: str = Field(index=True, unique=True, max_length=128)  # sha256 hex
    role: str = Field(default=Role.PARTICIPANT, max_length=16)  # Role
    created: datetime = Field(default_factory=now)
    # shut out by the organiser (arena user disable): no sign-in, no API, no new events
    disabled: bool = False


class WebSession(SQLModel, table=True):
    """A participant signed in to the competition server through its sign-in form: the
    browser's cookie carries only the session's random id, stored here as its SHA-256 (as
    login tokens are). Signing out deletes the row, so a copied cookie stops working at
    once; a session also ends when idle too long or past ``expires`` (its absolute limit)."""

    __tablename__ = "web_session"
    id: int | None = Field(default=None, primary_key=True)
    key_hash: str = Field(index=True, unique=True, max_length=128)  # sha256 hex of the id
    participant_id: int = Field(foreign_key="participant.id", index=True)
    created: datetime = Field(default_factory=now)
    last_seen: datetime = Field(default_factory=now)
    expires: datetime


@event.listens_for(Bot, "before_insert")
@event.listens_for(Participant, "before_insert")
def _keyed(_mapper: Any, _connection: Any, row: Bot | Participant) -> None:
    """Every new bot and participant row carries its name's key (arena.names.name_key),
    whichever code stores it: the unique column is what keeps names apart."""
    if row.name_key is None:
        row.name_key = name_key(row.name)


class Build(SQLModel, table=True):
    """One bot upload on the competition server: its build log and what came of it."""

    __tablename__ = "build"
    id: int | None = Field(default=None, primary_key=True)
    participant_id: int = Field(foreign_key="participant.id", index=True)
    bot_name: str = Field(max_length=64)
    status: str = Field(default=BuildStatus.QUEUED, max_length=16)  # BuildStatus
    detail: str = ""  # why it failed, or what passed
    log: str = ""  # the build log and the compliance checks (owner and organiser only)
    version: int | None = None  # the bot version it registered
    created: datetime = Field(default_factory=now)
    finished: datetime | None = None


class BotVersion(SQLModel, table=True):
    """One runnable version of a bot: a command, an image (by digest) or a remote token."""

    __tablename__ = "bot_version"
    id: int | None = Field(default=None, primary_key=True)
    bot_id: int = Field(foreign_key="bot.id", index=True)
    version: int = 1
    command: str | None = None
    image: str | None = None
    digest: str | None = None
    token_hash: str | None = Field(default=None, max_length=128)  # sha256 hex; never the token
    created: datetime = Field(default_factory=now)


class Tournament(SQLModel, table=True):
    __tablename__ = "tournament"
    id: int | None = Field(default=None, primary_key=True)
    name: str = Field(default="", max_length=200)
    format: str = Field(max_length=16)  # swiss | round-robin | gauntlet
    variant: str = Field(max_length=16)
    brutal: bool = False
    seats: int
    rounds: int
    games_per_match: int
    concurrency: int = 16
    # a reproducible event's seed (its deals are guessable); None: secret deals
    seed: int | None = Field(default=None, sa_column=Column(BigInteger, nullable=True))
    # hex of a secret event's deal key (arena.seeds): never sent to a bot, shown only once
    # the event is over; None for a seeded event, whose key derives from its seed
    secret: str | None = Field(default=None, max_length=64)
    status: str = Field(default=TournamentStatus.RUNNING, max_length=16)  # TournamentStatus
    options: dict[str, Any] = Field(default_factory=dict, sa_column=Column(JSON))
    created: datetime = Field(default_factory=now)
    finished: datetime | None = None

    def deal_key(self) -> DealKey:
        """The key every seed of this event derives from (arena.seeds)."""
        if self.secret:
            return DealKey.from_hex(self.secret)
        if self.seed is None:
            raise ValueError(f"tournament {self.id} has neither a seed nor a deal key")
        return DealKey.from_seed(self.seed)

    @property
    def reproducible(self) -> bool:
        return not self.secret


class Entry(SQLModel, table=True):
    """A bot version entered in a tournament, under a display name unique in that event:
    a registered bot's is its version's label (``ev@v2``, arena.names), so that its games
    and its rating are that version's."""

    __tablename__ = "entry"
    __table_args__ = (UniqueConstraint("tournament_id", "name"),)
    id: int | None = Field(default=None, primary_key=True)
    tournament_id: int = Field(foreign_key="tournament.id", index=True)
    bot_version_id: int | None = Field(default=None, foreign_key="bot_version.id")
    name: str = Field(max_length=ENTRY_NAME_MAX)
    challenger: bool = False
    command: str | None = None  # what to run (process bots), copied at entry time
    policy: str | None = None  # built-in policy entries (no network)
    image: str | None = None  # container bots: the image id (digest), copied at entry time
    remote: bool = False  # connects by itself with its registered token (bot_version_id)
    # the whole source (arena.bots.source_dict: env, shared paths, ...); NULL before 0006
    source: dict[str, Any] | None = Field(default=None, sa_column=Column(JSON, nullable=True))


def entry_source(entry: Entry) -> BotSource:
    """How an entry runs (its columns are one source of arena.bots; the one mapping)."""
    if entry.source:
        return source_from_dict(entry.source)
    if entry.policy is not None:
        return Policy(entry.policy)
    if entry.command is not None:
        return Command(entry.command)
    if entry.image is not None:
        return Image(entry.image)
    if entry.remote:
        return Remote()  # its token's hash is its registered version's
    raise ValueError(f"entry {entry.name!r} has nothing to run")


def entry_columns(source: BotSource) -> dict[str, Any]:
    """The Entry columns that store ``source`` (the inverse of :func:`entry_source`)."""
    columns: dict[str, Any]
    if isinstance(source, Policy):
        columns = {"policy": source.spec}
    elif isinstance(source, Command):
        columns = {"command": source.command}
    elif isinstance(source, Image):
        columns = {"image": source.image}
    else:
        columns = {"remote": True}
    return {**columns, "source": source_dict(source)}


class Round(SQLModel, table=True):
    __tablename__ = "round"
    __table_args__ = (UniqueConstraint("tournament_id", "index"),)
    id: int | None = Field(default=None, primary_key=True)
    tournament_id: int = Field(foreign_key="tournament.id", index=True)
    index: int
    byes: list[str] = Field(default_factory=list, sa_column=Column(JSON))
    note: str = ""
    status: str = Field(default=RoundStatus.PLANNED, max_length=16)  # RoundStatus


class Match(SQLModel, table=True):
    __tablename__ = "match"
    __table_args__ = (UniqueConstraint("round_id", "table"),)
    id: int | None = Field(default=None, primary_key=True)
    tournament_id: int = Field(foreign_key="tournament.id", index=True)
    round_id: int = Field(foreign_key="round.id", index=True)
    table: int
    seats: list[str] = Field(default_factory=list, sa_column=Column(JSON))
    seed: int = Field(sa_column=Column(BigInteger, nullable=False))
    games: int
    status: str = Field(default=MatchStatus.PENDING, max_length=16)  # MatchStatus
    started: datetime | None = None
    finished: datetime | None = None


class Game(SQLModel, table=True):
    __tablename__ = "game"
    __table_args__ = (UniqueConstraint("match_id", "index"),)
    id: int | None = Field(default=None, primary_key=True)
    match_id: int = Field(foreign_key="match.id", index=True)
    tournament_id: int = Field(foreign_key="tournament.id", index=True)
    index: int
    seed: int = Field(sa_column=Column(BigInteger, nullable=False))
    variant: str = Field(max_length=16)
    seating: list[str] = Field(default_factory=list, sa_column=Column(JSON))
    ranks: list[int] = Field(default_factory=list, sa_column=Column(JSON))
    totals: list[int] = Field(default_factory=list, sa_column=Column(JSON))
    rounds: int = 0
    status: str = Field(default=GameStatus.COMPLETED, max_length=16)  # GameStatus
    faults: list[dict[str, Any]] = Field(default_factory=list, sa_column=Column(JSON))
    choices: list[int] = Field(default_factory=list, sa_column=Column(JSON))
    events: list[dict[str, Any]] = Field(default_factory=list, sa_column=Column(JSON))
    played: datetime = Field(default_factory=now)


class AbTest(SQLModel, table=True):
    """An A/B test of NEW against BASE (``arena test``): its bots, design, hypotheses and
    its state, updated in the transaction that stores each unit."""

    __tablename__ = "ab_test"
    id: int | None = Field(default=None, primary_key=True)
    new: str = Field(max_length=64)  # NEW's name at the table
    base: str = Field(max_length=64)  # BASE's name at the table
    # every player by role: [{"role", "name", "source" (arena.bots.source_dict),
    # "bot_version_id"}], NEW and BASE first, then the opponents OPP1...
    bots: list[dict[str, Any]] = Field(default_factory=list, sa_column=Column(JSON))
    seats: int
    variant: str = Field(max_length=16)
    brutal: bool = False
    design: str = Field(max_length=32)  # arena.abtest.design: "swap"
    sprt: dict[str, Any] = Field(default_factory=dict, sa_column=Column(JSON))  # SprtSpec
    fixed_games: int | None = None  # a fixed-length test's games; None: stop at the verdict
    max_games: int  # the cap of a sequential test
    ahead: int  # units started ahead of the first unfinished one (fixes where it stops)
    concurrency: int = 16
    # a reproducible test's seed (its deals are guessable); None: secret deals
    seed: int | None = Field(default=None, sa_column=Column(BigInteger, nullable=True))
    secret: str | None = Field(default=None, max_length=64)  # hex deal key (arena.seeds)
    options: dict[str, Any] = Field(default_factory=dict, sa_column=Column(JSON))
    # arena.abtest.SprtState.as_dict() over the units counted so far, in unit order
    state: dict[str, Any] = Field(default_factory=dict, sa_column=Column(JSON))
    verdict: str = Field(default="continue", max_length=16)  # arena.abtest.Verdict value
    status: str = Field(default=AbTestStatus.RUNNING, max_length=16)  # AbTestStatus
    created: datetime = Field(default_factory=now)
    finished: datetime | None = None

    def deal_key(self) -> DealKey:
        """The key every deal of this test derives from (arena.seeds)."""
        if self.secret:
            return DealKey.from_hex(self.secret)
        if self.seed is None:
            raise ValueError(f"test {self.id} has neither a seed nor a deal key")
        return DealKey.from_seed(self.seed)

    @property
    def reproducible(self) -> bool:
        return not self.secret


class AbUnit(SQLModel, table=True):
    """One unit of a test: the games played on one deal, with NEW's result in each."""

    __tablename__ = "ab_unit"
    __table_args__ = (UniqueConstraint("test_id", "index"),)
    id: int | None = Field(default=None, primary_key=True)
    test_id: int = Field(foreign_key="ab_test.id", index=True)
    index: int
    seed: int = Field(sa_column=Column(BigInteger, nullable=False))  # the unit's match seed
    # NEW's result against BASE in each game, in game order ("WL": won the first, lost the
    # second); empty for a void unit
    outcome: str = Field(default="", max_length=32)
    status: str = Field(default=UnitStatus.COMPLETED, max_length=16)  # UnitStatus
    finished: datetime = Field(default_factory=now)


class AbGame(SQLModel, table=True):
    """A game of a test (no event log: the engine rebuilds it from the seed and choices)."""

    __tablename__ = "ab_game"
    __table_args__ = (UniqueConstraint("unit_id", "position"),)
    id: int | None = Field(default=None, primary_key=True)
    test_id: int = Field(foreign_key="ab_test.id", index=True)
    unit_id: int = Field(foreign_key="ab_unit.id", index=True)
    position: int  # the game's place in its unit (its seat layout)
    seed: int = Field(sa_column=Column(BigInteger, nullable=False))  # the deal
    seating: list[str] = Field(default_factory=list, sa_column=Column(JSON))
    ranks: list[int] = Field(default_factory=list, sa_column=Column(JSON))
    totals: list[int] = Field(default_factory=list, sa_column=Column(JSON))
    rounds: int = 0
    status: str = Field(default=GameStatus.COMPLETED, max_length=16)  # GameStatus
    faults: list[dict[str, Any]] = Field(default_factory=list, sa_column=Column(JSON))
    choices: list[int] = Field(default_factory=list, sa_column=Column(JSON))
    played: datetime = Field(default_factory=now)


class Ladder(SQLModel, table=True):
    """A continuous ladder of one variant, Brutal mode and table size. Its entries,
    rounds, matches and games are those of its own tournament row (format ``ladder``)."""

    __tablename__ = "ladder"
    __table_args__ = (UniqueConstraint("variant", "brutal", "seats"),)
    id: int | None = Field(default=None, primary_key=True)
    tournament_id: int = Field(foreign_key="tournament.id", unique=True)
    variant: str = Field(max_length=16)
    brutal: bool = False
    seats: int
    created: datetime = Field(default_factory=now)


class LadderBot(SQLModel, table=True):
    """One registered bot version on a ladder (its entry in the ladder's tournament)."""

    __tablename__ = "ladder_bot"
    __table_args__ = (UniqueConstraint("ladder_id", "bot_version_id"),)
    id: int | None = Field(default=None, primary_key=True)
    ladder_id: int = Field(foreign_key="ladder.id", index=True)
    entry_id: int = Field(foreign_key="entry.id")
    bot_id: int = Field(foreign_key="bot.id")
    bot_version_id: int = Field(foreign_key="bot_version.id")
    version: int
    status: str = Field(default=LadderBotStatus.ACTIVE, max_length=16)  # LadderBotStatus
    reason: str = Field(default="", max_length=500)
    # crashes count only in games stored after this game id (re-enabling starts afresh)
    crashes_after: int = Field(default=0, sa_column=Column(BigInteger, nullable=False, default=0))
    changed: datetime = Field(default_factory=now)
