"""The one shape every bot runtime has (process, container, remote, ...).

A runtime starts a bot from its source (``arena.bots``) so that it connects to the arena's
gateway at ``address`` with ``token``, notices when it ends by itself, and stops it when its
match is over. The match runner knows only this protocol; which class runs which source is
the registry in ``arena.runtime`` (one line per runtime). Below the protocol: the few helpers
that several runtimes share.
"""

from __future__ import annotations

import contextlib
import os
import signal
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Protocol


class BotLog(Protocol):
    def text(self) -> str: ...


class BotRuntime(Protocol):
    """A started (or startable) bot for the length of a match."""

    name: str
    log: BotLog

    async def start(
        self, address: str, token: str, on_exit: Callable[[Any, int], None] | None = None
    ) -> None:
        """Start the bot; ``on_exit(runtime, code)`` is called if it ends by itself.
        Raises ``OSError`` when the bot cannot be started (its own fault, or the arena's
        when the system is out of resources)."""

    async def stop(self, timeout: float | None = None, exit_grace: float = 1.0) -> int | None:
        """Let the bot end by itself for ``exit_grace`` seconds, then stop it and
        everything it started; returns its exit code (None if it never ran)."""

    def describe_exit(self) -> str:
        """How it ended, for fault details ("exited with code 1", "out of memory", ...)."""


@dataclass(frozen=True)
class RuntimeContext:
    """What a runtime may need from the match it plays in."""

    match_id: str
    process_limits: Any = None  # runtime/sandbox.py ProcessLimits (None: defaults)
    container_limits: Any = None  # runtime/docker.py ContainerLimits (None: defaults)


def signal_name(code: int) -> str | None:
    """The signal that ended a bot whose exit status is ``code`` (128 + the signal's number,
    as a shell reports it), or None when the code is no such status."""
    if code > 128:
        with contextlib.suppress(ValueError):
            return signal.Signals(code - 128).name
    return None


def read_ready(fd: int) -> bytes | None:
    """What a non-blocking pipe holds now (up to 64 KiB): None when nothing has come yet,
    ``b""`` at its end or when reading it failed."""
    try:
        return os.read(fd, 65536)
    except BlockingIOError:
        return None
    except OSError:
        return b""


class NoLog:
    """The log of a bot whose output the arena never sees (remote bots)."""

    def text(self) -> str:
        return ""
