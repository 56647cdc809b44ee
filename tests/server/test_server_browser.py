"""The competition server in a real headless browser (Debian's chromium driven by
Playwright, as the report's browser tests): a participant signs in, uploads the Python
example bot as an archive, is answered at once with its build page, sees it build live
and pass the check; the organiser starts an
event with it, and the open leaderboard shows the bot without a reload. Every page is
screenshotted at desktop and phone size (into $ARENA_SCREENSHOTS, default the test's
temporary folder); the time from the upload to the bot's first stored game is printed."""

from __future__ import annotations

import contextlib
import os
import re
import tarfile
import time
import uuid
from pathlib import Path
from typing import Any

import httpx
import pytest
from serverkit import add_user, wait_for
from sqlalchemy import create_engine, text

from arena.report.site import slug

ROOT = Path(__file__).resolve().parents[2]
EV = ROOT / "bots" / "examples" / "python" / "ev"
PHONE = {"width": 390, "height": 844}
DESKTOP = {"width": 1280, "height": 900}


class Watched:
    """A page whose console errors, page errors and failed requests are recorded (the
    live stream cut by leaving a page is no failure)."""

    def __init__(self, browser: Any, viewport: dict[str, int]) -> None:
        self.context = browser.new_context(viewport=viewport)
        self.page = self.context.new_page()
        self.problems: list[str] = []
        self.page.on(
            "console",
            lambda m: (
                self.problems.append(f"console {m.type}: {m.text}") if m.type == "error" else None
            ),
        )
        self.page.on("pageerror", lambda e: self.problems.append(f"page error: {e}"))
        self.page.on(
            "requestfailed",
            lambda r: (
                None if "/api/stream" in r.url else self.problems.append(f"request failed: {r.url}")
            ),
        )


def kit_archive(path: Path) -> Path:
    with tarfile.open(path, "w:gz") as tar:
        tar.add(EV, arcname="ev")
    return path


def shoot(page: Any, folder: Path, name: str) -> Path:
    path = folder / f"{name}.png"
    page.screenshot(path=str(path), full_page=True)
    return path


@pytest.mark.timeout(1200)
def test_sign_in_upload_see_it_pass_and_the_leaderboard_update_without_reload(
    tmp_path: Path, serve: Any, browser: Any, docker_engine: Any, capsys: pytest.CaptureFixture[str]
) -> None:
    screens = Path(os.environ.get("ARENA_SCREENSHOTS") or tmp_path / "screens")
    screens.mkdir(parents=True, exist_ok=True)
    db = f"sqlite:///{tmp_path / 'arena.db'}"
    alice = add_user(db, "alice")
    org = add_user(db, "org", organiser=True)
    server = serve(db)
    name = f"ev-{uuid.uuid4().hex[:6]}"
    archive = kit_archive(tmp_path / "ev.tar.gz")

    w = Watched(browser, DESKTOP)
    page = w.page
    page.goto(f"{server.url}/index.html")  # a private site: sent to sign in
    assert page.url.endswith("/signin.html")
    shoot(page, screens, "signin-desktop")
    page.fill("input[name=token]", alice)
    page.click("#signin-form button")
    page.wait_for_url("**/me.html")
    assert page.locator("#me").inner_text() == "alice"

    page.fill("#upload-form input[name=name]", name)
    page.set_input_files("#upload-form input[name=file]", str(archive))
    t0 = time.monotonic()
    page.click("#upload-form button")
    page.wait_for_url("**/build/*.html", timeout=60_000)
    answered = time.monotonic() - t0
    build_page = page.url.removeprefix(server.url + "/")
    # the upload is answered at once: its build page follows the build live, without a
    # reload, until the build ends (then the page loads its outcome)
    assert page.locator("#build-status").inner_text() in ("queued", "building"), page.content()
    page.evaluate("window.notReloaded = true")
    page.wait_for_selector("#build-log:has-text('check: ')", timeout=300_000)
    assert "Step 1/" in page.locator("#build-log").inner_text()  # the owner sees the log
    assert page.locator("#build-status").inner_text() == "building"
    assert page.evaluate("window.notReloaded") is True
    shoot(page, screens, "build-live-desktop")
    page.wait_for_selector("#build-status.status-passed", timeout=900_000)
    uploaded = time.monotonic() - t0
    assert page.locator("#cancel-form").count() == 0
    assert "compliance checks" in page.locator("#build-detail").inner_text()
    assert "Step 1/" in page.locator("#build-log").inner_text()  # the owner sees the log
    shoot(page, screens, "build-desktop")

    page.goto(f"{server.url}/index.html")
    assert page.locator(f'tr[data-bot^="{name}"]').count() == 0
    page.evaluate("window.notReloaded = true")
    auth = {"authorization": f"Bearer {org}"}
    event = {"bots": [name, "builtin:ev"], "seats": 2, "rounds": 2, "games": 4}
    r = httpx.post(f"{server.url}/api/tournaments", json=event, headers=auth, timeout=60)
    assert r.status_code == 201, r.text
    tid = r.json()["id"]

    def first_game() -> bool:
        p = httpx.get(f"{server.url}/api/tournaments/{tid}", headers=auth, timeout=30).json()
        return p["games_done"] > 0

    wait_for(first_game, 300, "the uploaded bot's first game", every=0.05)
    to_first_game = time.monotonic() - t0
    # the open leaderboard shows the new bot by itself: no reload (the marker survives)
    page.wait_for_selector(f'table.leaderboard tr[data-bot="{name}@v1"]', timeout=120_000)
    assert page.evaluate("window.notReloaded") is True
    wait_for(
        lambda: (
            httpx.get(f"{server.url}/api/tournaments/{tid}", headers=auth).json()["status"]
            == "completed"
        ),
        300,
        "the event to finish",
    )

    # every page, at desktop and phone size
    eng = create_engine(db)
    with eng.connect() as c:
        gid = c.execute(text("SELECT min(id) FROM game WHERE tournament_id = :t"), {"t": tid})
        gid = gid.scalar_one()
    eng.dispose()
    pages = {
        "index": "index.html",
        "tournament": f"tournament/{tid}.html",
        "bot": f"bot/{slug(name + '@v1')}.html",
        "replay": f"game/{gid}.html",
        "me": "me.html",
        "build": build_page,
    }
    saved = []
    for label, viewport in (("desktop", DESKTOP), ("phone", PHONE)):
        v = Watched(browser, viewport)
        v.page.goto(f"{server.url}/signin.html")
        v.page.fill("input[name=token]", alice)
        v.page.click("#signin-form button")
        v.page.wait_for_url("**/me.html")
        for key, rel in pages.items():
            v.page.goto(f"{server.url}/{rel}")
            assert v.page.title().endswith("Flip 7 Arena"), rel
            overflow = v.page.evaluate(
                "document.documentElement.scrollWidth - document.documentElement.clientWidth"
            )
            assert overflow <= 1, (label, key, overflow)
            saved.append(shoot(v.page, screens, f"{key}-{label}"))
        assert v.problems == [], v.problems
        v.context.close()
    assert w.problems == [], w.problems
    w.context.close()
    with capsys.disabled():
        print(
            f"\nupload answered: {answered:.1f} s; upload to registered: {uploaded:.1f} s; "
            f"upload to first game: "
            f"{to_first_game:.1f} s\nscreenshots in {screens}:\n  "
            + "\n  ".join(p.name for p in saved)
        )
    import docker.errors

    from arena.registry import latest

    found = latest(db, name)
    assert found is not None and found[1].image == f"flip7-bot/bot-{found[0].id}:v1"
    with contextlib.suppress(docker.errors.ImageNotFound):  # an identical build's, gone
        docker_engine.api.remove_image(found[1].image, force=True)  # its tag: others stay


def _tar_gz(path: Path, dockerfile: str) -> Path:
    import io

    data = dockerfile.encode()
    with tarfile.open(path, "w:gz") as tar:
        info = tarfile.TarInfo("Dockerfile")
        info.size = len(data)
        tar.addfile(info, io.BytesIO(data))
    return path


@pytest.mark.timeout(900)
def test_a_queued_build_shows_its_place_and_is_cancelled_from_its_page(
    tmp_path: Path, serve: Any, browser: Any, docker_engine: Any
) -> None:
    """One builder, busy with the participant's slow build: the next upload's page says
    it is queued (number 1), its Cancel button cancels it; then the running one's page
    follows its log live and its Cancel button stops it."""
    screens = Path(os.environ.get("ARENA_SCREENSHOTS") or tmp_path / "screens")
    screens.mkdir(parents=True, exist_ok=True)
    db = f"sqlite:///{tmp_path / 'arena.db'}"
    alice = add_user(db, "alice")
    server = serve(db, "--builds", "1")
    mark = uuid.uuid4().hex[:8]
    slow = _tar_gz(
        tmp_path / "slow.tar.gz",
        f"FROM flip7/python-base:latest\nRUN echo start-{mark}\n"
        "RUN for i in $(seq 1 300); do echo tick-$i; sleep 1; done\n",
    )
    quick = _tar_gz(tmp_path / "quick.tar.gz", f"FROM flip7/python-base:latest\nRUN echo {mark}\n")

    w = Watched(browser, DESKTOP)
    page = w.page
    page.goto(f"{server.url}/signin.html")
    page.fill("input[name=token]", alice)
    page.click("#signin-form button")
    page.wait_for_url("**/me.html")

    def upload(name: str, archive: Path) -> str:
        page.goto(f"{server.url}/me.html")
        page.fill("#upload-form input[name=name]", name)
        page.set_input_files("#upload-form input[name=file]", str(archive))
        page.click("#upload-form button")
        page.wait_for_url("**/build/*.html", timeout=30_000)
        return str(page.url)

    running = upload("slow", slow)
    page.wait_for_selector("#build-log:has-text('tick-2')", timeout=120_000)
    queued = upload("later", quick)
    assert page.locator("#build-status").inner_text() == "queued"
    assert page.locator("#build-position").inner_text() == "number 1 in the queue"
    shoot(page, screens, "build-queued-desktop")
    page.click("#cancel-form button")
    page.wait_for_url(queued)
    assert page.locator("#build-status").inner_text() == "cancelled"
    assert "before it started" in page.locator("#build-detail").inner_text()
    shoot(page, screens, "build-cancelled-desktop")

    page.goto(running)
    page.evaluate("window.notReloaded = true")
    seen = max(int(n) for n in re.findall(r"tick-(\d+)", page.locator("#build-log").inner_text()))
    # the log grows on the page by itself (a selector, not a function: the page's policy
    # forbids evaluating strings as script, which is how Playwright runs wait_for_function)
    page.wait_for_selector(f"#build-log:has-text('tick-{seen + 3}')", timeout=60_000)
    assert page.evaluate("window.notReloaded") is True
    shoot(page, screens, "build-running-desktop")
    page.click("#cancel-form button")
    page.wait_for_selector("#build-status.status-cancelled", timeout=60_000)
    assert "while it was building" in page.locator("#build-detail").inner_text()
    shoot(page, screens, "build-stopped-desktop")
    assert w.problems == [], w.problems
    w.context.close()
