"""Participants of the competition server (their login tokens are stored hashed). Names
are unique ignoring case (arena.names.name_key, a unique column): ``Alice`` cannot join
beside ``alice``, even at the same moment."""

from __future__ import annotations

from sqlalchemy.exc import IntegrityError
from sqlmodel import col, or_, select

from arena.errors import ArenaError
from arena.names import name_key
from arena.status import Role
from arena.store.db import Db, session
from arena.store.models import Participant


def add(db: Db, name: str, token_hash: str, role: Role = Role.PARTICIPANT) -> Participant:
    key = name_key(name)
    taken = ArenaError(f"a participant named {name!r} exists already")
    with session(db) as s:
        same = or_(Participant.name == name, Participant.name_key == key)
        found = s.exec(select(Participant).where(same)).first()
        if found is not None and found.name != name:
            raise ArenaError(
                f"a participant named {found.name!r} exists already (names ignore case)"
            )
        if found is not None:
            raise taken
        p = Participant(name=name, name_key=key, token_hash=token_hash, role=role)
        s.add(p)
        try:
            s.commit()
        except IntegrityError:  # the same name (ignoring case) joined meanwhile
            raise taken from None
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
