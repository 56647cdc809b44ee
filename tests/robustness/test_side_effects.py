"""Commands create nothing they do not need, and unknown ids are errors.

Before: every command created (and migrated) the database, and its folders, on first use —
``bot list --db sqlite:///new/a/b/c/x.db`` left ``new/a/b/c/x.db`` behind — and
``leaderboard --tournament 999`` printed an empty board with exit 0. Now commands that only
read see a missing database as an empty one and write nothing, and an id that does not
exist is one ``error:`` line.
"""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest
from clikit import EX, files, one_line_error

from arena.bots import Policy
from arena.tournament import EntrySpec, TournamentConfig, create_tournament, run_tournament

READERS = {
    "bot list": (["bot", "list"], "no bots yet"),
    "leaderboard": (["leaderboard"], "no games stored yet"),
    "tournament list": (["tournament", "list"], "no tournaments yet"),
}
UNKNOWN = {
    "tournament resume": (["tournament", "resume", "7"], "no tournament with id 7"),
    "leaderboard --tournament": (["leaderboard", "--tournament", "999"], "no tournament with id"),
    "bot check": (["bot", "check", "nosuchbot"], "no bot named 'nosuchbot'"),
    "bot remove": (["bot", "remove", "ghost"], "no bot named 'ghost'"),
}


@pytest.mark.parametrize("command", sorted(READERS))
def test_a_reading_command_on_a_missing_database_creates_nothing(
    cli, workdir: Path, command: str
) -> None:
    argv, says = READERS[command]
    r = cli(*argv)
    assert r.code == 0, r.err
    assert says in r.out
    assert files(workdir) == set()


@pytest.mark.parametrize("command", sorted(READERS))
def test_a_reading_command_creates_no_folders_for_a_deep_path(
    cli, workdir: Path, command: str
) -> None:
    argv, _ = READERS[command]
    assert cli(*argv, "--db", "sqlite:///new/a/b/c/x.db").code == 0
    assert cli(*argv, "--db", str(workdir / "deep" / "er" / "y.db")).code == 0
    assert files(workdir) == set()


@pytest.mark.parametrize("command", sorted(UNKNOWN))
def test_an_unknown_id_or_name_is_an_error_and_creates_nothing(
    cli, workdir: Path, command: str
) -> None:
    argv, says = UNKNOWN[command]
    code = 2 if command == "bot check" else 1
    assert says in one_line_error(cli(*argv), code)
    assert files(workdir) == set()


def test_an_unknown_tournament_is_an_error_on_an_existing_database(db_url: str, cli) -> None:
    entries = [EntrySpec(p, Policy(p)) for p in ("ev", "random")]
    tid = create_tournament(TournamentConfig(format="swiss", entries=entries, rounds=1), db_url)
    asyncio.run(run_tournament(db_url, tid))
    assert "no tournament with id 999" in one_line_error(
        cli("leaderboard", "--tournament", "999", "--db", db_url), 1
    )
    assert "no tournament with id 998" in one_line_error(
        cli("tournament", "resume", "998", "--db", db_url), 1
    )
    r = cli("leaderboard", "--tournament", str(tid), "--db", db_url, "--json")
    assert r.code == 0 and '"bot": "ev"' in r.out, r.err


def test_report_of_a_missing_database_writes_only_the_report(cli, workdir: Path) -> None:
    r = cli("report", "--out", "site")
    assert r.code == 0, r.err
    assert {p.split("/")[0] for p in files(workdir)} == {"site"}
    assert (workdir / "site" / "index.html").is_file()


def test_match_and_simulate_need_no_database(cli, workdir: Path) -> None:
    r = cli("match", "--bot", "builtin:ev", "--bot", "builtin:random", "--games", "2", "--json")
    assert r.code == 0, r.err
    r = cli("simulate", "--games", "20", "--seats", "2", "--json")
    assert r.code == 0, r.err
    r = cli("match", "--bot", f"python {EX}/random/bot.py", "--bot", "ev", "--games", "1")
    assert "no bot named 'ev'" in one_line_error(r, 2)  # a name looked up, not created
    assert files(workdir) == set()


def test_a_refused_bot_submit_creates_nothing(cli, workdir: Path) -> None:
    one_line_error(cli("bot", "submit", "no/such/folder", "--name", "boxed"), 2)
    one_line_error(cli("bot", "submit", ".", "--name", "bad name"), 2)
    assert files(workdir) == set()
