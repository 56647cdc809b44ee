"""Plays normally until its first decision, then allocates (and touches) 8 MiB blocks
until the container's memory limit ends it."""

import sys

from arena.sdk import run

hog = []


def choose(req):
    print("first decision: allocating", file=sys.stderr, flush=True)
    while True:
        hog.append(b"\x01" * (8 << 20))  # written, so the pages are really resident
        print(f"allocated {8 * len(hog)} MiB", file=sys.stderr, flush=True)


if __name__ == "__main__":
    run(choose, name="memhog")
