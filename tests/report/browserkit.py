"""Shared by the browser tests of the report: Debian's chromium driven by Playwright.

Never ``playwright install``: the browser is the system's /usr/bin/chromium. Pages are
opened from ``file://``; a :class:`Watched` page records console errors, page errors,
failed requests and dialogs, which no page may have. The fixtures ``browser`` and
``watched`` (conftest) give a browser per module and watched pages per test.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, NoReturn

import pytest
from hostkit import UNDER_CI
from reportkit import Site
from sqlmodel import Session, select

from arena.store.db import get_engine
from arena.store.models import Game

CHROMIUM = Path("/usr/bin/chromium")
ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
]
PHONE = {"width": 390, "height": 844}
DESKTOP = {"width": 1280, "height": 900}


def missing(reason: str) -> NoReturn:
    if UNDER_CI:
        pytest.fail(f"{reason}: CI must run the browser tests")
    pytest.skip(reason)


class Watched:
    """A page whose console errors, page errors, failed requests and dialogs are recorded."""

    def __init__(self, browser: Any, viewport: dict[str, int]) -> None:
        self.context = browser.new_context(viewport=viewport)
        self.page = self.context.new_page()
        self.problems: list[str] = []
        self.dialogs: list[str] = []
        self.page.on(
            "console",
            lambda m: (
                self.problems.append(f"console {m.type}: {m.text}")
                if m.type in ("error", "warning")
                else None
            ),
        )
        self.page.on("pageerror", lambda e: self.problems.append(f"page error: {e}"))
        self.page.on("requestfailed", lambda r: self.problems.append(f"request failed: {r.url}"))

        def on_dialog(d: Any) -> None:
            self.dialogs.append(d.message)
            d.dismiss()

        self.page.on("dialog", on_dialog)

    def open(self, url: str) -> Any:
        self.page.goto(url)
        self.page.wait_for_load_state("load")
        return self.page

    def close(self) -> None:
        self.context.close()


def url_of(site: Site, rel: str) -> str:
    return (site.out / rel).resolve().as_uri()


def a_game(site: Site, tid: int) -> Game:
    """The game of the event with the most events (the richest replay)."""
    with Session(get_engine(site.url)) as s:
        games = list(s.exec(select(Game).where(Game.tournament_id == tid)))
    return max(games, key=lambda g: len(g.events))


def shot(page: Any, artifacts: Path, name: str) -> Path:
    path = artifacts / f"{name}.png"
    page.screenshot(path=str(path), full_page=True)
    print(f"screenshot: {path}")
    return path
