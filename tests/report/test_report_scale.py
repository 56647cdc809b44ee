"""The report at ladder scale: incremental re-renders, compact replays, archive pages.

A real ladder of built-in policies (the real ladder runner, matchmaker and match runner)
in a fresh SQLite database per test; the report is rendered, the ladder plays on, the
report is rendered again into the same folder. Which files a render wrote is read from
their modification times, set to a fixed past time before the render.
"""

from __future__ import annotations

import asyncio
import json
import os
import re
import signal
import threading
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import pytest
from htmltree import load
from sqlmodel import Session, select

from arena.bots import Policy
from arena.ladder.runner import LadderConfig, LadderRunner, entry_name, open_ladder
from arena.report import chunks, render_site
from arena.report import site as site_module
from arena.report.site import LiveSite, slug
from arena.store import bots, ladders
from arena.store.db import dispose_all, get_engine
from arena.store.models import Entry, Game, LadderBot, entry_columns

POLICIES = ["ev", "threshold:15", "threshold:21", "threshold:25", "random"]
PAST = 1_000_000_000  # a modification time no render can leave on a file it writes


@pytest.fixture
def ladder_db(tmp_path: Path) -> Any:
    url = f"sqlite:///{tmp_path / 'arena.db'}"
    eng = get_engine(url)
    ladder = open_ladder(eng, LadderConfig(seats=2))
    for i, spec in enumerate(POLICIES):
        bot, version = bots.add_version(eng, f"p{i}", "process", command="unused")
        assert bot.id is not None and version.id is not None
        ladders.admit(
            eng,
            ladder,
            Entry(tournament_id=0, name=entry_name(bot.name, 1), **entry_columns(Policy(spec))),
            LadderBot(ladder_id=0, entry_id=0, bot_id=bot.id, bot_version_id=version.id, version=1),
        )

    def play(n: int) -> None:
        (lad,) = ladders.every(eng)
        run = LadderRunner(eng, lad, concurrency=8, max_games=n, seed=n).run
        # in a thread of its own: a browser test's driver already runs an event loop here
        with ThreadPoolExecutor(1) as pool:
            pool.submit(asyncio.run, run()).result()

    play(12)
    yield url, play
    dispose_all()


def age(out: Path) -> None:
    for p in out.rglob("*"):
        if p.is_file():
            os.utime(p, (PAST, PAST))


def written(out: Path) -> set[str]:
    return {
        p.relative_to(out).as_posix()
        for p in out.rglob("*")
        if p.is_file() and p.stat().st_mtime != PAST
    }


def game_ids(url: str) -> list[int]:
    with Session(get_engine(url)) as s:
        return sorted(g.id for g in s.exec(select(Game)) if g.id is not None)


def test_rendering_again_with_nothing_new_keeps_every_game_page(
    ladder_db: Any, tmp_path: Path
) -> None:
    url, _ = ladder_db
    out = tmp_path / "site"
    first = render_site(url, out)
    age(out)
    second = render_site(url, out)
    ids = game_ids(url)
    assert first.kept == 0 and second.kept == len(ids) == 12
    again = written(out)
    assert not any(r.startswith("game/") for r in again), again  # no game page rewritten
    assert {"index.html", "tournament/1.html"} <= again  # ratings pages are rendered each time


def test_after_more_games_only_the_new_games_and_their_neighbour_are_written(
    ladder_db: Any, tmp_path: Path
) -> None:
    url, play = ladder_db
    out = tmp_path / "site"
    render_site(url, out)
    before = game_ids(url)
    age(out)
    play(5)
    result = render_site(url, out)
    new = sorted(set(game_ids(url)) - set(before))
    assert len(new) == 5
    pages = {r for r in written(out) if r.startswith("game/") and r.endswith(".html")}
    # the old game last in the tournament's order gains a "next game" link to a new one;
    # no other old game's page is written
    old = pages - {f"game/{g}.html" for g in new}
    assert len(old) == 1 and pages >= {f"game/{g}.html" for g in new}, pages
    (link,) = load(out / old.pop()).find_all(id="next-game")
    assert int(re.fullmatch(r"\.\./game/(\d+)\.html", link.get("href") or "").group(1)) in new  # type: ignore[union-attr]
    assert result.kept == len(before) - 1


def test_a_game_whose_stored_faults_change_is_rendered_again(
    ladder_db: Any, tmp_path: Path
) -> None:
    url, _ = ladder_db
    out = tmp_path / "site"
    render_site(url, out)
    gid = game_ids(url)[3]
    with Session(get_engine(url)) as s:
        g = s.get(Game, gid)
        assert g is not None
        g.faults = [{"seat": None, "kind": "ARENA_NOTE", "detail": "re-scored by hand"}]
        s.add(g)
        s.commit()
    age(out)
    render_site(url, out)
    assert f"game/{gid}.html" in written(out)
    assert "re-scored by hand" in (out / "game" / f"{gid}.html").read_text(encoding="utf-8")


def test_a_compact_replay_holds_exactly_what_the_inline_page_holds(
    ladder_db: Any, tmp_path: Path
) -> None:
    url, _ = ladder_db
    inline, compact = tmp_path / "inline", tmp_path / "compact"
    render_site(url, inline, compact=False)
    result = render_site(url, compact, compact=True)
    assert result.compact
    for gid in game_ids(url):
        page = (inline / "game" / f"{gid}.html").read_text(encoding="utf-8")
        packed = chunks.read(compact / chunks.rel(chunks.chunk_of(gid)))[gid]
        entry = chunks.unpack(packed)
        section = re.search(r'<section id="replay".*?</section>', page, re.S)
        assert section is not None
        assert entry["html"].strip() == section.group(0).strip()
        data = re.search(r'<script type="application/json" id="replay-data">(.*?)</script>', page)
        assert data is not None and entry["data"] == json.loads(data.group(1))
        lines = (inline / "game" / f"{gid}.jsonl").read_text(encoding="utf-8").splitlines()
        assert entry["events"] == [json.loads(x) for x in lines]
        shell = load(compact / "game" / f"{gid}.html")
        assert shell.find_all(id="replay-slot") and not shell.find_all(id="replay")
        assert not (compact / "game" / f"{gid}.jsonl").exists()
    files = list((compact / chunks.FOLDER).glob("*.js"))
    assert len(files) == -(-max(game_ids(url)) // chunks.CHUNK)


def test_changing_the_form_or_asking_full_renders_every_page(
    ladder_db: Any, tmp_path: Path
) -> None:
    url, _ = ladder_db
    out = tmp_path / "site"
    render_site(url, out, compact=False)
    switched = render_site(url, out, compact=True)
    assert switched.kept == 0
    assert not list((out / "game").glob("*.jsonl"))  # the inline form's files are gone
    full = render_site(url, out, compact=True, incremental=False)
    assert full.kept == 0 and full.pages == switched.pages


def test_long_lists_go_to_archive_pages_that_hold_every_row_once(
    ladder_db: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(site_module, "LONG", 4)
    monkeypatch.setattr(site_module, "RECENT", 3)
    monkeypatch.setattr(site_module, "PER_PAGE", 5)
    url, play = ladder_db
    out = tmp_path / "site"
    render_site(url, out)
    ids = game_ids(url)  # 12 games, a table each
    main = load(out / "tournament" / "1.html")
    shown = [t.get("data-match") for t in main.find_all("table", cls="match")]
    assert len(shown) == 3  # the most recent tables only
    archive = sorted((out / "tournament").glob("1-tables-*.html"))
    assert [p.name for p in archive] == ["1-tables-1.html", "1-tables-2.html", "1-tables-3.html"]
    held = [t.get("data-match") for p in archive for t in load(p).find_all("table", cls="match")]
    assert len(held) == len(set(held)) == len(ids)
    assert set(shown) <= set(held)
    for gid in ids:  # a game links the archive page that lists its round
        crumbs = load(out / "game" / f"{gid}.html").find("header")
        hrefs = [a.get("href") or "" for a in crumbs.find_all("a")]
        assert any(re.fullmatch(r"\.\./tournament/1-tables-\d\.html#round-\d+", h) for h in hrefs)
    bot_pages = [p for p in (out / "bot").glob("*-games-*.html")]
    assert bot_pages  # some bot played more than LONG games: its games are archived too
    age(out)
    play(3)  # 15 tables: page 3 fills up; pages 1 and 2 are full and unchanged
    render_site(url, out)
    again = written(out)
    assert "tournament/1-tables-3.html" in again
    assert not {"tournament/1-tables-1.html", "tournament/1-tables-2.html"} & again


def test_the_live_site_serves_the_archive_pages(
    ladder_db: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(site_module, "LONG", 4)
    monkeypatch.setattr(site_module, "RECENT", 3)
    monkeypatch.setattr(site_module, "PER_PAGE", 5)
    url, _ = ladder_db
    live = LiveSite(url)
    page = live.render("tournament/1-tables-2.html")
    assert page is not None and "tables 6–10" in page
    name = "p0@v1"
    assert live.render(f"bot/{slug(name)}-games-1.html") is not None
    assert live.render("tournament/1-tables-x.html") is None
    game = live.render(f"game/{game_ids(url)[0]}.html")  # links its round's archive page
    assert game is not None and re.search(r'href="\.\./tournament/1-tables-\d+\.html#round-', game)


def test_a_compact_replay_plays_in_a_browser_from_a_file(
    ladder_db: Any, tmp_path: Path, watched: Any
) -> None:
    url, _ = ladder_db
    out = tmp_path / "site"
    render_site(url, out, compact=True)
    gid = game_ids(url)[5]
    with Session(get_engine(url)) as s:
        game = s.get(Game, gid)
        assert game is not None
        events = list(game.events)
    w = watched()
    page = w.open((out / "game" / f"{gid}.html").resolve().as_uri() + "#step-5")
    page.wait_for_selector("#replay-step")  # the section arrived from the data file
    assert page.text_content("#replay-step").strip() == f"5 / {len(events)}"
    assert page.locator("#events li").count() == len(events)
    page.click("#replay-forward")
    assert page.text_content("#replay-step").strip() == f"6 / {len(events)}"
    assert page.is_visible("#download")
    lines = page.evaluate(
        "() => fetch(document.getElementById('download').href).then(r => r.text())"
    )
    assert [json.loads(x) for x in lines.splitlines()] == events
    assert w.problems == [] and w.dialogs == []


@pytest.mark.parametrize("compact", [False, True], ids=["inline", "compact"])
def test_game_pages_rendered_by_several_processes_equal_those_of_one(
    ladder_db: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, compact: bool
) -> None:
    monkeypatch.setattr(site_module, "LOG_BATCH", 4)  # 12 games: 3 tasks for 2 processes
    url, _ = ladder_db
    one, two = tmp_path / "one", tmp_path / "two"
    a = render_site(url, one, compact=compact, jobs=1)
    b = render_site(url, two, compact=compact, jobs=2)
    assert a.pages == b.pages

    def files(root: Path) -> dict[str, str]:
        stamp = re.compile(r"rendered \d{4}-\d\d-\d\d \d\d:\d\d UTC")
        return {
            p.relative_to(root).as_posix(): stamp.sub("", p.read_text(encoding="utf-8"))
            for p in (root / "game").rglob("*")
            if p.is_file()
        }

    mine, theirs = files(one), files(two)
    assert len(mine) >= 12 and mine == theirs
    manifest = json.loads((two / ".arena-report").read_text(encoding="utf-8"))
    assert set(mine) <= set(manifest["files"])  # the children's files are the site's


@pytest.mark.timeout(120)
def test_forked_renderers_end_even_when_this_process_has_a_signal_handler_that_hangs(
    ladder_db: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A local Ray node started in this process (an event on Ray, then a report) installs
    a SIGTERM handler that waits on Ray's threads. A forked child has none of them: had
    the children inherited it, or been ended by a signal, the render would hang."""
    monkeypatch.setattr(site_module, "LOG_BATCH", 4)
    url, _ = ladder_db
    stuck = threading.Event()

    def hangs(signum: int, frame: Any) -> None:
        stuck.wait()  # nothing sets it: the handler of a thread the fork did not copy

    previous = signal.signal(signal.SIGTERM, hangs)
    try:
        done = render_site(url, tmp_path / "site", jobs=2)
    finally:
        signal.signal(signal.SIGTERM, previous)
    assert done.pages > 12 and len(list((tmp_path / "site" / "game").glob("*.html"))) == 12
