"""``arena test`` as a user runs it: the real command in a subprocess — its live progress
and verdict, ``--json``, one-line errors for bad input, and a test killed with SIGKILL
and resumed that ends exactly as one that was never interrupted."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from arenacli import ROOT, run_arena
from sqlmodel import Session, create_engine, func, select

from arena.store.db import get_engine
from arena.store.models import AbUnit


def _sqlite(tmp_path: Path, name: str = "arena.db") -> str:
    return f"sqlite:///{tmp_path / name}"


def test_json_gives_the_verdict_with_whole_numbers_as_integers(tmp_path: Path) -> None:
    r = run_arena(
        "test", "builtin:ev", "builtin:random",
        "--sprt", "elo0=0", "elo1=10", "alpha=0.05", "beta=0.05",
        "--seed", "2", "--workers", "1", "--no-report", "--json", "--db", _sqlite(tmp_path),
    )  # fmt: skip
    assert r.returncode == 0, r.stderr
    d = json.loads(r.stdout)
    assert (d["verdict"], d["stopped_by"], d["status"]) == ("H1", "sprt", "completed")
    assert d["sprt"] == {"elo0": 0, "elo1": 10, "alpha": 0.05, "beta": 0.05, "model": "logistic"}
    assert all(type(d["sprt"][k]) is int for k in ("elo0", "elo1"))
    for key in ("id", "pairs", "games", "decided_at", "games_per_unit", "void_units", "seats"):
        assert type(d[key]) is int, key
    assert all(type(c) is int for c in d["unit_counts"]) and sum(d["unit_counts"]) == d["pairs"]
    assert d["games"] == 2 * d["pairs"]


def test_progress_goes_to_stderr_and_the_summary_prints_the_variance_reduction(
    tmp_path: Path,
) -> None:
    r = run_arena(
        "test", "builtin:threshold:23", "builtin:threshold:21", "--games", "200",
        "--seed", "3", "--workers", "1", "--no-report", "--db", _sqlite(tmp_path),
    )  # fmt: skip
    assert r.returncode == 0, r.stderr
    # the live line: pairs, LLR with its bounds, Elo with its interval
    last = [line for line in r.stderr.splitlines() if line.startswith("test 1: pairs")][-1]
    assert "pairs 100 (200 games)" in last
    assert "LLR " in last and "[-2.94, +2.94]" in last and "Elo " in last
    assert "LLR" not in r.stdout.split("\n", 1)[0]  # the summary is on stdout, not the progress
    assert "no verdict: a fixed-length test" in r.stdout
    assert "100 pairs (200 games)" in r.stdout
    line = next(x for x in r.stdout.splitlines() if x.startswith("duplicate deals: variance ×"))
    ratio = float(line.split("×")[1].split()[0])
    assert 0 < ratio < 1.5  # measured, not a constant: threshold bots keep pairs alike


@pytest.mark.parametrize(
    ("args", "needle"),
    [
        (["builtin:ev", "builtin:random", "--sprt", "elo0=10", "elo1=0"], "--sprt"),
        (["builtin:ev", "builtin:random", "--sprt", "elo0=0 gamma=1"], "--sprt"),
        (["builtin:ev", "no-such-bot"], "no-such-bot"),
        (["builtin:ev", "builtin:nosuchpolicy"], "nosuchpolicy"),
        (["builtin:ev", "builtin:random", "--executor", "nowhere"], "nowhere"),
        (["builtin:ev", "builtin:random", "--ray-address", "127.0.0.1:6379"], "--executor ray"),
        (["builtin:ev", "builtin:random", "--seats", "3"], "--opponents"),
        (["builtin:ev", "builtin:random", "--games", "7"], "--games"),
        (["builtin:ev"], "NEW BASE"),
    ],
)
def test_bad_input_is_one_error_line_and_exit_2(
    tmp_path: Path, args: list[str], needle: str
) -> None:
    db = _sqlite(tmp_path)
    r = run_arena("test", *args, "--no-report", "--db", db)
    assert r.returncode == 2, (r.stdout, r.stderr)
    lines = r.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: ") and needle in lines[0], r.stderr
    assert "Traceback" not in r.stderr
    # nothing was stored
    listed = run_arena("test", "list", "--json", "--db", db)
    assert listed.returncode == 0 and json.loads(listed.stdout) == []


def test_resume_refuses_a_ray_address_without_the_ray_executor(tmp_path: Path) -> None:
    db = _sqlite(tmp_path)
    made = run_arena(
        "test", "builtin:ev", "builtin:random", "--games", "4", "--no-report", "--db", db
    )
    assert made.returncode == 0, made.stderr
    r = run_arena(
        "test", "resume", "1", "--no-report", "--ray-address", "127.0.0.1:6379", "--db", db
    )
    assert r.returncode == 2, (r.stdout, r.stderr)
    assert r.stderr.strip().splitlines() == ["error: --ray-address: give it with --executor ray"], (
        r.stderr
    )


def test_a_three_seat_test_takes_its_opponent_from_opponents(tmp_path: Path) -> None:
    r = run_arena(
        "test", "builtin:threshold:23", "builtin:threshold:21", "--seats", "3",
        "--opponents", "builtin:ev", "--games", "20", "--seed", "6", "--workers", "1",
        "--no-report", "--json", "--db", _sqlite(tmp_path),
    )  # fmt: skip
    assert r.returncode == 0, r.stderr
    d = json.loads(r.stdout)
    assert (d["seats"], d["opponents"], d["pairs"], d["games"]) == (3, ["ev"], 10, 20)
    assert d["variance_ratio"] is not None


def test_a_remote_bot_cannot_take_part_in_a_test(tmp_path: Path) -> None:
    db = _sqlite(tmp_path)
    assert run_arena("bot", "add", "faraway", "--remote", "--db", db).returncode == 0
    r = run_arena("test", "faraway", "builtin:random", "--no-report", "--db", db)
    assert r.returncode == 2 and r.stderr.startswith("error: ") and "remote" in r.stderr


def test_a_running_test_cannot_be_resumed_by_a_second_process(tmp_path: Path) -> None:
    db = _sqlite(tmp_path)
    get_engine(db)
    proc = subprocess.Popen(
        [sys.executable, "-m", "arena", "test", "builtin:random", "builtin:random",
         "--max-games", "100000", "--workers", "1", "--no-report", "--db", db],
        cwd=ROOT, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
    )  # fmt: skip
    eng = create_engine(db)
    try:
        deadline = time.monotonic() + 60
        stored = 0
        while time.monotonic() < deadline and proc.poll() is None and stored == 0:
            with Session(eng) as s:
                stored = s.exec(select(func.count()).select_from(AbUnit)).one()
            time.sleep(0.02)  # polling the database for the real condition
        assert stored > 0 and proc.poll() is None
        r = run_arena("test", "resume", "1", "--no-report", "--db", db)
        assert r.returncode == 1 and "already running" in r.stderr, r.stderr
        assert r.stderr.startswith("error: ") and "Traceback" not in r.stderr
    finally:
        proc.kill()
        proc.wait(30)
        eng.dispose()


def _units(url: str, tid: int) -> list[tuple[int, str, str]]:
    eng = create_engine(url)
    with Session(eng) as s:
        rows = s.exec(
            select(AbUnit.index, AbUnit.outcome, AbUnit.status)
            .where(AbUnit.test_id == tid)
            .order_by(AbUnit.index)  # type: ignore[arg-type]
        ).all()
    eng.dispose()
    return [(int(i), str(o), str(st)) for i, o, st in rows]


def test_a_test_killed_with_sigkill_resumes_and_counts_the_same_units(
    db_url: str, tmp_path: Path
) -> None:
    common = [
        "test", "builtin:random", "builtin:random",
        "--sprt", "elo0=0 elo1=60", "--max-games", "1000", "--seed", "1",
        "--concurrency", "2", "--workers", "1", "--no-report",
    ]  # fmt: skip
    env = {**os.environ, "ARENA_LOG": "WARNING", "COLUMNS": "200"}
    get_engine(db_url)  # the schema exists before we watch it
    proc = subprocess.Popen(
        [sys.executable, "-m", "arena", *common, "--db", db_url],
        cwd=ROOT,
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    eng = create_engine(db_url)
    stored = 0
    deadline = time.monotonic() + 120
    try:
        while time.monotonic() < deadline and proc.poll() is None:
            with Session(eng) as s:
                stored = s.exec(select(func.count()).select_from(AbUnit)).one()
            if stored >= 10:
                break
            time.sleep(0.02)  # polling the database for the real condition
        assert proc.poll() is None, "the test finished before it could be killed"
        assert stored >= 10
        os.kill(proc.pid, signal.SIGKILL)
        proc.wait(30)
    finally:
        if proc.poll() is None:
            proc.kill()
    eng.dispose()
    partial = _units(db_url, 1)
    assert 10 <= len(partial) < 60

    r = run_arena("test", "resume", "1", "--workers", "1", "--no-report", "--json", "--db", db_url)
    assert r.returncode == 0, r.stderr
    resumed = json.loads(r.stdout)
    assert resumed["status"] == "completed"

    clean_db = _sqlite(tmp_path, "clean.db")
    r = run_arena(*common, "--json", "--db", clean_db)
    assert r.returncode == 0, r.stderr
    clean = json.loads(r.stdout)

    same = ("verdict", "stopped_by", "decided_at", "pairs", "games", "unit_counts", "llr")
    assert {k: resumed[k] for k in same} == {k: clean[k] for k in same}
    assert resumed["verdict"] == "H0"  # it stopped by its SPRT, after the kill
    assert _units(db_url, 1) == _units(clean_db, clean["id"])
    assert _units(db_url, 1)[: len(partial)] == partial  # nothing stored was redone

    again = run_arena("test", "resume", "1", "--no-report", "--json", "--db", db_url)
    assert again.returncode == 0 and json.loads(again.stdout)["pairs"] == clean["pairs"]
