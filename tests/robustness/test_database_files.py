"""Databases that cannot be used: a corrupted or non-SQLite file, a folder, an immutable or
read-only file, a PostgreSQL URL with the wrong host, port, password or database.

Each is one ``error:`` line naming the file or the URL (never its password), exit 1, and
the file is left exactly as it was. Reading an immutable or read-only database still works.
"""

from __future__ import annotations

import os
import shutil
import socket
import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest
from clikit import A_BOT, arena, one_line_error
from sqlalchemy.engine import make_url

EVENT = ["tournament", "--format", "swiss", "--bots", "builtin:random", "--bots", "builtin:ev"]
WRITERS = {
    "bot add": ["bot", "add", "x", "--cmd", A_BOT],
    "tournament": [*EVENT, "--no-report"],
    "db upgrade": ["db", "upgrade"],
}
CHANGERS = {k: v for k, v in WRITERS.items() if k != "db upgrade"}  # at head: nothing to do
READERS = {
    "bot list": ["bot", "list"],
    "leaderboard": ["leaderboard"],
    "tournament list": ["tournament", "list"],
}


def a_real_database(cli, path: Path) -> None:
    r = cli("bot", "add", "ev", "--cmd", A_BOT, "--db", str(path))
    assert r.code == 0, r.err
    from arena.store.db import dispose_all

    dispose_all()  # closes the file: its log is folded in, -wal/-shm removed


def corrupt(path: Path) -> None:
    data = bytearray(path.read_bytes())
    data[:16] = b"this is garbage!"  # the SQLite header
    path.write_bytes(bytes(data))


@pytest.mark.parametrize("command", sorted({**WRITERS, **READERS}))
@pytest.mark.parametrize("kind", ["corrupted", "not sqlite", "a folder"])
def test_an_unusable_sqlite_file_is_one_line_naming_it(
    cli, workdir: Path, command: str, kind: str
) -> None:
    db = workdir / "arena.db"
    if kind == "corrupted":
        a_real_database(cli, db)
        corrupt(db)
    elif kind == "not sqlite":
        db.write_text("name,score\nev,12\n" * 50)
    else:
        db.mkdir()
    before = db.read_bytes() if db.is_file() else None
    argv = {**WRITERS, **READERS}[command]
    line = one_line_error(cli(*argv, "--db", str(db)), 1)
    assert str(db) in line
    if before is not None:
        assert db.read_bytes() == before  # nothing was written to it
    assert not (workdir / "arena.db.lock").exists()


@pytest.fixture
def immutable_db(cli, workdir: Path) -> Iterator[Path]:
    """A real database file with the immutable attribute (root ignores file modes)."""
    if os.geteuid() != 0 or shutil.which("chattr") is None:
        pytest.skip("needs root and chattr to make a file immutable")
    db = workdir / "arena.db"
    a_real_database(cli, db)
    subprocess.run(["chattr", "+i", str(db)], check=True)
    try:
        yield db
    finally:
        subprocess.run(["chattr", "-i", str(db)], check=True)


@pytest.mark.parametrize("command", sorted(CHANGERS))
def test_writing_to_an_immutable_database_is_one_line_naming_it(
    cli, immutable_db: Path, command: str
) -> None:
    before = immutable_db.read_bytes()
    line = one_line_error(cli(*CHANGERS[command], "--db", str(immutable_db)), 1)
    assert str(immutable_db) in line and "readonly" in line
    assert immutable_db.read_bytes() == before


def test_reading_an_immutable_database_still_works(cli, immutable_db: Path) -> None:
    r = cli("bot", "list", "--db", str(immutable_db), "--json")
    assert r.code == 0, r.err
    assert '"name": "ev"' in r.out


@pytest.fixture
def read_only_mount(tmp_path: Path) -> Iterator[Path]:
    """A small tmpfs, mounted by the test, holding a real database, then remounted
    read-only."""
    if os.geteuid() != 0 or shutil.which("mount") is None:
        pytest.skip("needs root to mount a file system")
    mnt = tmp_path / "ro"
    mnt.mkdir()
    subprocess.run(["mount", "-t", "tmpfs", "-o", "size=8m", "tmpfs", str(mnt)], check=True)
    try:
        r = arena("bot", "add", "ev", "--cmd", A_BOT, "--db", str(mnt / "arena.db"))
        assert r.returncode == 0, r.stderr
        subprocess.run(["mount", "-o", "remount,ro", str(mnt)], check=True)
        yield mnt
    finally:
        subprocess.run(["umount", "-l", str(mnt)], check=False)


def test_a_database_on_a_read_only_file_system(read_only_mount: Path) -> None:
    db = str(read_only_mount / "arena.db")
    for argv in CHANGERS.values():
        line = one_line_error(arena(*argv, "--db", db), 1)
        assert db in line and "readonly" in line
    r = arena("bot", "list", "--db", db, "--json")
    assert r.returncode == 0 and '"name": "ev"' in r.stdout, r.stderr


def _postgres() -> str:
    url = os.environ.get("ARENA_TEST_POSTGRES")
    if not url:
        if os.environ.get("CI", "").lower() in ("1", "true", "yes"):
            pytest.fail("ARENA_TEST_POSTGRES is not set: CI must test on a real PostgreSQL")
        pytest.skip("set ARENA_TEST_POSTGRES to test against a real PostgreSQL")
    return url


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.mark.parametrize("wrong", ["host", "port", "password", "database"])
@pytest.mark.parametrize("command", ["bot list", "bot add", "tournament"])
def test_a_bad_postgresql_url_is_one_line_without_the_password(
    cli, workdir: Path, wrong: str, command: str
) -> None:
    good = make_url(_postgres())
    secret = "s3cret-Pa55word"
    url = good.set(password=secret)
    if wrong == "host":
        url = url.set(host="no-such-host.invalid")
    elif wrong == "port":
        url = url.set(host="127.0.0.1", port=_free_port())
    elif wrong == "database":
        url = good.set(database="arena_no_such_database", password=secret)
    argv = {**WRITERS, **READERS}[command]
    line = one_line_error(cli(*argv, "--db", url.render_as_string(hide_password=False)), 1)
    assert secret not in line
    assert url.render_as_string(hide_password=True) in line
    assert "cannot open database" in line
    assert os.listdir(workdir) == []


def test_a_database_url_that_does_not_parse_hides_its_password(cli, workdir: Path) -> None:
    line = one_line_error(cli("bot", "list", "--db", "postgresql://me:hunter2@db:port/x"), 1)
    assert "hunter2" not in line and "not a database URL" in line
    assert os.listdir(workdir) == []
