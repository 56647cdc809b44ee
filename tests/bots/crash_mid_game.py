"""A normal SDK bot that dies abruptly (os._exit) on its CRASH_AFTER+1-th decision,
before answering it, after a last line on stderr (which the arena keeps as its log)."""

import os
import sys

import botkit

from arena.sdk import run

CRASH_AFTER = int(os.environ.get("CRASH_AFTER", "4"))
decisions = 0


def choose(req) -> int:
    global decisions
    decisions += 1
    if decisions > CRASH_AFTER:
        botkit.note(event="crash", request_id=req.request_id, game_id=req.game_id)
        print(f"crash-mid-game: dying on decision {decisions}", file=sys.stderr, flush=True)
        os._exit(17)
    return req.options.index("STAY") if "STAY" in req.options else 0


if __name__ == "__main__":
    run(choose, name="crash-mid-game")
