"""Bots that crash too often: the rule that suspends them (pure).

A bot is suspended once ``LADDER_CRASH_LIMIT`` of its last ``LADDER_CRASH_WINDOW`` games
(arena.limits: three of ten) had a crash of it — its process died (CRASH) or it never
connected (INIT_FAIL). Only games after it was last enabled count.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Iterable
from typing import Any

from arena import limits
from arena.faults import FaultKind

__all__ = ["CRASHES", "CrashWindow", "crash_of"]

CRASHES = (FaultKind.CRASH, FaultKind.INIT_FAIL)


def crash_of(bot: str, faults: Iterable[dict[str, Any]]) -> str | None:
    """How ``bot`` crashed in a game with these stored faults (``KIND: detail``), or None."""
    for f in faults:
        if f.get("bot") == bot and str(f.get("kind")) in CRASHES:
            detail = str(f.get("detail") or "").strip().splitlines()
            return f"{f['kind']}: {detail[0][:200]}" if detail else str(f["kind"])
    return None


class CrashWindow:
    """A bot's last games: whether it crashed in each, and the last crash's reason."""

    def __init__(self) -> None:
        self.crashed: deque[bool] = deque(maxlen=limits.LADDER_CRASH_WINDOW)
        self.last: str = ""

    def add(self, crash: str | None) -> None:
        self.crashed.append(crash is not None)
        if crash is not None:
            self.last = crash

    def reason(self) -> str | None:
        """Why the bot is to be suspended, or None if it is not."""
        n = sum(self.crashed)
        if n < limits.LADDER_CRASH_LIMIT:
            return None
        return f"{n} crashes in its last {len(self.crashed)} games (last: {self.last})"
