"""Participants of the competition server (their login tokens are stored hashed)."""

from __future__ import annotations

from sqlmodel import col, select

from arena.errors import ArenaError
from arena.status import Role
from arena.store.db import Db, session
from arena.store.models import Participant


def add(db: Db, name: str, token_hash: str, role: Role = Role.PARTICIPANT) -> Participant:
    with session(db) as s:
        if s.exec(select(Participant).where(Participant.name == name)).first() is not None:
            raise ArenaError(f"a participant named {name!r} exists already")
        p = Participant(name=name, token_hash=token_hash, role=role)
        s.add(p)
        s.commit()
        s.refresh(p)
        return p


def by_token_hash(db: Db, token_hash: str) -> Participant | None:
    with session(db) as s:
        return s.exec(select(Participant).where(Participant.token_hash == token_hash)).first()


def get(db: Db, participant_id: int | None) -> Participant | None:
    with session(db) as s:
        return s.get(Participant, participant_id)


def every(db: Db) -> list[Participant]:
    with session(db) as s:
        return list(s.exec(select(Participant).order_by(col(Participant.name))))
