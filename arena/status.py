"""Statuses of events, rounds, matches and games (stored as their string values)."""

from __future__ import annotations

from enum import StrEnum


class TournamentStatus(StrEnum):
    RUNNING = "running"
    COMPLETED = "completed"
    FAILED = "failed"


class RoundStatus(StrEnum):
    PLANNED = "planned"
    COMPLETED = "completed"


class MatchStatus(StrEnum):
    PENDING = "pending"
    RUNNING = "running"
    COMPLETED = "completed"


class GameStatus(StrEnum):
    COMPLETED = "completed"  # played to the end (forfeits included)
    VOID = "void"  # the arena's own failure (INFRA): counts for nobody
