"""Fixtures of the competition server's tests: a served database with participants."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from serverkit import Server, free_port


@pytest.fixture
def serve(tmp_path: Path) -> Iterator[object]:
    """``serve(db, *args)`` starts ``arena serve`` (stopped at the test's end)."""
    started: list[Server] = []

    def start(db: str, *args: str) -> Server:
        s = Server(db, free_port(), args, log=tmp_path / f"server-{len(started)}.log")
        started.append(s)
        return s.start()

    yield start
    for s in started:
        s.stop()


@pytest.fixture(scope="session")
def docker_engine() -> object:
    """The Docker engine with the offline Python base image (skips locally without one;
    fails under CI)."""
    from hostkit import docker_client, with_base_image

    client = docker_client("build uploaded bots")
    with_base_image(client, "build uploaded bots")
    return client
