"""The site in a real headless browser: Debian's chromium driven by Playwright.

Never ``playwright install``: the browser is the system's /usr/bin/chromium. The pages are
opened from ``file://`` (and once from a local web server); no page may log a console
error, fail a request or open a dialog. Screenshots are kept in tests/report/artifacts.
"""

from __future__ import annotations

import functools
import http.server
import json
import threading
from pathlib import Path
from typing import Any

import pytest
from browserkit import DESKTOP, PHONE, a_game, shot, url_of
from reportkit import XSS, Site
from sqlmodel import Session

from arena.report.replay import build_replay
from arena.report.site import slug
from arena.store.db import get_engine
from arena.store.models import Tournament


# ---------------------------------------------------------------- pages
def test_index_tournament_bot_and_replay_pages_load_cleanly(
    site: Site, watched: Any, artifacts: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    game = a_game(site, site.swiss)
    targets = {
        "index": "index.html",
        "tournament": f"tournament/{site.swiss}.html",
        "bot": f"bot/{slug('ev')}.html",
        "replay": f"game/{game.id}.html",
    }
    saved = []
    for label, viewport in (("desktop", DESKTOP), ("phone", PHONE)):
        w = watched(viewport)
        for name, rel in targets.items():
            page = w.open(url_of(site, rel))
            assert page.title().endswith("Flip 7 Arena")
            if name == "replay":
                for _ in range(12):
                    page.click("#replay-forward")
            # readable on a phone: the page itself never scrolls sideways (tables do)
            overflow = page.evaluate(
                "document.documentElement.scrollWidth - document.documentElement.clientWidth"
            )
            assert overflow <= 1, (label, name, overflow)
            saved.append(shot(page, artifacts, f"{name}-{label}"))
        assert w.problems == [], w.problems
        assert w.dialogs == []
    with capsys.disabled():
        print("\nreport screenshots:\n  " + "\n  ".join(str(p) for p in saved))
    assert all(p.stat().st_size > 1000 for p in saved)


def test_replay_buttons_step_through_the_engines_states(
    site: Site, watched: Any, artifacts: Path
) -> None:
    game = a_game(site, site.brutal)
    with Session(get_engine(site.url)) as s:
        t = s.get(Tournament, site.brutal)
    assert t is not None
    replay = build_replay(
        game.variant, t.brutal, len(game.seating), game.seed, game.choices, game.events
    )
    assert replay.states is not None
    n = len(game.events)
    w = watched()
    page = w.open(url_of(site, f"game/{game.id}.html"))

    def shown() -> dict[str, Any]:
        return page.evaluate(
            """() => ({
              step: document.getElementById('replay-step').textContent,
              event: document.getElementById('replay-event').textContent,
              lines: Array.from(document.querySelectorAll('#table-state tbody tr')).map(tr =>
                Array.from(tr.querySelectorAll('.st-line .card')).map(c => c.dataset.label)),
              totals: Array.from(document.querySelectorAll('#table-state .st-total')).map(td =>
                Number(td.textContent)),
              discard: Array.from(document.querySelectorAll('#replay-discard .card')).map(c =>
                c.dataset.label),
              deck: document.getElementById('replay-deck').textContent,
              current: (document.querySelector('#events li.current') || {}).textContent || null,
            })"""
        )

    def expected(pos: int) -> dict[str, Any]:
        st = replay.initial if pos == 0 else replay.states[pos - 1]  # type: ignore[index]
        assert st is not None
        return {
            "lines": [list(s[0]) for s in st.seats],
            "totals": [s[3] for s in st.seats],
            "discard": list(st.discard),
            "deck": st.deck,
        }

    def check(pos: int) -> dict[str, Any]:
        got = shown()
        want = expected(pos)
        assert got["step"] == f"{pos} / {n}"
        assert got["lines"] == want["lines"], pos
        assert got["totals"] == want["totals"], pos
        assert got["discard"] == want["discard"], pos
        assert got["deck"].split()[0] == str(want["deck"])
        if pos:
            items = page.locator("#events li")
            assert got["current"] == items.nth(pos - 1).text_content()
            assert got["event"] == got["current"]
        return got

    start = check(0)
    assert page.is_disabled("#replay-back") and page.is_enabled("#replay-forward")
    for pos in range(1, 16):
        page.click("#replay-forward")
        check(pos)
    after = shown()
    assert after["lines"] != start["lines"], "going forward changed the table"
    for pos in range(14, 9, -1):
        page.click("#replay-back")
        check(pos)
    page.click("#replay-next-round")
    first_of_round_2 = next(
        k + 1 for k, e in enumerate(game.events) if e["kind"] == "round_start" and e["round"] == 2
    )
    check(first_of_round_2)
    page.keyboard.press("ArrowRight")
    check(first_of_round_2 + 1)
    page.click("#replay-last")
    last = check(n)
    assert last["totals"] == game.totals
    assert page.is_disabled("#replay-forward")
    page.locator("#events li").nth(40).click()
    check(41)
    page.fill("#replay-slider", "7")
    check(7)
    page.click("#replay-first")
    check(0)
    shot(page, artifacts, "replay-steps")
    assert w.problems == []


def test_links_resolve_when_browsing_the_site(site: Site, watched: Any) -> None:
    w = watched()
    page = w.open(url_of(site, "index.html"))
    page.click(f'table.tournaments a[href="tournament/{site.swiss}.html"] >> nth=0')
    page.wait_for_load_state("load")
    assert page.url.endswith(f"/tournament/{site.swiss}.html")
    assert page.locator("#standings-table tbody tr").count() == 6
    page.locator("table.match td.result a").first.click()
    page.wait_for_load_state("load")
    assert "/game/" in page.url
    assert page.locator("#table-state").count() == 1
    href = page.get_attribute("#download", "href")
    assert href is not None and (Path(page.url.removeprefix("file://")).parent / href).is_file()
    page.locator("#result td.bot a").first.click()
    page.wait_for_load_state("load")
    assert "/bot/" in page.url
    name = page.locator("h1").text_content()
    page.locator("table.by-tournament a").first.click()
    page.wait_for_load_state("load")
    assert "/tournament/" in page.url
    assert page.locator(f'#standings-table tr[data-bot="{name}"]').count() == 1
    page.click("header.top a.home")
    page.wait_for_load_state("load")
    assert page.url.endswith("/index.html")
    assert w.problems == []


def test_a_bot_named_like_a_script_shows_as_text(site: Site, watched: Any) -> None:
    w = watched()
    for rel in ("index.html", f"bot/{slug(XSS)}.html", f"tournament/{site.brutal}.html"):
        page = w.open(url_of(site, rel))
        assert page.get_by_text(XSS, exact=True).count() >= 1
    page = w.open(url_of(site, f"bot/{slug(XSS)}.html"))
    assert page.locator("h1").text_content() == XSS
    assert page.evaluate("typeof window.alert") == "function"
    assert w.dialogs == [], "no script ran"
    assert w.problems == []


class _Quiet(http.server.SimpleHTTPRequestHandler):
    def log_message(self, *args: Any) -> None:
        pass


def test_the_site_also_works_from_a_web_server(site: Site, watched: Any) -> None:
    handler = functools.partial(_Quiet, directory=str(site.out))
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        base = f"http://127.0.0.1:{server.server_address[1]}"
        w = watched(PHONE)
        game = a_game(site, site.faulty)
        page = w.open(f"{base}/game/{game.id}.html")
        page.click("#replay-forward")
        assert page.text_content("#replay-step") == f"1 / {len(game.events)}"
        text = page.evaluate(
            "async () => (await (await fetch(document.getElementById('download').href)).text())"
        )
        assert [json.loads(x) for x in text.splitlines()] == game.events
        w.open(f"{base}/index.html")
        assert w.problems == []
    finally:
        server.shutdown()
        server.server_close()
        thread.join()
