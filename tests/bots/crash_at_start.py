"""Exits with an error before it ever connects (a bot that cannot start)."""

import sys

if __name__ == "__main__":
    print("crash-at-start: giving up before connecting", file=sys.stderr)
    sys.exit(3)
