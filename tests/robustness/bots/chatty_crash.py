"""Prints $CHATTER_KB KiB of chatter at its first decision, then crashes with a traceback
whose last line names it."""

import os
import sys

import hostile


def explode() -> None:
    line = "chatter " * 15 + "\n"  # 121 bytes
    for _ in range(int(os.environ.get("CHATTER_KB", "300")) * 1024 // len(line) + 1):
        sys.stdout.write(line)
    sys.stdout.flush()
    raise RuntimeError("the chatty bot crashed at the end of its log")


if __name__ == "__main__":
    hostile.play(explode, name="chatty")
