"""Participants of the competition server (``arena user add``, signing in).

A participant signs in with a login token made here: random, shown once, stored only as
its SHA-256 hash (the same hashing as remote bots' tokens, :mod:`arena.registry`).
"""

from __future__ import annotations

from dataclasses import dataclass

from arena.names import check_bot_name
from arena.registry import hash_token, new_token
from arena.status import Role
from arena.store import participants
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
