"""Stored A/B tests (``arena test``): a test, its units and their games.

A unit (the games played on one deal) is written with its games and the test's updated
state in one transaction (:func:`add_unit`), so a run killed at any moment has either a
whole unit or none of it, and a unit is never stored twice (one row per test and index).
"""

from __future__ import annotations

from typing import Any

from sqlmodel import col, func, select

from arena.status import AbTestStatus
from arena.store.db import Db, session, update
from arena.store.models import AbGame, AbTest, AbUnit, now


def create(db: Db, test: AbTest) -> int:
    """Store a new test; returns its id."""
    with session(db) as s:
        s.add(test)
        s.commit()
        assert test.id is not None
        return test.id


def get(db: Db, tid: int) -> AbTest | None:
    with session(db) as s:
        return s.get(AbTest, tid)


def units(db: Db, tid: int) -> list[AbUnit]:
    """Every stored unit of a test, by index."""
    with session(db) as s:
        return list(s.exec(select(AbUnit).where(AbUnit.test_id == tid).order_by(col(AbUnit.index))))


def add_unit(
    db: Db,
    unit: AbUnit,
    games: list[AbGame],
    state: dict[str, Any],
    verdict: str,
) -> bool:
    """Store a finished unit with its games, and the test's state after it, in one
    transaction. False (and nothing written) if the unit is already stored: an attempt
    whose answer was lost stored it."""
    with session(db) as s:
        stored = s.exec(
            select(AbUnit.id).where(AbUnit.test_id == unit.test_id, AbUnit.index == unit.index)
        ).first()
        if stored is not None:
            return False
        s.add(unit)
        s.flush()
        for g in games:
            g.unit_id = unit.id  # type: ignore[assignment]  # set by the flush
            g.test_id = unit.test_id
            s.add(g)
        test = s.get(AbTest, unit.test_id)
        assert test is not None, f"no stored test {unit.test_id}"
        test.state = state
        test.verdict = verdict
        s.add(test)
        s.commit()
        return True


def save_state(db: Db, tid: int, state: dict[str, Any], verdict: str) -> AbTest:
    """The test's state (e.g. recomputed from its units on resume)."""
    return update(db, AbTest, tid, state=state, verdict=verdict)


def mark_completed(db: Db, tid: int, state: dict[str, Any], verdict: str) -> AbTest:
    """Record the end of a test with its final state."""
    return update(
        db,
        AbTest,
        tid,
        state=state,
        verdict=verdict,
        status=AbTestStatus.COMPLETED,
        finished=now(),
    )


def games(db: Db, tid: int) -> list[tuple[int, AbGame]]:
    """(unit index, game) of every stored game of a test, by unit and position."""
    with session(db) as s:
        rows = s.exec(
            select(AbUnit.index, AbGame)
            .join(AbUnit, col(AbUnit.id) == AbGame.unit_id)
            .where(AbGame.test_id == tid)
            .order_by(col(AbUnit.index), col(AbGame.position))
        ).all()
        return [(int(i), g) for i, g in rows]


def with_counts(db: Db) -> list[tuple[AbTest, int]]:
    """Every test by id, with its number of stored games (counted by the database)."""
    with session(db) as s:
        counts: dict[int | None, int] = dict(
            s.exec(select(AbGame.test_id, func.count()).group_by(col(AbGame.test_id))).all()
        )
        every = s.exec(select(AbTest).order_by(col(AbTest.id)))
        return [(t, counts.get(t.id, 0)) for t in every]


def every_test(db: Db) -> list[tuple[AbTest, list[AbUnit]]]:
    """Every test with its units by index, read in one transaction (the report)."""
    with session(db) as s:
        tests = list(s.exec(select(AbTest).order_by(col(AbTest.id))))
        rows = s.exec(select(AbUnit).order_by(col(AbUnit.test_id), col(AbUnit.index))).all()
    by_test: dict[int, list[AbUnit]] = {}
    for u in rows:
        by_test.setdefault(u.test_id, []).append(u)
    return [(t, by_test.get(t.id or 0, [])) for t in tests]
