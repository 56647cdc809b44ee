"""Fixtures of the report tests: one real stored event per session (see reportkit), a
headless browser per module and watched pages per test (see browserkit)."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from browserkit import ARGS, CHROMIUM, DESKTOP, Watched, missing
from reportkit import ARTIFACTS, Site, build_site


@pytest.fixture(scope="session")
def site(tmp_path_factory: pytest.TempPathFactory) -> Site:
    return build_site(tmp_path_factory.mktemp("report"))


@pytest.fixture(scope="session")
def artifacts() -> Path:
    """Screenshots are kept here after the run (the folder's contents are ignored by git)."""
    ARTIFACTS.mkdir(exist_ok=True)
    return ARTIFACTS


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    try:
        from playwright.sync_api import sync_playwright
    except ImportError:
        missing("playwright is not installed (pip install playwright)")
    if not CHROMIUM.exists():
        missing("no /usr/bin/chromium (apt-get install -y chromium)")
    with sync_playwright() as p:
        b = p.chromium.launch(executable_path=str(CHROMIUM), args=ARGS)
        try:
            yield b
        finally:
            b.close()


@pytest.fixture
def watched(browser: Any) -> Iterator[Callable[..., Watched]]:
    made: list[Watched] = []

    def make(viewport: dict[str, int] = DESKTOP) -> Watched:
        w = Watched(browser, viewport)
        made.append(w)
        return w

    yield make
    for w in made:
        w.close()
