"""One validation for every name, on every database.

Before: ``^…$`` let a trailing newline through (``$`` matches before a final ``\\n``), the
NAME of ``NAME=CMD`` was never checked, and a name longer than the column was a traceback
on PostgreSQL (and silently stored on SQLite). Now every name passes arena.names, which
looks at the whole string and knows the columns' lengths, so SQLite and PostgreSQL answer
alike: bot names and ``NAME=CMD`` names are spelled like bot names; entry names (also from
the Python API) and event names are one printable line that fits; names the arena makes
up itself (from a script's file name) are made to fit.
"""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from clikit import A_BOT, EX, one_line_error
from sqlmodel import Session, select

from arena.bots import Policy
from arena.errors import UsageProblem
from arena.names import ENTRY_NAME_MAX, NAME_MAX, check_bot_name, check_entry_name, is_bot_name
from arena.registry import add_bot
from arena.store.db import get_engine
from arena.store.models import Bot, Entry, Tournament
from arena.tournament import EntrySpec, TournamentConfig, create_tournament

BAD_NAMES = ["ev\n", "ev\r\n", "\nev", "e v", "x" * 65, ".ev", "", "évé", "ev/1", "builtinx"]
BAD_NAMES += ["Builtin", "BUILTIN-random"]  # the reserved prefix in any case
EVENT = ["tournament", "--format", "swiss", "--bots", "builtin:ev", "--rounds", "1"]


def stored(db: str) -> tuple[list[str], list[str]]:
    with Session(get_engine(db)) as s:
        return [b.name for b in s.exec(select(Bot))], [t.name for t in s.exec(select(Tournament))]


@pytest.mark.parametrize("name", BAD_NAMES)
def test_bot_add_refuses_a_bad_name_on_every_database(db_url: str, cli, name: str) -> None:
    line = one_line_error(cli("bot", "add", name, "--cmd", A_BOT, "--db", db_url), 2)
    assert "bad bot name" in line
    assert stored(db_url) == ([], [])


def test_the_longest_name_fits_every_database(db_url: str, cli) -> None:
    name = "b" * NAME_MAX
    r = cli("bot", "add", name, "--cmd", A_BOT, "--db", db_url)
    assert r.code == 0, r.err
    assert stored(db_url)[0] == [name]


@pytest.mark.parametrize("name", ["ev\n", "x" * 65, "bad/name", "a\t"])
def test_a_bad_name_in_name_equals_command_is_refused(db_url: str, cli, name: str) -> None:
    bot = f"{name}=python {EX}/random/bot.py"
    r = cli(*EVENT, "--bots", bot, "--no-report", "--db", db_url)
    assert "NAME=COMMAND" in one_line_error(r, 2)
    r = cli("match", "--bot", bot, "--bot", "builtin:ev", "--games", "1")
    assert "NAME=COMMAND" in one_line_error(r, 2)
    assert stored(db_url) == ([], [])


@pytest.mark.parametrize("name", ["n" * 201, "two\nlines", "bell\a"])
def test_a_bad_event_name_is_refused(db_url: str, cli, name: str) -> None:
    r = cli(*EVENT, "--bots", "builtin:random", "--name", name, "--no-report", "--db", db_url)
    assert "--name" in one_line_error(r, 2)
    assert stored(db_url) == ([], [])


def test_the_longest_event_name_fits_every_database(db_url: str, cli) -> None:
    name = "n" * 200
    r = cli(*EVENT, "--bots", "builtin:random", "--name", name, "--no-report", "--db", db_url)
    assert r.code == 0, r.err
    assert stored(db_url)[1] == [name]


def test_a_made_up_name_from_a_long_file_name_fits_the_column(
    db_url: str, cli, tmp_path: Path
) -> None:
    script = tmp_path / ("a-very-long-bot-name-" * 6 + ".py")
    shutil.copy(EX / "random" / "bot.py", script)
    r = cli(
        *EVENT,
        "--games",
        "1",
        "--seats",
        "3",
        "--bots",
        f"python {script}",
        "--bots",
        f"python {script}",
        "--no-report",
        "--db",
        db_url,
    )
    assert r.code == 0, r.err
    with Session(get_engine(db_url)) as s:
        names = [e.name for e in s.exec(select(Entry))]
    assert len(names) == 3 and len(set(names)) == 3
    assert all(len(n) <= NAME_MAX and check_entry_name(n) for n in names)
    assert all(is_bot_name(n.split("#")[0]) for n in names)  # spelled like a bot's name


@pytest.mark.parametrize("name", ["ev\n", "x" * (ENTRY_NAME_MAX + 1), " ev", "", "tab\there"])
def test_the_tournament_api_refuses_an_entry_name_that_does_not_fit(db_url: str, name: str) -> None:
    entries = [EntrySpec(name, Policy("ev")), EntrySpec("random", Policy("random"))]
    with pytest.raises(UsageProblem, match="entry name"):
        create_tournament(TournamentConfig(format="swiss", entries=entries, seats=2), db_url)
    assert stored(db_url) == ([], [])


def test_the_registry_applies_the_same_check(db_url: str) -> None:
    for name in BAD_NAMES:
        assert not is_bot_name(name) or name.casefold().startswith("builtin")  # reserved
        with pytest.raises(UsageProblem):
            add_bot(db_url, name, command="python3 bot.py")
        with pytest.raises(UsageProblem):
            check_bot_name(name)
    assert stored(db_url) == ([], [])
