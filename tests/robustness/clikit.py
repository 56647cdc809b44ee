"""Helpers of the CLI robustness tests: what a careless operator or a hostile input does
to the arena, and what the arena must answer — one clear ``error:`` line, the right exit
status, no traceback, and nothing written that the command did not need.

* ``arena(*args)`` / ``arena_popen(*args)``: the real CLI in a subprocess;
* ``files(path)``: every file and folder under ``path``, to show that nothing was written.
"""

from __future__ import annotations

import contextlib
import os
import sqlite3
import subprocess
import sys
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import IO

from arenacli import run_arena
from sqlalchemy import create_engine, text

ROOT = Path(__file__).resolve().parents[2]
STEADY = Path(__file__).resolve().parent / "bots" / "steady.py"
EX = ROOT / "bots" / "examples" / "python"
A_BOT = f"python3 {EX / 'random' / 'bot.py'}"  # a bot command whose script exists


@dataclass
class Ran:
    code: int
    out: str
    err: str


def one_line_error(r: Ran | subprocess.CompletedProcess[str], code: int) -> str:
    """The run failed with ``code`` and said why in exactly one ``error:`` line."""
    rc = r.code if isinstance(r, Ran) else r.returncode
    err = r.err if isinstance(r, Ran) else r.stderr
    assert rc == code, f"exit {rc}, expected {code}; stderr: {err!r}"
    assert "Traceback" not in err, err
    lines = [ln for ln in err.splitlines() if ln.strip()]
    assert len(lines) == 1, f"expected one line on stderr, got: {err!r}"
    assert lines[0].startswith("error: "), lines[0]
    return lines[0]


def files(path: Path) -> set[str]:
    """Everything under ``path`` (files and folders), relative."""
    return {str(p.relative_to(path)) for p in path.rglob("*")}


_DROPPED = ("ARENA_DB", "ARENA_DB_RETRY")  # a test names its database itself


def _env(extra: dict[str, str] | None = None) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k not in _DROPPED}
    env.update({"COLUMNS": "200", "ARENA_LOG": "WARNING", **(extra or {})})
    return env


def arena(
    *args: str, cwd: Path | None = None, env: dict[str, str] | None = None, timeout: float = 300
) -> subprocess.CompletedProcess[str]:
    """The real CLI in a subprocess."""
    extra = {"ARENA_LOG": "WARNING", **(env or {})}
    return run_arena(*args, env=extra, drop=_DROPPED, cwd=cwd, timeout=timeout)


def arena_popen(
    *args: str, cwd: Path | None = None, env: dict[str, str] | None = None
) -> subprocess.Popen[str]:
    """The real CLI, started in the background (stdout and stderr piped)."""
    return subprocess.Popen(
        [sys.executable, "-m", "arena", *args],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        cwd=cwd or ROOT,
        env=_env(env),
    )


def steady_event(rounds: int = 8, games: int = 2) -> list[str]:
    """A tournament that lasts several seconds and stores a match every fraction of one:
    two honest process bots that take a little time per decision and two built-ins."""
    return [
        "tournament",
        "--format",
        "swiss",
        "--seats",
        "2",
        "--rounds",
        str(rounds),
        "--games",
        str(games),
        "--concurrency",
        "2",
        "--seed",
        "5",
        "--bots",
        f"steady={sys.executable} {STEADY}",
        "--bots",
        f"steady2={sys.executable} {STEADY}",
        "--bots",
        "builtin:ev",
        "--bots",
        "builtin:threshold:21",
        "--no-report",
    ]


def wait_for(condition: Callable[[], object], timeout: float, what: str) -> object:
    """Poll ``condition`` until it returns something true; fail after ``timeout`` s."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        value = condition()
        if value:
            return value
        time.sleep(0.05)  # polling a real condition, not waiting for luck
    raise AssertionError(f"timed out after {timeout:g} s waiting for {what}")


def count_games(url: str) -> int:
    """Games stored so far (read on a connection of its own, closed at once; a SQLite
    file is opened read-only, so that polling never creates it)."""
    if url.startswith("sqlite:///"):
        path = url.removeprefix("sqlite:///")
        try:
            with contextlib.closing(sqlite3.connect(f"file:{path}?mode=ro", uri=True)) as c:
                return int(c.execute("SELECT count(*) FROM game").fetchone()[0])
        except sqlite3.Error:
            return 0  # not created yet
    eng = create_engine(url)
    try:
        with eng.connect() as c:
            return int(c.execute(text("SELECT count(*) FROM game")).scalar_one())
    except Exception:
        return 0  # not created yet
    finally:
        eng.dispose()


class Lines:
    """Collects a process's stderr line by line in the background."""

    def __init__(self, stream: IO[str]) -> None:
        self.lines: list[str] = []
        self._lock = threading.Lock()
        self._thread = threading.Thread(target=self._read, args=(stream,), daemon=True)
        self._thread.start()

    def _read(self, stream: IO[str]) -> None:
        for line in stream:
            with self._lock:
                self.lines.append(line.rstrip("\n"))

    def has(self, text_: str) -> bool:
        with self._lock:
            return any(text_ in ln for ln in self.lines)

    def text(self) -> str:
        self._thread.join(timeout=10)
        with self._lock:
            return "\n".join(self.lines)


def final_error(stderr: str) -> str:
    """A run that failed after it had started: notes may come first, but the output ends
    with exactly one ``error:`` line and holds no traceback."""
    assert "Traceback" not in stderr, stderr
    lines = [ln for ln in stderr.splitlines() if ln.strip()]
    errors = [ln for ln in lines if ln.startswith("error:")]
    assert len(errors) == 1 and lines[-1] == errors[0], stderr
    return errors[0]
