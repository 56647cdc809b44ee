"""A starter bot whose own strategy fails says so: a copy of each kit with a bug planted at
the top of its strategy (every decision throws / panics) plays a real match, and the arena
records each decision as the bot's own fault (BOT_ERROR) with the exception's message, and
where the language gives it, the file and line, instead of a silently played option 0.

A missing toolchain skips locally and fails under CI (tests/polyglot/kit.py).
"""

from __future__ import annotations

import asyncio
import re
import shlex
from dataclasses import dataclass
from pathlib import Path

import pytest
from kit import LANGUAGES, build_copy, build_output, copy_kit

from arena.bots import Command, Policy
from arena.faults import FaultKind, FaultPolicy
from arena.match import BotEntry, MatchSpec, run_match
from arena.status import GameStatus


@dataclass(frozen=True)
class Plant:
    file: str  # in the kit
    anchor: str  # the strategy's entry point; the bug goes right after it
    bug: str
    reported: str  # a regular expression for the error the bot reports


PLANTS = {
    "node": Plant(
        "strategy.js",
        "function choose(req, game) {\n",
        "  throw new Error('planted bug');\n",
        r"Error: planted bug \(strategy\.js:\d+\)",
    ),
    "java": Plant(
        # only in the bot's own process: the build's self-test and the warm-up use the
        # strategy too (the warm-up gives up on a failing strategy and lets the bot play)
        "src/flip7/bot/Strategy.java",
        "    int choose(DecisionRequest req) {\n",
        '        if (System.getenv("PLANTED_BUG") != null) '
        'throw new IllegalStateException("planted bug");\n',
        r"IllegalStateException: planted bug \(Strategy\.java:\d+\)",
    ),
    "cpp": Plant(
        "strategy.cpp",
        "int choose(const pb::DecisionRequest& req) {\n",
        '  throw std::runtime_error("planted bug");\n',
        r"std::runtime_error: planted bug$",
    ),
    "ruby": Plant(
        "strategy.rb",
        "  def choose(req, game)\n",
        "    raise 'planted bug'\n",
        r"RuntimeError: planted bug \(strategy\.rb:\d+\)",
    ),
    "go": Plant(
        "strategy.go",
        "func choose(req *pb.DecisionRequest) (int, string) {\n",
        '\tpanic("planted bug")\n',
        r"panic: planted bug \(strategy\.go:\d+\)",
    ),
}


def plant(lang: str, folder: Path) -> None:
    p = PLANTS[lang]
    source = folder / p.file
    text = source.read_text()
    assert text.count(p.anchor) == 1, f"{p.file} no longer has one {p.anchor!r}"
    source.write_text(text.replace(p.anchor, p.anchor + p.bug))


@pytest.mark.timeout(900)
@pytest.mark.parametrize("lang", ["node", "cpp", "go", "java", "ruby"])
def test_a_failing_strategy_is_reported_as_the_bots_own_error(
    lang: str, tmp_path_factory: pytest.TempPathFactory
) -> None:
    folder = copy_kit(lang, tmp_path_factory.mktemp(f"planted-{lang}"))
    plant(lang, folder)
    env = {}
    if lang == "go":  # the kit's own build cache: only the changed package is compiled
        env["GOCACHE"] = str(LANGUAGES["go"].folder / "build" / "gocache")
    proc = build_copy(lang, folder, **env)
    assert proc.returncode == 0, build_output(proc)
    command = folder / LANGUAGES[lang].command.relative_to(LANGUAGES[lang].folder)
    spec = MatchSpec(
        bots=[
            BotEntry("planted", Command(shlex.quote(str(command)), env={"PLANTED_BUG": "1"})),
            BotEntry("ev", Policy("ev")),
        ],
        games=2,
        seed=5,
        variant="vengeance",
        faults=FaultPolicy(max_strikes=1_000),
    )
    result = asyncio.run(run_match(spec))
    faults = [f for g in result.games for f in g.faults]
    assert faults, "the planted bug was never reported"
    reported = re.compile(rf"^[A-Z0-9_]+: the bot's code failed: {PLANTS[lang].reported}")
    for g in result.games:
        planted_seat = g.seating.index("planted")
        for f in g.faults:
            assert f.kind == FaultKind.BOT_ERROR and f.seat == planted_seat, f
            assert reported.search(f.detail), f.detail
        # every decision of the planted seat failed, and each was played for it
        assert len(g.faults) == sum(1 for seat, _ in g.asked if seat == planted_seat)
        assert g.status == GameStatus.COMPLETED
