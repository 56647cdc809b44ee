"""The type hints are checked: ``mypy arena engine`` is clean under the project's
configuration (pyproject.toml), as the test command runs it: strict for the engine and the
bot protocol (``arena.protocol``), standard for the rest of ``arena``, and nothing checked
in the code that protoc generates."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]

PROBE = """\
def untyped(x):
    return x


def wrong(x: int) -> str:
    return x
"""


def _mypy(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    pytest.importorskip("mypy", reason="mypy comes with the test extra: pip install -e '.[test]'")
    return subprocess.run(
        [sys.executable, "-m", "mypy", *args],
        cwd=cwd,
        capture_output=True,
        text=True,
        timeout=600,
    )


def test_mypy_is_clean_on_the_arena_and_the_engine():
    done = _mypy("arena", "engine", cwd=ROOT)
    assert done.returncode == 0, done.stdout + done.stderr
    assert "Success" in done.stdout


def test_engine_and_protocol_are_strict_the_rest_standard_and_generated_code_ignored(tmp_path):
    """The same module in four places: an untyped function is an error only in the strict
    packages, a wrong return type everywhere but in a generated protobuf module."""
    for package in ("engine", "arena", "arena/protocol"):
        (tmp_path / package).mkdir()
        (tmp_path / package / "__init__.py").write_text("")
    for module in ("engine/probe.py", "arena/probe.py", "arena/protocol/probe.py"):
        (tmp_path / module).write_text(PROBE)
    (tmp_path / "arena/protocol/arena_pb2.py").write_text(PROBE)
    done = _mypy(
        "--config-file",
        str(ROOT / "pyproject.toml"),
        "--no-incremental",
        "engine",
        "arena",
        cwd=tmp_path,
    )
    errors = sorted(
        (line.split(":")[0], line.rsplit("[", 1)[-1].rstrip("]"))
        for line in done.stdout.splitlines()
        if ": error:" in line
    )
    assert errors == [
        ("arena/probe.py", "return-value"),
        ("arena/protocol/probe.py", "no-untyped-def"),
        ("arena/protocol/probe.py", "return-value"),
        ("engine/probe.py", "no-untyped-def"),
        ("engine/probe.py", "return-value"),
    ], done.stdout + done.stderr
