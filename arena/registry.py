"""The bot registry: named bots and their versions (a command, an image, or a remote token).

Remote bots get a random token, shown once and stored only as its SHA-256 hash.
"""

from __future__ import annotations

import hashlib
import secrets
from dataclasses import dataclass
from typing import Any

from sqlalchemy import Engine
from sqlmodel import Session, func, select

from arena.bots import BotSource, Command, Image, Remote
from arena.errors import ArenaError
from arena.names import check_bot_name
from arena.store.db import get_engine
from arena.store.models import Bot, BotVersion


@dataclass
class Added:
    bot: Bot
    version: BotVersion
    token: str | None  # remote bots only; never stored


def _eng(db: str | Engine | None) -> Engine:
    return db if isinstance(db, Engine) else get_engine(db)


def check_name(name: str) -> str:
    """A bot name's validation (arena.names): a usage error for a bad one."""
    return check_bot_name(name)


def add_bot(
    db: str | Engine | None,
    name: str,
    *,
    command: str | None = None,
    image: str | None = None,
    digest: str | None = None,
    remote: bool = False,
) -> Added:
    """Register a bot, or a new version of an existing one (same name, same runtime)."""
    check_name(name)
    if (command is not None) + (image is not None) + remote != 1:
        raise ArenaError("give exactly one of --cmd, --image or --remote")
    runtime = "process" if command is not None else "docker" if image is not None else "remote"
    token = secrets.token_urlsafe(32) if remote else None
    with Session(_eng(db), expire_on_commit=False) as s:
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
        version = BotVersion(
            bot_id=bot.id,  # type: ignore[arg-type]
            version=number,
            command=command,
            image=image,
            digest=digest,
            token_hash=hashlib.sha256(token.encode()).hexdigest() if token else None,
        )
        s.add(version)
        s.commit()
        return Added(bot, version, token)


def source_of(bot: Bot, version: BotVersion) -> BotSource:
    """How a registered version runs: the one mapping from stored versions to sources."""
    if bot.runtime == Command.kind and version.command:
        return Command(version.command)
    if bot.runtime == Image.kind:
        image = version.digest or version.image
        if image:
            return Image(image)  # pinned by id: later tags with the name do not change it
    if bot.runtime == Remote.kind and version.token_hash:
        return Remote(version.token_hash)
    raise ArenaError(f"bot {bot.name!r} version {version.version} has nothing to run")


def latest(db: str | Engine | None, name: str) -> tuple[Bot, BotVersion] | None:
    with Session(_eng(db), expire_on_commit=False) as s:
        bot = s.exec(select(Bot).where(Bot.name == name, Bot.removed == False)).first()  # noqa: E712
        if bot is None:
            return None
        version = s.exec(
            select(BotVersion)
            .where(BotVersion.bot_id == bot.id)
            .order_by(BotVersion.version.desc())  # type: ignore[attr-defined]
        ).first()
        if version is None:
            return None
        return bot, version


def list_bots(db: str | Engine | None = None) -> list[dict[str, Any]]:
    out = []
    with Session(_eng(db)) as s:
        for bot in s.exec(select(Bot).where(Bot.removed == False).order_by(Bot.name)):  # noqa: E712
            v = s.exec(
                select(BotVersion)
                .where(BotVersion.bot_id == bot.id)
                .order_by(BotVersion.version.desc())  # type: ignore[attr-defined]
            ).first()
            out.append(
                {
                    "name": bot.name,
                    "runtime": bot.runtime,
                    "version": v.version if v else 0,
                    "created": bot.created.isoformat(timespec="seconds"),
                    "command": v.command if v else None,
                    "image": (v.digest or v.image) if v else None,
                }
            )
    return out


def remove_bot(db: str | Engine | None, name: str) -> None:
    """Hide a bot from the registry; its past games and ratings stay."""
    with Session(_eng(db)) as s:
        bot = s.exec(select(Bot).where(Bot.name == name, Bot.removed == False)).first()  # noqa: E712
        if bot is None:
            raise ArenaError(f"no bot named {name!r} (see 'arena bot list')")
        bot.removed = True
        s.add(bot)
        s.commit()
