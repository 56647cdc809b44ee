"""The Ray executor against the local one: games/s of a Swiss event, the per-match
overhead Ray adds, what the driver spends per match, and a paper estimate for big clusters.

    .venv/bin/python benchmarks/ray_executor.py [--rounds 4] [--games 8] [--db URL]

Needs the extra ``flip7-arena[ray]``. The cluster is started here, on this machine
(``ray.cluster_utils``): nodes of one CPU each, the head first, then a second node.

1. A Swiss event of 16 entrants at 4-seat tables (the 8 Python example bots as processes,
   8 built-in policies), stored through the real tournament runner: the local executor in
   this process (bots per match, as a Ray task has them; bots that stay up for the event;
   bots per match and one table at a time, as on a one-CPU Ray node), then Ray with one
   node and with two (64 games at once: the tournament keeps 16 tables in flight, Ray
   plays one per CPU and queues the rest).
2. The per-match overhead: matches of one game between built-in policies (nothing to
   start), one at a time, on the local executor and on Ray (one node); the difference is
   what a Ray task costs a match (submit, schedule, a fresh event loop and gateway on the
   node, the result's trip back).
3. The driver's share per match: its CPU per trivial match when 200 are in flight (submit,
   await, unpickle, progress) and the store's transaction of one match's games.
4. From these: games/s for 16 and 64 nodes and where the driver becomes the limit.

On a machine with 2 cores shared with other work the second node competes with the
driver and the bots for CPU: read its figure as "does it spread", not as a speed-up.
"""

from __future__ import annotations

import argparse
import asyncio
import resource
import shutil
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from arena.bots import Command, Policy  # noqa: E402
from arena.demo import FIELD  # noqa: E402
from arena.executor import LocalExecutor  # noqa: E402
from arena.executor.ray import RayExecutor  # noqa: E402
from arena.faults import FaultPolicy  # noqa: E402
from arena.match import BotEntry, MatchSpec  # noqa: E402
from arena.tournament import (  # noqa: E402
    EntrySpec,
    TournamentConfig,
    TournamentRunner,
    create_tournament,
)

EX = ROOT / "bots" / "examples" / "python"
MiB = 1 << 20
BUILTINS = ["ev", "random", "threshold:27", "threshold:24", "threshold:21", "threshold:18"]
BUILTINS += ["threshold:15", "threshold:12"]


class TimedRunner(TournamentRunner):
    """The real runner; it also times each match's store transaction."""

    def __init__(self, *a: Any, **kw: Any) -> None:
        super().__init__(*a, **kw)
        self.store_seconds: list[float] = []

    def _store(self, t: Any, m: Any, result: Any) -> None:
        t0 = time.perf_counter()
        super()._store(t, m, result)
        self.store_seconds.append(time.perf_counter() - t0)


def field() -> list[EntrySpec]:
    out = []
    for name, folder, args in FIELD:
        cmd = f"{sys.executable} {EX / folder / 'bot.py'}{' ' + args if args else ''}"
        out.append(EntrySpec(name, Command(cmd)))
    out += [EntrySpec(f"builtin-{p.replace(':', '-')}", Policy(p)) for p in BUILTINS]
    return out


def event(
    db: str | None, rounds: int, games: int, tmp: str, **runner: Any
) -> tuple[float, int, list[float]]:
    """(seconds, games, store seconds per match) of one Swiss event."""
    url = db or f"sqlite:///{tmp}/bench-{time.monotonic_ns()}.db"
    concurrency = runner.pop("concurrency", 64)
    cfg = TournamentConfig(
        format="swiss",
        entries=field(),
        seats=4,
        rounds=rounds,
        games=games,
        concurrency=concurrency,
        seed=2026,
        isolation=runner.pop("isolation", "event"),
    )
    tid = create_tournament(cfg, url)
    r = TimedRunner(url, tid, **runner)
    t0 = time.perf_counter()
    outcome = asyncio.run(r.run())
    return time.perf_counter() - t0, outcome.games_played, r.store_seconds


def trivial(serial: int) -> MatchSpec:
    return MatchSpec(
        bots=[BotEntry(f"p{i}", Policy(p)) for i, p in enumerate(["ev", "random", "ev", "random"])],
        games=1,
        seed=serial,
        match_id=f"trivial-{serial}",
    )


async def one_at_a_time(ex: Any, n: int) -> float:
    """Mean seconds per trivial match, played one after the other."""
    await ex.run(trivial(0))  # warm: a worker process, imports
    t0 = time.perf_counter()
    for i in range(n):
        await ex.run(trivial(i + 1))
    return (time.perf_counter() - t0) / n


async def in_flight(ex: Any, n: int) -> tuple[float, float]:
    """(matches/s, driver CPU seconds per match) with ``n`` trivial matches in flight."""
    me0 = resource.getrusage(resource.RUSAGE_SELF)
    t0 = time.perf_counter()
    await asyncio.gather(*(ex.run(trivial(1000 + i)) for i in range(n)))
    seconds = time.perf_counter() - t0
    me1 = resource.getrusage(resource.RUSAGE_SELF)
    cpu = (me1.ru_utime + me1.ru_stime) - (me0.ru_utime + me0.ru_stime)
    return n / seconds, cpu / n


def overhead(address: str, n: int) -> dict[str, float]:
    faults = FaultPolicy()

    async def main() -> dict[str, float]:
        async with LocalExecutor(faults=faults, concurrency=16) as local:
            local_s = await one_at_a_time(local, n)
        async with RayExecutor(faults=faults, concurrency=16, address=address) as ray_ex:
            ray_s = await one_at_a_time(ray_ex, n)
            rate, driver_cpu = await in_flight(ray_ex, 200)
        return {"local_s": local_s, "ray_s": ray_s, "rate": rate, "driver_cpu": driver_cpu}

    return asyncio.run(main())


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--rounds", type=int, default=4)
    ap.add_argument("--games", type=int, default=8, help="games per table each round")
    ap.add_argument("--db", default=None, help="database URL (default: a SQLite file)")
    ap.add_argument("--trivial", type=int, default=30, help="trivial matches, one at a time")
    args = ap.parse_args()
    from ray.cluster_utils import Cluster

    tmp = tempfile.mkdtemp(prefix="rb-", dir="/tmp")
    rows: list[tuple[str, float, int]] = []
    stores: list[float] = []

    def add(label: str, result: tuple[float, int, list[float]]) -> None:
        seconds, games, store = result
        rows.append((label, seconds, games))
        stores.extend(store)
        print(f"  {label:<34} {games / seconds:7.1f} games/s ({games} games, {seconds:.1f} s)")

    print(f"Swiss, 16 entrants, 4-seat tables, {args.rounds} rounds of {args.games} games")
    add(
        "local, this process, bots per match",
        event(args.db, args.rounds, args.games, tmp, isolation="match"),
    )
    add("local, this process, bots stay up", event(args.db, args.rounds, args.games, tmp))
    add(  # like a one-CPU Ray node: one match at a time (--concurrency 4: one table)
        "local, bots per match, 1 table",
        event(args.db, args.rounds, args.games, tmp, isolation="match", concurrency=4),
    )
    cluster = Cluster(
        initialize_head=True,
        head_node_args={
            "num_cpus": 1,
            "object_store_memory": 200 * MiB,
            "include_dashboard": False,
            "temp_dir": tmp,
        },
    )
    try:
        address = str(cluster.address)
        add(
            "ray, 1 node (1 CPU)",
            event(args.db, args.rounds, args.games, tmp, executor="ray", address=address),
        )
        o = overhead(address, args.trivial)
        cluster.add_node(num_cpus=1, object_store_memory=200 * MiB)
        cluster.wait_for_nodes()
        add(
            "ray, 2 nodes (1 CPU each)",
            event(args.db, args.rounds, args.games, tmp, executor="ray", address=address),
        )
    finally:
        cluster.shutdown()
        shutil.rmtree(tmp, ignore_errors=True)

    added = o["ray_s"] - o["local_s"]
    store = statistics.median(stores)
    print("\nPer match (one game of built-in policies, nothing to start)")
    print(f"  local executor          {1000 * o['local_s']:7.1f} ms")
    print(f"  ray task (1 node)       {1000 * o['ray_s']:7.1f} ms   (+{1000 * added:.1f} ms)")
    print(f"  ray, 200 in flight      {o['rate']:7.1f} matches/s on one node")
    print(f"  driver CPU per match    {1000 * o['driver_cpu']:7.2f} ms (submit, await, unpickle)")
    print(
        f"  store, one match        {1000 * store:7.2f} ms "
        f"(median: {args.games} games, one transaction)"
    )

    one = next(r for r in rows if r[0].startswith("ray, 1"))
    per_node = one[2] / one[1]
    per_match_driver = o["driver_cpu"] + store  # driver seconds per match
    driver_games = args.games / per_match_driver
    print(f"\nPaper estimate (nodes like the one measured: {per_node:.1f} games/s each)")
    for nodes in (16, 64):
        ideal = nodes * per_node
        tables = 4 * nodes  # entrants a round needs to keep every node busy
        print(
            f"  {nodes:>2} nodes: {ideal:7.0f} games/s if the driver keeps up "
            f"(needs ≥ {nodes} tables in flight: ≥ {tables} entrants at 4 seats, "
            f"--concurrency ≥ {nodes * min(args.games, 4)})"
        )
    print(
        f"  driver: {1000 * per_match_driver:.1f} ms per match "
        f"→ at most {1 / per_match_driver:.0f} matches/s = {driver_games:.0f} games/s "
        f"at {args.games} games per match; it becomes the limit beyond "
        f"{driver_games / per_node:.0f} such nodes"
    )


if __name__ == "__main__":
    main()
