"""Random bot: picks a uniformly random legal option (seeded per game, so replayable)."""

from arena.sdk import PolicyBot, run

if __name__ == "__main__":
    run(PolicyBot("random"), name="random")
