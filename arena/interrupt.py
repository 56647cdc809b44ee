"""Ctrl-C, SIGTERM and SIGHUP stop the arena the same way.

Under ``asyncio.run`` a SIGTERM or SIGHUP is handed to asyncio's own SIGINT handler, which
cancels the main task: every match's ``finally`` blocks run, so each bot is told goodbye
and stopped (a bot that ignores SIGTERM is killed after its grace), nothing is stored for
a match that did not finish, and a tournament stays resumable. Outside an event loop the
signal raises ``KeyboardInterrupt``. A second signal while that unwinding is under way
kills every bot at once and ends the process. :func:`exit_code` gives the conventional status:
130 (SIGINT), 143 (SIGTERM), 129 (SIGHUP).
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import signal
import sys
from collections.abc import Callable, Coroutine, Iterator
from types import FrameType
from typing import Any, TypeVar

T = TypeVar("T")

EXIT_CODES = {signal.SIGINT: 130, signal.SIGTERM: 143, signal.SIGHUP: 129}
HANDLED = (signal.SIGTERM, signal.SIGHUP)
# what signal.signal() takes and gives back: a function, SIG_DFL/SIG_IGN, or None (a
# handler not installed from Python); a handler's own result is not used (Any)
Handler = Callable[[int, FrameType | None], Any] | int | signal.Handlers | None

_received: list[int] = []
_message: list[str] = []  # what to say if the run under way is interrupted


class Interrupted(Exception):
    """An interruption, with what to tell the operator (e.g. how to resume). Not a
    KeyboardInterrupt, so that the command-line layer does not turn it into an abort."""

    def __init__(self, message: str = "interrupted") -> None:
        super().__init__(message)
        self.message = message


def run(coro: Coroutine[Any, Any, T], message: str = "interrupted") -> T:
    """``asyncio.run(coro)``; an interruption raises :class:`Interrupted` with ``message``."""
    _message.append(message)
    try:
        return asyncio.run(coro)
    except KeyboardInterrupt:
        raise Interrupted(message) from None
    finally:
        _message.pop()


def _kill_everything_now() -> None:
    """A second interruption: no more waiting. Every bot goes at once, then the process."""
    process = sys.modules.get("arena.runtime.process")
    if process is not None:
        process.kill_all_now()
    docker = sys.modules.get("arena.runtime.docker")
    if docker is not None:
        docker.remove_live_containers()
    with contextlib.suppress(Exception):
        sys.stderr.write(f"\n{_message[-1] if _message else 'interrupted'}\n")
        sys.stderr.flush()
    os._exit(exit_code())


def _on_signal(signum: int, frame: Any) -> None:
    _received.append(signum)
    if len(_received) > 1:
        _kill_everything_now()
    handler = signal.getsignal(signal.SIGINT)
    if callable(handler) and handler is not signal.default_int_handler:
        handler(signal.SIGINT, frame)  # asyncio.run's: cancels the main task
        return
    docker = sys.modules.get("arena.runtime.docker")
    if docker is not None:  # no loop to unwind in order: containers go now
        docker.remove_live_containers()
    raise KeyboardInterrupt


def exit_code() -> int:
    """The exit status for the interruption that happened (SIGINT if none was seen)."""
    return EXIT_CODES.get(signal.Signals(_received[0]), 130) if _received else 130


@contextlib.contextmanager
def handled() -> Iterator[None]:
    """Within: SIGTERM and SIGHUP interrupt like Ctrl-C (unless they are ignored, as under
    nohup, or the thread is not the main one)."""
    previous: dict[signal.Signals, Handler] = {}
    _received.clear()
    for sig in HANDLED:
        with contextlib.suppress(ValueError, OSError):
            if signal.getsignal(sig) in (signal.SIG_DFL, None):
                previous[sig] = signal.signal(sig, _on_signal)
    try:
        yield
    finally:
        for sig, old in previous.items():
            with contextlib.suppress(ValueError, OSError):
                signal.signal(sig, old)
