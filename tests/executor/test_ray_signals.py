"""SIGTERM to an event on a local Ray instance (``--executor ray`` without an address: Ray
started on this machine for the run) interrupts it like any other event: every bot
stopped, no partial match stored, exit 143 and the line saying how to resume it.

A local Ray instance installs a SIGTERM handler of its own in the driver; the executor
keeps the arena's. Without that, the signal drained Ray's node and the arena died of it
with a C++ stack dump and no resume line. Skipped without Ray, failed under CI.
"""

from __future__ import annotations

import signal
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

import pytest
from hostkit import unavailable
from test_executors import ROOT  # this folder is on the path
from test_ray_executor import DUTY

pytestmark = pytest.mark.timeout(300)


def stored_games(path: Path) -> int:
    try:
        con = sqlite3.connect(path, timeout=10)
        try:
            return int(con.execute("SELECT count(*) FROM game").fetchone()[0])
        finally:
            con.close()
    except sqlite3.Error:
        return 0  # the schema is not there yet


def tournament_state(path: Path) -> tuple[str, list[int]]:
    """The tournament's status and the games stored for each of its matches."""
    con = sqlite3.connect(path)
    try:
        (status,) = con.execute("SELECT status FROM tournament").fetchone()
        rows = con.execute("SELECT count(*) FROM game GROUP BY match_id").fetchall()
    finally:
        con.close()
    return status, [n for (n,) in rows]


def test_sigterm_interrupts_an_event_on_a_local_ray_instance_and_it_stays_resumable(
    tmp_path: Path,
) -> None:
    try:
        import ray  # noqa: F401
    except ImportError:
        unavailable("Ray is not installed (pip install 'flip7-arena[ray]')", DUTY)
    path = tmp_path / "arena.db"
    bots = ["ev", "random", "threshold:18", "threshold:22", "threshold:25"]
    args = ["tournament", "--format", "round-robin", "--seats", "2", "--games", "100"]
    for b in bots:
        args += ["--bots", f"builtin:{b}"]
    args += ["--concurrency", "1", "--seed", "3", "--no-report", "--executor", "ray"]
    args += ["--db", f"sqlite:///{path}"]
    driver = subprocess.Popen(
        [sys.executable, "-m", "arena", *args],
        cwd=ROOT, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True,
    )  # fmt: skip
    try:
        deadline = time.monotonic() + 240
        while not stored_games(path):  # one match (of twenty, one at a time) is stored
            assert driver.poll() is None, "the event ended before it could be interrupted"
            assert time.monotonic() < deadline, "no match stored in 240 s"
            time.sleep(0.05)  # polling the database for a stored match
        driver.send_signal(signal.SIGTERM)
        _, stderr = driver.communicate(timeout=120)
    finally:
        if driver.poll() is None:
            driver.kill()
            driver.wait()
    assert driver.returncode == 143, stderr
    assert "Traceback" not in stderr, stderr
    lines = [ln.strip() for ln in stderr.splitlines() if ln.strip()]
    assert lines[-1].startswith("tournament 1 interrupted"), lines[-3:]
    assert lines[-1].endswith("arena tournament resume 1")
    status, per_match = tournament_state(path)
    assert status != "completed"
    assert per_match and all(n == 100 for n in per_match)  # whole matches only
    matches = len(bots) * (len(bots) - 1)  # every pair twice, each bot first once
    assert len(per_match) < matches
    resume = ["tournament", "resume", "1", "--no-report", "--db", f"sqlite:///{path}"]
    resumed = subprocess.run(
        [sys.executable, "-m", "arena", *resume],
        cwd=ROOT, capture_output=True, text=True, timeout=240, check=False,
    )  # fmt: skip
    assert resumed.returncode == 0, resumed.stderr
    status, per_match = tournament_state(path)
    assert status == "completed"
    assert len(per_match) == matches and all(n == 100 for n in per_match)
