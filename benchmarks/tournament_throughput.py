"""Tournament throughput, end to end: games per second of a real Swiss event, mode by mode.

    .venv/bin/python benchmarks/tournament_throughput.py [--rounds 5] [--games 4]
        [--repeat 2] [--compiled] [--workers N]

The event: the default Swiss of the 8 Python example bots (the demo's field) at 4-seat
tables, stored on SQLite through the real tournament runner, gateway and bot processes.
Each mode is run in turn, ``--repeat`` times interleaved, and the medians are printed:

1. per match, no batches — every match starts its bots; one request per message (today);
2. bots stay up          — each bot started once for the event (``--isolation event``);
3. + batches             — the bots take every ready request in one message;
4. + workers             — matches spread over worker processes (``--workers``, default
                           the machine's cores).

The ceiling: ``arena simulate`` of the same policies in this process (no network).
For each mode: games/s, decisions/s (decisions actually sent to bots), the arena's CPU per
decision (this process and its worker processes) and the bots' CPU per decision (every
other process the run started), and the ratio to the ceiling. ``--compiled`` runs the same
modes with the C++ starter bot in every seat (built with its build.sh if needed).
Finally the p99 decision latency of one game at a time, batches off and on.
"""

from __future__ import annotations

import argparse
import asyncio
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from arena.bots import Command, Policy  # noqa: E402
from arena.demo import FIELD  # noqa: E402
from arena.executor import default_workers  # noqa: E402
from arena.match import BotEntry, MatchSpec, run_match  # noqa: E402
from arena.simulate import simulate  # noqa: E402
from arena.tournament import (  # noqa: E402
    EntrySpec,
    TournamentConfig,
    TournamentRunner,
    create_tournament,
)
from engine import get_ruleset  # noqa: E402

EX = ROOT / "bots" / "examples" / "python"
CPP = ROOT / "bots" / "examples" / "cpp"
POLICY_OF = {"ev": "ev", "random": "random"}  # the example bots' built-in twins
CONCURRENCY = 16


@dataclass
class Mode:
    label: str
    isolation: str
    batches: bool
    workers: int


class CountingRunner(TournamentRunner):
    """The real runner; it also counts the decisions its matches sent to bots."""

    decisions = 0
    batches = 0
    batched = 0

    def _store(self, t: Any, m: Any, result: Any) -> None:
        super()._store(t, m, result)
        self.decisions += result.decisions
        for st in result.link_stats.values():
            self.batches += st["batches"]
            self.batched += st["batched_requests"]


def cpu() -> tuple[float, float]:
    me = resource.getrusage(resource.RUSAGE_SELF)
    kids = resource.getrusage(resource.RUSAGE_CHILDREN)
    return me.ru_utime + me.ru_stime, kids.ru_utime + kids.ru_stime


def field(compiled: bool, batches: bool) -> list[EntrySpec]:
    env = {} if batches else {"ARENA_BATCHES": "0"}
    out = []
    for name, folder, args in FIELD:
        if compiled:
            cmd = str(CPP / "build" / "flip7-bot")
        else:
            cmd = f"{sys.executable} {EX / folder / 'bot.py'}{' ' + args if args else ''}"
        out.append(EntrySpec(name, Command(cmd, env=env)))
    return out


def run_mode(mode: Mode, rounds: int, games: int, compiled: bool) -> dict[str, float]:
    with tempfile.TemporaryDirectory() as tmp:
        url = f"sqlite:///{tmp}/bench.db"
        cfg = TournamentConfig(
            format="swiss",
            entries=field(compiled, mode.batches),
            seats=4,
            rounds=rounds,
            games=games,
            concurrency=CONCURRENCY,
            seed=2026,
            isolation=mode.isolation,
        )
        tid = create_tournament(cfg, url)
        runner = CountingRunner(url, tid, workers=mode.workers)
        me0, kids0 = cpu()
        t0 = time.perf_counter()
        outcome = asyncio.run(runner.run())
        seconds = time.perf_counter() - t0
        me1, kids1 = cpu()
    pool = getattr(runner.executor, "pool", None)
    worker_cpu = sum(pool.worker_cpu.values()) if pool is not None else 0.0
    arena_cpu = (me1 - me0) + worker_cpu
    bots_cpu = (kids1 - kids0) - worker_cpu
    n_games = outcome.games_played
    d = max(1, runner.decisions)
    return {
        "games_s": n_games / seconds,
        "decisions_s": runner.decisions / seconds,
        "arena_us": 1e6 * arena_cpu / d,
        "bots_us": 1e6 * bots_cpu / d,
        "seconds": seconds,
        "games": n_games,
        "batch": runner.batched / runner.batches if runner.batches else 1.0,
    }


def ceiling(games: int) -> float:
    """Games/s of ``arena simulate`` with the field's policies (4 seats) in this process."""
    pols = []
    for _, folder, args in FIELD:
        pols.append(POLICY_OF.get(folder) or f"threshold:{args}")
    tables = [pols[i : i + 4] for i in range(0, len(pols), 4)]
    t0 = time.perf_counter()
    n = 0
    for table in tables:
        simulate(get_ruleset("base"), 4, table, games, 7)
        n += games
    return n / (time.perf_counter() - t0)


def p99_one_game_at_a_time(batches: bool, compiled: bool) -> float:
    env = {} if batches else {"ARENA_BATCHES": "0"}
    bots = []
    for name, folder, args in FIELD[:3]:
        cmd = (
            str(CPP / "build" / "flip7-bot")
            if compiled
            else f"{sys.executable} {EX / folder / 'bot.py'}{' ' + args if args else ''}"
        )
        bots.append(BotEntry(name, Command(cmd, env=env)))
    bots.append(BotEntry("builtin", Policy("ev")))
    spec = MatchSpec(bots=bots, games=12, seed=5, concurrency=1, record_latency=True)
    result = asyncio.run(run_match(spec))
    lat = sorted(result.latencies)
    return 1000 * lat[int(0.99 * (len(lat) - 1))]


def ensure_cpp() -> None:
    """Build (or bring up to date) the C++ starter bot: a stale binary may predate batches."""
    subprocess.run(["bash", str(CPP / "build.sh")], check=True, stdout=subprocess.DEVNULL)


def table(rows: list[tuple[str, dict[str, float]]], top: float) -> None:
    base = rows[0][1]["games_s"]
    print(
        f"{'mode':<26} {'games/s':>8} {'× today':>8} {'% ceiling':>10} {'decisions/s':>12} "
        f"{'arena µs/dec':>13} {'bots µs/dec':>12} {'batch':>6}"
    )
    for label, r in rows:
        print(
            f"{label:<26} {r['games_s']:>8.1f} {r['games_s'] / base:>8.1f} "
            f"{100 * r['games_s'] / top:>9.1f}% {r['decisions_s']:>12,.0f} "
            f"{r['arena_us']:>13.0f} {r['bots_us']:>12.0f} {r['batch']:>6.1f}"
        )
    print(f"{'ceiling (arena simulate)':<26} {top:>8.1f}")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--rounds", type=int, default=5)
    ap.add_argument("--games", type=int, default=4, help="games per table each round")
    ap.add_argument("--repeat", type=int, default=2)
    ap.add_argument("--workers", type=int, default=default_workers())
    ap.add_argument("--concurrency", type=int, default=64, help="games at once (the event's)")
    ap.add_argument("--compiled", action="store_true", help="also the C++ bot in every seat")
    args = ap.parse_args()
    global CONCURRENCY
    CONCURRENCY = args.concurrency
    modes = [
        Mode("1 per match, no batches", "match", False, 1),
        Mode("2 bots stay up", "event", False, 1),
        Mode("3 + batches", "event", True, 1),
        Mode(f"4 + {args.workers} workers", "event", True, args.workers),
    ]
    kinds = [False] + ([True] if args.compiled else [])
    if args.compiled:
        ensure_cpp()
    top = statistics.median(ceiling(200) for _ in range(3))
    for compiled in kinds:
        runs: dict[str, list[dict[str, float]]] = {m.label: [] for m in modes}
        for _ in range(args.repeat):
            for m in modes:
                runs[m.label].append(run_mode(m, args.rounds, args.games, compiled))
        rows = [
            (label, {k: statistics.median(r[k] for r in rs) for k in rs[0]})
            for label, rs in runs.items()
        ]
        games = int(rows[0][1]["games"])
        who = "C++ starter bot in every seat" if compiled else "8 Python example bots"
        print(f"\nSwiss, {who}, 4 seats, {args.rounds} rounds x {args.games} games ({games} games)")
        table(rows, top)
        off = p99_one_game_at_a_time(False, compiled)
        on = p99_one_game_at_a_time(True, compiled)
        print(f"p99 latency, one game at a time: {off:.2f} ms batches off, {on:.2f} ms on")


if __name__ == "__main__":
    main()
