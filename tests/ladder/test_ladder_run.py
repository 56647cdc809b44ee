"""A real ladder: the Python example bots as registered process bots, real gRPC, the
real ``arena`` command, SQLite and PostgreSQL. It plays, survives ``kill -9`` and goes
on with nothing lost, suspends a bot that cannot start, and admits a new version that
overtakes its old one."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest
from arenacli import ROOT, run_arena
from sqlalchemy import create_engine, text

from arena.report.site import slug

EXAMPLES = ROOT / "bots" / "examples" / "python"
CRASHER = ROOT / "tests" / "bots" / "crash_at_start.py"
PY = sys.executable
WORKERS = ("--executor", "local", "--workers", "2")  # the killed run plays on 2 processes


def arena(db: str, *args: str, code: int = 0) -> subprocess.CompletedProcess[str]:
    r = run_arena(*args, "--db", db)
    assert r.returncode == code, r.stderr
    assert "Traceback" not in r.stderr, r.stderr
    return r


def add(db: str, name: str, command: str) -> None:
    arena(db, "bot", "add", name, "--cmd", command)


def query(db: str, sql: str) -> list[Any]:
    eng = create_engine(db)
    try:
        with eng.connect() as c:
            return [tuple(row) for row in c.execute(text(sql))]
    finally:
        eng.dispose()


def status(db: str) -> dict[str, dict[str, Any]]:
    (ladder,) = json.loads(arena(db, "ladder", "status", "--json").stdout)
    return {row["bot"]: row for row in ladder["rows"]}


def run(db: str, games: int, *extra: str) -> dict[str, Any]:
    r = arena(db, "ladder", "run", "--seats", "2", "--max-games", str(games), "--json", *extra)
    return dict(json.loads(r.stdout))


def field(db: str) -> None:
    add(db, "ev", f"{PY} {EXAMPLES / 'ev' / 'bot.py'}")
    add(db, "cautious", f"{PY} {EXAMPLES / 'threshold' / 'bot.py'} 18")
    add(db, "coin", f"{PY} {EXAMPLES / 'random' / 'bot.py'}")


def test_a_ladder_of_the_example_bots_plays_stores_and_rates_every_game(
    db_url: str, tmp_path: Path
) -> None:
    field(db_url)
    done = run(db_url, 40, "--seed", "3")
    assert done["games"] == 40 and sorted(done["admitted"]) == ["cautious@v1", "coin@v1", "ev@v1"]
    rows = status(db_url)
    assert set(rows) == {"ev@v1", "cautious@v1", "coin@v1"}
    assert all(r["status"] == "active" and r["elo"] is not None for r in rows.values())
    assert sum(r["games"] for r in rows.values()) == 2 * 40
    assert min(r["games"] for r in rows.values()) >= 10  # every bot keeps playing
    assert query(db_url, "SELECT count(*) FROM game WHERE status = 'completed'") == [(40,)]
    assert query(db_url, "SELECT count(*) FROM match WHERE status != 'completed'") == [(0,)]
    # the leaderboard's fit is the ladder's: the same ratings
    board = json.loads(arena(db_url, "leaderboard", "--json").stdout)
    assert {r["bot"]: r["elo"] for r in board} == {b: r["elo"] for b, r in rows.items()}
    # and the report renders its games like any others
    arena(db_url, "report", "--out", str(tmp_path / "site"))
    assert len(list((tmp_path / "site" / "game").glob("*.html"))) == 40
    for bot in rows:
        assert (tmp_path / "site" / "bot" / f"{slug(bot)}.html").is_file(), bot


@pytest.mark.parametrize("sig", [signal.SIGKILL, signal.SIGTERM])
def test_a_ladder_stopped_by_a_signal_continues_with_nothing_lost(
    sig: signal.Signals, db_url: str
) -> None:
    field(db_url)
    proc = subprocess.Popen(
        [PY, "-m", "arena", "ladder", "run", "--seats", "2", *WORKERS, "--db", db_url],
        cwd=ROOT,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        deadline = time.monotonic() + 240
        while query(db_url, "SELECT count(*) FROM game")[0][0] < 30:
            assert proc.poll() is None, "the ladder stopped by itself"
            assert time.monotonic() < deadline, "the ladder stored too few games"
            time.sleep(0.1)  # polling the database, a real condition
        os.kill(proc.pid, sig)
        _, stderr = proc.communicate(timeout=60)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    if sig == signal.SIGTERM:  # stopped in order, with how to go on
        assert proc.returncode == 143, stderr
        assert "Traceback" not in stderr, stderr
        last = stderr.strip().splitlines()[-1]
        assert last.startswith("ladder interrupted") and last.endswith("--seats 2"), last
    else:
        assert proc.returncode == -signal.SIGKILL
    stored = query(db_url, "SELECT count(*) FROM game")[0][0]
    in_flight = query(db_url, "SELECT id, seats, seed FROM match WHERE status != 'completed'")
    done = run(db_url, 20)
    assert done["games"] >= 20
    # every game stored before the kill is still there, once; every table is complete
    assert query(db_url, "SELECT count(*) FROM game")[0][0] == stored + done["games"]
    assert query(db_url, "SELECT count(*) FROM match WHERE status != 'completed'") == [(0,)]
    per_match = query(db_url, "SELECT match_id, count(*) FROM game GROUP BY match_id")
    assert all(n == 1 for _, n in per_match)
    # the tables in flight at the kill were played after it, as planned (same seats, seed)
    for mid, seats, seed in in_flight:
        again = query(db_url, f"SELECT seats, seed, status FROM match WHERE id = {mid}")
        assert again == [(seats, seed, "completed")]
    # table numbers run on without a gap or a repeat
    numbers = query(
        db_url, 'SELECT r."index" * 100 + m."table" FROM match m JOIN round r ON r.id = m.round_id'
    )
    assert sorted(n for (n,) in numbers) == list(range(len(numbers)))


def test_a_bot_that_keeps_crashing_is_suspended_with_its_reason_until_re_enabled(
    db_url: str,
) -> None:
    field(db_url)
    add(db_url, "crasher", f"{PY} {CRASHER}")
    done = run(db_url, 60, "--seed", "5")
    stored = [
        f if isinstance(f, list) else json.loads(f)
        for (f,) in query(db_url, "SELECT faults FROM game")
    ]
    others = [f for game in stored for f in game if f["bot"] != "crasher@v1"]
    assert [s["bot"] for s in done["suspended"]] == ["crasher@v1"], others
    rows = status(db_url)
    crasher = rows["crasher@v1"]
    assert crasher["status"] == "suspended"
    assert "3 crashes in its last" in crasher["reason"] and "INIT_FAIL" in crasher["reason"]
    # its games never started, so they are not rated (rated games 0) but they were played
    assert crasher["games"] == 0
    seated = len(stored) - len([f for f in stored if not any(x["bot"] == "crasher@v1" for x in f)])
    assert 3 <= seated < 20
    games_then = len(query(db_url, "SELECT id FROM game"))
    assert all(rows[b]["status"] == "active" for b in ("ev@v1", "cautious@v1", "coin@v1"))
    # the human-readable board shows the reason too
    shown = arena(db_url, "ladder", "status").stdout
    assert "suspended: 3 crashes in its last" in shown
    # a suspended bot plays no more
    run(db_url, 20)
    later = [
        f if isinstance(f, list) else json.loads(f)
        for (f,) in query(db_url, "SELECT faults FROM game")
    ]
    assert len(later) == games_then + 20
    assert sum(any(x["bot"] == "crasher@v1" for x in f) for f in later) == seated
    # its owner re-enables it; a bot that is not suspended, or not registered, is refused
    assert "crasher re-enabled" in arena(db_url, "ladder", "enable", "crasher").stdout
    assert status(db_url)["crasher@v1"]["status"] == "active"
    r = arena(db_url, "ladder", "enable", "ev", code=1)
    assert r.stderr.strip() == "error: bot 'ev' is not suspended on any ladder"
    assert arena(db_url, "ladder", "enable", "nobody", code=2).stderr.startswith("error: ")


def test_a_new_version_enters_settles_and_overtakes_its_retired_old_one(db_url: str) -> None:
    field(db_url)
    add(db_url, "climber", f"{PY} {EXAMPLES / 'random' / 'bot.py'}")
    run(db_url, 60, "--seed", "7")
    old_games = status(db_url)["climber@v1"]["games"]
    add(db_url, "climber", f"{PY} {EXAMPLES / 'ev' / 'bot.py'}")  # version 2: a better policy
    done = run(db_url, 120, "--seed", "8")
    assert done["admitted"] == ["climber@v2"]
    rows = status(db_url)
    old, new = rows["climber@v1"], rows["climber@v2"]
    assert old["status"] == "retired" and old["reason"] == "version 2 entered"
    assert old["games"] == old_games  # history kept, no more games
    assert new["status"] == "active"
    # the new version got many games at once (provisional) and overtook the old one
    assert new["games"] >= 40
    assert new["ci_low"] > old["ci_high"], (new, old)


def test_ladder_commands_refuse_bad_input_in_one_line(db_url: str) -> None:
    for args, message in [
        (("--seats", "1"), "--seats"),
        (("--max-games", "0"), "--max-games"),
        (("--executor", "cloud"), "--executor: unknown executor 'cloud' (choose from local, ray)"),
        (("--executor", "ray", "--ray-address", "nowhere"), "--ray-address: give HOST:PORT"),
        (("--ray-address", "127.0.0.1:6379"), "--ray-address: give it with --executor ray"),
        (("--executor", "ray", "--workers", "2"), "--workers: is for the local executor"),
        (("--variant", "chess"), "unknown variant 'chess'"),
    ]:
        r = arena(db_url, "ladder", "run", *args, code=2)
        assert r.stderr.startswith("error: ") and message in r.stderr, r.stderr
        assert len(r.stderr.strip().splitlines()) == 1, r.stderr
    assert "no ladder yet" in arena(db_url, "ladder", "status").stdout


def test_executor_workers_is_a_deprecated_name_for_local_worker_processes(db_url: str) -> None:
    field(db_url)
    r = arena(db_url, "ladder", "run", "--seats", "2", "--max-games", "4", "--json",
              "--executor", "workers", "--workers", "2")  # fmt: skip
    warnings = [line for line in r.stderr.splitlines() if line.startswith("warning:")]
    assert warnings == [
        "warning: --executor workers is deprecated: use --executor local --workers N"
    ]
    assert json.loads(r.stdout)["games"] == 4
    assert query(db_url, "SELECT count(*) FROM game WHERE status = 'completed'") == [(4,)]


def test_the_tournament_row_of_a_ladder_is_not_resumed_as_a_tournament(db_url: str) -> None:
    field(db_url)
    run(db_url, 4)
    (tid,) = query(db_url, "SELECT tournament_id FROM ladder")[0]
    r = arena(db_url, "tournament", "resume", str(tid), "--no-report", code=1)
    assert r.stderr.strip() == (
        f"error: tournament {tid} holds a ladder's games; run the ladder with: "
        "arena ladder run --variant base --seats 2"
    )
