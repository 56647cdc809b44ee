"""Prints its whole environment (into the arena's log of it), then plays normally."""

import json
import os

import hostile

if __name__ == "__main__":
    print("ENV " + json.dumps(dict(os.environ), sort_keys=True), flush=True)
    hostile.play(name="env-dump")
