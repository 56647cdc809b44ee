"""Disabling a participant and replacing a login token, on a real ``arena serve`` (real
HTTP) while the commands run beside it: ``arena user disable`` ends every session of the
participant at once (a copied cookie stops working), refuses their token on the sign-in
form and as a bearer token, until ``arena user enable``; ``arena user token`` gives a new
token and the old one stops working; ``arena user list`` shows it all; unknown names are
one-line usage errors."""

from __future__ import annotations

import hashlib
import json
import sys
from pathlib import Path
from typing import Any

import httpx
from arenacli import ROOT, run_arena
from serverkit import add_user, csrf_of, signed_in
from sqlalchemy import create_engine, text


def arena(*args: str) -> Any:
    """``arena ARGS --json``: its parsed output (the command must succeed)."""
    r = run_arena(*args, "--json")
    assert r.returncode == 0, r.stderr
    return json.loads(r.stdout)


def copy_of(server: Any, c: httpx.Client) -> httpx.Client:
    """Another client holding a copy of ``c``'s cookies (a stolen cookie)."""
    thief = server.client()
    for name, value in c.cookies.items():
        thief.cookies.set(name, value)
    return thief


def page_works(c: httpx.Client) -> bool:
    return c.get("/me.html").status_code == 200


def sent_to_sign_in(c: httpx.Client) -> bool:
    r = c.get("/me.html")
    return r.status_code == 303 and r.headers["location"] == "/signin.html"


def bearer(server: Any, token: str) -> httpx.Response:
    return server.client().get("/api/me", headers={"authorization": f"Bearer {token}"})


def sign_in_form(server: Any, token: str) -> httpx.Response:
    c = server.client()
    return c.post("/signin", data={"token": token, "csrf": csrf_of(c.get("/signin.html").text)})


def users(db: str) -> dict[str, dict[str, Any]]:
    rows = arena("user", "list", "--db", db)
    return {r["name"]: r for r in rows}


def test_disabling_a_participant_ends_their_sessions_and_refuses_their_token_until_enabled(
    db_url: str, serve: Any
) -> None:
    db = db_url  # SQLite and PostgreSQL
    alice, bob = add_user(db, "alice"), add_user(db, "bob")
    server = serve(db)
    laptop, phone, other = (
        signed_in(server, alice),
        signed_in(server, alice),
        signed_in(server, bob),
    )
    made = laptop.post(
        "/remote", data={"name": "alice-bot", "csrf": csrf_of(laptop.get("/me.html").text)}
    )
    assert made.status_code == 200, made.text
    thief = copy_of(server, laptop)
    assert all(page_works(c) for c in (laptop, phone, thief, other))
    assert bearer(server, alice).status_code == 200
    listed = users(db)
    assert listed["alice"]["disabled"] is False and listed["alice"]["bots"] == 1

    done = arena("user", "disable", "alice", "--db", db)  # while the server runs
    assert done == {"name": "alice", "disabled": True, "sessions_ended": 2}
    # every session of hers is refused at once, the copied cookie too, pages and API
    assert sent_to_sign_in(laptop) and sent_to_sign_in(phone) and sent_to_sign_in(thief)
    assert thief.get("/api/me").status_code == 401
    # her token no longer works, as a bearer token nor on the sign-in form
    refused = bearer(server, alice)
    assert refused.status_code == 401 and "disabled" in refused.json()["detail"]
    form = sign_in_form(server, alice)
    assert form.status_code == 403 and "This participant is disabled" in form.text
    assert "arena_session" not in form.cookies
    assert page_works(other)  # bob is not concerned
    listed = users(db)
    assert listed["alice"]["disabled"] is True and listed["bob"]["disabled"] is False
    assert listed["alice"]["bots"] == 1 and listed["alice"]["role"] == "participant"
    rows = _sql(db, "SELECT count(*) FROM web_session")
    assert rows == [(1,)]  # bob's only

    assert arena("user", "enable", "alice", "--db", db) == {"name": "alice", "disabled": False}
    again = signed_in(server, alice)  # the same token signs in again
    assert page_works(again) and bearer(server, alice).status_code == 200
    assert sent_to_sign_in(laptop) and sent_to_sign_in(thief)  # ended sessions stay ended
    assert users(db)["alice"]["disabled"] is False


def test_a_new_login_token_replaces_the_old_one_and_ends_every_session(
    db_url: str, serve: Any
) -> None:
    db = db_url
    old = add_user(db, "alice")
    server = serve(db)
    browser = signed_in(server, old)
    assert page_works(browser)

    r = run_arena("user", "token", "alice", "--db", db)
    assert r.returncode == 0, r.stderr
    assert "shown once" in r.stdout
    new = r.stdout.strip().rsplit(" ", 1)[-1]
    assert new != old and len(new) >= 40

    assert sent_to_sign_in(browser)  # signed out everywhere
    assert bearer(server, old).status_code == 401
    form = sign_in_form(server, old)
    assert form.status_code == 401 and "not a login token" in form.text
    assert page_works(signed_in(server, new)) and bearer(server, new).status_code == 200
    # stored only as its hash
    [(stored,)] = _sql(db, "SELECT token_hash FROM participant WHERE name = 'alice'")
    assert stored == hashlib.sha256(new.encode()).hexdigest()
    # --json prints the token too
    newer = arena("user", "token", "alice", "--db", db)
    assert newer["name"] == "alice" and bearer(server, newer["token"]).status_code == 200
    assert bearer(server, new).status_code == 401


def test_unknown_names_are_one_line_usage_errors_and_create_no_database(tmp_path: Path) -> None:
    missing = tmp_path / "none.db"
    for command in ("disable", "enable", "token"):
        r = run_arena("user", command, "nobody", "--db", str(missing))
        assert r.returncode == 2, (command, r.stdout, r.stderr)
        lines = r.stderr.strip().splitlines()
        assert lines == ["error: NAME: no participant named 'nobody' (see 'arena user list')"]
    r = run_arena("user", "list", "--db", str(missing))
    assert r.returncode == 0 and "no participants yet" in r.stdout
    assert run_arena("user", "list", "--json", "--db", str(missing)).stdout == "[]\n"
    assert not missing.exists()
    db = f"sqlite:///{tmp_path / 'arena.db'}"
    add_user(db, "alice")
    r = run_arena("user", "disable", "ALICE", "--db", db)  # names ignore case
    assert r.returncode == 0 and r.stdout.strip() == "disabled alice: 0 sessions ended"
    r = run_arena("user", "list", "--db", db)
    assert "alice" in r.stdout and "disabled" in r.stdout
    r = run_arena("user", "disable", "--db", db)
    assert r.returncode == 2


def _sql(db: str, statement: str) -> list[Any]:
    eng = create_engine(db)
    try:
        with eng.begin() as c:
            result = c.execute(text(statement))
            return [tuple(row) for row in result] if result.returns_rows else []
    finally:
        eng.dispose()


PY = sys.executable
EXAMPLES = ROOT / "bots" / "examples" / "python"


def test_a_disabled_participants_bots_sit_out_of_new_events_and_the_ladder(
    tmp_path: Path, serve: Any
) -> None:
    db = f"sqlite:///{tmp_path / 'arena.db'}"
    add_user(db, "alice")
    organiser = add_user(db, "org", organiser=True)
    for name, bot in (("ev", "ev"), ("cautious", "threshold"), ("coin", "random")):
        r = run_arena("bot", "add", name, "--cmd", f"{PY} {EXAMPLES / bot / 'bot.py'}", "--db", db)
        assert r.returncode == 0, r.stderr
    _sql(
        db,
        "UPDATE bot SET owner_id = (SELECT id FROM participant WHERE name = 'alice') "
        "WHERE name = 'coin'",
    )
    arena("user", "disable", "alice", "--db", db)

    # a new event: refused with the reason, on the command line and in the API
    r = run_arena(
        "tournament",
        "--format",
        "round-robin",
        "--bots",
        "coin",
        "--bots",
        "ev",
        "--seats",
        "2",
        "--db",
        db,
    )
    assert r.returncode == 2, r.stderr
    [line] = r.stderr.strip().splitlines()
    assert "coin@v1 belongs to a disabled participant" in line
    server = serve(db)
    event = {"bots": ["coin", "ev"], "seats": 2, "format": "round-robin", "games": 1}
    api = server.client().post(
        "/api/tournaments", json=event, headers={"authorization": f"Bearer {organiser}"}
    )
    assert api.status_code == 400 and "disabled participant" in api.json()["detail"]
    assert _sql(db, "SELECT count(*) FROM tournament") == [(0,)]

    # the ladder plays without coin while alice is disabled, and with it once enabled
    def ladder(games: int) -> None:
        r = run_arena(
            "ladder",
            "run",
            "--seats",
            "2",
            "--max-games",
            str(games),
            "--seed",
            "4",
            "--json",
            "--db",
            db,
        )
        assert r.returncode == 0, r.stderr

    def coin_games() -> int:
        rows = _sql(db, "SELECT seating FROM game")
        return sum("coin@v1" in str(seating) for (seating,) in rows)

    ladder(12)
    assert _sql(db, "SELECT count(*) FROM game") == [(12,)] and coin_games() == 0
    arena("user", "enable", "alice", "--db", db)
    ladder(12)
    assert coin_games() > 0
