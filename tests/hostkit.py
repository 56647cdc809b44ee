"""What the integration tests need of this machine, shared by every test folder.

* ``UNDER_CI``: the run is CI's (CI=true), where a missing service fails instead of
  skipping: CI must run every test;
* ``unavailable(message, duty)``: skip for a missing service, or fail under CI;
* ``lab_package(name)``: a package of the ``lab`` extra (pettingzoo, pyspiel), imported, or
  skip (fail under CI);
* ``docker_client(duty)``: a real Docker engine; ``with_base_image(client, duty)`` builds
  the offline bot base image with docker/base-image/build.sh when the engine lacks it;
* ``host_listener(host)``: a TCP listener on every address of the machine, to show that a
  bot or a build step did (or did not) reach the host; ``host_address()`` is its
  non-loopback address.

The root conftest puts this folder on the import path, so any test imports it by name.
"""

from __future__ import annotations

import contextlib
import os
import socket
import subprocess
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any, NoReturn

import pytest

ROOT = Path(__file__).resolve().parents[1]
BASE = "flip7/python-base:latest"
UNDER_CI = os.environ.get("CI", "").lower() in ("1", "true", "yes")


def unavailable(message: str, duty: str) -> NoReturn:
    """Skip for a missing service; under CI fail, saying what CI must do (``duty``)."""
    if UNDER_CI:
        pytest.fail(f"{message} (CI must {duty})")
    pytest.skip(message)


def lab_package(name: str) -> Any:
    """The module ``name`` of the ``lab`` extra, or skip the test module that asks (at its
    top, before it imports what needs the package); under CI, fail."""
    import importlib

    try:
        return importlib.import_module(name)
    except ImportError:
        message = f"{name!r} is not installed"
        if UNDER_CI:
            pytest.fail(f"{message} (CI must install the lab extra: pip install '.[test,lab]')")
        pytest.skip(message, allow_module_level=True)


def docker_client(duty: str) -> Any:
    """The Docker engine (``docker.from_env()``, pinged), or skip (fail under CI)."""
    try:
        import docker
    except ImportError:
        unavailable("the 'docker' Python package is not installed", duty)
    try:
        client = docker.from_env()
        client.ping()
    except Exception as e:
        unavailable(f"no Docker engine: {e}", duty)
    return client


def with_base_image(client: Any, duty: str) -> None:
    """Make sure the engine has the bots' base image, building it offline if needed."""
    try:
        client.images.get(BASE)
    except Exception:
        script = ROOT / "docker" / "base-image" / "build.sh"
        r = subprocess.run(
            ["bash", str(script)], capture_output=True, text=True, timeout=1800, check=False
        )
        if r.returncode != 0:
            unavailable(f"cannot build {BASE} with {script}:\n{r.stderr[-3000:]}", duty)


@dataclass(frozen=True)
class HostListener:
    host: str  # the machine's address that others are told to reach
    port: int
    sock: socket.socket

    def connections(self) -> int:
        """Connections that reached the listener so far (each accepted and closed)."""
        n = 0
        self.sock.setblocking(False)
        while True:
            try:
                conn, _ = self.sock.accept()
            except BlockingIOError:
                return n
            conn.close()
            n += 1


def host_address() -> str | None:
    """The machine's non-loopback IPv4 address, None if it has none."""
    with contextlib.suppress(OSError), socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as s:
        s.connect(("192.0.2.1", 9))  # no packet is sent: this only picks the route
        addr = str(s.getsockname()[0])
        if not addr.startswith("127."):
            return addr
    return None


@contextlib.contextmanager
def host_listener(host: str) -> Iterator[HostListener]:
    """A listener on every address of the machine, announced as ``host``."""
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    sock.bind(("0.0.0.0", 0))
    sock.listen(16)
    try:
        yield HostListener(host, sock.getsockname()[1], sock)
    finally:
        sock.close()
