"""Participants of the competition server (their login tokens are stored hashed). Names
are unique ignoring case (arena.names.name_key, a unique column): ``Alice`` cannot join
beside ``alice``, even at the same moment."""

from __future__ import annotations

from sqlalchemy.exc import IntegrityError
from sqlmodel import col, func, or_, select, update

from arena.errors import ArenaError
from arena.names import name_key
from arena.status import Role
from arena.store.db import Db, session
from arena.store.models import Bot, Participant


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


def by_name(db: Db, name: str) -> Participant | None:
    """A participant by their exact name, else by their name ignoring case."""
    with session(db) as s:
        exact = s.exec(select(Participant).where(Participant.name == name)).first()
        if exact is not None:
            return exact
        return s.exec(select(Participant).where(Participant.name_key == name_key(name))).first()


def set_disabled(db: Db, participant_id: int, disabled: bool) -> None:
    with session(db) as s:
        s.exec(
            update(Participant)
            .where(col(Participant.id) == participant_id)
            .values(disabled=disabled)
        )
        s.commit()


def set_token_hash(db: Db, participant_id: int, token_hash: str) -> None:
    """Replace a participant's login token (its hash): the old token stops working."""
    with session(db) as s:
        s.exec(
            update(Participant)
            .where(col(Participant.id) == participant_id)
            .values(token_hash=token_hash)
        )
        s.commit()


def bot_counts(db: Db) -> dict[int, int]:
    """Participant id → how many registered (not removed) bots they own."""
    with session(db) as s:
        rows = s.exec(
            select(Bot.owner_id, func.count(col(Bot.id)))
            .where(col(Bot.owner_id).is_not(None), Bot.removed == False)  # noqa: E712
            .group_by(col(Bot.owner_id))
        )
        return {int(owner): int(n) for owner, n in rows if owner is not None}


def disabled_bot_ids(db: Db) -> set[int]:
    """The ids of every bot whose owner is disabled (they sit out of new events and the
    ladder)."""
    with session(db) as s:
        rows = s.exec(
            select(Bot.id)
            .join(Participant, col(Bot.owner_id) == col(Participant.id))
            .where(Participant.disabled == True)  # noqa: E712
        )
        return {int(i) for i in rows if i is not None}
