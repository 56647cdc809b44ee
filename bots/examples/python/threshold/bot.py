"""Threshold bot: hits until its number cards sum to N (default 23, or argv[1]), then stays.

Targets sensibly: freezes opponents who still want cards, gives forced draws (Flip Three,
Flip Four!, Just One More!) to opponents with big lines, gives minus cards to the leader.
"""

import sys

from arena.sdk import PolicyBot, run

if __name__ == "__main__":
    n = int(sys.argv[1]) if len(sys.argv) > 1 else 23
    run(PolicyBot(f"threshold:{n}"), name=f"threshold-{n}")
