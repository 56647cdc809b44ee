"""Sessions, security headers and live-stream caps on a real ``arena serve`` (real HTTP):
signing out ends the session on the server (a copied cookie stops working), as do its
idle and absolute limits and ending all of a participant's sessions; every answer carries
the security headers; live-update streams are capped per address and in all, and a
closed stream gives its slot back."""

from __future__ import annotations

import base64
import contextlib
import hashlib
import socket
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import httpx
import pytest
from serverkit import add_user, csrf_of, signed_in, wait_for
from sqlalchemy import create_engine, text

SESSION = "arena_session"


def copy_of(server: Any, c: httpx.Client) -> httpx.Client:
    """Another client holding a copy of ``c``'s cookies (a stolen cookie)."""
    thief = server.client()
    for name, value in c.cookies.items():
        thief.cookies.set(name, value)
    return thief


def signed_in_page(c: httpx.Client) -> bool:
    r = c.get("/me.html")
    return r.status_code == 200


def _sql(db: str, statement: str, **params: Any) -> list[Any]:
    """Run one statement on the served database; the rows it returns."""
    eng = create_engine(db)
    try:
        with eng.begin() as c:
            result = c.execute(text(statement), params)
            return list(result) if result.returns_rows else []
    finally:
        eng.dispose()


def test_signing_out_ends_the_session_so_a_copied_cookie_stops_working(
    tmp_path: Path, serve: Any
) -> None:
    db = f"sqlite:///{tmp_path / 'arena.db'}"
    alice = add_user(db, "alice")
    server = serve(db)
    a = signed_in(server, alice)
    thief = copy_of(server, a)
    assert signed_in_page(thief)  # the copy works while the session lasts
    out = a.post("/signout", data={"csrf": csrf_of(a.get("/me.html").text)})
    assert out.status_code == 303
    assert a.get("/me.html").headers["location"] == "/signin.html"
    # the copied cookie is worthless at once, on pages and in the API
    assert thief.get("/me.html").headers["location"] == "/signin.html"
    assert thief.get("/api/me").status_code == 401
    # a bearer login token still works as before
    api = server.client().get("/api/me", headers={"authorization": f"Bearer {alice}"})
    assert api.status_code == 200 and api.json()["name"] == "alice"
    # the cookie carries only a random key; the server keeps its hash, not the key
    again = signed_in(server, alice)
    stored = [r[0] for r in _sql(db, "SELECT key_hash FROM web_session")]
    assert stored == [hashlib.sha256(again.cookies[SESSION].encode()).hexdigest()]


def test_a_session_past_its_idle_or_absolute_limit_is_refused(db_url: str, serve: Any) -> None:
    db = db_url  # SQLite and PostgreSQL: the limits are compared in SQL
    alice = add_user(db, "alice")
    server = serve(db, "--session-idle", "1", "--session-max", "2")  # hours
    idle, old, fresh = (signed_in(server, alice) for _ in range(3))
    assert all(signed_in_page(c) for c in (idle, old, fresh))

    def key_hash(c: httpx.Client) -> str:
        return hashlib.sha256(c.cookies[SESSION].encode()).hexdigest()

    # unused for longer than the idle limit (an hour): refused and forgotten
    _sql(
        db,
        "UPDATE web_session SET last_seen = :t WHERE key_hash = :k",
        t="2000-01-01 00:00:00.000000",
        k=key_hash(idle),
    )
    # past its absolute limit, although used a moment ago
    _sql(
        db,
        "UPDATE web_session SET expires = :t WHERE key_hash = :k",
        t="2000-01-01 00:00:00.000000",
        k=key_hash(old),
    )
    assert idle.get("/me.html").headers["location"] == "/signin.html"
    assert old.get("/me.html").headers["location"] == "/signin.html"
    assert signed_in_page(fresh)
    left = _sql(db, "SELECT count(*) FROM web_session")[0][0]
    assert left == 1  # the ended sessions are gone from the server
    # a session's absolute limit is the setting: two hours after signing in
    [row] = _sql(
        db, "SELECT created, expires FROM web_session WHERE key_hash = :k", k=key_hash(fresh)
    )
    from datetime import datetime

    created, expires = (datetime.fromisoformat(str(v)) for v in row)
    assert (expires - created).total_seconds() == 2 * 3600


def test_ending_a_participants_sessions_signs_them_out_everywhere(
    tmp_path: Path, serve: Any
) -> None:
    from arena.participants import sign_in
    from arena.store.sessions import end_all

    db = f"sqlite:///{tmp_path / 'arena.db'}"
    alice, bob = add_user(db, "alice"), add_user(db, "bob")
    server = serve(db)
    laptop, phone, other = (
        signed_in(server, alice),
        signed_in(server, alice),
        signed_in(server, bob),
    )
    assert all(signed_in_page(c) for c in (laptop, phone, other))
    p = sign_in(db, alice)
    assert p is not None and p.id is not None
    assert end_all(db, p.id) == 2
    assert laptop.get("/me.html").headers["location"] == "/signin.html"
    assert phone.get("/me.html").headers["location"] == "/signin.html"
    assert signed_in_page(other)  # bob's session is his own


# ------------------------------------------------------------------ security headers

EXPECTED = {
    "x-frame-options": "DENY",
    "x-content-type-options": "nosniff",
    "referrer-policy": "same-origin",
    "cross-origin-opener-policy": "same-origin",
}


def check_headers(r: httpx.Response) -> None:
    where = f"{r.request.method} {r.request.url.path} ({r.status_code})"
    check(where, {k.lower(): v for k, v in r.headers.items()})


def check(where: str, headers: dict[str, str]) -> None:
    for name, value in EXPECTED.items():
        assert headers.get(name) == value, (where, name, headers.get(name))
    csp = headers.get("content-security-policy", "")
    directives = dict(d.strip().split(" ", 1) for d in csp.split(";"))
    assert directives.get("frame-ancestors") == "'none'", (where, csp)
    assert directives.get("script-src") == "'self'", (where, csp)
    assert directives.get("style-src") == "'self'", (where, csp)
    assert directives.get("default-src") == "'none'", (where, csp)


def test_every_answer_carries_the_security_headers(tmp_path: Path, serve: Any) -> None:
    db = f"sqlite:///{tmp_path / 'arena.db'}"
    alice = add_user(db, "alice")
    server = serve(db, "--read-only")
    c = server.client()
    answers = [
        c.get("/index.html"),  # a page
        c.get("/signin.html"),
        c.get("/api/leaderboard"),  # the API
        c.get("/style.css"),  # assets
        c.get("/live.js"),
        c.get("/replay.js"),
        c.get("/no-such-page.html"),  # a 404
        c.get("/game/99.html"),
        c.get("/"),  # a redirect
        c.get("/me.html"),
        c.post("/signin", data={"token": alice}),  # a 403 (no CSRF token)
        c.get("/api/me"),  # a 401
        c.get("/openapi.json"),
    ]
    assert [r.status_code for r in answers[6:12]] == [404, 404, 303, 303, 403, 401]
    for r in answers:
        check_headers(r)
    # a body far too large, refused (413) from its Content-Length before it is read
    with socket.create_connection(("127.0.0.1", server.port), timeout=30) as raw:
        raw.sendall(
            f"POST /upload HTTP/1.1\r\nHost: x\r\nContent-Length: {1 << 40}\r\n\r\n".encode()
        )
        head = raw.makefile("rb").read().split(b"\r\n\r\n")[0].decode().split("\r\n")
    assert head[0].split()[1] == "413", head
    check(
        "POST /upload (413)", {k.lower(): v.strip() for k, v in (h.split(":", 1) for h in head[1:])}
    )
    a = signed_in(server, alice)
    check_headers(a.get("/me.html"))
    with a.stream("GET", "/api/stream") as s:  # the live stream too
        assert s.status_code == 200
        check_headers(s)
    # the API's documentation pages load Swagger UI from its CDN: a policy of their own,
    # frames still refused
    docs = c.get("/docs")
    assert (
        docs.status_code == 200
        and "frame-ancestors 'none'" in docs.headers["content-security-policy"]
    )
    assert docs.headers["x-frame-options"] == "DENY"
    # its one inline script is allowed by its hash, and nothing else inline is
    script = docs.text.split("<script>", 1)[1].split("</script>", 1)[0]
    digest = base64.b64encode(hashlib.sha256(script.encode()).digest()).decode()
    script_src = next(
        d for d in docs.headers["content-security-policy"].split(";") if "script-src" in d
    )
    assert f"'sha256-{digest}'" in script_src and "unsafe" not in script_src


# ------------------------------------------------------------------ live-stream caps


@contextmanager
def stream_from(server: Any, address: str) -> Iterator[httpx.Response]:
    """A live stream opened from a loopback ``address`` (127.0.0.N), open until the block
    ends (then the connection is closed)."""
    transport = httpx.HTTPTransport(local_address=address)
    with (
        httpx.Client(base_url=server.url, transport=transport, timeout=30) as c,
        c.stream("GET", "/api/stream") as r,
    ):
        yield r


@contextmanager
def forwarded_stream(server: Any, claimed: str) -> Iterator[httpx.Response]:
    """A live stream from 127.0.0.1 whose X-Forwarded-For claims the client ``claimed``."""
    with (
        httpx.Client(base_url=server.url, timeout=30) as c,
        c.stream("GET", "/api/stream", headers={"x-forwarded-for": claimed}) as r,
    ):
        yield r


@pytest.mark.timeout(120)
@pytest.mark.parametrize("proxy", [None, "127.0.0.1"])
def test_a_forwarded_address_is_believed_only_from_a_trusted_proxy(
    tmp_path: Path, serve: Any, proxy: str | None
) -> None:
    """The repro: ten streams from one client, each claiming another address in
    X-Forwarded-For, all passed a cap of 8 per address (uvicorn believes the header from
    any local client by default). Now the header counts only from a --trusted-proxy."""
    db = f"sqlite:///{tmp_path / 'arena.db'}"
    args = ["--read-only", "--streams-per-address", "2"]
    server = serve(db, *args, *(["--trusted-proxy", proxy] if proxy else []))
    with contextlib.ExitStack() as stack:
        codes = [
            stack.enter_context(forwarded_stream(server, f"10.0.0.{i}")).status_code
            for i in range(1, 4)
        ]
    # without a trusted proxy all three come from 127.0.0.1: the third is over its cap;
    # behind the named proxy each is its own client
    assert codes == ([200, 200, 429] if proxy is None else [200, 200, 200]), codes


def test_a_bad_trusted_proxy_address_is_a_usage_error(tmp_path: Path) -> None:
    from arenacli import run_arena

    r = run_arena("serve", "--trusted-proxy", "not-an-ip", "--db", f"sqlite:///{tmp_path / 'a.db'}")
    assert r.returncode == 2 and "bad proxy address 'not-an-ip'" in r.stderr, r.stderr
    assert "Traceback" not in r.stderr


def opened(server: Any, address: str) -> int:
    """The status a new stream from ``address`` gets (closed again at once)."""
    with stream_from(server, address) as r:
        return r.status_code


@pytest.mark.timeout(120)
def test_live_streams_are_capped_per_address_and_in_all_and_a_closed_one_frees_its_slot(
    tmp_path: Path, serve: Any
) -> None:
    db = f"sqlite:///{tmp_path / 'arena.db'}"
    server = serve(db, "--read-only", "--streams-per-address", "2", "--streams-total", "3")
    with stream_from(server, "127.0.0.2") as first, stream_from(server, "127.0.0.2") as second:
        assert first.status_code == second.status_code == 200
        with stream_from(server, "127.0.0.2") as third:  # over the address's cap
            assert third.status_code == 429
            assert third.headers["retry-after"].isdigit()
            third.read()
            assert "per address" in third.json()["detail"]
        with stream_from(server, "127.0.0.3") as other:  # another address: room in all
            assert other.status_code == 200
            with stream_from(server, "127.0.0.4") as fourth:  # over the total cap
                assert fourth.status_code == 429
                fourth.read()
                assert "live streams open" in fourth.json()["detail"]
        # the other address's stream closed: its slot is free again (the server notices
        # the client leaving)
        wait_for(lambda: opened(server, "127.0.0.4") == 200, 30, "a slot after a close")
    # both of the first address's streams closed: it may open two again
    wait_for(lambda: opened(server, "127.0.0.2") == 200, 30, "the address's slots back")
    with stream_from(server, "127.0.0.2") as a, stream_from(server, "127.0.0.2") as b:
        assert a.status_code == b.status_code == 200


def test_a_route_may_relax_the_frame_policy_for_itself() -> None:
    """The frame policy is per route: a page meant for others' iframes sets its own
    policy (headers.frameable) and gets no X-Frame-Options; every other answer keeps
    frame-ancestors 'none' and DENY."""
    import asyncio

    from fastapi.responses import HTMLResponse

    from arena.server.headers import Secured, frameable

    app = Secured()

    @app.get("/embed")
    def embed() -> HTMLResponse:
        return HTMLResponse("<p>framed</p>", headers=frameable("https://example.org"))

    @app.get("/page")
    def page() -> HTMLResponse:
        return HTMLResponse("<p>not framed</p>")

    async def get(*paths: str) -> list[httpx.Response]:
        transport = httpx.ASGITransport(app=app)
        async with httpx.AsyncClient(transport=transport, base_url="http://test") as c:
            return [await c.get(p) for p in paths]

    framed, plain, missing = asyncio.run(get("/embed", "/page", "/missing"))
    assert "frame-ancestors https://example.org" in framed.headers["content-security-policy"]
    assert "x-frame-options" not in framed.headers
    assert framed.headers["x-content-type-options"] == "nosniff"
    assert missing.status_code == 404
    check_headers(plain)
    check_headers(missing)
