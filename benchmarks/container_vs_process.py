"""Container bots next to process bots: what the Docker sandbox costs.

    .venv/bin/python benchmarks/container_vs_process.py [--games 32] [--concurrency 16]
        [--reps 3] [--base flip7/python-base:latest]

Needs a Docker engine and the bots' base image (bash docker/base-image/build.sh); builds
the example bots' images (flip7-bench/<bot>:latest) first, which takes a second when cached.

1. throughput: the same 4 example bots (ev, threshold 23, random, random) play the same
   match (same seeds: the same games) as containers and as local processes; decisions per
   second from every bot being connected to the last game's end (median of ``--reps`` runs);
2. start-up: 4 bots started at once, as a match does, and 1 bot alone; per bot the time
   from ``start()`` to the bot's hello reaching the gateway (and, for containers, how much
   of it is Docker's create + start); median and max over the bots and ``--reps`` runs.
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from arena.bots import Command, Image  # noqa: E402
from arena.faults import FaultPolicy  # noqa: E402
from arena.gateway.server import Gateway  # noqa: E402
from arena.match import BotEntry, MatchSpec, run_match  # noqa: E402
from arena.runtime.build import build_image  # noqa: E402
from arena.runtime.docker import ContainerBot  # noqa: E402
from arena.runtime.process import ProcessBot  # noqa: E402

EX = ROOT / "bots" / "examples" / "python"
PY = sys.executable
# name, example folder, threshold argument for the process form (the image's CMD is 23)
BOTS = [("ev", "ev", ""), ("threshold", "threshold", " 23"), ("random", "random", "")]
ARGS = {name: arg for name, _, arg in BOTS}
SEATS = [("ev", "ev"), ("threshold", "threshold"), ("random-a", "random"), ("random-b", "random")]


def build(base: str) -> dict[str, str]:
    tags = {}
    for name, folder, _ in BOTS:
        tag = f"flip7-bench/{name}:latest"
        build_image(EX / folder, tag, build_args={"BASE": base})
        tags[name] = tag
    return tags


def entries(kind: str, tags: dict[str, str]) -> list[BotEntry]:
    out = []
    for seat, bot in SEATS:
        if kind == "container":
            out.append(BotEntry(seat, Image(tags[bot])))
        else:
            out.append(BotEntry(seat, Command(f"{PY} {EX / bot / 'bot.py'}{ARGS[bot]}")))
    return out


async def throughput(kind: str, tags: dict[str, str], games: int, conc: int) -> dict[str, Any]:
    spec = MatchSpec(
        bots=entries(kind, tags),
        games=games,
        seed=5,
        concurrency=conc,
        faults=FaultPolicy(deadline=5, time_bank=30),
    )
    res = await run_match(spec)
    return {
        "decisions": res.decisions,
        "play_seconds": res.play_seconds,
        "match_seconds": res.seconds,
        "per_second": res.decisions / res.play_seconds,
        "faults": sum(len(g.faults) for g in res.games),
        "choices": [g.choices for g in res.games],
    }


async def startup(
    make: Callable[[str], Any], seats: list[tuple[str, str]]
) -> list[tuple[float, float]]:
    """(seconds to connected, seconds in start()) for each bot, all started at once."""
    with tempfile.TemporaryDirectory(prefix="bench-") as tmp:
        Path(tmp).chmod(0o711)
        async with Gateway(tcp=None, unix=Path(tmp) / "arena.sock") as gw:
            procs = []

            async def one(seat: str, bot: str) -> tuple[float, float]:
                token, link = gw.register(seat)
                proc = make(bot)
                procs.append((proc, link))
                t0 = time.perf_counter()
                await proc.start(gw.address, token)
                t_started = time.perf_counter()
                await asyncio.wait_for(link.connected.wait(), 60)
                return time.perf_counter() - t0, t_started - t0

            try:
                return list(await asyncio.gather(*(one(s, b) for s, b in seats)))
            finally:
                for _, link in procs:
                    gw.unregister(link)
                await asyncio.gather(*(p.stop() for p, _ in procs))


def ms(xs: list[float]) -> str:
    return f"median {statistics.median(xs) * 1000:6.0f} ms   max {max(xs) * 1000:6.0f} ms"


async def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--games", type=int, default=32)
    ap.add_argument("--concurrency", type=int, default=16)
    ap.add_argument("--reps", type=int, default=3)
    ap.add_argument("--base", default="flip7/python-base:latest")
    a = ap.parse_args()

    t = time.perf_counter()
    tags = build(a.base)
    print(f"images: {', '.join(tags.values())} (built in {time.perf_counter() - t:.1f} s)")

    print(
        f"\nthroughput: 4 example bots, {a.games} games, {a.concurrency} at once, "
        f"median of {a.reps} runs"
    )
    runs: dict[str, list[dict[str, Any]]] = {"process": [], "container": []}
    for _ in range(a.reps):
        for kind in runs:  # interleaved, so that drift hits both alike
            runs[kind].append(await throughput(kind, tags, a.games, a.concurrency))
    rates = {}
    for kind, rs in runs.items():
        rates[kind] = statistics.median(r["per_second"] for r in rs)
        print(
            f"  {kind:9s}  {rs[0]['decisions']:5d} decisions   "
            f"{rates[kind]:8.0f} decisions/s   "
            f"play {statistics.median(r['play_seconds'] for r in rs):.2f} s   "
            f"whole match {statistics.median(r['match_seconds'] for r in rs):.2f} s   "
            f"faults {sum(r['faults'] for r in rs)}"
        )
    same = all(r["choices"] == runs["process"][0]["choices"] for rs in runs.values() for r in rs)
    print(f"  containers / processes: {rates['container'] / rates['process']:.2f}x throughput")
    print(f"  same games (every choice) in both runtimes: {'yes' if same else 'NO'}")

    print(f"\nstart-up: start() to the bot's hello at the gateway, x{a.reps}")
    kinds: dict[str, Callable[[str], Any]] = {
        "process": lambda bot: ProcessBot(bot, f"{PY} {EX / bot / 'bot.py'}{ARGS[bot]}"),
        "container": lambda bot: ContainerBot(bot, tags[bot]),
    }
    for label, seats in (("4 at once", SEATS), ("1 alone", SEATS[:1])):
        for kind, make in kinds.items():
            times: list[tuple[float, float]] = []
            for _ in range(a.reps):
                times += await startup(make, seats)
            line = f"  {label:9s} {kind:9s}  connected: {ms([c for c, _ in times])}"
            if kind == "container":
                line += f"   (docker create+start: {ms([s for _, s in times])})"
            print(line)


if __name__ == "__main__":
    asyncio.run(main())
