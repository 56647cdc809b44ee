"""Bot versions as a user meets them: ``bot add`` of a name that exists says it adds a new
version and which one, a ``--cmd`` whose script is missing is refused, ``NAME@vN`` selects
a version, and the leaderboard rates each version on its own — the newest of each bot by
default, every one with ``--all-versions`` (real bot processes, SQLite and PostgreSQL)."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

from arenacli import run_arena

ROOT = Path(__file__).resolve().parents[2]
EX = ROOT / "bots" / "examples" / "python"
RANDOM = f"python {EX / 'random' / 'bot.py'}"
EV = f"python {EX / 'ev' / 'bot.py'}"


def arena(*args: str) -> subprocess.CompletedProcess[str]:
    return run_arena(*args, columns=200)


def one_line_error(r: subprocess.CompletedProcess[str], code: int) -> str:
    assert r.returncode == code, (r.returncode, r.stdout, r.stderr)
    lines = r.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: "), r.stderr
    assert "Traceback" not in r.stderr
    return lines[0]


def listed(db: str) -> list[dict[str, object]]:
    r = arena("bot", "list", "--db", db, "--json")
    assert r.returncode == 0, r.stderr
    rows: list[dict[str, object]] = json.loads(r.stdout)
    return rows


def test_bot_add_of_an_existing_name_says_it_adds_a_new_version_and_which(
    db_url: str,
) -> None:
    r = arena("bot", "add", "ev", "--cmd", RANDOM, "--db", db_url)
    assert r.returncode == 0, r.stderr
    assert r.stdout.strip() == "added ev, a new process bot: it plays as ev@v1"
    r = arena("bot", "add", "ev", "--cmd", EV, "--db", db_url)
    assert r.returncode == 0, r.stderr
    line = r.stdout.strip()
    assert line.startswith("ev exists: added a new version, 2, which plays as ev@v2")
    assert "(ev@v1 the one before)" in line
    r = arena("bot", "add", "ev", "--cmd", EV, "--db", db_url, "--json")
    assert r.returncode == 0, r.stderr
    added = json.loads(r.stdout)
    assert (added["version"], added["label"], added["previous_version"]) == (3, "ev@v3", 2)
    # one bot, at its newest version, with the command that version runs
    (row,) = listed(db_url)
    assert (row["name"], row["version"], row["label"], row["command"]) == ("ev", 3, "ev@v3", EV)


def test_bot_add_of_a_command_whose_script_does_not_exist_is_refused(db_url: str) -> None:
    missing = "python bots/examples/python/no-such-bot/bot.py"
    line = one_line_error(arena("bot", "add", "ghost", "--cmd", missing, "--db", db_url), 2)
    assert "--cmd" in line and "'bots/examples/python/no-such-bot/bot.py' does not exist" in line
    assert listed(db_url) == []  # nothing registered
    # a command that gives code rather than a script is not mistaken for a missing file
    r = arena("bot", "add", "inline", "--cmd", "python -c 'import sys'", "--db", db_url)
    assert r.returncode == 0, r.stderr
    assert [row["name"] for row in listed(db_url)] == ["inline"]


def test_a_version_that_does_not_exist_is_a_usage_error_naming_the_versions(
    db_url: str,
) -> None:
    for cmd in (RANDOM, EV):
        assert arena("bot", "add", "ev", "--cmd", cmd, "--db", db_url).returncode == 0
    event = ["tournament", "--format", "round-robin", "--db", db_url, "--no-report"]
    line = one_line_error(arena(*event, "--bots", "ev@v9", "--bots", "builtin:random"), 2)
    assert "bot 'ev' has no version 9 (its versions: 1–2; ev@latest is the newest)" in line
    line = one_line_error(arena(*event, "--bots", "nobody@v1", "--bots", "builtin:random"), 2)
    assert "no bot named 'nobody' is registered" in line
    r = arena("tournament", "list", "--db", db_url, "--json")
    assert r.returncode == 0 and json.loads(r.stdout) == []  # nothing was stored


def test_the_leaderboard_rates_each_version_apart_and_shows_the_newest_by_default(
    db_url: str,
) -> None:
    for cmd in (RANDOM, EV):  # ev@v1 plays at random, ev@v2 by expected value
        assert arena("bot", "add", "ev", "--cmd", cmd, "--db", db_url).returncode == 0
    r = arena(
        *("tournament", "--format", "round-robin", "--seats", "3", "--games", "4"),
        *("--bots", "ev@v1", "--bots", "ev", "--bots", "builtin:threshold:25"),
        *("--seed", "7", "--db", db_url, "--no-report", "--json"),
    )
    assert r.returncode == 0, r.stderr
    standings = {row["bot"]: row["games"] for row in json.loads(r.stdout)["standings"]}
    assert standings == {"ev@v1": 4, "ev@v2": 4, "threshold:25": 4}  # 'ev' is its newest

    def board(*args: str) -> dict[str, dict[str, object]]:
        r = arena("leaderboard", "--db", db_url, "--json", *args)
        assert r.returncode == 0, r.stderr
        rows = json.loads(r.stdout)
        assert [row["rank"] for row in rows] == list(range(1, len(rows) + 1))
        return {row["bot"]: row for row in rows}

    newest, every = board(), board("--all-versions")
    assert set(newest) == {"ev@v2", "threshold:25"}
    assert set(every) == {"ev@v1", "ev@v2", "threshold:25"}
    # one fit over every version's games: hiding ev@v1 does not change the others' ratings
    for bot in newest:
        assert newest[bot]["elo"] == every[bot]["elo"]
        assert newest[bot]["games"] == every[bot]["games"] == 4
    assert every["ev@v1"]["games"] == 4
    # one event's board shows every version that played in it
    r = arena("tournament", "list", "--db", db_url, "--json")
    (event,) = json.loads(r.stdout)
    assert set(board("--tournament", str(event["id"]))) == set(every)

    text = arena("leaderboard", "--db", db_url)
    assert text.returncode == 0, text.stderr
    assert "ev@v2" in text.stdout and "ev@v1" not in text.stdout
    assert "ev@v1" in arena("leaderboard", "--db", db_url, "--all-versions").stdout


def test_a_gauntlet_challenger_is_named_as_it_was_entered_or_by_its_version(
    db_url: str,
) -> None:
    from sqlmodel import Session, select

    from arena.store.db import get_engine
    from arena.store.models import Entry

    for cmd in (RANDOM, EV):
        assert arena("bot", "add", "ev", "--cmd", cmd, "--db", db_url).returncode == 0
    gauntlet = [
        *("tournament", "--format", "gauntlet", "--seats", "2", "--rounds", "1"),
        *("--games", "1", "--bots", "ev", "--bots", "builtin:random"),
        *("--db", db_url, "--no-report", "--json"),
    ]
    for named in ("ev", "ev@v2", "ev@latest"):
        r = arena(*gauntlet, "--challenger", named)
        assert r.returncode == 0, r.stderr
        with Session(get_engine(db_url)) as s:
            entries = s.exec(select(Entry).where(Entry.tournament_id == json.loads(r.stdout)["id"]))
            assert {e.name: e.challenger for e in entries} == {"ev@v2": True, "random": False}
    # a version that was not entered is not a challenger of this event
    line = one_line_error(arena(*gauntlet, "--challenger", "ev@v1"), 2)
    assert "challenger 'ev@v1' is not one of the --bots" in line
