"""The remote runtime: a bot that runs elsewhere and connects by itself with its token.

There is nothing to start or stop; the match runner waits for the connection as it does
for any started bot, and the bot's output stays on its own machine.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from arena.bots import Remote
from arena.runtime.base import NoLog, RuntimeContext


class RemoteBot:
    def __init__(self, name: str) -> None:
        self.name = name
        self.log = NoLog()

    async def start(
        self, address: str, token: str, on_exit: Callable[[Any, int], None] | None = None
    ) -> None:
        return None

    async def stop(self, timeout: float | None = None, exit_grace: float = 1.0) -> int | None:
        return None

    def describe_exit(self) -> str:
        return "remote"


def make(name: str, source: Remote, ctx: RuntimeContext) -> RemoteBot:
    return RemoteBot(name)
