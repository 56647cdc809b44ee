"""A/B tests (``arena test``): pairs per second, and the games a test needs.

    .venv/bin/python benchmarks/abtest.py [--pairs 300] [--workers N] [--concurrency C]

1. **Pairs/s** of 2-seat tests through the real runner (a fixed-length test of
   ``--pairs`` pairs stored on a temporary SQLite database: executor, gateway and bot
   processes, one transaction per pair), for the Python example bots (``ev`` against
   ``threshold 23``, real processes over gRPC) and for the same strategies as built-in
   policies (in this process), on one process and on ``--workers`` worker processes
   (default: the machine's cores). Each run also prints the variance ratio it measured.
2. **Games needed** for a 5-Elo and a 10-Elo difference (SPRT ``elo0=0 elo1=E``,
   α = β = 0.05; expected games when the true difference is E, and a fixed-length test
   with the same error rates) on independent games and on duplicate pairs, from the
   per-game variance and the variance ratios of the duplicate-deal study
   (``benchmarks/duplicate_deals.py``, figures in ``arena/abtest/README.md``) and from the
   ratio measured in part 1.
3. **Peeking at the LOS is not a test**: between two equal bots (each 2-seat game a fair
   coin), how often looking at the likelihood of superiority every 100 games and
   stopping once either bot's LOS reaches 97.5 % declares a winner, by 1,000, 5,000 and
   20,000 games (``--runs`` simulated events; numpy, a few seconds).
"""

from __future__ import annotations

import argparse
import asyncio
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from arena.abtest import SprtSpec, games_needed  # noqa: E402
from arena.abtest_runner import AbTestConfig, Player, create_test, run_test  # noqa: E402
from arena.bots import BotSource, Command, Policy  # noqa: E402
from arena.executor import default_workers  # noqa: E402

EX = ROOT / "bots" / "examples" / "python"
# the duplicate-deal study (arena/abtest/README.md): per-game variance of a score and the
# variance ratio of 2-seat pairs with the seats swapped, for two pairs of bots
STUDY_GAME_VARIANCE = 0.249
STUDY_RATIOS = {"threshold:23 vs threshold:21": 0.770, "threshold:24 vs threshold:21": 0.867}


@dataclass
class Run:
    label: str
    workers: int
    pairs: int
    seconds: float
    ratio: float | None

    @property
    def pairs_per_second(self) -> float:
        return self.pairs / self.seconds


def python_bot(folder: str, args: str = "") -> Command:
    return Command(f"{sys.executable} {EX / folder / 'bot.py'}{' ' + args if args else ''}")


def measure(
    label: str, new: BotSource, base: BotSource, pairs: int, workers: int, concurrency: int
) -> Run:
    with tempfile.TemporaryDirectory(prefix="abtest-bench-") as tmp:
        db = f"sqlite:///{tmp}/arena.db"
        cfg = AbTestConfig(
            new=Player("new", new),
            base=Player("base", base),
            games=2 * pairs,
            seed=17,
            concurrency=concurrency,
        )
        tid = create_test(cfg, db)
        t0 = time.perf_counter()
        outcome = asyncio.run(run_test(db, tid, workers=workers))
        seconds = time.perf_counter() - t0
    e = outcome.state.status().estimate
    assert e.units == pairs, (e.units, pairs)
    return Run(label, workers, pairs, seconds, e.variance_ratio)


def throughput(pairs: int, workers: int, concurrency: int) -> list[Run]:
    cases: list[tuple[str, BotSource, BotSource]] = [
        ("built-in policies: ev vs threshold:23", Policy("ev"), Policy("threshold:23")),
        (
            "Python example bots: ev vs threshold 23",
            python_bot("ev"),
            python_bot("threshold", "23"),
        ),
    ]
    runs = []
    print(f"2-seat tests of {pairs} pairs ({2 * pairs} games), concurrency {concurrency}:")
    print(f"{'bots':42} {'workers':>7} {'pairs/s':>8} {'games/s':>8} {'seconds':>8} {'R':>6}")
    for label, new, base in cases:
        for w in sorted({1, workers}):
            r = measure(label, new, base, pairs, w, concurrency)
            ratio = "–" if r.ratio is None else f"{r.ratio:.2f}"
            print(
                f"{label:42} {w:7d} {r.pairs_per_second:8.1f} {2 * r.pairs_per_second:8.1f} "
                f"{r.seconds:8.1f} {ratio:>6}",
                flush=True,
            )
            runs.append(r)
    return runs


def needed(measured: list[Run]) -> None:
    ratios = dict(STUDY_RATIOS)
    for r in measured:
        if r.ratio is not None and r.label.startswith("built-in") and r.workers == 1:
            ratios[f"measured here, {r.label.split(': ')[1]}"] = r.ratio
    print()
    print(
        f"Games needed (SPRT elo0=0 elo1=E, alpha=beta=0.05; per-game variance "
        f"{STUDY_GAME_VARIANCE}):"
    )
    print(f"{'design':64} {'E':>3} {'SPRT games':>11} {'fixed':>8}")
    for e in (5, 10):
        spec = SprtSpec(elo0=0, elo1=e, alpha=0.05, beta=0.05)
        ind = games_needed(spec, STUDY_GAME_VARIANCE, 1.0)
        print(
            f"{'independent games (no duplicates)':64} {e:3d} {ind.sprt_at_elo1:11,.0f} "
            f"{ind.fixed:8,.0f}"
        )
        for name, ratio in ratios.items():
            dup = games_needed(spec, STUDY_GAME_VARIANCE, ratio)
            title = f"duplicate pairs, R = {ratio:.3f} ({name})"
            print(f"{title:64} {e:3d} {dup.sprt_at_elo1:11,.0f} {dup.fixed:8,.0f}")
    print("(SPRT: expected games when the true difference is E, about the same at 0;")
    print(" fixed: a fixed-length test with the same error rates)")


def peeking(runs: int, seed: int = 1) -> None:
    import numpy as np
    from scipy.special import ndtr

    horizon, every, chunk = 20_000, 100, 1_000
    marks = (1_000, 5_000, 20_000)
    rng = np.random.default_rng(seed)
    first_stop: list[np.ndarray] = []
    looks = np.arange(every, horizon + 1, every)
    for start in range(0, runs, chunk):
        n = min(chunk, runs - start)
        steps = rng.integers(0, 2, size=(n, horizon), dtype=np.int8) * 2 - 1
        lead = np.cumsum(steps, axis=1, dtype=np.int32)[:, every - 1 :: every]
        los = ndtr(lead / np.sqrt(looks))  # LOS of the first bot (no draws at two seats)
        stop = (los >= 0.975) | (los <= 0.025)
        first_stop.append(np.where(stop.any(axis=1), (stop.argmax(axis=1) + 1) * every, 0))
    stops = np.concatenate(first_stop)
    print()
    print(
        f"Peeking at the LOS of two equal bots every {every} games, stopping at 97.5 % "
        f"({runs:,} simulated events):"
    )
    for m in marks:
        share = float(((stops > 0) & (stops <= m)).mean())
        print(f"  a winner declared by {m:6,} games: {100 * share:4.1f} % of the events")
    print("  (arena test at alpha = 0.05 wrongly accepts H1 in about 5 % of such tests)")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--pairs", type=int, default=300, help="pairs per run (default 300)")
    ap.add_argument("--workers", type=int, default=default_workers())
    ap.add_argument("--concurrency", type=int, default=16, help="games at once (default 16)")
    ap.add_argument("--runs", type=int, default=10_000, help="simulated events (default 10,000)")
    args = ap.parse_args()
    needed(throughput(args.pairs, max(1, args.workers), args.concurrency))
    peeking(args.runs)


if __name__ == "__main__":
    main()
