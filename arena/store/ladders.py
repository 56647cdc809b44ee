"""Stored ladders: the ladder rows, the state of each bot version on them, and the tables
planned one at a time.

A ladder keeps its entries, rounds, matches and games in its own tournament row (format
``ladder``), so every reader of stored games (ratings, the report) sees them. Tables are
numbered 0, 1, 2, ... and stored in rounds of ``LADDER_TABLES_PER_ROUND``; a table is
stored before it is played and its games land with its completion (``rounds``), so a run
killed at any moment replays only the tables that were in flight.
"""

from __future__ import annotations

from typing import Any, NamedTuple

from sqlmodel import col, func, select

from arena.limits import LADDER_TABLES_PER_ROUND
from arena.status import LadderBotStatus, MatchStatus
from arena.store.db import Db, session, update
from arena.store.models import Entry, Game, Ladder, LadderBot, Match, Round, Tournament, now


class Played(NamedTuple):
    """What a ladder's field is rebuilt from: one stored game."""

    game_id: int
    table: int  # the table's number on the ladder
    seating: list[str]
    ranks: list[int]
    status: str
    faults: list[dict[str, Any]]


def number(m: Match, round_index: int) -> int:
    """A stored table's number on its ladder."""
    return round_index * LADDER_TABLES_PER_ROUND + m.table


def find(db: Db, variant: str, brutal: bool, seats: int) -> Ladder | None:
    with session(db) as s:
        return s.exec(
            select(Ladder).where(
                Ladder.variant == variant, Ladder.brutal == brutal, Ladder.seats == seats
            )
        ).first()


def get(db: Db, lid: int) -> Ladder | None:
    with session(db) as s:
        return s.get(Ladder, lid)


def every(db: Db) -> list[Ladder]:
    with session(db) as s:
        return list(s.exec(select(Ladder).order_by(col(Ladder.id))))


def create(db: Db, tournament: Tournament, ladder: Ladder) -> Ladder:
    """Store a new ladder with its tournament row, in one transaction."""
    with session(db) as s:
        s.add(tournament)
        s.flush()
        assert tournament.id is not None
        ladder.tournament_id = tournament.id
        s.add(ladder)
        s.commit()
        s.refresh(ladder)
        return ladder


def bots(db: Db, lid: int) -> list[tuple[LadderBot, Entry]]:
    """Every bot version on the ladder with its entry, in the order they entered."""
    with session(db) as s:
        rows = s.exec(
            select(LadderBot, Entry)
            .join(Entry, col(Entry.id) == LadderBot.entry_id)
            .where(LadderBot.ladder_id == lid)
            .order_by(col(LadderBot.id))
        ).all()
        return [(lb, e) for lb, e in rows]


def admit(db: Db, ladder: Ladder, entry: Entry, row: LadderBot) -> None:
    """A bot version enters the ladder (its entry and its row, in one transaction); the
    bot's older versions on it retire."""
    with session(db) as s:
        entry.tournament_id = ladder.tournament_id
        s.add(entry)
        s.flush()
        assert entry.id is not None
        row.ladder_id, row.entry_id = ladder.id or 0, entry.id
        older = s.exec(
            select(LadderBot).where(
                LadderBot.ladder_id == ladder.id,
                LadderBot.bot_id == row.bot_id,
                LadderBot.status != LadderBotStatus.RETIRED,
            )
        )
        for old in older:
            old.status = LadderBotStatus.RETIRED
            old.reason = f"version {row.version} entered"
            old.changed = now()
            s.add(old)
        s.add(row)
        s.commit()


def set_status(db: Db, row_id: int | None, status: str, reason: str, **columns: Any) -> None:
    update(db, LadderBot, row_id, status=status, reason=reason, changed=now(), **columns)


def last_game_id(db: Db, tid: int) -> int:
    with session(db) as s:
        found = s.exec(select(func.max(Game.id)).where(Game.tournament_id == tid)).one()
        return int(found or 0)


def history(db: Db, tid: int) -> list[Played]:
    """Every stored game of the ladder (no event logs), in the order they were stored."""
    with session(db) as s:
        numbers = {
            mid: rix * LADDER_TABLES_PER_ROUND + table
            for mid, table, rix in s.exec(
                select(Match.id, Match.table, Round.index)
                .join(Round, col(Round.id) == Match.round_id)
                .where(Match.tournament_id == tid)
            )
        }
        q = (
            select(Game.id, Game.match_id, Game.seating, Game.ranks)
            .where(Game.tournament_id == tid)
            .order_by(col(Game.id))
        )
        outcomes = {
            gid: (status, faults)
            for gid, status, faults in s.exec(
                select(Game.id, Game.status, Game.faults).where(Game.tournament_id == tid)
            )
        }
        return [
            Played(gid, numbers[mid], list(seating), list(ranks), *_outcome(outcomes[gid]))
            for gid, mid, seating, ranks in s.exec(q)
            if gid is not None
        ]


def _outcome(row: tuple[str, Any]) -> tuple[str, list[dict[str, Any]]]:
    status, faults = row
    return status, list(faults or [])


def tables(db: Db, tid: int) -> tuple[int, list[tuple[int, Match]]]:
    """The number of the next table to plan, and every stored table not completed yet
    (with its number), in order."""
    with session(db) as s:
        rows = s.exec(
            select(Match, Round.index)
            .join(Round, col(Round.id) == Match.round_id)
            .where(Match.tournament_id == tid)
            .order_by(col(Round.index), col(Match.table))
        ).all()
    following = 0
    open_tables = []
    for m, rix in rows:
        n = number(m, rix)
        following = max(following, n + 1)
        if m.status != MatchStatus.COMPLETED:
            open_tables.append((n, m))
    return following, open_tables


def plan(db: Db, tid: int, table: int, seats: list[str], seed: int, games: int) -> Match:
    """Store table number ``table`` (its round too, if it is the round's first)."""
    index, position = divmod(table, LADDER_TABLES_PER_ROUND)
    with session(db) as s:
        rnd = s.exec(select(Round).where(Round.tournament_id == tid, Round.index == index)).first()
        if rnd is None:
            rnd = Round(tournament_id=tid, index=index, note="ladder")
            s.add(rnd)
            s.flush()
        assert rnd.id is not None
        match = Match(
            tournament_id=tid, round_id=rnd.id, table=position, seats=seats, seed=seed, games=games
        )
        s.add(match)
        s.commit()
        s.refresh(match)
        return match
