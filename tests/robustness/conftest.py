"""Fixtures of the robustness suite (helpers: robustkit.py)."""

from __future__ import annotations

import shutil
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest
from robustkit import need_mode

from arena.runtime import sandbox


@pytest.fixture
def sock_dir() -> Iterator[Path]:
    """A short private directory for Unix sockets and bot logs: socket paths are limited to
    ~107 bytes, which pytest's tmp_path (named after the test) can exceed."""
    path = Path(tempfile.mkdtemp(prefix="f7r-"))
    path.chmod(0o755)  # bots may run as users of their own
    try:
        yield path
    finally:
        shutil.rmtree(path, ignore_errors=True)


@pytest.fixture
def isolated() -> sandbox.Sandbox:
    """The arena's own choice must be bubblewrap (the process bots' isolation)."""
    need_mode("bwrap")
    box = sandbox.current()
    assert box.mode == "bwrap", box.describe()
    return box


@pytest.fixture(params=["bwrap", "cgroup", "reaper"])
def any_mode(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> Iterator[str]:
    """Each containment mechanism in turn (forced with ARENA_SANDBOX)."""
    need_mode(request.param)
    monkeypatch.setenv("ARENA_SANDBOX", request.param)
    sandbox.current.cache_clear()
    assert sandbox.current().mode == request.param
    yield request.param
    monkeypatch.delenv("ARENA_SANDBOX")
    sandbox.current.cache_clear()
