"""Stored bots and their versions (the registry's rows).

A bot is found by its name ignoring case (arena.names.name_key): the row of that exact
name first (two rows of one key can only be older than the rule, migration 0011), else the
one of its key. A new bot's key is unique in the database, so of two registrations of
``Victim`` and ``victim`` racing each other exactly one creates the bot.
"""

from __future__ import annotations

from collections.abc import Callable

from sqlalchemy.exc import IntegrityError
from sqlmodel import Session, col, func, select

from arena.errors import ArenaError
from arena.names import name_key
from arena.store.db import Db, session
from arena.store.models import Bot, BotVersion


def _named(s: Session, name: str, *, removed: bool = True) -> Bot | None:
    """The bot called ``name`` ignoring case (``removed``: removed ones too)."""
    for where in (Bot.name == name, Bot.name_key == name_key(name)):
        query = select(Bot).where(where)
        if not removed:
            query = query.where(Bot.removed == False)  # noqa: E712
        found = s.exec(query).first()
        if found is not None:
            return found
    return None


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
    image_for: Callable[[int, int], str] | None = None,
) -> tuple[Bot, BotVersion]:
    """Store a new bot, or the next version of an existing one, in one transaction.

    ``name`` is compared ignoring case: ``Victim`` is the next version of a stored
    ``victim`` (which keeps its spelling). A bot keeps its runtime while it is registered:
    a version of another runtime is an error unless the bot was removed first.
    ``owner_id``: the participant it belongs to (the competition server); a bot owned by
    one participant takes no versions from anyone else. ``image_for(bot id, version)``
    gives the version's image name when it derives from them (a built image's tag)."""
    for attempt in (1, 2):
        try:
            return _add_version(
                db, name, runtime, command, image, digest, token_hash, owner_id, image_for
            )
        except IntegrityError:
            # another registration of the same name (ignoring case) committed first: the
            # second look finds its bot, and decides by its owner
            if attempt == 2:
                raise ArenaError(f"the name {name!r} was taken meanwhile: try again") from None
    raise AssertionError("unreachable")


def _add_version(
    db: Db,
    name: str,
    runtime: str,
    command: str | None,
    image: str | None,
    digest: str | None,
    token_hash: str | None,
    owner_id: int | None,
    image_for: Callable[[int, int], str] | None,
) -> tuple[Bot, BotVersion]:
    with session(db) as s:
        bot = _named(s, name)
        if bot is None:
            bot = Bot(name=name, name_key=name_key(name), runtime=runtime, owner_id=owner_id)
            s.add(bot)
            s.flush()
            number = 1
        else:
            name = bot.name
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
            image=image_for(bot.id, number) if image_for is not None else image,
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
        bot = _named(s, name, removed=False)
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
        bot = _named(s, name, removed=False)
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
        bot = _named(s, name, removed=False)
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
    """A stored bot by name (ignoring case), removed or not."""
    with session(db) as s:
        return _named(s, name)


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
