"""Bad bot commands, listen addresses, images and entries, all refused before anything is
stored.

Before: an unclosed quote in ``bot add --cmd`` was a traceback; ``--listen notaport`` left a
tournament stuck in ``running``; ``--listen host:99999`` was accepted; a port already in use
was a traceback after the tournament was created; a missing image exited 1 as if the arena
had failed; the same remote bot entered twice broke the run after it was stored.
"""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest
from clikit import EX, files, one_line_error
from sqlmodel import Session, select

from arena.bots import Policy, Remote
from arena.registry import add_bot
from arena.store.db import get_engine
from arena.store.models import Bot, Tournament
from arena.tournament import create_tournament, run_tournament

EVENT = ["tournament", "--format", "swiss", "--bots", "builtin:random", "--bots", "builtin:ev"]
MISSING_IMAGE = "flip7-test/no-such-image:v0"


def tournaments(db: Path) -> list[Tournament]:
    with Session(get_engine(f"sqlite:///{db}")) as s:
        return list(s.exec(select(Tournament)))


def test_bot_add_with_an_unclosed_quote_is_one_line(cli, workdir: Path) -> None:
    line = one_line_error(cli("bot", "add", "x", "--cmd", "python 'unclosed"), 2)
    assert "--cmd" in line and "No closing quotation" in line
    assert files(workdir) == set()


def test_match_with_an_unclosed_quote_is_one_line(cli, workdir: Path) -> None:
    r = cli("match", "--bot", 'python "bot.py', "--bot", "builtin:ev", "--games", "1")
    assert "No closing quotation" in one_line_error(r, 2)
    assert files(workdir) == set()


@pytest.mark.parametrize(
    ("address", "says"),
    [
        ("notaport", "HOST:PORT"),
        ("127.0.0.1:99999", "between 0 and 65535"),
        ("127.0.0.1:http", "HOST:PORT"),
        (":8080", "HOST:PORT"),
        ("no-such-host.invalid:5000", "unknown host"),
        ("192.0.2.77:5000", "not an address of this machine"),
    ],
)
def test_a_bad_listen_address_is_refused_before_the_tournament_is_stored(
    cli, workdir: Path, address: str, says: str
) -> None:
    line = one_line_error(cli(*EVENT, "--listen", address, "--no-report"), 2)
    assert "--listen" in line and says in line
    assert files(workdir) == set()


def test_a_listen_port_in_use_leaves_no_tournament_running(
    cli, workdir: Path, busy_port: str
) -> None:
    cli("bot", "add", "far", "--remote")  # an existing database with a remote bot
    line = one_line_error(cli(*EVENT, "--bots", "far", "--listen", busy_port, "--no-report"), 2)
    assert "already in use" in line and busy_port in line
    assert tournaments(workdir / "arena.db") == []


def test_resume_on_a_port_in_use_is_one_line_and_changes_nothing(
    cli, workdir: Path, busy_port: str
) -> None:
    db = f"sqlite:///{workdir / 'arena.db'}"
    from arena.tournament import EntrySpec, TournamentConfig

    entries = [EntrySpec(p, Policy(p)) for p in ("ev", "random")]
    tid = create_tournament(TournamentConfig(format="swiss", entries=entries, rounds=1), db)
    line = one_line_error(cli("tournament", "resume", str(tid), "--listen", busy_port), 2)
    assert "already in use" in line
    (t,) = tournaments(workdir / "arena.db")
    assert t.status == "running" and t.finished is None  # untouched, still resumable
    outcome = asyncio.run(run_tournament(db, tid))
    assert outcome.tournament.status == "completed"


def test_the_same_remote_bot_entered_twice_is_refused_and_nothing_is_stored(
    cli, workdir: Path
) -> None:
    cli("bot", "add", "far", "--remote")
    r = cli(*EVENT, "--bots", "far", "--bots", "far", "--listen", "127.0.0.1:0", "--no-report")
    line = one_line_error(r, 2)
    assert "'far@v1' is entered twice" in line  # the version that was entered
    assert tournaments(workdir / "arena.db") == []


def test_the_tournament_itself_refuses_a_remote_bot_entered_twice(db_url: str) -> None:
    from arena.errors import UsageProblem
    from arena.tournament import EntrySpec, TournamentConfig

    version = add_bot(db_url, "far", remote=True).version.id
    entries = [
        EntrySpec("far", Remote(), bot_version_id=version),
        EntrySpec("far#2", Remote(), bot_version_id=version),
        EntrySpec("ev", Policy("ev")),
    ]
    with pytest.raises(UsageProblem, match="entered twice"):
        create_tournament(TournamentConfig(format="swiss", entries=entries, seats=3), db_url)
    with Session(get_engine(db_url)) as s:
        assert s.exec(select(Tournament)).all() == []


def test_bot_add_of_a_missing_image_is_bad_input(cli, workdir: Path, docker_engine) -> None:
    line = one_line_error(cli("bot", "add", "boxed", "--image", MISSING_IMAGE), 2)
    assert MISSING_IMAGE in line and "never pulls" in line
    assert files(workdir) == set()


def test_match_and_tournament_with_a_missing_image_are_bad_input(
    cli, workdir: Path, docker_engine
) -> None:
    r = cli("match", "--bot", f"docker:{MISSING_IMAGE}", "--bot", "builtin:ev", "--games", "1")
    assert MISSING_IMAGE in one_line_error(r, 2)
    r = cli(*EVENT, "--bots", f"docker:{MISSING_IMAGE}", "--no-report")
    assert MISSING_IMAGE in one_line_error(r, 2)
    assert files(workdir) == set()


def test_a_registered_bot_is_not_touched_by_a_refused_tournament(cli, workdir: Path) -> None:
    assert cli("bot", "add", "ev", "--cmd", f"python {EX / 'ev' / 'bot.py'}").code == 0
    before = files(workdir)
    one_line_error(cli(*EVENT, "--bots", "ev", "--listen", "notaport"), 2)
    with Session(get_engine(f"sqlite:///{workdir / 'arena.db'}")) as s:
        assert [b.name for b in s.exec(select(Bot))] == ["ev"]
    assert tournaments(workdir / "arena.db") == []
    assert files(workdir) == before
