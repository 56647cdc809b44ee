"""Fixtures of the robustness suite (helpers: robustkit.py for hostile bots, clikit.py for
the command line).

* ``sock_dir``: a short directory for Unix sockets and bot logs;
* ``isolated`` / ``any_mode``: the process bots' sandbox modes;
* ``workdir``: a fresh, empty working directory (the default database arena.db lives there);
* ``cli(*args)``: ``arena.cli.main`` in this process, in ``workdir``, with stdout and stderr
  captured;
* ``docker_engine``, ``busy_port``.
"""

from __future__ import annotations

import shutil
import socket
import tempfile
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from clikit import Ran
from hostkit import docker_client
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


@pytest.fixture(scope="session")
def docker_engine() -> Any:
    """A real Docker engine; without one the test skips (under CI it fails)."""
    return docker_client("test the container runtime")


@pytest.fixture
def busy_port() -> Iterator[str]:
    """HOST:PORT of a TCP port that another program is listening on."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        s.listen()
        yield f"127.0.0.1:{s.getsockname()[1]}"
