"""Fixtures of the robustness suite (helpers: robustkit.py).

* ``workdir``: a fresh, empty working directory (the default database arena.db lives there);
* ``cli(*args)``: ``arena.cli.main`` in this process, in ``workdir``, with stdout and stderr
  captured.
"""

from __future__ import annotations

import os
import socket
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from robustkit import Ran


@pytest.fixture
def workdir(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A fresh, empty working directory; the default database is arena.db in it."""
    work = tmp_path / "work"
    work.mkdir()
    monkeypatch.chdir(work)
    monkeypatch.delenv("ARENA_DB", raising=False)
    monkeypatch.delenv("ARENA_DB_RETRY", raising=False)
    monkeypatch.setenv("COLUMNS", "200")
    return work


@pytest.fixture
def cli(workdir: Path, capsys: pytest.CaptureFixture[str]) -> Iterator[Callable[..., Ran]]:
    """Run ``arena ARGS`` in this process; returns exit status, stdout and stderr."""
    from arena.cli import main
    from arena.store.db import dispose_all

    def run(*args: str) -> Ran:
        capsys.readouterr()
        code = main(list(args))
        captured = capsys.readouterr()
        return Ran(code, captured.out, captured.err)

    yield run
    dispose_all()


UNDER_CI = os.environ.get("CI", "").lower() in ("1", "true", "yes")


@pytest.fixture(scope="session")
def docker_engine() -> Any:
    """A real Docker engine; without one the test skips (under CI it fails)."""
    try:
        import docker

        client = docker.from_env()
        client.ping()
    except Exception as e:
        if UNDER_CI:
            pytest.fail(f"no Docker engine: {e} (CI must test the container runtime)")
        pytest.skip(f"no Docker engine: {e}")
    return client


@pytest.fixture
def busy_port() -> Iterator[str]:
    """HOST:PORT of a TCP port that another program is listening on."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        s.listen()
        yield f"127.0.0.1:{s.getsockname()[1]}"
