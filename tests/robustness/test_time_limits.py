"""Deadlines and time banks the protocol cannot carry.

``deadline_ms`` and ``time_bank_ms`` are uint32 milliseconds (about 49.7 days). An infinite,
NaN or enormous ``--deadline``/``--time-bank`` used to reach the match and void every game
with an overflow; now it is refused up front, by every command that takes it, in one line
that states the limits (which ``--help`` states too).
"""

from __future__ import annotations

import json
import math
from pathlib import Path

import pytest
from clikit import EX, arena, files, one_line_error
from sqlmodel import Session, select

from arena import limits
from arena.faults import FaultPolicy
from arena.protocol import pb
from arena.store.db import get_engine
from arena.store.models import Tournament

BUILTINS = ["--bot", "builtin:random", "--bot", "builtin:ev"]
EVENT = ["tournament", "--format", "swiss", "--bots", "builtin:random", "--bots", "builtin:ev"]
COMMANDS = {
    "match": ["match", *BUILTINS, "--games", "1"],
    "tournament": [*EVENT, "--no-report"],
    "bot check": ["bot", "check", f"python {EX}/random/bot.py"],
}


@pytest.mark.parametrize("value", ["inf", "-inf", "nan", "1e10", "3600.5", "0", "-1"])
@pytest.mark.parametrize("command", sorted(COMMANDS))
def test_a_deadline_out_of_bounds_is_refused_before_anything_runs(
    cli, workdir: Path, command: str, value: str
) -> None:
    line = one_line_error(cli(*COMMANDS[command], "--deadline", value), 2)
    assert "--deadline" in line and "3600" in line and "0.01" in line
    assert files(workdir) == set()


@pytest.mark.parametrize("value", ["inf", "nan", "86401", "1e12", "-0.5"])
@pytest.mark.parametrize("command", ["match", "tournament"])
def test_a_time_bank_out_of_bounds_is_refused_before_anything_runs(
    cli, workdir: Path, command: str, value: str
) -> None:
    line = one_line_error(cli(*COMMANDS[command], "--time-bank", value), 2)
    assert "--time-bank" in line and "86400" in line
    assert files(workdir) == set()


@pytest.mark.parametrize("value", ["0", "1001", "-3"])
@pytest.mark.parametrize("command", ["match", "tournament"])
def test_max_strikes_out_of_bounds_is_refused(cli, workdir: Path, command: str, value: str) -> None:
    line = one_line_error(cli(*COMMANDS[command], "--max-strikes", value), 2)
    assert "--max-strikes" in line and "1,000" in line
    assert files(workdir) == set()


def test_help_states_the_time_limits(cli) -> None:
    for command in (["match"], ["tournament"], ["bot", "check"]):
        text = " ".join(cli(*command, "--help").out.split())
        assert "0.01–3600" in text, command
        if command != ["bot", "check"]:
            assert "0–86400" in text and "1–1,000" in text, command


def test_the_bounds_fit_the_protocol_fields_and_the_match_runner_enforces_them() -> None:
    fields = pb.DecisionRequest.DESCRIPTOR.fields_by_name
    for name in ("deadline_ms", "time_bank_ms"):
        assert fields[name].type == fields[name].TYPE_UINT32
    assert (limits.MAX_DEADLINE + limits.MAX_TIME_BANK) * 1000 <= 2**32 - 1
    # the match runner's fault policy reads the same bounds
    for bad in (
        {"deadline": math.inf},
        {"deadline": math.nan},
        {"deadline": limits.MAX_DEADLINE * 2},
        {"time_bank": limits.MAX_TIME_BANK + 1},
        {"time_bank": math.inf},
        {"max_strikes": 0},
    ):
        with pytest.raises(ValueError):
            FaultPolicy(**bad)
    FaultPolicy(deadline=limits.MAX_DEADLINE, time_bank=limits.MAX_TIME_BANK)


def test_the_largest_deadline_and_time_bank_play_normal_games() -> None:
    """At the limits, a real bot over gRPC gets the values intact: no game goes void."""
    r = arena(
        "match",
        "--bot",
        f"python {EX}/ev/bot.py",
        "--bot",
        "builtin:random",
        "--games",
        "2",
        "--deadline",
        str(limits.MAX_DEADLINE),
        "--time-bank",
        str(limits.MAX_TIME_BANK),
        "--json",
    )
    assert r.returncode == 0, r.stderr
    games = json.loads(r.stdout)["games"]
    assert [g["status"] for g in games] == ["completed", "completed"]
    assert all(g["decisions"] > 0 and not g["faults"] for g in games)


def test_a_tournament_stores_its_time_bank_and_strikes(cli, workdir: Path) -> None:
    r = cli(
        *EVENT,
        "--rounds",
        "1",
        "--games",
        "1",
        "--deadline",
        "2.5",
        "--time-bank",
        "30",
        "--max-strikes",
        "7",
        "--no-report",
        "--json",
    )
    assert r.code == 0, r.err
    with Session(get_engine(f"sqlite:///{workdir / 'arena.db'}")) as s:
        t = s.exec(select(Tournament)).one()
    assert t.status == "completed"
    assert (t.options["deadline"], t.options["time_bank"], t.options["max_strikes"]) == (
        2.5,
        30.0,
        7,
    )
