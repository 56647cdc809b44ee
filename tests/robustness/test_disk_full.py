"""The disk fills up while an event runs.

Before: a traceback. Now the run stops with one ``error:`` line that says how to resume;
the database is intact (SQLite's transactions keep it so), and once there is room again
``tournament resume`` finishes the event with every game stored exactly once.

The test mounts a small tmpfs of its own (as root) and lets the event fill it.
"""

from __future__ import annotations

import contextlib
import json
import os
import shutil
import sqlite3
import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest
from clikit import arena, final_error

ROUNDS, GAMES = 20, 4
EVENT = [
    "tournament",
    "--format",
    "swiss",
    "--seats",
    "2",
    "--rounds",
    str(ROUNDS),
    "--games",
    str(GAMES),
    "--bots",
    "builtin:ev",
    "--bots",
    "builtin:random",
    "--bots",
    "builtin:threshold:20",
    "--bots",
    "builtin:threshold:25",
    "--no-report",
]


@pytest.fixture
def small_disk(tmp_path: Path) -> Iterator[Path]:
    if os.geteuid() != 0 or shutil.which("mount") is None:
        pytest.skip("needs root to mount a small file system")
    mnt = tmp_path / "small"
    mnt.mkdir()
    subprocess.run(["mount", "-t", "tmpfs", "-o", "size=1m", "tmpfs", str(mnt)], check=True)
    try:
        yield mnt
    finally:
        subprocess.run(["umount", "-l", str(mnt)], check=False)


def test_a_full_disk_stops_the_event_in_one_line_and_it_resumes_intact(
    small_disk: Path,
) -> None:
    db = small_disk / "arena.db"
    url = f"sqlite:///{db}"
    r = arena(*EVENT, "--db", url)
    assert r.returncode == 1, r.stderr
    line = final_error(r.stderr)
    assert str(db) in line and "full" in line
    assert "arena tournament resume 1" in line

    with contextlib.closing(sqlite3.connect(f"file:{db}?mode=ro", uri=True)) as c:
        assert c.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
        assert c.execute("SELECT status FROM tournament").fetchone()[0] == "running"
        partial = c.execute("SELECT count(*) FROM game").fetchone()[0]
    assert 0 < partial < ROUNDS * 2 * GAMES  # it did fill up in the middle

    subprocess.run(["mount", "-o", "remount,size=64m", str(small_disk)], check=True)
    r = arena("tournament", "resume", "1", "--no-report", "--json", "--db", url)
    assert r.returncode == 0, r.stderr
    assert json.loads(r.stdout)["status"] == "completed"
    with contextlib.closing(sqlite3.connect(f"file:{db}?mode=ro", uri=True)) as c:
        assert c.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
        total, distinct = c.execute(
            "SELECT count(*), count(DISTINCT match_id || ':' || \"index\") FROM game"
        ).fetchone()
        pending = c.execute("SELECT count(*) FROM match WHERE status != 'completed'").fetchone()
    assert total == distinct == ROUNDS * 2 * GAMES
    assert pending[0] == 0
