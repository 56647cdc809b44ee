"""Statuses of events, rounds, matches and games (and what a stored `status` column holds).

Each is a ``StrEnum`` whose values are the strings the database and the JSON output have
always held, so a member compares equal to the stored string and prints as it.
"""

from __future__ import annotations

from enum import StrEnum


class TournamentStatus(StrEnum):
    RUNNING = "running"  # created, or stopped part way (resumable)
    COMPLETED = "completed"  # every round played
    FAILED = "failed"  # stopped for good, never resumed: it cannot run (its reason is stored)


class RoundStatus(StrEnum):
    PLANNED = "planned"  # its tables are stored; some may still be unplayed
    COMPLETED = "completed"  # every match of the round is stored


class MatchStatus(StrEnum):
    PENDING = "pending"  # planned, not started
    RUNNING = "running"  # started; replayed from its start after a crash
    COMPLETED = "completed"  # its games are stored (in the same transaction)


class GameStatus(StrEnum):
    COMPLETED = "completed"  # played to the end: counts for standings and ratings
    VOID = "void"  # the arena failed (an INFRA fault): counts for nobody


class AbTestStatus(StrEnum):
    RUNNING = "running"  # created, or stopped part way (resumable)
    COMPLETED = "completed"  # decided by its SPRT, or at its length or its cap


class UnitStatus(StrEnum):
    COMPLETED = "completed"  # every game of the unit completed: it counts for the test
    VOID = "void"  # a game of the unit was void (the arena failed): it counts for nothing


class LadderBotStatus(StrEnum):
    ACTIVE = "active"  # the bot's latest version: it plays
    RETIRED = "retired"  # an older version (or a removed bot): its games stay, it plays no more
    SUSPENDED = "suspended"  # crashed too often: plays no more until its owner re-enables it


class BuildStatus(StrEnum):
    QUEUED = "queued"  # the upload is stored and waits for a builder
    BUILDING = "building"  # the upload is being built and checked
    PASSED = "passed"  # built, checked and registered as a new version
    FAILED = "failed"  # refused, failed to build or failed the check: nothing registered
    CANCELLED = "cancelled"  # its owner cancelled it (queued or building): nothing registered

    @property
    def done(self) -> bool:
        """Whether the build has ended (nothing more will happen to it)."""
        return self in (BuildStatus.PASSED, BuildStatus.FAILED, BuildStatus.CANCELLED)


class Role(StrEnum):
    """What a participant of the competition server may do."""

    PARTICIPANT = "participant"  # manages their own bots
    ORGANISER = "organiser"  # sees every bot's logs; starts events
