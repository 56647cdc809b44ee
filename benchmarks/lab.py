"""The bot author's lab: how fast a Python bot plays in-process, over gRPC, and as the
built-in policy it wraps; what a clone and a determinization cost.

    .venv/bin/python benchmarks/lab.py [--games 200] [--seats 4] [--variant base]
        [--bot bots/examples/python/ev/bot.py] [--policy ev] [--network-games 100]

The table: seat 0 is the bot (default the ``ev`` example bot, an SDK file that wraps the
built-in ``ev`` policy), every other seat the built-in ``--policy``. The same match is played

1. built-in: seat 0 is the policy itself, played by the engine directly (``arena simulate``'s
   fast path, no referee);
2. built-in, referee: the same, through the arena's referee (requests encoded, seat clocks);
3. bot in-process: the bot file loaded into this process (``arena simulate --bot``);
4. bot over gRPC: the bot file as its own process on a Unix socket (``arena match``), 16
   games at once;

and games/s is printed for each, by the wall clock and per CPU second of this process and
the bot's (the figure to trust on a busy machine), best of ``--repeat``. Then the costs of
``Game.clone()``, ``Game.determinized`` and ``engine.determinize`` (from the event log) in µs
at the middle decision of ``--clone-games`` games of the same table (median of best-of-5;
benchmarks/search_support.py gives the full breakdown).
"""

from __future__ import annotations

import argparse
import asyncio
import resource
import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "benchmarks"))

from search_support import measure  # noqa: E402

from arena.bots import Command, Policy  # noqa: E402
from arena.match import BotEntry, MatchSpec, run_match  # noqa: E402
from arena.match.local import play_local  # noqa: E402
from arena.sdk.load import load_bot  # noqa: E402
from arena.simulate import simulate  # noqa: E402
from engine import get_ruleset  # noqa: E402


def cpu_seconds() -> float:
    """CPU time of this process and of its finished children (a bot process over gRPC)."""
    me = resource.getrusage(resource.RUSAGE_SELF)
    kids = resource.getrusage(resource.RUSAGE_CHILDREN)
    return me.ru_utime + me.ru_stime + kids.ru_utime + kids.ru_stime


def best_rate(play: Callable[[], int], repeat: int) -> tuple[float, float]:
    """Games per second of ``play`` (which returns the games it played), by the wall clock
    and per CPU second (this process and the bot's), best of ``repeat``."""
    best = (0.0, 0.0)
    for _ in range(repeat):
        t0, c0 = time.perf_counter(), cpu_seconds()
        n = play()
        wall, cpu = time.perf_counter() - t0, cpu_seconds() - c0
        best = max(best, (n / wall, n / max(cpu, 1e-9)))
    return best


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--bot", default=str(ROOT / "bots/examples/python/ev/bot.py"))
    ap.add_argument("--policy", default="ev", help="the built-in policy the bot wraps (ev)")
    ap.add_argument("--games", type=int, default=200, help="games per in-process row (200)")
    ap.add_argument("--network-games", type=int, default=100, help="games over gRPC (100)")
    ap.add_argument("--seats", type=int, default=4, help="seats at the table (4)")
    ap.add_argument("--variant", default="base", help="base | vengeance (base)")
    ap.add_argument("--repeat", type=int, default=3, help="runs per row, best kept (3)")
    ap.add_argument("--clone-games", type=int, default=10, help="games for clone costs (10)")
    args = ap.parse_args()
    rules = get_ruleset(args.variant)
    seed = 1
    others = [BotEntry(f"p{i}", Policy(args.policy)) for i in range(1, args.seats)]

    def spec(seat0: BotEntry, games: int) -> MatchSpec:
        return MatchSpec(
            bots=[seat0, *others], games=games, seed=seed, variant=args.variant, rotate=False
        )

    policy_entry = BotEntry("builtin", Policy(args.policy))
    bot_entry = BotEntry("bot", Command(f"{sys.executable} {args.bot}"))
    loaded = {"bot": load_bot(args.bot)}

    def builtin() -> int:
        return simulate(rules, args.seats, [args.policy] * args.seats, args.games, seed).games

    def referee() -> int:
        return len(play_local(spec(policy_entry, args.games), {}).games)

    def in_process() -> int:
        return len(play_local(spec(bot_entry, args.games), loaded).games)

    def network() -> int:
        return len(asyncio.run(run_match(spec(bot_entry, args.network_games))).games)

    rows = [
        (f"built-in {args.policy}, engine only", builtin),
        (f"built-in {args.policy}, through the referee", referee),
        ("bot in-process (simulate --bot)", in_process),
        ("bot over gRPC (its own process)", network),
    ]
    print(f"{args.variant}, {args.seats} seats; seat 0: {Path(args.bot).name} or {args.policy}")
    print(f"{'':44} {'games/s':>9} {'per CPU s':>10}")
    rates = {}
    for label, play in rows:
        rates[label] = wall, cpu = best_rate(play, args.repeat)
        print(f"{label:44} {wall:9.1f} {cpu:10.1f}", flush=True)
    inproc, net = rates[rows[2][0]], rates[rows[3][0]]
    print(f"in-process / gRPC: {inproc[0] / net[0]:.1f}x (wall), {inproc[1] / net[1]:.1f}x (CPU)")

    points = [measure(rules, args.seats, 1_000 + k, 0.5) for k in range(args.clone_games)]
    med = [statistics.median(col) for col in zip(*points, strict=True)]
    print(f"\nat the middle decision (round {med[0]:.0f}, {med[1]:.0f} events), µs:")
    print(f"  Game.clone()                       {med[2]:9.1f}")
    print(f"  Game.clone(record_events=False)    {med[3]:9.1f}")
    print(f"  Game.determinized(seat, rng)       {med[4]:9.1f}")
    print(f"  engine.determinize(from the log)   {med[5]:9.1f}")


if __name__ == "__main__":
    main()
