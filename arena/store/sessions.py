"""The competition server's sign-in sessions, kept on the server (by the SHA-256 of their
random id: the id itself, in the browser's cookie, is never stored).

A session is valid while its row exists, it was seen within the idle limit and its
absolute expiry has not passed. Signing out deletes the row; :func:`end_all` deletes every
session of a participant (call it when a participant is disabled or removed).
"""

from __future__ import annotations

from datetime import timedelta

from sqlmodel import col, delete, select, update

from arena.store.db import Db, session
from arena.store.models import WebSession, now

TOUCH_EVERY = timedelta(seconds=60)  # last_seen is written at most this often (or idle/2)


def start(db: Db, key_hash: str, participant_id: int, lifetime: timedelta) -> WebSession:
    """Store a new session of ``participant_id`` that ends ``lifetime`` from now at the
    latest (expired sessions are swept on the way)."""
    at = now()
    with session(db) as s:
        s.exec(delete(WebSession).where(col(WebSession.expires) <= at))
        row = WebSession(
            key_hash=key_hash,
            participant_id=participant_id,
            created=at,
            last_seen=at,
            expires=at + lifetime,
        )
        s.add(row)
        s.commit()
        s.refresh(row)
        return row


def participant_of(db: Db, key_hash: str, idle: timedelta) -> int | None:
    """The participant of a live session, or None (no such session, idle longer than
    ``idle``, or expired: then it is deleted). Marks the session seen."""
    at = now()
    with session(db) as s:
        row = s.exec(select(WebSession).where(WebSession.key_hash == key_hash)).first()
        if row is None:
            return None
        live = s.exec(
            select(WebSession.id).where(
                WebSession.id == row.id,
                col(WebSession.expires) > at,
                col(WebSession.last_seen) > at - idle,
            )
        ).first()
        if live is None:
            s.delete(row)
            s.commit()
            return None
        s.exec(
            update(WebSession)
            .where(
                col(WebSession.id) == row.id,
                col(WebSession.last_seen) < at - min(TOUCH_EVERY, idle / 2),
            )
            .values(last_seen=at)
        )
        s.commit()
        return row.participant_id


def end(db: Db, key_hash: str) -> bool:
    """End one session (signing out); whether there was one."""
    with session(db) as s:
        gone = s.exec(delete(WebSession).where(col(WebSession.key_hash) == key_hash))
        s.commit()
        return bool(gone.rowcount)


def end_all(db: Db, participant_id: int) -> int:
    """End every session of a participant (signed out everywhere: disabling or removing
    them); how many there were."""
    with session(db) as s:
        gone = s.exec(delete(WebSession).where(col(WebSession.participant_id) == participant_id))
        s.commit()
        return int(gone.rowcount or 0)


def count(db: Db, participant_id: int) -> int:
    """How many sessions a participant has open (expired or not)."""
    with session(db) as s:
        return len(
            list(s.exec(select(WebSession.id).where(WebSession.participant_id == participant_id)))
        )
