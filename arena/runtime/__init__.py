"""Bot runtimes: how each kind of bot source is started, watched and stopped.

Every runtime module provides ``make(name, source, ctx) -> BotRuntime`` (see
:mod:`arena.runtime.base`) and may provide ``async prepare()``, run once before a match
that uses it starts its bots (the container runtime reaps containers of a killed arena).
A new runtime is its source type in :mod:`arena.bots`, its module, and one line below.
"""

from __future__ import annotations

import importlib
from types import ModuleType
from typing import Any

from arena.bots import BotSource, Command, Image, Remote
from arena.runtime.base import BotRuntime, RuntimeContext

RUNTIMES: dict[type[Any], str] = {
    Command: "arena.runtime.process",
    Image: "arena.runtime.docker",
    Remote: "arena.runtime.remote",
}


def runtime_module(source: BotSource) -> ModuleType:
    try:
        path = RUNTIMES[type(source)]
    except KeyError:
        raise ValueError(f"no runtime runs {type(source).__name__} bots") from None
    return importlib.import_module(path)


def make_runtime(name: str, source: BotSource, ctx: RuntimeContext) -> BotRuntime:
    """The runtime that will run ``source`` as the bot ``name`` in a match."""
    return runtime_module(source).make(name, source, ctx)


async def prepare(sources: list[BotSource]) -> None:
    """Run each used runtime's ``prepare()`` once, before its bots start."""
    seen: set[str] = set()
    for source in sources:
        if type(source) not in RUNTIMES:
            continue
        module = runtime_module(source)
        if module.__name__ in seen:
            continue
        seen.add(module.__name__)
        hook = getattr(module, "prepare", None)
        if hook is not None:
            await hook()


__all__ = ["RUNTIMES", "BotRuntime", "RuntimeContext", "make_runtime", "prepare"]
