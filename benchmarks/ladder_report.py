"""The report at ladder scale: ``render_site`` on a ladder of many stored games.

    .venv/bin/python benchmarks/ladder_report.py [--sizes 1000,10000,100000] [--bots 16]
        [--seats 4] [--compact auto|yes|no] [--jobs 1]

Fills a ladder in a temporary SQLite database with ``--play`` games of built-in policies
(played in process by the real ladder runner, matchmaker and match runner, one game per
table), then grows it to each size with copies of those games as further tables (real
games, so every replay renders; copying is far faster than playing). At each size it
renders the whole site into a fresh folder, reporting pages, MB (bytes of every file)
and seconds; then the ladder plays 100 more games and the report is rendered again into
the same folder (incremental: only what changed is written).
"""

from __future__ import annotations

import argparse
import asyncio
import shutil
import tempfile
import time
from pathlib import Path

from arena.bots import Policy
from arena.ladder.runner import LadderConfig, LadderRunner, entry_name, open_ladder
from arena.report import render_site
from arena.status import GameStatus
from arena.store import bots, games, ladders, rounds
from arena.store.db import dispose_all, get_engine
from arena.store.models import Entry, Game, LadderBot, entry_columns

POLICIES = ["ev", "threshold:15", "threshold:18", "threshold:21", "threshold:23",
            "threshold:25", "threshold:28", "random"]  # fmt: skip


def fill(url: str, games: int) -> float:
    """Play ``games`` more ladder games; returns the seconds it took."""
    eng = get_engine(url)
    (ladder,) = ladders.every(eng)
    t0 = time.perf_counter()
    asyncio.run(LadderRunner(eng, ladder, concurrency=32, max_games=games, seed=1).run())
    return time.perf_counter() - t0


def copy_games(url: str, count: int) -> None:
    """Store ``count`` more tables, each a copy of a game already stored."""
    eng = get_engine(url)
    (ladder,) = ladders.every(eng)
    tid = ladder.tournament_id
    played = [g for g in games.of_tournament(eng, tid) if g.status == GameStatus.COMPLETED]
    following, _ = ladders.tables(eng, tid)
    for i in range(count):
        g = played[i % len(played)]
        m = ladders.plan(eng, tid, following + i, list(g.seating), g.seed, 1)
        copy = Game(
            **{k: v for k, v in g.model_dump().items() if k not in ("id", "match_id", "played")},
            match_id=m.id,
        )
        rounds.complete_match(eng, m.id, [copy])


def render(
    url: str, out: Path, compact: bool | None, fresh: bool, jobs: int
) -> tuple[int, int, float, float]:
    """(pages written, pages kept, MB, seconds) of a render into ``out`` (``fresh``: emptied
    first)."""
    if fresh:
        shutil.rmtree(out, ignore_errors=True)
    result = render_site(url, out, compact=compact, jobs=jobs)
    size = sum(p.stat().st_size for p in out.rglob("*") if p.is_file())
    return result.pages, result.kept, size / 1e6, result.seconds


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", default="1000,10000,100000", help="stored games to render at")
    parser.add_argument("--compact", choices=("auto", "yes", "no"), default="auto")
    parser.add_argument("--jobs", type=int, default=1, help="processes rendering game pages")
    parser.add_argument("--play", type=int, default=1000, help="games really played")
    parser.add_argument("--bots", type=int, default=16)
    parser.add_argument("--seats", type=int, default=4)
    args = parser.parse_args()

    tmp = Path(tempfile.mkdtemp(prefix="arena-ladder-report-"))
    try:
        url = f"sqlite:///{tmp / 'arena.db'}"
        eng = get_engine(url)
        ladder = open_ladder(eng, LadderConfig(seats=args.seats))
        for i in range(args.bots):
            spec = POLICIES[i % len(POLICIES)]
            bot, version = bots.add_version(eng, f"p{i:03d}", "process", command="unused")
            assert bot.id is not None and version.id is not None
            # a registered version whose ladder entry plays a built-in policy in process
            ladders.admit(
                eng,
                ladder,
                Entry(tournament_id=0, name=entry_name(bot.name, 1), **entry_columns(Policy(spec))),
                LadderBot(
                    ladder_id=0, entry_id=0, bot_id=bot.id, bot_version_id=version.id, version=1
                ),
            )
        compact = {"auto": None, "yes": True, "no": False}[args.compact]
        play = fill(url, args.play)
        print(f"played {args.play} games in {play:.0f} s", flush=True)
        print(
            f"{'games':>7} {'pages':>7} {'MB':>8} {'KB/game':>8} {'render s':>9} {'ms/game':>8}"
            f"  | after 100 more: {'written':>7} {'kept':>7} {'MB':>8} {'s':>6}",
            flush=True,
        )
        stored = args.play
        for size in (int(x) for x in args.sizes.split(",")):
            copy_games(url, max(0, size - stored))
            stored = max(stored, size)
            pages, _, mb, seconds = render(url, tmp / "site", compact, True, args.jobs)
            fill(url, 100)
            stored += 100
            again, kept, mb2, seconds2 = render(url, tmp / "site", compact, False, args.jobs)
            print(
                f"{size:7d} {pages:7d} {mb:8.1f} {mb * 1000 / size:8.1f} {seconds:9.1f}"
                f" {seconds / size * 1000:8.2f}  | {'':16}{again:7d} {kept:7d} {mb2:8.1f}"
                f" {seconds2:6.1f}",
                flush=True,
            )
    finally:
        dispose_all()
        shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    main()
