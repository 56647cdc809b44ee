"""``arena serve`` for real: the command in a subprocess on a free port, over a database of
the test's own, and participants who sign in over real HTTP (httpx)."""

from __future__ import annotations

import json
import os
import re
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx
from arenacli import ROOT, run_arena


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def wait_for(check: Callable[[], Any], timeout: float, what: str, every: float = 0.1) -> Any:
    """Poll ``check`` until it returns something true; its value. Fails after ``timeout``."""
    deadline = time.monotonic() + timeout
    while True:
        value = check()
        if value:
            return value
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out after {timeout:g} s waiting for {what}")
        time.sleep(every)  # a poll interval with a deadline, not a synchronisation


def add_user(db: str, name: str, *, organiser: bool = False) -> str:
    """``arena user add NAME``: the login token it prints once."""
    args = ["user", "add", name, "--json", "--db", db] + (["--organiser"] if organiser else [])
    r = run_arena(*args)
    assert r.returncode == 0, r.stderr
    return str(json.loads(r.stdout)["token"])


@dataclass
class Server:
    db: str
    port: int
    args: tuple[str, ...] = ()
    env: dict[str, str] = field(default_factory=dict)
    proc: subprocess.Popen[str] | None = None
    log: Path | None = None

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def start(self, timeout: float = 60) -> Server:
        assert self.log is not None
        out = self.log.open("a")
        self.proc = subprocess.Popen(
            [
                sys.executable,
                "-m",
                "arena",
                "serve",
                "--listen",
                f"127.0.0.1:{self.port}",
                "--db",
                self.db,
                *self.args,
            ],
            cwd=ROOT,
            stdout=out,
            stderr=subprocess.STDOUT,
            text=True,
            env={**os.environ, "ARENA_SECRET": "test-secret", **self.env},
        )
        wait_for(self._up, timeout, "the server to answer")
        return self

    def _up(self) -> bool:
        assert self.proc is not None
        if self.proc.poll() is not None:
            raise AssertionError(f"the server exited: {self.output()}")
        try:
            return httpx.get(f"{self.url}/style.css", timeout=2).status_code == 200
        except httpx.HTTPError:
            return False

    def output(self) -> str:
        return self.log.read_text() if self.log and self.log.exists() else ""

    def kill(self) -> None:
        """SIGKILL: no clean-up at all, as a crash."""
        if self.proc is not None and self.proc.poll() is None:
            self.proc.send_signal(signal.SIGKILL)
            self.proc.wait(30)

    def stop(self) -> None:
        if self.proc is not None and self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)
            try:
                self.proc.wait(60)
            except subprocess.TimeoutExpired:
                self.kill()

    def client(self) -> httpx.Client:
        return httpx.Client(base_url=self.url, timeout=600, follow_redirects=False)


CSRF_RE = re.compile(r'name="csrf" value="([^"]+)"')


def csrf_of(html: str) -> str:
    m = CSRF_RE.search(html)
    assert m, "the page carries a CSRF token"
    return m.group(1)


def signed_in(server: Server, token: str) -> httpx.Client:
    """A browser-like client signed in through the form (session cookie)."""
    c = server.client()
    form = c.get("/signin.html")
    assert form.status_code == 200, form.text
    r = c.post("/signin", data={"token": token, "csrf": csrf_of(form.text)})
    assert r.status_code == 303 and r.headers["location"] == "/me.html", r.text
    return c
