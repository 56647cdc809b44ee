"""A normal SDK bot whose first CRASH_RUNS runs die abruptly (os._exit) on their
CRASH_AFTER+1-th decision; later runs play on. It counts its runs in $BOT_LOG (one
``start`` note per run), so a bot the arena restarts knows it was restarted."""

import json
import os

import botkit

from arena.sdk import run

CRASH_AFTER = int(os.environ.get("CRASH_AFTER", "4"))
CRASH_RUNS = int(os.environ.get("CRASH_RUNS", "1"))


def runs_so_far() -> int:
    with open(os.environ["BOT_LOG"], encoding="utf-8") as f:
        return sum(1 for line in f if line.strip() and json.loads(line)["event"] == "start")


this_run = runs_so_far() + 1
botkit.note(event="start", run=this_run)
decisions = 0


def choose(req) -> int:
    global decisions
    decisions += 1
    if this_run <= CRASH_RUNS and decisions > CRASH_AFTER:
        botkit.note(event="crash", run=this_run, game_id=req.game_id)
        os._exit(17)
    botkit.note(event="answer", run=this_run, game_id=req.game_id)
    return req.options.index("STAY") if "STAY" in req.options else 0


if __name__ == "__main__":
    run(choose, name="crash-runs")
