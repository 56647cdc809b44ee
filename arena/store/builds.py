"""Uploads' builds on the competition server: status, log, the version they registered."""

from __future__ import annotations

from datetime import datetime

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


def interrupted(db: Db) -> int:
    """Builds left BUILDING by a server that stopped: marked failed (nothing registered)."""
    with session(db) as s:
        rows = list(s.exec(select(Build).where(Build.status == BuildStatus.BUILDING)))
        for b in rows:
            b.status, b.detail, b.finished = (
                BuildStatus.FAILED,
                "the server stopped during the build; nothing was registered: upload again",
                now(),
            )
            s.add(b)
        s.commit()
        return len(rows)
