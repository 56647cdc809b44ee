"""Memory of a long event: the arena's peak RSS after 1,000 and 10,000 stored games.

    .venv/bin/python benchmarks/memory_long_event.py [--marks 1000,10000] [--db URL]
        [--bots 16] [--seats 4] [--games-per-table 100] [--modes current,old]

Runs a real Swiss tournament (built-in policy entries, so no bot processes) through the
real tournament runner, match runner and store, each mode in a fresh process on a fresh
database (a temporary SQLite file unless ``--db`` names an empty database), and prints the
process's peak RSS (VmHWM) and current RSS each time the stored games pass a mark, then at
the end of the event.

Modes, side by side in one run:

* ``current``: the arena as it is;
* ``old``: the same run with the query the arena used before its memory fix: standings
  that load every stored game with its event log each round.

The last column is the growth of the peak per stored game between the first and the last
mark. ``--child`` is internal (one mode, JSON lines on stdout).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import math
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from arena.bots import Policy

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

POLICIES = ["threshold:15", "threshold:18", "threshold:21", "threshold:23",
            "threshold:25", "threshold:28", "random", "ev"]  # fmt: skip


def memory_mb() -> tuple[float, float]:
    """(peak RSS, current RSS) of this process in MB, from /proc/self/status."""
    fields: dict[str, float] = {}
    with open("/proc/self/status") as f:
        for line in f:
            key, _, value = line.partition(":")
            if key in ("VmHWM", "VmRSS"):
                fields[key] = int(value.split()[0]) / 1024
    return fields["VmHWM"], fields["VmRSS"]


# ------------------------------------------------------------------ the old queries
def use_old_queries() -> None:
    """Put back the query of the arena before its memory fix (for comparison only)."""
    from sqlmodel import Session, select

    import arena.tournament
    from arena.standings import GameRow, compute_standings
    from arena.store.db import engine_of
    from arena.store.models import Game, Round

    def standings_of(db: Any, tid: int, board: Any = None) -> Any:
        eng = engine_of(db)
        t, entries = arena.tournament.load(eng, tid)
        with Session(eng) as s:
            games = list(s.exec(select(Game).where(Game.tournament_id == tid).order_by(Game.id)))
            rounds = list(s.exec(select(Round).where(Round.tournament_id == tid)))
        byes = [(bot, t.games_per_match) for r in rounds for bot in r.byes]
        rows = [GameRow(g.seating, g.ranks, g.status) for g in games]
        return compute_standings([e.name for e in entries], rows, table_size=t.seats, byes=byes)

    arena.tournament.standings_of = standings_of  # type: ignore[assignment]


# ------------------------------------------------------------------ one mode
def child(args: argparse.Namespace) -> None:
    if args.child == "old":
        use_old_queries()
    from arena.tournament import (
        EntrySpec,
        TournamentConfig,
        TournamentRunner,
        create_tournament,
    )

    marks = sorted(int(m) for m in args.marks.split(","))
    tables = args.bots // args.seats
    rounds = max(1, math.ceil(marks[-1] / (tables * args.games_per_table)))
    entries = [
        EntrySpec(f"{POLICIES[i % len(POLICIES)]}#{i}", Policy(POLICIES[i % len(POLICIES)]))
        for i in range(args.bots)
    ]
    cfg = TournamentConfig(
        format="swiss",
        entries=entries,
        seats=args.seats,
        rounds=rounds,
        games=args.games_per_table,
        concurrency=16,
        seed=1,
    )
    tid = create_tournament(cfg, args.db)
    runner = TournamentRunner(args.db, tid)
    store = runner._store
    todo = list(marks)
    t0 = time.perf_counter()

    def say(**fields: Any) -> None:
        print(json.dumps({"mode": args.child, **fields}), flush=True)

    def store_and_measure(t: Any, m: Any, result: Any) -> None:
        store(t, m, result)
        while todo and runner.played >= todo[0]:
            peak, rss = memory_mb()
            say(mark=todo.pop(0), stored=runner.played, peak_mb=peak, rss_mb=rss,
                seconds=time.perf_counter() - t0)  # fmt: skip

    runner._store = store_and_measure  # type: ignore[method-assign]
    asyncio.run(runner.run())
    peak, rss = memory_mb()
    say(mark="end", stored=runner.played, peak_mb=peak, rss_mb=rss,
        seconds=time.perf_counter() - t0)  # fmt: skip


def run_mode(mode: str, args: argparse.Namespace) -> list[dict[str, Any]]:
    with tempfile.TemporaryDirectory(prefix="arena-memory-") as tmp:
        db = args.db or f"sqlite:///{Path(tmp) / 'arena.db'}"
        cmd = [
            sys.executable, __file__, "--child", mode, "--db", db, "--marks", args.marks,
            "--bots", str(args.bots), "--seats", str(args.seats),
            "--games-per-table", str(args.games_per_table),
        ]  # fmt: skip
        proc = subprocess.run(cmd, capture_output=True, text=True, env={**os.environ})
        if proc.returncode != 0:
            sys.exit(f"{mode} run failed:\n{proc.stderr[-4000:]}")
        return [json.loads(line) for line in proc.stdout.splitlines() if line.startswith("{")]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--marks", default="1000,10000", help="stored-game counts to report at")
    parser.add_argument("--db", default=None, help="an empty database URL (default: SQLite)")
    parser.add_argument("--bots", type=int, default=16)
    parser.add_argument("--seats", type=int, default=4)
    parser.add_argument("--games-per-table", type=int, default=100)
    parser.add_argument("--modes", default="current,old")
    parser.add_argument("--child", default=None, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        child(args)
        return
    if args.db and len(args.modes.split(",")) > 1:
        sys.exit("--db takes one mode at a time (each mode needs an empty database)")
    print(f"{'mode':8} {'stored':>8} {'peak MB':>9} {'RSS MB':>8} {'seconds':>8}")
    for mode in args.modes.split(","):
        rows = run_mode(mode, args)
        for r in rows:
            print(
                f"{mode:8} {r['stored']:>8} {r['peak_mb']:>9.1f} {r['rss_mb']:>8.1f} "
                f"{r['seconds']:>8.1f}" + ("  (end of event)" if r["mark"] == "end" else "")
            )
        marked = [r for r in rows if r["mark"] != "end"]
        if len(marked) >= 2:
            first, last = marked[0], marked[-1]
            per_game = (
                (last["peak_mb"] - first["peak_mb"]) * 1024 / (last["stored"] - first["stored"])
            )
            print(f"{mode:8} peak growth {per_game:.1f} KB per stored game")


if __name__ == "__main__":
    main()
