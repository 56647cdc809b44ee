"""Every starter kit goes through the site's door: the Python, Node.js, C++, Go, Java and
Ruby kits, each built as its README says (its build.sh; the Python kit needs none), packed with
``arena bot pack``, uploaded through the upload form of a real ``arena serve`` in a real
Chromium (Debian's, driven by Playwright), built in the sandbox on its offline base, pass
the compliance suite, and then play a short event against a built-in policy on that
server: every game completed and stored, with no fault of the uploaded bot.

The test waits for the build page to show the build's final status (polling the API
``/api/builds/{id}`` with a deadline), so it holds whether the upload answers after the
build or at once with a page that follows the build live. The form and the finished
build page are screenshotted into the test's temporary folder (or $ARENA_SCREENSHOTS).

A missing toolchain, Docker engine, base image or browser skips locally and fails under
CI (CI=true).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from arenacli import run_arena
from hostkit import unavailable
from serverkit import Server, add_user, free_port, wait_for
from sqlalchemy import create_engine, text

from arena import limits
from arena.runtime.bases import BASES

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "tests" / "polyglot"))  # the kits' build helper (kit.py)
from kit import build as build_kit  # noqa: E402

EXAMPLES = ROOT / "bots" / "examples"
KITS = {  # kit -> its folder (the Python kit's bots are one folder each)
    "python": EXAMPLES / "python" / "ev",
    "node": EXAMPLES / "node",
    "cpp": EXAMPLES / "cpp",
    "go": EXAMPLES / "go",
    "java": EXAMPLES / "java",
    "ruby": EXAMPLES / "ruby",
}
DESKTOP = {"width": 1280, "height": 900}
FINAL = {"passed", "failed", "cancelled", "canceled"}  # a build that is over
BUILD_DEADLINE = 900.0  # seconds for an upload to be built and checked


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Server, str, str]]:
    """One real server for every kit: (server, database URL, the organiser's token)."""
    tmp = tmp_path_factory.mktemp("kit-site")
    db = f"sqlite:///{tmp / 'arena.db'}"
    org = add_user(db, "org", organiser=True)
    server = Server(db, free_port(), log=tmp / "server.log").start()
    yield server, db, org
    server.stop()


def with_base(client: Any, kit: str) -> None:
    """The kit's offline base image, built with docker/base-image/build.sh if missing."""
    base = BASES[kit]
    if base.image == "scratch":
        return
    try:
        client.images.get(base.image)
        return
    except Exception:
        pass
    script = ROOT / "docker" / "base-image" / "build.sh"
    env = {**os.environ, **({"EXTRA_PACKAGES": base.extra_packages} if base.extra_packages else {})}
    r = subprocess.run(
        ["bash", str(script), base.image],
        capture_output=True,
        text=True,
        timeout=1800,
        check=False,
        env=env,
    )
    if r.returncode != 0:
        unavailable(f"cannot build {base.image}:\n{r.stderr[-3000:]}", "upload every kit")


def built(kit: str) -> Path:
    """The kit's folder, built as its README says."""
    if kit != "python":
        build_kit(kit)  # bash|sh bots/examples/KIT/build.sh (idempotent)
    return KITS[kit]


def packed(folder: Path, out: Path) -> dict[str, Any]:
    r = run_arena("bot", "pack", str(folder), "--out", str(out), "--json", timeout=300)
    assert r.returncode == 0, r.stderr
    data: dict[str, Any] = json.loads(r.stdout)
    assert data["out"] == str(out) and out.stat().st_size == data["bytes"]
    assert data["bytes"] <= limits.MAX_UPLOAD_BYTES
    assert data["members"] <= limits.MAX_ARCHIVE_MEMBERS
    return data


def shoot(page: Any, folder: Path, name: str) -> Path:
    path = folder / f"{name}.png"
    page.screenshot(path=str(path), full_page=True)
    return path


def final_status(page: Any, server: Server, build_id: str) -> dict[str, Any]:
    """The build's record once it is over (the page's own session reads the API)."""

    def over() -> dict[str, Any] | None:
        r = page.request.get(f"{server.url}/api/builds/{build_id}")
        assert r.status == 200, r.text()
        b: dict[str, Any] = r.json()
        return b if b["status"] in FINAL else None

    result: dict[str, Any] = wait_for(over, BUILD_DEADLINE, f"build {build_id} to end", every=1)
    return result


@pytest.mark.timeout(2400)
@pytest.mark.parametrize("kit", list(KITS))
def test_a_starter_kit_built_and_packed_uploads_through_the_form_and_plays(
    kit: str,
    tmp_path: Path,
    site: tuple[Server, str, str],
    browser: Any,
    docker_engine: Any,
) -> None:
    server, db, org = site
    screens = Path(os.environ.get("ARENA_SCREENSHOTS") or tmp_path / "screens")
    screens.mkdir(parents=True, exist_ok=True)
    folder = built(kit)
    with_base(docker_engine, kit)
    archive = tmp_path / f"{kit}.tar.gz"
    summary = packed(folder, archive)
    print(f"{kit}: {summary['files']} files, {summary['bytes']:,} bytes packed")

    user = f"{kit}-{uuid.uuid4().hex[:6]}"
    token = add_user(db, user)
    name = f"{kit}-kit-{uuid.uuid4().hex[:6]}"
    context = browser.new_context(viewport=DESKTOP)
    problems: list[str] = []
    page = context.new_page()
    page.on("pageerror", lambda e: problems.append(f"page error: {e}"))
    try:
        page.goto(f"{server.url}/signin.html")
        page.fill("input[name=token]", token)
        page.click("#signin-form button")
        page.wait_for_url("**/me.html")
        limits_text = page.locator("#upload-limits").inner_text()
        assert f"{limits.MAX_ARCHIVE_MEMBERS:,} files and folders" in limits_text, limits_text
        assert "arena bot pack DIR" in page.locator("#pack-hint").inner_text()
        page.fill("#upload-form input[name=name]", name)
        page.set_input_files("#upload-form input[name=file]", str(archive))
        shoot(page, screens, f"{kit}-form")
        page.click("#upload-form button")
        page.wait_for_url("**/build/*.html", timeout=BUILD_DEADLINE * 1000)
        build_id = page.url.rsplit("/", 1)[1].removesuffix(".html")
        record = final_status(page, server, build_id)
        from playwright.sync_api import expect

        # the live build page shows the final status by itself (it reloads when the build ends)
        expect(page.locator("#build-status")).to_have_text(record["status"], timeout=60_000)
        expect(page.locator("#build-detail")).to_contain_text("compliance checks")
        shoot(page, screens, f"{kit}-build")
        status = page.locator("#build-status").inner_text()
        assert status == "passed", f"{record['detail']}\n{record.get('log', '')[-4000:]}"
        assert record["status"] == "passed" and record["version"] == 1, record
        assert "compliance checks" in page.locator("#build-detail").inner_text()
        assert problems == [], problems
    finally:
        context.close()

    # the uploaded bot plays a short event on the server: every game stored, no fault of its
    auth = {"authorization": f"Bearer {org}"}
    event = {"bots": [name, "builtin:ev"], "seats": 2, "rounds": 1, "games": 2}
    r = httpx.post(f"{server.url}/api/tournaments", json=event, headers=auth, timeout=60)
    assert r.status_code == 201, r.text
    tid = r.json()["id"]

    def finished() -> dict[str, Any] | None:
        p = httpx.get(f"{server.url}/api/tournaments/{tid}", headers=auth, timeout=30).json()
        assert p["status"] not in ("failed", "error"), p
        return p if p["status"] == "completed" else None

    progress = wait_for(finished, 600, f"the event of the {kit} kit", every=0.5)
    assert progress["games_done"] >= 2, progress
    eng = create_engine(db)
    try:
        with eng.connect() as c:
            rows = c.execute(
                text("SELECT seating, status, faults FROM game WHERE tournament_id = :t"),
                {"t": tid},
            ).all()
    finally:
        eng.dispose()
    assert len(rows) == progress["games_done"]
    for seating, status, faults in rows:
        seating = json.loads(seating) if isinstance(seating, str) else seating
        faults = json.loads(faults) if isinstance(faults, str) else faults
        assert f"{name}@v1" in seating, seating
        assert status == "completed", status
        assert not [f for f in faults if str(f.get("bot", "")).startswith(name)], faults

    from arena.registry import latest

    _bot, version = latest(db, name)
    if version.digest:
        docker_engine.api.remove_image(version.digest, force=True)
