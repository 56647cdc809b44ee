"""The real ``arena`` command in a subprocess, as a user runs it (shared by every test
folder; the root conftest puts this folder on the import path)."""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Mapping
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def run_arena(
    *args: str,
    columns: int = 200,
    env: Mapping[str, str] | None = None,
    drop: tuple[str, ...] = (),
    cwd: Path | None = None,
    timeout: float = 300,
) -> subprocess.CompletedProcess[str]:
    """``python -m arena ARGS`` from the repository root (or ``cwd``), its output
    captured as text, in this environment less the variables ``drop``, with rich's tables
    ``columns`` wide and ``env`` on top."""
    full = {k: v for k, v in os.environ.items() if k not in drop}
    full.update({"COLUMNS": str(columns), **(env or {})})
    return subprocess.run(
        [sys.executable, "-m", "arena", *args],
        capture_output=True,
        text=True,
        cwd=cwd or ROOT,
        env=full,
        timeout=timeout,
        check=False,
    )
