"""Submitting a bot image: build it in the sandbox, pin it by id, run the compliance suite
on it, and register it as the bot's next version only if it passes.

``arena bot submit`` and the competition server's upload both go through
:func:`submit_bot`; they differ only in how they show progress and whether a failing
image is kept (the command line keeps it to be inspected; the server removes it).

The Dockerfile may read only the arena's own bases (arena.runtime.build), unless the
operator says otherwise (``any_base``). The image is built under a random tag that no
one can name, and once registered it is tagged ``flip7-bot/bot-<bot id>:v<version>``
(arena.runtime.build.bot_image_tag): a tag never derives from a name, so a bot called
``Victim`` cannot move the tag of ``victim``'s image (nor could it register: names are
unique ignoring case).
"""

from __future__ import annotations

import asyncio
import contextlib
import threading
from collections.abc import Callable, Coroutine, Mapping
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from arena.errors import ArenaError
from arena.runtime.build import BuiltImage, bot_image_tag, build_image, build_tag
from arena.runtime.build_sandbox import BuildLimits
from arena.store import bots
from arena.store.db import Db, read_engine

Runner = Callable[[Coroutine[Any, Any, Any]], Any]


@dataclass
class Submitted:
    built: BuiltImage
    checks: list[Any] | None  # arena.check.Check; None when the check was skipped
    version: int | None  # the registered version; None when a check failed
    added: Any = None  # arena.registry.Added of the registered version; None when not

    @property
    def failed(self) -> list[Any]:
        return [c for c in self.checks or [] if not c.ok]


def check_owner(db: Db, name: str, owner_id: int | None) -> None:
    """A bot name registered to someone else (ignoring case: ``Victim`` is ``victim``)
    takes no new version (before any build)."""
    found = bots.by_name(read_engine(db) if isinstance(db, str | None) else db, name)
    if found is not None and not found.removed and found.owner_id != owner_id:
        raise ArenaError(f"the name {name!r} is taken by another participant's bot")


def submit_bot(
    db: Db,
    path: Path,
    name: str,
    *,
    base: str | None = None,
    build_args: Mapping[str, str] | None = None,
    limits: BuildLimits | None = None,
    on_line: Callable[[str], None] | None = None,
    progress: Callable[[str], None] | None = None,
    skip_check: bool = False,
    owner_id: int | None = None,
    keep_failed: bool = True,
    any_base: bool = False,
    run: Runner = asyncio.run,
    cancel: threading.Event | None = None,
) -> Submitted:
    """Build ``path`` (a build context with a Dockerfile) as ``name``'s next version, check
    it and register it if it passes. Nothing is stored before the build succeeds; a failed
    build leaves no image (arena.runtime.build). ``keep_failed=False`` also removes the
    image of a bot that fails the check. ``any_base``: the Dockerfile may read any local
    image (the operator's choice; never a participant's). ``run`` runs the check's
    coroutine."""
    from arena.bots import Image
    from arena.check import run_checks
    from arena.registry import add_bot

    check_owner(db, name, owner_id)
    built = build_image(
        path,
        build_tag(),
        base=base,
        build_args=build_args,
        limits=limits,
        on_line=on_line,
        any_base=any_base,
        cancel=cancel,
    )
    try:
        checks = None if skip_check else run(run_checks(Image(built.id), progress=progress))
    except BaseException:
        if not keep_failed:
            remove_image(built)
        raise
    result = Submitted(built, checks, None)
    if result.failed:
        if not keep_failed:
            remove_image(built)
        return result
    try:
        added = add_bot(
            db, name, image=built.tag, digest=built.id, owner_id=owner_id, image_for=bot_image_tag
        )
    except BaseException:
        remove_image(built)  # not registered (the name was taken meanwhile): nothing to keep
        raise
    assert added.bot.id is not None
    result.built = retag(built, bot_image_tag(added.bot.id, added.version.version))
    result.version = added.version.version
    result.added = added
    return result


def retag(built: BuiltImage, tag: str) -> BuiltImage:
    """Give the registered image its lasting tag and drop the build's random one (the
    registry runs it by id: a tag that could not be set changes nothing that plays)."""
    from arena.runtime.docker import docker_client

    api = docker_client().api
    repository, _, version = tag.rpartition(":")
    try:
        api.tag(built.id, repository, version, force=True)
    except Exception:
        return built
    with contextlib.suppress(Exception):
        api.remove_image(built.tag, noprune=True)
    return replace(built, tag=tag)


def remove_image(built: BuiltImage) -> None:
    """Drop an image that will not be registered: its tag goes, and with it the image
    unless another tag names the same image (an identical build is not someone else's
    loss)."""
    from arena.runtime.docker import docker_client

    with contextlib.suppress(Exception):
        docker_client().api.remove_image(built.tag)
