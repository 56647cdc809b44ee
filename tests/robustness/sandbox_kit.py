"""What the build-sandbox tests share: a real Docker engine with the offline Python base, a
TCP listener for a build step to reach for, and a look for anything a build left behind.

Without a Docker engine the tests skip locally and fail under CI (CI=true), like the
Docker runtime tests (tests/docker/conftest.py); the base image is built offline with
docker/base-image/build.sh when the engine lacks it.
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from hostkit import BASE, HostListener, docker_client, host_address, host_listener, with_base_image
from hostkit import unavailable as _unavailable

DUTY = "run the build sandbox tests"
Listener = HostListener

__all__ = ["BASE", "Listener", "context", "engine", "leftovers", "listener", "unavailable"]


def unavailable(message: str) -> None:
    _unavailable(message, DUTY)


@pytest.fixture(scope="session")
def engine() -> Any:
    """The Docker engine, with the offline Python base image in it."""
    client = docker_client(DUTY)
    with_base_image(client, DUTY)
    return client


@pytest.fixture
def listener() -> Iterator[HostListener]:
    host = host_address()
    if host is None:
        pytest.skip("this machine has no non-loopback address to listen on")
    with host_listener(host) as found:
        yield found


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
