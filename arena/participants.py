"""Participants of the competition server (``arena user add``, signing in).

A participant signs in with a login token made here: random, shown once, stored only as
its SHA-256 hash (the same hashing as remote bots' tokens, :mod:`arena.registry`). Signing
in through the site's form opens a session kept on the server (:mod:`arena.store.sessions`):
the browser holds only the session's random key, stored hashed too.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import timedelta

from arena.names import check_bot_name
from arena.registry import hash_token, new_token
from arena.status import Role
from arena.store import participants, sessions
from arena.store.db import Db
from arena.store.models import Participant


@dataclass
class NewParticipant:
    participant: Participant
    token: str  # shown once; never stored


def add_participant(db: Db, name: str, role: Role = Role.PARTICIPANT) -> NewParticipant:
    """Store a participant (a usage error for a bad name, a failure for a taken one)."""
    check_bot_name(name, "participant name", param="NAME")
    token = new_token()
    return NewParticipant(participants.add(db, name, hash_token(token), role), token)


def sign_in(db: Db, token: str) -> Participant | None:
    """The participant whose login token this is, or None."""
    token = token.strip()
    if not token or len(token) > 256:
        return None
    return participants.by_token_hash(db, hash_token(token))


def open_session(db: Db, participant: Participant, lifetime: timedelta) -> str:
    """A new session of ``participant`` ending ``lifetime`` from now at the latest: its
    key, for the browser's cookie (only the key's hash is stored)."""
    assert participant.id is not None
    key = new_token()
    sessions.start(db, hash_token(key), participant.id, lifetime)
    return key


def session_participant(db: Db, key: str, idle: timedelta) -> Participant | None:
    """The participant of the live session whose key this is, or None (unknown, ended,
    idle longer than ``idle`` or past its absolute limit)."""
    if not key or len(key) > 256:
        return None
    pid = sessions.participant_of(db, hash_token(key), idle)
    return None if pid is None else participants.get(db, pid)


def close_session(db: Db, key: str) -> None:
    """Sign out: the session ends on the server, so a copy of its cookie stops working."""
    if key and len(key) <= 256:
        sessions.end(db, hash_token(key))
