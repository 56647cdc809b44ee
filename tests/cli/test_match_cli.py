"""`arena match` and `arena bot check` as a user runs them (real processes, real sockets)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
from arenacli import run_arena

ROOT = Path(__file__).resolve().parents[2]
EX = "bots/examples/python"


def arena(
    *args: str, timeout: float = 300, env_extra: dict[str, str] | None = None
) -> subprocess.CompletedProcess[str]:
    return run_arena(*args, columns=160, env=env_extra, timeout=timeout)


def test_match_json_reports_games_and_seats(tmp_path: Path) -> None:
    r = arena(
        "match",
        "--bot",
        f"python {EX}/ev/bot.py",
        "--bot",
        f"python {EX}/threshold/bot.py 25",
        "--bot",
        "builtin:random",
        "--games",
        "6",
        "--variant",
        "vengeance",
        "--seed",
        "4",
        "--json",
        "--logs",
        str(tmp_path / "logs"),
    )
    assert r.returncode == 0, r.stderr
    data = json.loads(r.stdout)
    assert set(data) == {"games", "seats", "seed", "faults", "absent"}
    assert data["faults"] == [] and data["absent"] == []
    assert data["seed"] == 4  # the match seed, to replay it
    assert "warning: --seed 4" in r.stderr and "predict every card" in r.stderr
    assert [s["bot"] for s in data["seats"]] == ["ev", "threshold", "random"]
    for s in data["seats"]:
        assert set(s) == {"bot", "wins", "mean_total", "faults"} and s["faults"] == {}
    assert len(data["games"]) == 6
    assert all(
        g["status"] == "completed" and sorted(g["seating"]) == ["ev", "random", "threshold"]
        for g in data["games"]
    )
    assert sum(s["wins"] for s in data["seats"]) == 6
    assert {p.name for p in (tmp_path / "logs").iterdir()} == {"ev.log", "threshold.log"}


def test_match_names_repeated_bots_apart_and_accepts_name_equals_command() -> None:
    r = arena(
        "match",
        "--bot",
        f"python {EX}/random/bot.py",
        "--bot",
        f"python {EX}/random/bot.py",
        "--bot",
        f"cautious=python {EX}/threshold/bot.py 15",
        "--games",
        "3",
        "--json",
    )
    assert r.returncode == 0, r.stderr
    assert [s["bot"] for s in json.loads(r.stdout)["seats"]] == ["random", "random#2", "cautious"]


def test_match_with_a_missing_command_is_a_one_line_usage_error() -> None:
    r = arena("match", "--bot", "./no/such/bot", "--games", "1")
    assert r.returncode == 2
    assert r.stderr.strip().count("\n") == 0 and "not found" in r.stderr


@pytest.mark.parametrize("workers", ["1", "2"])
def test_match_with_a_bot_that_cannot_start_refuses_to_play_and_names_it(workers: str) -> None:
    """The pre-flight: a bot that exits before it says hello stops the match before any
    game, in one ``error:`` line naming the bot and why (it used to play and forfeit every
    game in silence); on worker processes too, before any worker plays."""
    crash = f"{sys.executable} -c 'import sys; sys.exit(3)'"
    r = arena(
        "match", "--bot", f"crasher={crash}", "--bot", f"python {EX}/random/bot.py",
        "--games", "2", "--workers", workers,
    )  # fmt: skip
    assert r.returncode == 1, r.stdout + r.stderr
    errors = [ln for ln in r.stderr.splitlines() if ln.startswith("error: ")]
    assert errors == ["error: crasher did not start: bot exited with code 3 before it connected"]
    assert "Traceback" not in r.stderr and "--allow-absent" in r.stderr
    assert r.stdout == ""  # no results: nothing was played


def test_match_with_allow_absent_plays_on_and_the_absent_bot_forfeits_every_game() -> None:
    crash = f"{sys.executable} -c 'import sys; sys.exit(3)'"
    r = arena(
        "match", "--bot", f"crasher={crash}", "--bot", "builtin:ev", "--games", "2",
        "--allow-absent", "--json",
    )  # fmt: skip
    assert r.returncode == 0, r.stderr
    assert "warning: crasher is absent (bot exited with code 3" in r.stderr
    data = json.loads(r.stdout)
    assert data["absent"] == [
        {"bot": "crasher", "reason": "bot exited with code 3 before it connected"}
    ]
    assert all(g["status"] == "completed" for g in data["games"])
    for g in data["games"]:
        [f] = g["faults"]
        assert (f["bot"], f["kind"], f["forfeit"], f["absent"]) == (
            "crasher", "INIT_FAIL", True, True,
        )  # fmt: skip
    [line] = data["faults"]
    assert (line["bot"], line["kind"], line["games"], line["forfeits"]) == (
        "crasher", "INIT_FAIL", 2, 2,
    )  # fmt: skip


def test_bot_check_passes_an_example_bot_in_json() -> None:
    r = arena("bot", "check", f"python {EX}/threshold/bot.py", "--json")
    assert r.returncode == 0, r.stdout + r.stderr
    data = json.loads(r.stdout)
    assert data["passed"] is True
    names = {c["name"] for c in data["checks"]}
    assert {
        "connects",
        "answers in time",
        "answers legally",
        "many games at once",
        "survives a reconnect",
        "decision SWAP",
        "decision FLIP7_BONUS",
    } <= names


def test_bot_check_fails_a_bot_that_answers_illegally(tmp_path: Path) -> None:
    bad = tmp_path / "bad.py"
    bad.write_text(
        "from arena.sdk import Bot, run\n"
        "from arena.sdk.client import Client\n"
        "Client._answer = lambda self, r: (999, '')\n"  # always an out-of-range option
        "class B(Bot):\n    def choose(self, req):\n        return 0\n"
        "run(B(), name='bad')\n"
    )
    r = arena("bot", "check", f"python {bad}", "--json", "--deadline", "0.5")
    assert r.returncode == 1
    checks = {c["name"]: c for c in json.loads(r.stdout)["checks"]}
    assert checks["answers legally"]["ok"] is False
    assert "option 999" in checks["answers legally"]["detail"]


def test_bot_check_fails_a_bot_whose_code_raises() -> None:
    """An exception in choose() is the bot's fault: the check names it (the SDK used to
    answer 0 in its place and the bot passed)."""
    bot = ROOT / "tests" / "bots" / "raises_later.py"
    r = arena("bot", "check", f"python {bot}", "--json")
    assert r.returncode == 1, r.stdout + r.stderr
    checks = {c["name"]: c for c in json.loads(r.stdout)["checks"]}
    assert checks["its code does not fail"]["ok"] is False
    assert "ValueError: no idea what to do in round" in checks["its code does not fail"]["detail"]
    assert checks["answers legally"]["ok"] is True


def test_match_prints_a_fault_summary_with_the_first_reason() -> None:
    """A failing bot is not silent: after the results, one line per bot and fault kind
    with how many games it forfeited and the first reason."""
    bot = ROOT / "tests" / "bots" / "raises_later.py"
    r = arena(
        "match", "--bot", f"python {bot}", "--bot", "builtin:ev", "--games", "2",
        env_extra={"COLUMNS": "250"},
    )  # fmt: skip
    assert r.returncode == 0, r.stderr
    assert "faults over 2 game(s)" in r.stdout  # the summary's title
    lines = [ln for ln in r.stdout.splitlines() if "BOT_ERROR" in ln and "ValueError" in ln]
    assert len(lines) == 1, r.stdout
    cells = [c.strip() for c in lines[0].strip("│ ").split("│")]
    assert cells[0] == "raises_later" and cells[1] == "BOT_ERROR"
    assert cells[3] == "2" and cells[4] == "2"  # both games, both forfeited
    kind, _, reason = cells[5].partition(": ")  # the decision the first failure was in
    assert kind in ("HIT_OR_STAY", "CHOOSE_TARGET", "GIVE_SECOND_CHANCE"), cells[5]
    assert reason.startswith("the bot's code failed: ValueError: no idea"), cells[5]


def test_match_of_clean_bots_prints_no_fault_summary() -> None:
    r = arena("match", "--bot", "builtin:ev", "--bot", "builtin:random", "--games", "2")
    assert r.returncode == 0 and "faults over" not in r.stdout
