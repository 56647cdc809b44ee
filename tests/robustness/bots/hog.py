"""Once connected, grabs a resource far beyond its share, then would play on.
``hog.py memory`` holds ~1.5 GB; ``hog.py cwd`` writes 200 MB into its working directory;
``hog.py tmp`` writes 200 MB into $TMPDIR; ``hog.py processes`` starts a fork bomb."""

import os
import subprocess
import sys

import hostile

MODE = sys.argv[1]
MB = 1 << 20


def memory() -> None:
    held = []
    for _ in range(1536 // 64):
        block = bytearray(64 * MB)
        block[::4096] = b"x" * len(block[::4096])  # touch every page
        held.append(block)
    hostile.note(event="held", mb=64 * len(held))


def write(folder: str) -> None:
    with open(os.path.join(folder, "hog.bin"), "wb") as f:
        for _ in range(200):
            f.write(b"\0" * MB)
    hostile.note(event="wrote", mb=200, folder=folder)


BOMB = """
import os
r, w = os.pipe()
n = 0
try:
    while n < 100_000:
        if os.fork() == 0:  # each child waits until the bomb is over
            os.close(w)
            os.read(r, 1)
            os._exit(0)
        n += 1
except OSError:
    pass
print(n, flush=True)
"""


def processes() -> None:
    """A fork bomb in a child process (so that the bot itself can play on afterwards)."""
    out = subprocess.run([sys.executable, "-c", BOMB], capture_output=True, text=True, timeout=60)
    hostile.note(event="forked", children=int(out.stdout))


ATTACKS = {
    "memory": memory,
    "cwd": lambda: write(os.getcwd()),
    "tmp": lambda: write(os.environ.get("TMPDIR", "/tmp")),
    "processes": processes,
}

if __name__ == "__main__":
    hostile.play(ATTACKS[MODE], name=f"hog-{MODE}")
