"""Participants of the competition server (``arena user add``, signing in).

A participant signs in with a login token made here: random, shown once, stored only as
its SHA-256 hash (the same hashing as remote bots' tokens, :mod:`arena.registry`). Signing
in through the site's form opens a session kept on the server (:mod:`arena.store.sessions`):
the browser holds only the session's random key, stored hashed too.

The organiser disables a participant (``arena user disable``): every session of theirs
ends at once, their token is refused (sign-in and API alike, with a reason of its own:
only the token's holder reads it) and their bots sit out of new events and the ladder,
until ``arena user enable``. ``arena user token`` gives a new login token (the old one
stops working and every session ends): the way back from a lost or leaked token.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import timedelta

from arena.errors import ArenaError, UsageProblem
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


class ParticipantDisabled(ArenaError):
    """A disabled participant's login token: refused until the organiser enables them."""

    def __init__(self) -> None:
        super().__init__("this participant is disabled: ask the organiser")


def sign_in(db: Db, token: str) -> Participant | None:
    """The participant whose login token this is, or None; a disabled participant's
    token raises :class:`ParticipantDisabled`."""
    token = token.strip()
    if not token or len(token) > 256:
        return None
    p = participants.by_token_hash(db, hash_token(token))
    if p is not None and p.disabled:
        raise ParticipantDisabled()
    return p


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
    p = None if pid is None else participants.get(db, pid)
    # a session opened while the participant was being disabled ends here
    if p is not None and p.disabled:
        sessions.end(db, hash_token(key))
        return None
    return p


def close_session(db: Db, key: str) -> None:
    """Sign out: the session ends on the server, so a copy of its cookie stops working."""
    if key and len(key) <= 256:
        sessions.end(db, hash_token(key))


def named(db: Db, name: str) -> Participant:
    """The participant of that name (a usage error naming ``arena user list`` if none)."""
    p = participants.by_name(db, name)
    if p is None:
        raise UsageProblem(f"no participant named {name!r} (see 'arena user list')", param="NAME")
    return p


def set_disabled(db: Db, name: str, disabled: bool) -> tuple[Participant, int]:
    """Disable (or enable) a participant; the participant and how many of their sessions
    ended. Disabling ends every session of theirs at once, so a copied cookie stops
    working; enabling lets their token sign in again (the ended sessions stay ended)."""
    p = named(db, name)
    assert p.id is not None
    participants.set_disabled(db, p.id, disabled)
    ended = sessions.end_all(db, p.id) if disabled else 0
    p.disabled = disabled
    return p, ended


def new_login_token(db: Db, name: str) -> NewParticipant:
    """A new login token for a participant (shown once, stored hashed): the old one stops
    working and every session of theirs ends."""
    p = named(db, name)
    assert p.id is not None
    token = new_token()
    participants.set_token_hash(db, p.id, hash_token(token))
    sessions.end_all(db, p.id)
    return NewParticipant(p, token)


def listing(db: Db) -> list[dict[str, object]]:
    """Every participant: name, role, created, disabled, number of registered bots."""
    counts = participants.bot_counts(db)
    return [
        {
            "name": p.name,
            "role": p.role,
            "created": p.created.isoformat(timespec="seconds"),
            "disabled": p.disabled,
            "bots": counts.get(p.id or 0, 0),
        }
        for p in participants.every(db)
    ]
