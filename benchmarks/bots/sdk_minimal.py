"""The smallest SDK bot: a uniformly random legal option, no game state (benchmark row)."""

import random
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from arena.sdk import run

rng = random.Random(1)
run(lambda req: rng.randrange(len(req.options)), name="sdk-minimal")
