"""What the build-sandbox tests share: a real Docker engine with the offline Python base, a
TCP listener for a build step to reach for, and a look for anything a build left behind.

Without a Docker engine the tests skip locally and fail under CI (CI=true), like the
Docker runtime tests (tests/docker/conftest.py); the base image is built offline with
docker/base-image/build.sh when the engine lacks it.
"""

from __future__ import annotations

import contextlib
import os
import socket
import subprocess
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

ROOT = Path(__file__).resolve().parents[2]
BASE = "flip7/python-base:latest"
UNDER_CI = os.environ.get("CI", "").lower() in ("1", "true", "yes")


def unavailable(message: str) -> None:
    if UNDER_CI:
        pytest.fail(f"{message} (CI must run the build sandbox tests)")
    pytest.skip(message)


@pytest.fixture(scope="session")
def engine() -> Any:
    """The Docker engine, with the offline Python base image in it."""
    try:
        import docker

        client = docker.from_env()
        client.ping()
    except Exception as e:
        unavailable(f"no Docker engine: {e}")
    try:
        client.images.get(BASE)
    except Exception:
        script = ROOT / "docker" / "base-image" / "build.sh"
        r = subprocess.run(
            ["bash", str(script)], capture_output=True, text=True, timeout=1800, check=False
        )
        if r.returncode != 0:
            unavailable(f"cannot build {BASE} with {script}:\n{r.stderr[-3000:]}")
    return client


@dataclass(frozen=True)
class Listener:
    host: str  # the machine's non-loopback address
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


def _host_address() -> str:
    with contextlib.suppress(OSError), socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as s:
        s.connect(("192.0.2.1", 9))  # picks the route; no packet is sent
        addr = str(s.getsockname()[0])
        if not addr.startswith("127."):
            return addr
    pytest.skip("this machine has no non-loopback address to listen on")


@pytest.fixture
def listener() -> Iterator[Listener]:
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    sock.bind(("0.0.0.0", 0))
    sock.listen(16)
    try:
        yield Listener(_host_address(), sock.getsockname()[1], sock)
    finally:
        sock.close()


def context(tmp: Path, dockerfile: str, files: dict[str, bytes] | None = None) -> Path:
    """A build context: the Dockerfile and the given files."""
    tmp.mkdir(parents=True, exist_ok=True)
    (tmp / "Dockerfile").write_text(dockerfile)
    for name, data in (files or {}).items():
        (tmp / name).write_bytes(data)
    return tmp


def leftovers(client: Any, marker: str) -> list[str]:
    """Containers and images whose command mentions ``marker``: what a build of a
    Dockerfile carrying it left behind (none after a failed or stopped build)."""
    api = client.api
    found = []
    for c in api.containers(all=True):
        if marker in " ".join(str(x) for x in (c.get("Command"), c.get("Names"))):
            found.append(f"container {c['Id'][:12]} ({c.get('State')})")
    for img in api.images(all=True):
        with contextlib.suppress(Exception):
            info = api.inspect_image(img["Id"])
            cmds = [
                (info.get("ContainerConfig") or {}).get("Cmd"),
                (info.get("Config") or {}).get("Cmd"),
            ]
            if any(marker in " ".join(c or []) for c in cmds):
                found.append(f"image {img['Id'][7:19]} {img.get('RepoTags')}")
    return found
