"""The engine's type hints are checked: ``mypy engine`` is clean under the project's
configuration (pyproject.toml: strict for engine.*), as the test command runs it."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


def test_mypy_is_clean_on_the_engine_in_strict_mode():
    pytest.importorskip("mypy", reason="mypy comes with the test extra: pip install -e '.[test]'")
    done = subprocess.run(
        [sys.executable, "-m", "mypy", "engine"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    assert "Success" in done.stdout


def test_the_engine_is_checked_strictly():
    import tomllib

    config = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["mypy"]
    strict = [o for o in config.get("overrides", ()) if o.get("strict")]
    assert any("engine.*" in o["module"] for o in strict)
