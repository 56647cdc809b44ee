"""The bot registry: named bots and their versions (a command, an image, or a remote token).

Remote bots get a random token, shown once and stored only as its SHA-256 hash.
"""

from __future__ import annotations

import hashlib
import secrets
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from sqlalchemy import Engine

from arena.bots import BotSource, Command, Image, Remote
from arena.errors import ArenaError, UsageProblem
from arena.names import check_bot_name, version_label
from arena.store import bots
from arena.store.models import Bot, BotVersion


@dataclass
class Added:
    bot: Bot
    version: BotVersion
    token: str | None  # remote bots only; never stored

    @property
    def label(self) -> str:
        """How results name this version (``ev@v2``)."""
        return label(self.bot, self.version)


def label(bot: Bot, version: BotVersion) -> str:
    """How results (standings, leaderboards, the report) name a registered version."""
    return version_label(bot.name, version.version)


def new_token() -> str:
    """A fresh random token (remote bots, participants' logins): shown once, never stored."""
    return secrets.token_urlsafe(32)


def hash_token(token: str) -> str:
    """What is stored of a token: its SHA-256, hex."""
    return hashlib.sha256(token.encode()).hexdigest()


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
    owner_id: int | None = None,
    image_for: Callable[[int, int], str] | None = None,
) -> Added:
    """Register a bot, or a new version of an existing one (same name ignoring case, same
    runtime); ``owner_id``: the participant it belongs to (the competition server);
    ``image_for(bot id, version)``: the image's name when it derives from them (it then
    replaces ``image``)."""
    check_name(name)
    if (command is not None) + (image is not None) + remote != 1:
        raise ArenaError("give exactly one of --cmd, --image or --remote")
    runtime = "process" if command is not None else "docker" if image is not None else "remote"
    token = new_token() if remote else None
    bot, version = bots.add_version(
        db,
        name,
        runtime,
        command=command,
        image=image,
        digest=digest,
        token_hash=hash_token(token) if token else None,
        owner_id=owner_id,
        image_for=image_for,
    )
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
    return bots.latest(db, name)


def find(db: str | Engine | None, name: str, number: int | None = None) -> tuple[Bot, BotVersion]:
    """A registered bot's version ``number`` (None: its latest); a usage error that says
    which versions there are if it has no such version, or if there is no such bot."""
    if number is None:
        found = bots.latest(db, name)
        if found is None:
            raise UsageProblem(f"no bot named {name!r} is registered (see 'arena bot list')")
        return found
    numbered = bots.numbered(db, name, number)
    if numbered is None:
        raise UsageProblem(f"no bot named {name!r} is registered (see 'arena bot list')")
    bot, version = numbered
    if version is None:
        newest = bots.latest(db, name)
        last = newest[1].version if newest else 0
        raise UsageProblem(
            f"bot {name!r} has no version {number} (its versions: "
            f"{'1' if last == 1 else f'1–{last}'}; {name}@latest is the newest)"
        )
    return bot, version


def list_bots(db: str | Engine | None = None) -> list[dict[str, Any]]:
    out = []
    for bot, v in bots.registered(db):
        out.append(
            {
                "name": bot.name,
                "runtime": bot.runtime,
                "version": v.version if v else 0,
                "version_id": v.id if v else None,
                "label": label(bot, v) if v else None,
                "created": bot.created.isoformat(timespec="seconds"),
                "version_created": v.created.isoformat(timespec="seconds") if v else None,
                "command": v.command if v else None,
                "image": v.image if v else None,
                "digest": v.digest if v else None,
            }
        )
    return out


def remove_bot(db: str | Engine | None, name: str) -> None:
    """Hide a bot from the registry; its past games and ratings stay."""
    if not bots.remove(db, name):
        raise ArenaError(f"no bot named {name!r} (see 'arena bot list')")
