"""`arena simulate` and `arena demo` as a user runs them: real processes, exit codes, JSON."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

ARENA = [sys.executable, "-m", "arena"]

SIM_KEYS = {"games", "rounds", "seconds", "rounds_per_second", "mean_rounds_per_game", "seats"}
SIM_KEYS |= {"void", "decisions"}  # games voided by the arena, decisions asked of bots
SEAT_KEYS = {"policy", "wins", "mean_round_score", "bust_rate", "flip7_rate", "mean_total"}
SEAT_KEYS |= {"name", "bot", "faults"}  # rows of bots (loaded with --bot) have them too


def run(*args: str) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "COLUMNS": "120"}
    return subprocess.run(
        [*ARENA, *args], capture_output=True, text=True, timeout=300, env=env, check=False
    )


def test_simulate_json_has_the_documented_keys() -> None:
    r = run(
        "simulate",
        "--seats",
        "3",
        "--policy",
        "ev",
        "--policy",
        "random",
        "--policy",
        "threshold:20",
        "--games",
        "30",
        "--seed",
        "5",
        "--json",
    )
    assert r.returncode == 0, r.stderr
    data = json.loads(r.stdout)
    assert set(data) == SIM_KEYS
    assert data["games"] == 30
    assert [s["policy"] for s in data["seats"]] == ["ev", "random", "threshold:20"]
    for seat in data["seats"]:
        assert set(seat) == SEAT_KEYS
        assert 0 <= seat["bust_rate"] <= 1
    assert sum(s["wins"] for s in data["seats"]) == pytest.approx(30)
    assert data["rounds"] >= 30 * 5  # nobody reaches 200 in fewer than 5 rounds here


def test_simulate_is_reproducible_from_the_seed() -> None:
    args = (
        "simulate",
        "--variant",
        "vengeance",
        "--seats",
        "4",
        "--policy",
        "random",
        "--games",
        "20",
        "--seed",
        "77",
        "--json",
    )
    a, b = json.loads(run(*args).stdout), json.loads(run(*args).stdout)
    assert a["seats"] == b["seats"] and a["rounds"] == b["rounds"]


def test_simulate_vengeance_brutal_runs() -> None:
    r = run(
        "simulate",
        "--variant",
        "vengeance",
        "--brutal",
        "--seats",
        "5",
        "--policy",
        "ev",
        "--games",
        "10",
        "--json",
    )
    assert r.returncode == 0, r.stderr
    assert json.loads(r.stdout)["games"] == 10


def test_simulate_single_round_plays_one_round_per_game() -> None:
    r = run(
        "simulate",
        "--seats",
        "1",
        "--single-round",
        "--policy",
        "threshold:23",
        "--games",
        "50",
        "--json",
    )
    data = json.loads(r.stdout)
    assert data["rounds"] == 50 and data["mean_rounds_per_game"] == 1


def test_simulate_table_output_names_every_seat() -> None:
    r = run(
        "simulate", "--seats", "2", "--policy", "ev", "--policy", "threshold:25", "--games", "5"
    )
    assert r.returncode == 0, r.stderr
    assert "ev" in r.stdout and "threshold:25" in r.stdout and "rounds/s" in r.stdout


@pytest.mark.parametrize(
    ("args", "needle"),
    [
        (("--policy", "bogus"), "unknown policy 'bogus'"),
        (("--policy", "threshold:abc"), "threshold needs a number"),
        (("--seats", "0"), "seats must be between 1 and 18"),
        (("--seats", "19"), "seats must be between 1 and 18"),
        (("--seats", "abc"), "--seats"),
        (("--seed", "banana"), "bad seed 'banana'"),
        (("--seed", "-3"), "bad seed -3"),
        (("--variant", "chess"), "unknown variant 'chess'"),
        (("--seats", "3", "--policy", "ev", "--policy", "ev"), "once per seat"),
        (("--games", "0"), "--games"),
        (("--frobnicate",), "frobnicate"),
    ],
)
def test_bad_input_is_a_one_line_error_with_exit_2(args: tuple[str, ...], needle: str) -> None:
    r = run("simulate", *args)
    assert r.returncode == 2
    assert r.stdout == ""
    lines = r.stderr.strip().splitlines()
    assert len(lines) == 1, r.stderr
    assert lines[0].startswith("error:") and needle in lines[0]
    assert "Traceback" not in r.stderr


def test_help_explains_every_option() -> None:
    r = run("simulate", "--help")
    assert r.returncode == 0
    for opt in (
        "--variant",
        "--brutal",
        "--seats",
        "--policy",
        "--games",
        "--seed",
        "--single-round",
        "--json",
    ):
        assert opt in r.stdout
    assert "--db" not in r.stdout  # in-process games store nothing: no database option


def test_demo_runs_a_swiss_event_of_the_example_bots_and_renders_the_report(
    tmp_path: Path,
) -> None:
    db = f"sqlite:///{tmp_path / 'demo.db'}"
    out = tmp_path / "site"
    r = run("demo", "--rounds", "2", "--games", "1", "--db", db, "--out", str(out), "--json")
    assert r.returncode == 0, r.stderr
    data = json.loads(r.stdout)
    assert data["status"] == "completed"
    bots = [row["bot"] for row in data["standings"]]
    # registered bots play as their version (each version is rated on its own)
    assert len(bots) == 8 and {"ev@v1", "random@v1", "threshold-21@v1"} <= set(bots)
    # two rounds of two 4-seat tables, one game each: every bot played two games
    assert all(row["games"] == 2 for row in data["standings"])
    index = Path(data["report"])
    assert index == out / "index.html" and index.is_file()
    assert "threshold-21@v1" in index.read_text()
    # a second run reuses the registered example bots instead of adding versions
    r = run("demo", "--rounds", "1", "--games", "1", "--db", db, "--out", str(out), "--json")
    assert r.returncode == 0, r.stderr
    r = run("bot", "list", "--db", db, "--json")
    assert all(b["version"] == 1 for b in json.loads(r.stdout))


BOT_FILES = {
    # a choose function handed to run(): loads as a script
    "twenty.py": (
        "from arena.sdk import run\n"
        "def choose(req):\n"
        "    if req.kind == 'HIT_OR_STAY' and req.me.sum >= 20 and 'STAY' in req.options:\n"
        "        return req.options.index('STAY')\n"
        "    return 0\n"
        "run(choose, name='twenty')\n"
    ),
    # a Bot class and no run() at all: loads only as FILE:NAME
    "classy.py": (
        "from arena.sdk import Bot\n"
        "class Always(Bot):\n"
        "    name = 'always'\n"
        "    def choose(self, req):\n"
        "        return 0\n"
    ),
    "broken.py": "def choose(req)\n    return 0\n",
    "raises.py": "raise RuntimeError('no config file')\n",
}


@pytest.fixture
def bot_dir(tmp_path: Path) -> Path:
    for name, text in BOT_FILES.items():
        (tmp_path / name).write_text(text)
    return tmp_path


def test_simulate_bot_files_and_policies_share_a_table_in_command_line_order(
    bot_dir: Path,
) -> None:
    r = run(
        "simulate",
        "--policy",
        "ev",
        "--bot",
        str(bot_dir / "twenty.py"),
        "--bot",
        f"{bot_dir / 'classy.py'}:Always",
        "--games",
        "6",
        "--seed",
        "3",
        "--json",
    )
    assert r.returncode == 0, r.stderr
    data = json.loads(r.stdout)
    assert set(data) == SIM_KEYS
    assert [s["name"] for s in data["seats"]] == ["ev", "twenty", "Always"]
    assert [s["policy"] for s in data["seats"]] == ["ev", None, None]
    assert data["games"] == 6 and data["void"] == 0
    assert sum(s["wins"] for s in data["seats"]) == pytest.approx(6)
    assert all(not s["faults"] for s in data["seats"])
    assert data["decisions"] > 6 * 5  # the two bots were asked every round


def test_simulate_with_a_bot_is_reproducible_from_the_seed(bot_dir: Path) -> None:
    args = ("simulate", "--bot", str(bot_dir / "twenty.py"), "--policy", "random")
    args += ("--seats", "3", "--games", "8", "--seed", "41", "--rotate", "--json")
    a, b = json.loads(run(*args).stdout), json.loads(run(*args).stdout)
    assert a["seats"] == b["seats"] and a["rounds"] == b["rounds"]
    # one row per entry: the policy filling two seats is two numbered entries
    assert [s["name"] for s in a["seats"]] == ["twenty", "random", "random#2"]


@pytest.mark.parametrize(
    ("bot", "needle"),
    [
        ("missing.py", "no bot file"),
        ("classy.py", "never calls arena.sdk.run"),
        ("classy.py:Nope", "defines no 'Nope'"),
        ("broken.py", "line 1"),
        ("raises.py", "failed while loading: RuntimeError"),
    ],
)
def test_a_bot_that_cannot_load_is_a_one_line_error_with_exit_2(
    bot_dir: Path, bot: str, needle: str
) -> None:
    r = run("simulate", "--bot", str(bot_dir / bot), "--policy", "ev", "--games", "2")
    assert r.returncode == 2, r.stderr
    lines = r.stderr.strip().splitlines()
    assert len(lines) == 1, r.stderr
    assert lines[0].startswith("error:") and needle in lines[0]
