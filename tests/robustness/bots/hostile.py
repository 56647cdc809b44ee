"""Plumbing for the hostile bots in this folder: a sensible way to play, and notes.

Each bot is a normal SDK bot that also attacks (its environment, the machine, the arena,
other bots) and reports what it saw as JSON lines appended to $BOT_LOG, so that a test
can assert on what the attack achieved. Run as ``python tests/robustness/bots/NAME.py``.
"""

from __future__ import annotations

import json
import os
import sys
import time
import traceback
from collections.abc import Callable
from typing import Any

from arena.sdk import run


def note(**fields: Any) -> None:
    path = os.environ.get("BOT_LOG")
    if not path:
        return
    with open(path, "a", encoding="utf-8") as f:
        f.write(json.dumps(fields, sort_keys=True) + "\n")


def sensible(req: Any) -> int:
    """HIT below 20, else STAY; the first option for anything else (deterministic)."""
    if req.kind == "HIT_OR_STAY":
        if req.me.sum >= 20 and "STAY" in req.options:
            return req.options.index("STAY")
        return req.options.index("HIT") if "HIT" in req.options else 0
    return 0


def play(first: Callable[[], None] | None = None, name: str = "hostile") -> None:
    """Play sensibly; ``first()`` runs once, at the first decision (the bot is connected).
    If it raises, the bot dies of it (traceback on stderr, exit code 1): a crash of its own."""
    pending = [first] if first is not None else []
    pace = float(os.environ.get("BOT_PACE") or 0)  # seconds of "thought" before each answer

    def choose(req: Any) -> int:
        if pace:
            time.sleep(pace)
        while pending:
            try:
                pending.pop()()
            except BaseException:
                traceback.print_exc()
                sys.stderr.flush()
                sys.stdout.flush()
                os._exit(1)
        return sensible(req)

    run(choose, name=name)
