"""Runs a long match of container bots until it is killed (for the clean-up tests):

    python tests/docker/match_child.py IMAGE...

Prints ``started`` on stdout once the match runner is about to start the bots.
"""

import asyncio
import sys

from arena.bots import Image
from arena.match import BotEntry, MatchSpec, run_match


async def main(images: list[str]) -> None:
    bots = [BotEntry(f"bot{i}", Image(image)) for i, image in enumerate(images)]
    print("started", flush=True)
    await run_match(MatchSpec(bots=bots, games=2000, concurrency=1))


if __name__ == "__main__":
    asyncio.run(main(sys.argv[1:]))
