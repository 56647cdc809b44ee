"""The security policy in a real browser (Debian's chromium driven by Playwright): every
kind of page of ``arena serve`` (sign-in, index, event, bot, game replay, the
participant's page, an upload's build page) works under its Content-Security-Policy with
no violation, and so does a compact replay of the static report (its data file
``game/data/N.js``) served with the same headers. A violation is seen (the control: an
inline event handler added to a page is refused and reported). Screenshots go to
$ARENA_SCREENSHOTS (default the test's temporary folder)."""

from __future__ import annotations

import http.server
import os
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from functools import partial
from pathlib import Path
from typing import Any

import httpx
import pytest
from serverkit import add_user, wait_for
from sqlalchemy import create_engine, text

from arena.report.site import slug

DESKTOP = {"width": 1280, "height": 900}
# every violation of the page's policy, reported by the browser to the page itself
RECORD_VIOLATIONS = """
window.__violations = [];
document.addEventListener("securitypolicyviolation", function (e) {
  window.__violations.push(e.violatedDirective + " " + (e.blockedURI || "inline"));
});
"""


class Watched:
    """A page whose console errors (a CSP violation is one), page errors, failed requests
    and policy violations are recorded (the live stream cut by leaving a page is none)."""

    def __init__(self, browser: Any) -> None:
        self.context = browser.new_context(viewport=DESKTOP)
        self.context.add_init_script(RECORD_VIOLATIONS)
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

    def visit(self, url: str, shots: Path, name: str) -> Any:
        """Open ``url``: its answer's policy is the site's; screenshot; no violation."""
        answer = self.page.goto(url)
        assert answer is not None and answer.ok, (url, answer and answer.status)
        assert "frame-ancestors 'none'" in answer.headers["content-security-policy"], url
        self.page.wait_for_load_state("load")
        self.page.screenshot(path=str(shots / f"csp-{name}.png"), full_page=True)
        assert self.page.evaluate("window.__violations") == [], (url, self.problems)
        assert self.problems == [], (url, self.problems)
        return self.page


class HeadersHandler(http.server.SimpleHTTPRequestHandler):
    """A static file server adding the competition server's security headers."""

    def end_headers(self) -> None:
        from arena.server.headers import policy

        self.send_header("Content-Security-Policy", policy())
        self.send_header("X-Content-Type-Options", "nosniff")
        self.send_header("X-Frame-Options", "DENY")
        super().end_headers()

    def log_message(self, *args: Any) -> None:
        pass


@contextmanager
def static_site(folder: Path) -> Iterator[str]:
    """``folder`` served over HTTP with the security headers; its URL."""
    server = http.server.ThreadingHTTPServer(
        ("127.0.0.1", 0), partial(HeadersHandler, directory=str(folder))
    )
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}"
    finally:
        server.shutdown()
        server.server_close()
        thread.join(30)


def replay_shown(page: Any) -> bool:
    """The replay section is in place (a compact one unpacked from its data file) and
    shows its first step."""
    return bool(
        page.evaluate(
            "!document.getElementById('replay-slot') && !!document.getElementById('replay')"
        )
    )


@pytest.mark.timeout(600)
def test_every_page_kind_works_under_the_security_policy_without_a_violation(
    tmp_path: Path, serve: Any, browser: Any
) -> None:
    from arenacli import run_arena

    from arena.participants import sign_in
    from arena.status import BuildStatus
    from arena.store import builds

    shots = Path(os.environ.get("ARENA_SCREENSHOTS") or tmp_path / "screens")
    shots.mkdir(parents=True, exist_ok=True)
    db = f"sqlite:///{tmp_path / 'arena.db'}"
    alice, org = add_user(db, "alice"), add_user(db, "org", organiser=True)
    owner = sign_in(db, alice)
    assert owner is not None and owner.id is not None
    build = builds.start(db, owner.id, "alice-box")
    builds.finish(db, build.id, BuildStatus.FAILED, "the build failed", "Step 1/2 : FROM x\n")
    server = serve(db)
    auth = {"authorization": f"Bearer {org}"}
    event = {"bots": ["builtin:ev", "builtin:random"], "seats": 2, "rounds": 1, "games": 2}
    r = httpx.post(f"{server.url}/api/tournaments", json=event, headers=auth, timeout=60)
    assert r.status_code == 201, r.text
    tid = r.json()["id"]
    wait_for(
        lambda: (
            httpx.get(f"{server.url}/api/tournaments/{tid}", headers=auth).json()["status"]
            == "completed"
        ),
        300,
        "the event to finish",
    )
    eng = create_engine(db)
    with eng.connect() as c:
        gid = c.execute(text("SELECT min(id) FROM game WHERE tournament_id = :t"), {"t": tid})
        gid = gid.scalar_one()
    eng.dispose()

    w = Watched(browser)
    page = w.visit(f"{server.url}/signin.html", shots, "signin")
    page.fill("input[name=token]", alice)
    page.click("#signin-form button")
    page.wait_for_url("**/me.html")
    pages = {
        "me": "me.html",
        "index": "index.html",
        "tournament": f"tournament/{tid}.html",
        "bot": f"bot/{slug('ev')}.html",
        "build": f"build/{build.id}.html",
        "replay": f"game/{gid}.html",
    }
    for name, rel in pages.items():
        page = w.visit(f"{server.url}/{rel}", shots, name)
        assert page.title().endswith("Flip 7 Arena"), rel
    wait_for(lambda: replay_shown(page), 30, "the inline replay")
    page.click("#replay-forward")  # the replay's script runs: a step forward
    assert not page.locator("#replay-step").inner_text().startswith("0 /")
    assert page.evaluate("window.__violations") == [] and w.problems == [], w.problems

    # the control: an inline event handler is refused, and the refusal is seen
    page.evaluate(
        "document.body.insertAdjacentHTML('beforeend', "
        '\'<img src="data:," onerror="window.ran = 1" onload="window.ran = 1">\')'
    )
    wait_for(lambda: page.evaluate("window.__violations.length") > 0, 10, "the violation report")
    assert page.evaluate("window.ran") is None
    w.context.close()

    # the static report's compact replays, served with the same policy
    out = tmp_path / "report"
    made = run_arena("report", "--db", db, "--out", str(out), "--replays", "compact")
    assert made.returncode == 0, made.stderr
    assert list((out / "game" / "data").glob("*.js"))
    with static_site(out) as url:
        s = Watched(browser)
        page = s.visit(f"{url}/game/{gid}.html", shots, "compact-replay")
        wait_for(lambda: replay_shown(page), 30, "the compact replay to unpack")
        page.click("#replay-forward")
        assert not page.locator("#replay-step").inner_text().startswith("0 /")
        page.screenshot(path=str(shots / "csp-compact-replay.png"), full_page=True)
        s.visit(f"{url}/index.html", shots, "static-index")
        assert page.evaluate("window.__violations") == [] and s.problems == [], s.problems
        s.context.close()
