"""Executors: a match spec in, a match result out — in this process or over worker
processes, with bots that stay up for the event or start with each match. Whatever the
executor, the same seeds give the same games."""

from __future__ import annotations

import asyncio
import json
import os
import signal
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from sqlmodel import Session, create_engine, select

from arena.bots import Command, Policy
from arena.store.models import Game
from arena.tournament import EntrySpec, TournamentConfig, TournamentRunner, create_tournament

ROOT = Path(__file__).resolve().parents[2]
EX = ROOT / "bots" / "examples" / "python"


def entries(log_dir: Path | None = None) -> list[EntrySpec]:
    out = []
    for name, args in (("ev", ""), ("threshold", " 25"), ("random", ""), ("threshold", " 18")):
        cmd = f"{sys.executable} {EX / name / 'bot.py'}{args}"
        out.append(EntrySpec(f"{name}{args.strip()}", Command(cmd)))
    if log_dir is not None:  # a bot that notes each start of its process
        log = log_dir / "starts.jsonl"
        log.touch()
        log.chmod(0o666)
        cmd = f"{sys.executable} {ROOT / 'tests' / 'bots' / 'crash_runs.py'}"
        env = {"BOT_LOG": str(log), "CRASH_RUNS": "0"}
        out.append(EntrySpec("noted", Command(cmd, env=env, share=(str(log),))))
    out += [EntrySpec(f"builtin-{p}", Policy(p)) for p in ("ev", "threshold:21", "random")]
    return out


def games_of(url: str) -> list[tuple[Any, ...]]:
    eng = create_engine(url)
    with Session(eng) as s:
        rows = sorted(
            (g.seed, tuple(g.seating), tuple(g.ranks), tuple(g.choices), g.status)
            for g in s.exec(select(Game))
        )
    eng.dispose()
    return rows


def run_event(url: str, workers: int, isolation: str = "event", log_dir: Path | None = None):  # type: ignore[no-untyped-def]
    cfg = TournamentConfig(
        format="swiss",
        entries=entries(log_dir),
        seats=4,
        rounds=3,
        games=3,
        seed=17,
        concurrency=8,
        isolation=isolation,
    )
    tid = create_tournament(cfg, url)
    runner = TournamentRunner(url, tid, workers=workers)
    outcome = asyncio.run(asyncio.wait_for(runner.run(), 300))
    assert outcome.tournament.status == "completed"
    return outcome


def test_a_swiss_event_on_two_worker_processes_plays_the_same_games_as_on_one(
    tmp_path: Path,
) -> None:
    one = f"sqlite:///{tmp_path / 'one.db'}"
    two = f"sqlite:///{tmp_path / 'two.db'}"
    run_event(one, workers=1)
    run_event(two, workers=2)
    a, b = games_of(one), games_of(two)
    assert len(a) == 3 * 2 * 3  # 8 entries at 4-seat tables, 3 rounds of 3 games
    assert a == b
    assert all(g[4] == "completed" for g in a)


@pytest.mark.parametrize("isolation,workers", [("event", 1), ("event", 2), ("match", 1)])
def test_bots_stay_up_for_the_event_or_start_with_each_match(
    tmp_path: Path, isolation: str, workers: int
) -> None:
    tmp_path.chmod(0o755)  # the noted bot may run as a user of its own
    outcome = run_event(f"sqlite:///{tmp_path / 'a.db'}", workers, isolation, tmp_path)
    starts = [
        json.loads(line)
        for line in (tmp_path / "starts.jsonl").read_text().splitlines()
        if json.loads(line)["event"] == "start"
    ]
    assert any(r.bot == "noted" and r.games == 9 for r in outcome.standings)
    # the pre-flight starts every bot once before the first game: in one process with
    # isolation "event" that very process plays the event; otherwise it is stopped again
    if isolation == "event" and workers == 1:
        assert len(starts) == 1
    elif isolation == "event":
        assert 2 <= len(starts) <= workers + 1  # the pre-flight's, then once per worker
    else:
        assert len(starts) == 1 + 3  # the pre-flight's, then a 4-seat table each round


def test_a_worker_that_dies_mid_event_costs_no_game_and_no_fault(tmp_path: Path) -> None:
    """A worker process killed while it plays: its match is run again from its start on
    the other worker; the event's games equal an undisturbed run's, and no bot is blamed."""
    clean = f"sqlite:///{tmp_path / 'clean.db'}"
    run_event(clean, workers=1)
    url = f"sqlite:///{tmp_path / 'killed.db'}"
    cfg = TournamentConfig(
        format="swiss", entries=entries(), seats=4, rounds=3, games=3, seed=17, concurrency=8
    )
    tid = create_tournament(cfg, url)
    runner = TournamentRunner(url, tid, workers=2)

    async def main() -> Any:
        task = asyncio.ensure_future(runner.run())
        killed = None
        while not task.done() and killed is None:
            pool = getattr(runner.executor, "pool", None)
            busy = [w for w in (pool.workers if pool else []) if w.jobs]
            if busy:
                killed = busy[0].process.pid
                os.kill(killed, signal.SIGKILL)
            await asyncio.sleep(0.01)  # polling the executor for a busy worker
        outcome = await asyncio.wait_for(task, 300)
        return killed, outcome

    killed, outcome = asyncio.run(main())
    assert killed is not None, "a worker was killed while it played"
    assert outcome.tournament.status == "completed"
    games = games_of(url)
    assert games == games_of(clean)
    eng = create_engine(url)
    with Session(eng) as s:
        faults = [f for g in s.exec(select(Game)) for f in g.faults]
    eng.dispose()
    assert faults == []


def test_arena_match_on_workers_plays_the_same_games() -> None:
    def play(*extra: str) -> list[Any]:
        r = subprocess.run(
            [sys.executable, "-m", "arena", "match", "--bot", f"python {EX}/ev/bot.py",
             "--bot", "builtin:random", "--bot", f"python {EX}/threshold/bot.py 22",
             "--games", "9", "--seed", "3", "--json", *extra],
            capture_output=True, text=True, cwd=ROOT, timeout=300, check=False,
        )  # fmt: skip
        assert r.returncode == 0, r.stderr
        return [
            (g["index"], g["seating"], g["ranks"], g["totals"], g["faults"])
            for g in json.loads(r.stdout)["games"]
        ]

    assert play("--workers", "3") == play()
