"""Stored bots and their versions (the registry's rows)."""

from __future__ import annotations

from sqlmodel import Session, col, func, select

from arena.errors import ArenaError
from arena.store.db import Db, session
from arena.store.models import Bot, BotVersion


def add_version(
    db: Db,
    name: str,
    runtime: str,
    *,
    command: str | None = None,
    image: str | None = None,
    digest: str | None = None,
    token_hash: str | None = None,
) -> tuple[Bot, BotVersion]:
    """Store a new bot, or the next version of an existing one, in one transaction.

    A bot keeps its runtime while it is registered: a version of another runtime is an
    error unless the bot was removed first."""
    with session(db) as s:
        bot = s.exec(select(Bot).where(Bot.name == name)).first()
        if bot is None:
            bot = Bot(name=name, runtime=runtime)
            s.add(bot)
            s.flush()
            number = 1
        else:
            if bot.runtime != runtime and not bot.removed:
                raise ArenaError(
                    f"bot {name!r} is a {bot.runtime} bot; "
                    f"remove it first to re-add it as {runtime}"
                )
            bot.runtime = runtime
            bot.removed = False
            last = s.exec(
                select(func.max(BotVersion.version)).where(BotVersion.bot_id == bot.id)
            ).one()
            number = (last or 0) + 1
        assert bot.id is not None  # stored (flushed): the row has its id
        version = BotVersion(
            bot_id=bot.id,
            version=number,
            command=command,
            image=image,
            digest=digest,
            token_hash=token_hash,
        )
        s.add(version)
        s.commit()
        return bot, version


def _newest(s: Session, bot_id: int | None) -> BotVersion | None:
    return s.exec(
        select(BotVersion)
        .where(BotVersion.bot_id == bot_id)
        .order_by(col(BotVersion.version).desc())
    ).first()


def latest(db: Db, name: str) -> tuple[Bot, BotVersion] | None:
    """A registered (not removed) bot and its newest version."""
    with session(db) as s:
        bot = s.exec(select(Bot).where(Bot.name == name, Bot.removed == False)).first()  # noqa: E712
        if bot is None:
            return None
        version = _newest(s, bot.id)
        if version is None:
            return None
        return bot, version


def numbered(db: Db, name: str, number: int) -> tuple[Bot, BotVersion | None] | None:
    """A registered (not removed) bot and its version ``number`` (None if it has no such
    version); None if no bot of that name is registered."""
    with session(db) as s:
        bot = s.exec(select(Bot).where(Bot.name == name, Bot.removed == False)).first()  # noqa: E712
        if bot is None:
            return None
        version = s.exec(
            select(BotVersion).where(BotVersion.bot_id == bot.id, BotVersion.version == number)
        ).first()
        return bot, version


def registered(db: Db) -> list[tuple[Bot, BotVersion | None]]:
    """Every registered bot by name, with its newest version."""
    with session(db) as s:
        bots = s.exec(select(Bot).where(Bot.removed == False).order_by(Bot.name))  # noqa: E712
        return [(bot, _newest(s, bot.id)) for bot in bots]


def remove(db: Db, name: str) -> bool:
    """Mark a registered bot removed; False if there is none of that name."""
    with session(db) as s:
        bot = s.exec(select(Bot).where(Bot.name == name, Bot.removed == False)).first()  # noqa: E712
        if bot is None:
            return False
        bot.removed = True
        s.add(bot)
        s.commit()
        return True


def version(db: Db, version_id: int | None) -> BotVersion | None:
    """One stored version by id."""
    with session(db) as s:
        return s.get(BotVersion, version_id)
