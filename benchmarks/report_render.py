"""Report speed: render the static site of a tournament of about 1,000 games.

    .venv/bin/python benchmarks/report_render.py [--games 1000] [--seats 4] [--keep DIR]

Creates and runs a Swiss tournament of built-in policies (no processes, no network) into a
temporary SQLite database, then times ``render_site`` on it. Prints the tournament size,
the pages written, the render time and the size of the output.
"""

from __future__ import annotations

import argparse
import asyncio
import math
import shutil
import tempfile
import time
from pathlib import Path

from arena.bots import Policy
from arena.report import render_site
from arena.store.db import dispose_all
from arena.tournament import EntrySpec, TournamentConfig, create_tournament, run_tournament

POLICIES = ["ev", "threshold:15", "threshold:18", "threshold:21", "threshold:23",
            "threshold:25", "threshold:28", "random"]  # fmt: skip


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=1000, help="about this many games")
    parser.add_argument("--seats", type=int, default=4)
    parser.add_argument("--bots", type=int, default=16, help="entries (cycling the policies)")
    parser.add_argument("--games-per-table", type=int, default=5)
    parser.add_argument("--variant", default="base")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--keep", type=Path, help="render here and keep it (default: a temp dir)")
    args = parser.parse_args()

    tables = args.bots // args.seats
    rounds = max(1, math.ceil(args.games / (tables * args.games_per_table)))
    entries = [
        EntrySpec(f"{POLICIES[i % len(POLICIES)]}#{i}", Policy(POLICIES[i % len(POLICIES)]))
        for i in range(args.bots)
    ]
    tmp = Path(tempfile.mkdtemp(prefix="arena-report-bench-"))
    try:
        url = f"sqlite:///{tmp / 'arena.db'}"
        cfg = TournamentConfig(
            format="swiss",
            entries=entries,
            seats=args.seats,
            rounds=rounds,
            games=args.games_per_table,
            variant=args.variant,
            seed=args.seed,
        )
        t0 = time.perf_counter()
        tid = create_tournament(cfg, url)
        outcome = asyncio.run(run_tournament(url, tid))
        play = time.perf_counter() - t0
        games = outcome.games_played
        print(
            f"tournament: {games} games ({len(entries)} bots, {args.seats} seats, {rounds} rounds "
            f"x {tables} tables x {args.games_per_table} games), played in {play:.1f} s"
        )
        out = args.keep or tmp / "site"
        result = render_site(url, out)
        size = sum(p.stat().st_size for p in out.rglob("*") if p.is_file())
        html = sum(1 for _ in out.rglob("*.html"))
        print(f"render: {result.pages} pages ({html} HTML files) in {result.seconds:.2f} s")
        per_game = result.seconds / max(games, 1) * 1000
        print(
            f"output: {size / 1e6:.1f} MB, {per_game:.2f} ms per game, "
            f"{result.pages / result.seconds:.0f} pages/s"
        )
    finally:
        dispose_all()
        shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    main()
