"""Fixtures of the competition server's tests: a served database with participants."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

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


CHROMIUM = Path("/usr/bin/chromium")  # Debian's; never a browser Playwright downloads
CHROMIUM_ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--no-first-run"]


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    """Chromium driven by Playwright, one per test module (skips locally without it;
    fails under CI)."""
    from hostkit import unavailable

    try:
        from playwright.sync_api import sync_playwright
    except ImportError:
        unavailable("playwright is not installed", "run the browser tests")
    if not CHROMIUM.exists():
        unavailable("no /usr/bin/chromium", "run the browser tests")
    with sync_playwright() as p:
        b = p.chromium.launch(executable_path=str(CHROMIUM), args=CHROMIUM_ARGS)
        try:
            yield b
        finally:
            b.close()
