"""Participants on the competition server (a real ``arena serve``, real HTTP): a login
token printed once signs in through the form into a signed session cookie; a participant
sees and manages only their own bots, uploads and logs, on the pages and in the API; the
organiser sees everyone's; an anonymous visitor of a read-only site reads the pages but
cannot upload; forms without the session's CSRF token are refused."""

from __future__ import annotations

import io
import tarfile
from pathlib import Path
from typing import Any

import httpx
from serverkit import add_user, csrf_of, signed_in, wait_for


def _tar(files: dict[str, str]) -> bytes:
    buf = io.BytesIO()
    with tarfile.open(fileobj=buf, mode="w:gz") as tar:
        for name, text in files.items():
            data = text.encode()
            info = tarfile.TarInfo(name)
            info.size = len(data)
            tar.addfile(info, io.BytesIO(data))
    return buf.getvalue()


# a Dockerfile whose first step fails: the upload is taken and queued, and leaves a failed
# build with its log and nothing else (one FROM an image that is not here is refused when
# uploaded, before anything is stored)
FAILING = _tar({"Dockerfile": "FROM flip7/python-base:latest\nRUN echo failing-step && exit 3\n"})


def _upload(c: httpx.Client, name: str, data: bytes, filename: str = "bot.tar.gz") -> Any:
    me = c.get("/me.html")
    return c.post(
        "/upload",
        data={"name": name, "csrf": csrf_of(me.text)},
        files={"file": (filename, data, "application/gzip")},
    )


def test_a_participant_sees_and_manages_only_their_own_bots_pages_and_api(
    db_url: str, serve: Any
) -> None:
    db = db_url  # SQLite and PostgreSQL
    alice, bob = add_user(db, "alice"), add_user(db, "bob")
    organiser = add_user(db, "org", organiser=True)
    server = serve(db)

    a = signed_in(server, alice)
    me = a.get("/me.html")
    made = a.post("/remote", data={"name": "alice-remote", "csrf": csrf_of(me.text)})
    assert made.status_code == 200 and "shown once" in made.text
    failed = _upload(a, "alice-box", FAILING)
    assert failed.status_code == 303, failed.text
    build_page = failed.headers["location"]
    build_id = int(build_page.removeprefix("/build/").removesuffix(".html"))
    wait_for(
        lambda: a.get(f"/api/builds/{build_id}").json()["status"] == "failed",
        60,
        "the queued build to end",
    )
    assert "failing-step" in a.get(build_page).text  # the owner sees the build log

    b = signed_in(server, bob)
    # bob's own page lists none of alice's bots, and he cannot see her upload or its log
    assert "alice-remote" not in b.get("/me.html").text
    assert b.get(build_page).status_code == 404
    assert b.get(f"/api/builds/{build_id}").status_code == 404
    assert b.get("/api/me/bots").json() == []
    assert b.get("/api/bots/alice-remote/faults").status_code == 404
    # nor manage them: no new token for, and no revoking of, alice's remote bot
    csrf = csrf_of(b.get("/me.html").text)
    assert b.post("/remote", data={"name": "alice-remote", "csrf": csrf}).status_code == 404
    r = b.delete("/api/me/remote/alice-remote/token", headers={"x-csrf-token": csrf})
    assert r.status_code == 404
    # and a version of alice's name cannot be uploaded by him
    taken = _upload(b, "alice-remote", FAILING)
    assert taken.status_code == 400 and "taken by another participant" in taken.text
    assert b.get("/api/me/builds").json() == []

    # the same through the API with a bearer login token (no cookie, no CSRF needed)
    api = server.client()
    mine = api.get("/api/me/bots", headers={"authorization": f"Bearer {alice}"}).json()
    assert [m["name"] for m in mine] == ["alice-remote"]
    theirs = api.get("/api/me/bots", headers={"authorization": f"Bearer {bob}"}).json()
    assert theirs == []
    log = api.get(f"/api/builds/{build_id}", headers={"authorization": f"Bearer {alice}"})
    assert log.status_code == 200 and "failing-step" in log.json()["log"]
    # the organiser sees every participant's logs
    org = api.get(f"/api/builds/{build_id}", headers={"authorization": f"Bearer {organiser}"})
    assert org.status_code == 200 and org.json()["bot"] == "alice-box"
    assert api.get("/api/me", headers={"authorization": "Bearer not-a-token"}).status_code == 401

    # alice revokes her remote bot's token, then makes a new one
    r = a.delete("/api/me/remote/alice-remote/token", headers={"x-csrf-token": csrf_of(me.text)})
    assert r.status_code == 200
    assert "token revoked" in a.get("/me.html").text
    again = api.post(
        "/api/me/remote",
        json={"name": "alice-remote"},
        headers={"authorization": f"Bearer {alice}"},
    )
    assert again.status_code == 201 and len(again.json()["token"]) > 30


def test_a_wrong_login_token_or_a_form_without_csrf_is_refused(tmp_path: Path, serve: Any) -> None:
    db = f"sqlite:///{tmp_path / 'arena.db'}"
    alice = add_user(db, "alice")
    server = serve(db)
    c = server.client()
    form = c.get("/signin.html")
    wrong = c.post("/signin", data={"token": "guessed", "csrf": csrf_of(form.text)})
    assert wrong.status_code == 401 and "not a login token" in wrong.text
    assert c.get("/me.html").headers["location"] == "/signin.html"  # still signed out
    # a sign-in without the form's CSRF token (a cross-site post) is refused
    assert c.post("/signin", data={"token": alice}).status_code == 403
    a = signed_in(server, alice)
    # a signed-in form post without the token, or with another session's, is refused
    assert a.post("/remote", data={"name": "x"}).status_code == 403
    assert a.post("/remote", data={"name": "x", "csrf": csrf_of(form.text)}).status_code == 403
    assert a.get("/api/me/bots").json() == []  # nothing was made
    # a tampered session cookie signs nobody in
    forged = server.client()
    forged.cookies.set("arena_session", a.cookies["arena_session"][:-4] + "AAAA")
    assert forged.get("/me.html").headers["location"] == "/signin.html"


def test_anonymous_visitors_read_a_read_only_site_but_cannot_upload(
    tmp_path: Path, serve: Any
) -> None:
    db = f"sqlite:///{tmp_path / 'arena.db'}"
    add_user(db, "alice")
    private = serve(db)
    anon = private.client()
    # without --read-only the site is the participants' only
    assert anon.get("/index.html").headers["location"] == "/signin.html"
    assert anon.get("/api/leaderboard").status_code == 401
    private.stop()

    public = serve(db, "--read-only")
    anon = public.client()
    page = anon.get("/index.html")
    assert page.status_code == 200 and "Elo leaderboard" in page.text
    assert anon.get("/api/leaderboard").json() == []
    csrf = csrf_of(anon.get("/signin.html").text)
    up = anon.post(
        "/upload",
        data={"name": "sneaky", "csrf": csrf},
        files={"file": ("bot.py", b"print('hi')\n", "text/x-python")},
    )
    assert up.status_code == 401
    api = anon.post("/api/me/bots", data={"name": "sneaky"}, files={"file": ("bot.py", b"x=1\n")})
    assert api.status_code == 401
    assert anon.get("/api/bots").json() == []
    assert anon.get("/me.html").headers["location"] == "/signin.html"


def test_uploads_past_the_hourly_limit_are_refused(tmp_path: Path, serve: Any) -> None:
    from arena import limits

    db = f"sqlite:///{tmp_path / 'arena.db'}"
    alice = add_user(db, "alice")
    server = serve(db)
    api = server.client()
    auth = {"authorization": f"Bearer {alice}"}

    def upload() -> httpx.Response:
        files = {"file": ("bot.tar.gz", FAILING, "application/gzip")}
        return api.post("/api/me/bots", data={"name": "box"}, files=files, headers=auth)

    for _ in range(limits.UPLOADS_PER_HOUR):
        assert upload().status_code == 202  # taken (then its build fails)
    refused = upload()
    assert refused.status_code == 429 and "uploads an hour" in refused.json()["detail"]
    assert len(api.get("/api/me/builds", headers=auth).json()) == limits.UPLOADS_PER_HOUR


def test_a_bots_faults_and_stderr_are_shown_to_its_owner_and_the_organiser_only(
    tmp_path: Path, serve: Any
) -> None:
    import sys

    from arena.participants import sign_in
    from arena.registry import add_bot
    from arena.report.site import slug

    db = f"sqlite:///{tmp_path / 'arena.db'}"
    alice, bob = add_user(db, "alice"), add_user(db, "bob")
    org = add_user(db, "org", organiser=True)
    owner = sign_in(db, alice)
    assert owner is not None
    crasher = Path(__file__).resolve().parents[1] / "bots" / "crash_at_start.py"
    add_bot(db, "alice-crash", command=f"{sys.executable} {crasher}", owner_id=owner.id)
    server = serve(db, "--read-only")
    api = server.client()
    event = {"bots": ["alice-crash", "builtin:ev"], "seats": 2, "rounds": 1, "games": 2}
    r = api.post("/api/tournaments", json=event, headers={"authorization": f"Bearer {org}"})
    assert r.status_code == 201, r.text
    tid = r.json()["id"]
    wait_for(
        lambda: api.get(f"/api/tournaments/{tid}").json()["status"] == "completed",
        120,
        "the event to finish",
    )
    stderr = "crash-at-start: giving up before connecting"
    page = f"/bot/{slug('alice-crash@v1')}.html"  # results name the version that played
    for token in (alice, org):
        shown = api.get(page, headers={"authorization": f"Bearer {token}"}).text
        assert stderr in shown
        faults = api.get(
            "/api/bots/alice-crash/faults", headers={"authorization": f"Bearer {token}"}
        )
        assert faults.status_code == 200
        # the pre-flight's reason quotes the bot's last line of stderr (the log tail, if any)
        assert any(
            stderr in (f.get("log_tail") or "") + (f.get("detail") or "") for f in faults.json()
        ), faults.json()
        assert (
            "INIT_FAIL"
            in api.get(f"/tournament/{tid}.html", headers={"authorization": f"Bearer {token}"}).text
        )
    for headers in ({"authorization": f"Bearer {bob}"}, {}):  # another participant, the public
        assert stderr not in api.get(page, headers=headers).text
        # what is hidden is counted, never shown
        assert "No faults" not in api.get(page, headers=headers).text
        assert "2 faults (2 failed starts; 2 forfeits)" in api.get(page, headers=headers).text
        assert "INIT_FAIL" not in api.get(f"/tournament/{tid}.html", headers=headers).text
        assert api.get("/api/bots/alice-crash/faults", headers=headers).status_code == 404


def test_user_add_prints_the_login_token_once_and_refuses_a_taken_name(tmp_path: Path) -> None:
    from arenacli import run_arena

    from arena.participants import sign_in

    db = f"sqlite:///{tmp_path / 'arena.db'}"
    r = run_arena("user", "add", "carol", "--db", db)
    assert r.returncode == 0, r.stderr
    token = r.stdout.split("store it now): ")[1].strip()
    p = sign_in(db, token)
    assert p is not None and p.name == "carol" and p.role == "participant"
    from sqlalchemy import create_engine, text

    eng = create_engine(db)
    with eng.connect() as c:
        stored = c.execute(text("SELECT token_hash FROM participant")).scalar_one()
    eng.dispose()
    assert token not in stored and len(stored) == 64  # only its SHA-256 is kept
    again = run_arena("user", "add", "carol", "--db", db)
    assert again.returncode == 1
    assert again.stderr.strip() == "error: a participant named 'carol' exists already"
    bad = run_arena("user", "add", "no spaces", "--db", db)
    assert bad.returncode == 2 and bad.stderr.startswith("error: ")
