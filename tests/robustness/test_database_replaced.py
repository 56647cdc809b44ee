"""The SQLite database deleted or replaced while an event runs.

Before: the run kept writing into the deleted file, reported ``completed``, and every game
was gone. Now the arena checks before each transaction that the file is still the one it
opened (same device and inode) and never creates it again once it exists, so the run
stops at the next write with one ``error:`` line and a non-zero exit.
"""

from __future__ import annotations

import contextlib
import os
import sqlite3
from pathlib import Path

from clikit import arena_popen, count_games, final_error, steady_event, wait_for


def started(db: Path):  # type: ignore[no-untyped-def]
    url = f"sqlite:///{db}"
    proc = arena_popen(*steady_event(rounds=10), "--db", url, cwd=db.parent)
    try:
        wait_for(lambda: count_games(url) > 0 or proc.poll() is not None, 120, "a stored game")
    except BaseException:
        proc.kill()
        raise
    assert proc.poll() is None, "the event ended before it could be disturbed"
    return proc


def test_deleting_the_database_mid_run_stops_the_event(tmp_path: Path) -> None:
    db = tmp_path / "arena.db"
    proc = started(db)
    try:
        for suffix in ("", "-wal", "-shm"):
            with contextlib.suppress(FileNotFoundError):
                os.remove(f"{db}{suffix}")
        _, err = proc.communicate(timeout=120)
    finally:
        if proc.poll() is None:
            proc.kill()
    assert proc.returncode == 1, err
    line = final_error(err)
    assert str(db) in line and "removed" in line
    assert "completed" not in err
    assert not db.exists()  # not silently recreated as an empty database


def test_replacing_the_database_mid_run_stops_the_event(tmp_path: Path) -> None:
    db = tmp_path / "arena.db"
    proc = started(db)
    try:
        copy = tmp_path / "copy.db"
        with (
            contextlib.closing(sqlite3.connect(f"file:{db}?mode=ro", uri=True)) as src,
            contextlib.closing(sqlite3.connect(copy)) as dst,
        ):
            src.backup(dst)  # a consistent snapshot: another file with the same content
        before = count_games(f"sqlite:///{copy}")
        os.replace(copy, db)
        _, err = proc.communicate(timeout=120)
    finally:
        if proc.poll() is None:
            proc.kill()
    assert proc.returncode == 1, err
    line = final_error(err)
    assert str(db) in line and "replaced" in line
    # nothing was written into the file that took the database's place
    with contextlib.closing(sqlite3.connect(f"file:{db}?mode=ro", uri=True)) as c:
        assert c.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
        assert c.execute("SELECT count(*) FROM game").fetchone()[0] == before
