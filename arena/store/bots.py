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
    owner_id: int | None = None,
) -> tuple[Bot, BotVersion]:
    """Store a new bot, or the next version of an existing one, in one transaction.

    A bot keeps its runtime while it is registered: a version of another runtime is an
    error unless the bot was removed first. ``owner_id``: the participant it belongs to
    (the competition server); a bot owned by one participant takes no versions from
    anyone else."""
    with session(db) as s:
        bot = s.exec(select(Bot).where(Bot.name == name)).first()
        if bot is None:
            bot = Bot(name=name, runtime=runtime, owner_id=owner_id)
            s.add(bot)
            s.flush()
            number = 1
        else:
            if bot.runtime != runtime and not bot.removed:
                raise ArenaError(
                    f"bot {name!r} is a {bot.runtime} bot; "
                    f"remove it first to re-add it as {runtime}"
                )
            if bot.owner_id != owner_id and not bot.removed:
                raise ArenaError(f"the name {name!r} is taken by another participant's bot")
            bot.runtime = runtime
            bot.owner_id = owner_id
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


def owned(db: Db, owner_id: int) -> list[tuple[Bot, BotVersion | None]]:
    """Every registered bot of one participant by name, with its newest version."""
    with session(db) as s:
        rows = s.exec(
            select(Bot).where(Bot.owner_id == owner_id, Bot.removed == False).order_by(Bot.name)  # noqa: E712
        )
        return [(bot, _newest(s, bot.id)) for bot in rows]


def owners(db: Db) -> dict[str, int | None]:
    """Every bot name ever stored, and every event entry's name that runs one of an owned
    bot's versions → the participant who owns it (None: the organiser's)."""
    from arena.store.models import Entry

    with session(db) as s:
        found: dict[str, int | None] = {b.name: b.owner_id for b in s.exec(select(Bot))}
        rows = s.exec(
            select(Entry.name, Bot.owner_id)
            .join(BotVersion, col(Entry.bot_version_id) == col(BotVersion.id))
            .join(Bot, col(BotVersion.bot_id) == col(Bot.id))
            .where(col(Bot.owner_id).is_not(None))
        )
        for name, owner in rows:
            found.setdefault(name, owner)
        return found


def by_name(db: Db, name: str) -> Bot | None:
    """A stored bot by name, removed or not."""
    with session(db) as s:
        return s.exec(select(Bot).where(Bot.name == name)).first()


def versions(db: Db, bot_id: int | None) -> list[BotVersion]:
    """Every version of one bot, newest first."""
    with session(db) as s:
        return list(
            s.exec(
                select(BotVersion)
                .where(BotVersion.bot_id == bot_id)
                .order_by(col(BotVersion.version).desc())
            )
        )


def set_token(db: Db, version_id: int | None, token_hash: str | None) -> None:
    """Replace (or, with None, revoke) a remote version's token hash."""
    with session(db) as s:
        v = s.get(BotVersion, version_id)
        if v is None:
            raise ArenaError(f"no bot version {version_id}")
        v.token_hash = token_hash
        s.add(v)
        s.commit()
