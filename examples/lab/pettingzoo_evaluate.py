"""Evaluate two simple agents against each other in the PettingZoo environment.

    .venv/bin/python examples/lab/pettingzoo_evaluate.py [--games 200] [--variant vengeance]

``player_0`` is a "stop at 20" agent that reads its own line score from the observation
vector (the observer's seat comes first: index 1 is its line score); ``player_1`` picks a
random legal action from the action mask. Seats swap every game. Prints each agent's mean
reward (+1 a win, -1 a loss, 0 a tie) with a 95 % interval. Replace either function by
your own agent (a trained network takes ``obs["observation"]`` and ``obs["action_mask"]``).
"""

from __future__ import annotations

import argparse
import math
import random

import numpy as np

from arena.envs.pettingzoo import env


def stop_at_20(obs: dict, info: dict, rng: random.Random) -> int:
    if info.get("kind") == "HIT_OR_STAY" and "STAY" in info["options"]:
        return info["options"].index("STAY") if obs["observation"][1] >= 20 else 0
    return 0  # the first legal option of any other decision


def random_agent(obs: dict, info: dict, rng: random.Random) -> int:
    return int(rng.choice(np.flatnonzero(obs["action_mask"])))


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--games", type=int, default=200)
    ap.add_argument("--variant", default="base")
    ap.add_argument("--brutal", action="store_true")
    args = ap.parse_args()
    agents = {"stop-at-20": stop_at_20, "random": random_agent}
    names = list(agents)
    totals = {n: [] for n in names}
    rng = random.Random(0)
    e = env(variant=args.variant, brutal=args.brutal, seats=2)
    for game in range(args.games):
        seating = names if game % 2 == 0 else names[::-1]  # player_i is seating[i]
        e.reset(seed=game)
        for agent in e.agent_iter():
            obs, reward, terminated, truncated, info = e.last()
            who = seating[e.agent_seat[agent]]
            if terminated or truncated:
                totals[who].append(reward)
                e.step(None)
            else:
                e.step(agents[who](obs, info, rng))
    for name in names:
        r = totals[name]
        mean = sum(r) / len(r)
        sd = math.sqrt(sum((x - mean) ** 2 for x in r) / max(1, len(r) - 1))
        half = 1.96 * sd / math.sqrt(len(r))
        print(f"{name:12} mean reward {mean:+.3f} ± {half:.3f} over {len(r)} games")


if __name__ == "__main__":
    main()
