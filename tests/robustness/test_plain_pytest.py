"""The test suite runs with the plain ``pytest`` command, not only ``python -m pytest``.

Before, ``.venv/bin/pytest`` failed to import ``engine``: the folder tests/engine (no
package of its own) shadowed the engine package, which only ``python -m`` (putting the
working directory on sys.path) let through. The repository root is now on pytest's path.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
from robustkit import ROOT

PYTEST = Path(sys.executable).parent / "pytest"
SOME_ENGINE_TESTS = ["tests/engine/test_observation.py", "tests/engine/test_rules_base.py"]


@pytest.mark.parametrize(
    "command", [[str(PYTEST)], [sys.executable, "-m", "pytest"]], ids=["pytest", "python-m"]
)
def test_the_suite_imports_the_engine_under_either_command(command: list[str]) -> None:
    if not Path(command[0]).exists():
        pytest.skip(f"no pytest command next to {sys.executable}")
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    r = subprocess.run(
        [*command, "-q", "-p", "no:cacheprovider", "--collect-only", *SOME_ENGINE_TESTS],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert r.returncode == 0, r.stdout[-3000:] + r.stderr[-3000:]
    assert "error" not in r.stdout.lower(), r.stdout[-3000:]
    assert "tests collected" in r.stdout, r.stdout[-500:]
