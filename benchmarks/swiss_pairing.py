"""Swiss pairing speed and quality: a big field, random results fed back every round.

    .venv/bin/python benchmarks/swiss_pairing.py [--bots 1000] [--seats 4] [--rounds 10]

Prints the planning time of every round (plan_round only, not the simulated play), its
mean and max, the repeat meetings over the event, the worst per-bot seat imbalance, and how
tight the tables are in points compared with a random grouping of the same sizes.
"""

from __future__ import annotations

import argparse
import random
import statistics
import time

from arena.schedule import RoundPlan, Standing, make_scheduler
from arena.schedule.analysis import pair_counts, repeat_meetings, seat_spread


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--bots", type=int, default=1000)
    parser.add_argument("--seats", type=int, default=4)
    parser.add_argument("--rounds", type=int, default=10)
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()

    rng = random.Random(args.seed)
    bots = [f"bot{i:04d}" for i in range(args.bots)]
    skill = {b: rng.random() for b in bots}
    points = dict.fromkeys(bots, 0.0)
    games = dict.fromkeys(bots, 0)
    sched = make_scheduler("swiss", bots, args.seats, rounds=args.rounds, seed=args.seed)
    history: list[RoundPlan] = []
    times: list[float] = []
    tightness: list[float] = []
    print(f"swiss: {args.bots} bots, {args.seats}-seat tables, {args.rounds} rounds")
    for r in range(args.rounds):
        standings = [Standing(b, points[b], games[b]) for b in bots]
        start = time.perf_counter()
        plan = sched.plan_round(r, standings, history)
        times.append(time.perf_counter() - start)
        if r:
            groups = [t.seats for t in plan.tables]
            shuffled = [b for g in groups for b in g]
            rng.shuffle(shuffled)
            at, random_groups = 0, []
            for g in groups:
                random_groups.append(shuffled[at : at + len(g)])
                at += len(g)
            tightness.append(_spread(groups, points) / max(1e-9, _spread(random_groups, points)))
        for table in plan.tables:  # a game's finishing order: skill plus luck
            order = sorted(table.seats, key=lambda b: -(skill[b] + rng.random()))
            for place, bot in enumerate(order):
                points[bot] += len(order) - 1 - place
                games[bot] += 1
        history.append(plan)
        repeats = repeat_meetings(history)
        print(
            f"  round {r + 1:2d}: {times[-1] * 1000:7.1f} ms  tables {len(plan.tables)}"
            f"  byes {len(plan.byes)}  repeat meetings so far {repeats}"
        )
    meets = pair_counts(history)
    mean_ms, max_ms = statistics.mean(times) * 1000, max(times) * 1000
    print(f"time per round: mean {mean_ms:.1f} ms, max {max_ms:.1f} ms")
    print(f"repeat meetings: {repeat_meetings(history)} (pairs that met: {len(meets)})")
    imbalance = seat_spread(history, args.seats)
    print(f"worst per-bot seat imbalance (max - min seat count): {imbalance}")
    if tightness:
        print(
            "mean within-table points spread vs a random grouping: "
            f"{statistics.mean(tightness):.3f} (rounds 2..{args.rounds})"
        )


def _spread(groups, points) -> float:
    return statistics.mean(max(points[b] for b in g) - min(points[b] for b in g) for g in groups)


if __name__ == "__main__":
    main()
