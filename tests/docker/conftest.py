"""Fixtures for the Docker runtime tests: a real Docker engine and real images.

* ``docker_engine``: the engine (``docker.from_env().ping()``). Without one the tests skip
  locally; under CI (CI=true) they fail, because CI must test the container runtime.
* ``images``: builds, once per session and through arena.runtime.build, the example bots'
  images and the deliberately misbehaving test bots' images (tests/docker/bots/), all
  tagged ``flip7-test/<name>:latest``. The bots' base image (flip7/python-base:latest) is
  built first with docker/base-image/build.sh if the engine does not have it.
* ``probe_target``: a TCP listener on the host (all addresses) whose port and non-loopback
  address are baked into the probe bot's image, so that the probe tries to reach something
  that really listens.
"""

from __future__ import annotations

import contextlib
import os
import shutil
import socket
import subprocess
import tempfile
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

ROOT = Path(__file__).resolve().parents[2]
EXAMPLES = ROOT / "bots" / "examples" / "python"
TEST_BOTS = Path(__file__).resolve().parent / "bots"
BASE = "flip7/python-base:latest"
UNDER_CI = os.environ.get("CI", "").lower() in ("1", "true", "yes")


def _unavailable(message: str) -> None:
    if UNDER_CI:
        pytest.fail(f"{message} (CI must run the Docker runtime tests)")
    pytest.skip(message)


@pytest.fixture(scope="session")
def docker_engine() -> Any:
    try:
        import docker
    except ImportError:
        _unavailable("the 'docker' Python package is not installed")
    try:
        client = docker.from_env()
        client.ping()
    except Exception as e:
        _unavailable(f"no Docker engine: {e}")
    return client


@dataclass(frozen=True)
class ProbeTarget:
    host: str  # the host's non-loopback address
    port: int
    listener: socket.socket

    def connections(self) -> int:
        """Connections that reached the listener (accepted now, none pending after)."""
        n = 0
        self.listener.setblocking(False)
        while True:
            try:
                conn, _ = self.listener.accept()
            except BlockingIOError:
                return n
            conn.close()
            n += 1


def _host_address() -> str:
    with contextlib.suppress(OSError), socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as s:
        s.connect(("192.0.2.1", 9))  # no packet is sent: this only picks the route
        addr = str(s.getsockname()[0])
        if not addr.startswith("127."):
            return addr
    return "192.0.2.1"


@pytest.fixture(scope="session")
def probe_target() -> Iterator[ProbeTarget]:
    listener = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    listener.bind(("0.0.0.0", 0))
    listener.listen(16)
    try:
        yield ProbeTarget(_host_address(), listener.getsockname()[1], listener)
    finally:
        listener.close()


@pytest.fixture(scope="session")
def images(docker_engine: Any, probe_target: ProbeTarget) -> dict[str, str]:
    """name -> tag of every image the tests use."""
    from arena.runtime.build import build_image

    try:
        docker_engine.images.get(BASE)
    except Exception:
        script = ROOT / "docker" / "base-image" / "build.sh"
        r = subprocess.run(
            ["bash", str(script)], capture_output=True, text=True, timeout=1800, check=False
        )
        if r.returncode != 0:
            _unavailable(f"cannot build {BASE} with {script}:\n{r.stderr[-3000:]}")
    tags: dict[str, str] = {}
    contexts = {name: EXAMPLES / name for name in ("random", "threshold", "ev")}
    contexts |= {
        name: TEST_BOTS / name
        for name in ("probe", "memhog", "forkbomb", "exit-at-start", "bad-entrypoint")
    }
    for name, context in contexts.items():
        args = {}
        if name == "probe":
            args = {"PROBE_PORT": str(probe_target.port), "PROBE_HOST": probe_target.host}
        tag = f"flip7-test/{name}:latest"
        build_image(context, tag, build_args=args)
        tags[name] = tag
    return tags


@pytest.fixture
def sock_dir() -> Iterator[Path]:
    """A short private directory for the gateway's Unix socket, traversable by the bots'
    uid (10001) like the match runner's own."""
    path = Path(tempfile.mkdtemp(prefix="f7d-"))
    os.chmod(path, 0o711)
    try:
        yield path
    finally:
        shutil.rmtree(path, ignore_errors=True)
