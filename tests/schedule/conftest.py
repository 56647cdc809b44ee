"""Make the scheduling test helpers importable as ``schedule_helpers``."""

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))
