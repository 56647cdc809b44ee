"""Fixtures for the robustness tests."""

from __future__ import annotations

import shutil
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest


@pytest.fixture
def sock_dir() -> Iterator[Path]:
    """A short private directory for Unix sockets and bot logs: socket paths are limited to
    ~107 bytes, which pytest's tmp_path (named after the test) can exceed."""
    path = Path(tempfile.mkdtemp(prefix="f7r-"))
    try:
        yield path
    finally:
        shutil.rmtree(path, ignore_errors=True)
