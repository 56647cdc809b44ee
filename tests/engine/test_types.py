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


def test_the_engine_is_checked_strictly_and_only_the_engine(tmp_path):
    """Under the project's configuration an untyped function is an error in a module of
    the engine package (strict) and not in one of another package (standard)."""
    pytest.importorskip("mypy", reason="mypy comes with the test extra: pip install -e '.[test]'")
    for package in ("engine", "arena"):
        (tmp_path / package).mkdir()
        (tmp_path / package / "__init__.py").write_text("")
        (tmp_path / package / "probe.py").write_text("def untyped(x):\n    return x\n")
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "mypy",
            "--config-file",
            str(ROOT / "pyproject.toml"),
            "--no-incremental",
            "engine/probe.py",
            "arena/probe.py",
        ],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=600,
    )
    errors = [line for line in done.stdout.splitlines() if ": error:" in line]
    assert len(errors) == 1, done.stdout + done.stderr
    assert errors[0].startswith("engine") and "no-untyped-def" in errors[0]
