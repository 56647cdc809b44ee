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

import os
import shutil
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from hostkit import HostListener, docker_client, host_address, host_listener, with_base_image

ROOT = Path(__file__).resolve().parents[2]
EXAMPLES = ROOT / "bots" / "examples" / "python"
TEST_BOTS = Path(__file__).resolve().parent / "bots"
DUTY = "run the Docker runtime tests"


@pytest.fixture(scope="session")
def docker_engine() -> Any:
    return docker_client(DUTY)


@pytest.fixture(scope="session")
def probe_target() -> Iterator[HostListener]:
    # without a non-loopback address the probe aims at a documentation address (TEST-NET)
    with host_listener(host_address() or "192.0.2.1") as listener:
        yield listener


@pytest.fixture(scope="session")
def images(docker_engine: Any, probe_target: HostListener) -> dict[str, str]:
    """name -> tag of every image the tests use."""
    from arena.runtime.build import build_image

    with_base_image(docker_engine, DUTY)
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
