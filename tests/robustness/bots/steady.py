"""A plain, honest bot that takes a few milliseconds per decision (PAUSE seconds, default
0.005), so that an event of a few rounds lasts long enough to be disturbed while it runs."""

import os
import time

from arena.sdk import run

PAUSE = float(os.environ.get("PAUSE", "0.005"))


def choose(req) -> int:  # type: ignore[no-untyped-def]
    time.sleep(PAUSE)
    if req.kind == "HIT_OR_STAY" and "STAY" in req.options and req.me.sum >= 20:
        return req.options.index("STAY")
    return 0


if __name__ == "__main__":
    run(choose, name="steady")
