"""Uploads' builds on the competition server: status, log, the version they registered."""

from __future__ import annotations

from datetime import datetime

from sqlalchemy import func, text, update
from sqlmodel import col, select

from arena.status import BuildStatus
from arena.store.db import Db, session
from arena.store.models import Build, now


def start(db: Db, participant_id: int, bot_name: str) -> Build:
    with session(db) as s:
        b = Build(participant_id=participant_id, bot_name=bot_name)
        s.add(b)
        s.commit()
        s.refresh(b)
        return b


def start_within(
    db: Db, participant_id: int, bot_name: str, after: datetime, cap: int
) -> Build | None:
    """Store a QUEUED build unless the participant started ``cap`` builds after ``after``
    (None then). Counting and storing are one transaction that holds the participant's
    lock (SQLite: the database's write lock, taken first by BEGIN IMMEDIATE; PostgreSQL:
    the participant's row, SELECT ... FOR UPDATE), so concurrent uploads are counted one
    after the other and the cap holds exactly."""
    with session(db) as s:
        conn = s.connection()
        backend = conn.dialect.name
        if backend == "sqlite":
            conn.exec_driver_sql("BEGIN IMMEDIATE")
        elif backend == "postgresql":
            conn.execute(
                text("SELECT id FROM participant WHERE id = :p FOR UPDATE"), {"p": participant_id}
            )
        started = s.exec(
            select(func.count())
            .select_from(Build)
            .where(Build.participant_id == participant_id, Build.created > after)
        ).one()
        if started >= cap:
            s.rollback()
            return None
        b = Build(participant_id=participant_id, bot_name=bot_name, status=BuildStatus.QUEUED)
        s.add(b)
        s.commit()
        s.refresh(b)
        return b


def building(db: Db, build_id: int) -> bool:
    """Mark a QUEUED build as BUILDING; False if it is not queued any more."""
    with session(db) as s:
        b = s.get(Build, build_id)
        if b is None or b.status != BuildStatus.QUEUED:
            return False
        b.status = BuildStatus.BUILDING
        s.add(b)
        s.commit()
        return True


def set_log(db: Db, build_id: int, log: str) -> None:
    """The log so far of a build that is running (written while it builds)."""
    with session(db) as s:  # one statement: never over the final log of a build that ended
        s.execute(
            update(Build)
            .where(col(Build.id) == build_id, col(Build.finished).is_(None))
            .values(log=log)
        )
        s.commit()


def finish(
    db: Db,
    build_id: int | None,
    status: BuildStatus,
    detail: str,
    log: str,
    version: int | None = None,
) -> Build:
    with session(db) as s:
        b = s.get(Build, build_id)
        assert b is not None, f"build {build_id} is stored"
        b.status, b.detail, b.log, b.version, b.finished = status, detail, log, version, now()
        s.add(b)
        s.commit()
        s.refresh(b)
        return b


def get(db: Db, build_id: int) -> Build | None:
    with session(db) as s:
        return s.get(Build, build_id)


def of(db: Db, participant_id: int, limit: int = 50) -> list[Build]:
    """A participant's builds, newest first."""
    with session(db) as s:
        return list(
            s.exec(
                select(Build)
                .where(Build.participant_id == participant_id)
                .order_by(col(Build.id).desc())
                .limit(limit)
            )
        )


def since(db: Db, participant_id: int, after: datetime) -> int:
    """How many builds a participant started after the time ``after`` (the rate limit)."""
    with session(db) as s:
        rows = s.exec(
            select(Build.id).where(Build.participant_id == participant_id, Build.created > after)
        )
        return len(list(rows))


STOPPED = "the server stopped {when}; nothing was registered: upload again"


def interrupted(db: Db) -> int:
    """Builds left QUEUED or BUILDING by a server that stopped: marked failed (nothing
    registered; a queued build's context was in the stopped server's temporary folder)."""
    with session(db) as s:
        rows = list(
            s.exec(
                select(Build).where(
                    col(Build.status).in_([BuildStatus.QUEUED, BuildStatus.BUILDING])
                )
            )
        )
        for b in rows:
            when = "during the build" if b.status == BuildStatus.BUILDING else "before the build"
            b.status, b.detail, b.finished = (BuildStatus.FAILED, STOPPED.format(when=when), now())
            s.add(b)
        s.commit()
        return len(rows)
