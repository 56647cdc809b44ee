"""Attack by the operator's system: SIGTERM or SIGHUP to a running arena (a service
manager stopping it, a closed terminal), with a bot that ignores SIGTERM.

The arena stops every bot it started (the stubborn one is killed after a short grace),
marks nothing wrong (no fault, no game stored as lost, no match marked completed), prints
one line saying how to resume, exits 143 / 129, and the tournament resumes to exactly the
games of an uninterrupted run with the same seed."""

from __future__ import annotations

import json
import os
import signal
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

import pytest
from robustkit import ROOT, marker, processes_with

from arena.store.db import dispose_all, get_engine

pytestmark = pytest.mark.timeout(600)

PLAYER = "python tests/robustness/bots/player.py"  # relative to the working directory
STUBBORN = "python tests/robustness/bots/stubborn.py"
COMMON = [
    *("--format", "round-robin", "--seats", "2", "--games", "2", "--seed", "17"),
    *("--concurrency", "4", "--deadline", "0.5", "--no-report"),
]
# the process bots take 10 ms over each answer: the event lasts seconds, not a fraction of
# one, so that it cannot end between the test seeing it under way and the signal arriving
ENV = {**os.environ, "ARENA_LOG": "WARNING", "BOT_PACE": "0.01"}
GRACE = 2.0  # a process bot's stop grace (TERM, then KILL)


def cli(db: str, *args: str) -> list[str]:
    return [sys.executable, "-m", "arena", "tournament", *args, "--db", db]


def entrants(mark: str, stubborn_mark: str) -> list[str]:
    return [
        *("--bots", f"p1={PLAYER} {mark}", "--bots", f"p2={PLAYER} {mark}"),
        *("--bots", f"stubborn={STUBBORN} {stubborn_mark}"),
        *("--bots", "builtin:ev", "--bots", "builtin:random"),
    ]


def query(path: Path, sql: str) -> list[tuple]:  # type: ignore[type-arg]
    con = sqlite3.connect(path, timeout=10)
    try:
        return con.execute(sql).fetchall()
    finally:
        con.close()


def games(path: Path) -> list[tuple]:  # type: ignore[type-arg]
    return sorted(query(path, "SELECT seed, seating, ranks, totals, choices FROM game"))


@pytest.fixture(scope="module")
def uninterrupted(tmp_path_factory: pytest.TempPathFactory) -> list[tuple]:  # type: ignore[type-arg]
    path = tmp_path_factory.mktemp("clean") / "arena.db"
    r = subprocess.run(
        cli(f"sqlite:///{path}", *COMMON, *entrants(marker(), marker()), "--json"),
        cwd=ROOT,
        env=ENV,
        capture_output=True,
        text=True,
        timeout=400,
        check=False,
    )
    assert r.returncode == 0, r.stderr
    assert json.loads(r.stdout)["status"] == "completed"
    out = games(path)
    assert len(out) == 20 * 2  # five entrants, every pair twice, two games a table
    return out


def ignoring_sigterm(mark: str) -> bool:
    """Whether a process with ``mark`` runs and has set SIGTERM to be ignored."""
    for pid in processes_with(mark):
        try:
            status = Path(f"/proc/{pid}/status").read_text()
        except OSError:
            continue
        ignored = int(status.split("SigIgn:")[1].split()[0], 16)
        if ignored >> (signal.SIGTERM - 1) & 1:
            return True
    return False


def wait_for(condition, seconds: float, what: str) -> None:  # type: ignore[no-untyped-def]
    deadline = time.monotonic() + seconds
    while not condition():
        assert time.monotonic() < deadline, f"timed out waiting for {what}"
        time.sleep(0.05)  # polling a real condition (the database, /proc)


@pytest.mark.parametrize(("sig", "code"), [(signal.SIGTERM, 143), (signal.SIGHUP, 129)])
def test_signal_stops_every_bot_marks_nothing_and_the_tournament_resumes(
    sig: signal.Signals,
    code: int,
    tmp_path: Path,
    uninterrupted: list[tuple],  # type: ignore[type-arg]
) -> None:
    path = tmp_path / "arena.db"
    db = f"sqlite:///{path}"
    get_engine(db)  # the schema exists before we watch it
    dispose_all()
    mark, stubborn_mark = marker(), marker()
    proc = subprocess.Popen(
        cli(db, *COMMON, *entrants(mark, stubborn_mark)),
        cwd=ROOT,
        env=ENV,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:

        def under_way() -> bool:
            assert proc.poll() is None, "the run ended before it could be interrupted"
            done = query(path, "SELECT count(*) FROM match WHERE status = 'completed'")[0][0]
            return done >= 2 and ignoring_sigterm(stubborn_mark)

        wait_for(under_way, 300, "two stored matches and a running stubborn bot")
        t0 = time.monotonic()
        proc.send_signal(sig)
        _, stderr = proc.communicate(timeout=120)
        seconds = time.monotonic() - t0
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    assert proc.returncode == code, stderr
    assert "Traceback" not in stderr, stderr
    lines = [ln.strip() for ln in stderr.replace("\r", "\n").splitlines() if ln.strip()]
    (tid,) = query(path, "SELECT id FROM tournament")[0]
    assert lines[-1].startswith(f"tournament {tid} interrupted"), lines[-3:]
    assert lines[-1].endswith(f"arena tournament resume {tid}")
    # the stubborn bot ignored SIGTERM: killed after the grace, not waited for
    assert seconds < GRACE + 10, f"the arena took {seconds:.1f} s to stop"
    assert processes_with(mark) == [] and processes_with(stubborn_mark) == []
    # nothing marked wrong: no fault, the tournament not completed, no partial match stored
    assert query(path, "SELECT status FROM tournament") != [("completed",)]
    assert query(path, "SELECT faults FROM game WHERE faults != '[]'") == []
    stored = query(path, "SELECT match_id, count(*) FROM game GROUP BY match_id")
    assert stored and all(n == 2 for _, n in stored)
    partial = len(games(path))
    assert 0 < partial < len(uninterrupted)

    r = subprocess.run(
        cli(db, "resume", str(tid), "--json", "--no-report"),
        cwd=ROOT,
        env=ENV,
        capture_output=True,
        text=True,
        timeout=400,
        check=False,
    )
    assert r.returncode == 0, r.stderr
    assert json.loads(r.stdout)["status"] == "completed"
    assert games(path) == uninterrupted


def test_sigterm_to_arena_match_stops_a_stubborn_bot_after_the_grace(tmp_path: Path) -> None:
    stubborn_mark = marker()
    proc = subprocess.Popen(
        [
            *(sys.executable, "-m", "arena", "match", "--bot", f"{STUBBORN} {stubborn_mark}"),
            *("--bot", "builtin:ev", "--games", "100000"),
            *("--db", f"sqlite:///{tmp_path / 'a.db'}"),
        ],
        cwd=ROOT,
        env=ENV,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        wait_for(lambda: ignoring_sigterm(stubborn_mark), 120, "the stubborn bot")
        t0 = time.monotonic()
        proc.send_signal(signal.SIGTERM)
        _, stderr = proc.communicate(timeout=120)
        seconds = time.monotonic() - t0
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    assert proc.returncode == 143, stderr
    lines = [ln.strip() for ln in stderr.replace("\r", "\n").splitlines() if ln.strip()]
    assert lines[-1] == "match interrupted: every bot was stopped, nothing was stored", lines
    assert seconds < GRACE + 10
    assert processes_with(stubborn_mark) == []
