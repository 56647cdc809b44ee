"""docs/writing-a-bot.md: every Python example is a bot that really plays, and the request
fields it documents are the SDK's.

Each ```python block of the page is written to a temporary file and started as a real bot
process by the match runner, which serves it over real gRPC and seats it against two
built-in policies, in the base game and in Brutal Vengeance. A block that does not start,
crashes, times out, answers illegally or raises inside ``choose`` (the SDK logs a traceback
to the bot's output) fails its test.
"""

from __future__ import annotations

import asyncio
import re
import shlex
import sys
from pathlib import Path
from typing import Any

import pytest

from arena.bots import Command, Policy
from arena.match import BotEntry, MatchSpec, run_match
from arena.protocol import pb
from arena.protocol.convert import KIND_TO_PB, ruleset_pb
from arena.protocol.wire import RequestEncoder
from arena.sdk import GameInfo, Request
from engine import STEAL, Game, get_ruleset

DOC = Path(__file__).resolve().parents[2] / "docs" / "writing-a-bot.md"
PYTHON_BLOCK = re.compile(r"^```python\n(.*?)^```$", re.S | re.M)
BLOCKS = PYTHON_BLOCK.findall(DOC.read_text())
BOT = "doc-bot"


def test_every_python_example_is_a_complete_bot() -> None:
    """The page shows four bots (ten lines, hooks, card counter, built-in policy), and each
    Python block is a whole program: fragments would not be played by the test below."""
    assert len(BLOCKS) >= 4
    for block in BLOCKS:
        assert "from arena.sdk import" in block and "\nrun(" in block, block[:200]
        compile(block, str(DOC), "exec")


@pytest.mark.parametrize(("variant", "brutal"), [("base", False), ("vengeance", True)])
@pytest.mark.parametrize("index", range(len(BLOCKS)))
def test_doc_bot_plays_real_games_without_a_fault(
    index: int, variant: str, brutal: bool, tmp_path: Path
) -> None:
    path = tmp_path / f"doc_bot_{index}.py"
    path.write_text(BLOCKS[index])
    spec = MatchSpec(
        bots=[
            BotEntry(BOT, Command(shlex.join([sys.executable, str(path)]))),
            BotEntry("ev", Policy("ev")),
            BotEntry("threshold", Policy("threshold:23")),
        ],
        games=3,  # seats rotate: the bot plays every seat once
        seed=20 + index,
        variant=variant,
        brutal=brutal,
        concurrency=3,
    )
    result = asyncio.run(run_match(spec))
    log = result.logs.get(BOT, "")
    assert len(result.games) == 3
    for game in result.games:
        assert game.status == "completed", (game.faults, log)
        assert game.faults == [], (game.faults, log)
        assert game.rounds >= 1 and max(game.totals) >= 200
    asked = [kind for g in result.games for seat, kind in g.asked if g.seating[seat] == BOT]
    assert asked.count("HIT_OR_STAY") >= 10, asked  # real round trips to the bot
    assert "Traceback" not in log and "choose()" not in log, log


# ---------------------------------------------------------------- the documented fields
def documented_fields(prefix: str) -> dict[str, str]:
    """``| `req.kind` | `str` | ...`` rows of the page: attribute name -> documented type."""
    rows = re.findall(rf"^\| `{re.escape(prefix)}(\w+)` \| `([^`]*)` \|", DOC.read_text(), re.M)
    return {name: typ.replace("\\|", "|") for name, typ in rows}


def matches(value: Any, documented: str) -> bool:
    names = set(re.findall(r"[A-Za-z_]+", documented))
    if value is None:
        return "None" in names
    return any(cls.__name__ in names for cls in type(value).__mro__)


def real_request() -> Request:
    """A STEAL request exactly as the arena sends it (stacked deck, Brutal Vengeance)."""
    rules = get_ruleset("vengeance", brutal=True)
    game = Game(rules, 3, 0, stack=["5", "9", "STEAL"])  # seats 1, 2 get 5, 9; seat 0 steals
    d = game.decision
    assert d is not None and d.kind == STEAL
    data = RequestEncoder(game, "g-1", ruleset_pb(rules)).encode(
        7, d, KIND_TO_PB[d.kind], 0, 1000, 10000
    )
    msg = pb.DecisionRequest.FromString(data)
    info = GameInfo("g-1", 0, 3, "vengeance", True, ["a", "b", "c"], 1, 1.0, 10.0)
    return Request(msg, info)


def test_documented_request_fields_exist_with_their_documented_types() -> None:
    fields = documented_fields("req.")
    assert {"kind", "options", "card", "seat", "me", "observation", "events", "view"} <= set(fields)
    assert {"deadline", "time_bank", "game", "game_id", "request_id", "decision"} <= set(fields)
    req = real_request()
    for name, documented in fields.items():
        value = getattr(req, name)
        assert matches(value, documented), (name, documented, type(value))
    assert req.options == ((1, "5"), (2, "9")) and req.card == "STEAL"
    assert (req.deadline, req.time_bank, req.request_id) == (1.0, 10.0, 7)


def test_documented_player_and_observation_values() -> None:
    """The attributes of ``req.me`` and the observation keys the page relies on."""
    req = real_request()
    me = req.view.players[1]
    assert [c.label for c in me.numbers] == ["5"] and me.sum == 5 and me.ranks == {5}
    assert (req.me.seat, req.me.status, req.me.total, req.me.flip7) == (0, "active", 0, False)
    assert [c.label for c in req.me.extras] == []
    obs = req.observation
    for key in ("variant", "options", "seat", "seats", "round", "dealer", "order"):
        assert key in obs
    for key in ("target_score", "players", "discard", "deck_size", "pending", "unseen"):
        assert key in obs
    assert sum(obs["unseen"].values()) == obs["deck_size"] == 108 - 3
    assert set(obs["players"][1]) == {
        "seat",
        "status",
        "numbers",
        "modifiers",
        "second_chance",
        "total",
        "line_score",
        "flip7",
    }
