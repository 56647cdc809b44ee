"""Uploads are queued and built fairly on a real ``arena serve`` (real HTTP, real Docker
builds): the upload is answered at once with its build page; one participant's slow build
delays nobody else; each participant's builds run one at a time; a queued or a running
build can be cancelled (nothing registered, nothing left in the engine); the hourly limit
holds exactly under concurrent uploads (SQLite and PostgreSQL); a server stopped or killed
with builds queued marks them failed when it starts again.

Before the queue, builds ran one at a time inside the upload's request: a ``RUN sleep 45``
upload made another participant's 9 s upload take 55 s, and 15 concurrent uploads started
11 builds against a limit of 10 an hour.
"""

from __future__ import annotations

import io
import re
import tarfile
import tempfile
import threading
import time
import uuid
from pathlib import Path
from typing import Any

import httpx
import pytest
from serverkit import Server, add_user, csrf_of, signed_in, wait_for

from arena import limits

ROOT = Path(__file__).resolve().parents[2]
EV = ROOT / "bots" / "examples" / "python" / "ev"
ANSWERED = 3.0  # seconds an upload's answer may take (the archive is checked, not built)
SLOW = 30  # seconds the slow build sleeps


def tar_gz(files: dict[str, str]) -> bytes:
    buf = io.BytesIO()
    with tarfile.open(fileobj=buf, mode="w:gz") as tar:
        for name, text in files.items():
            data = text.encode()
            info = tarfile.TarInfo(name)
            info.size = len(data)
            tar.addfile(info, io.BytesIO(data))
    return buf.getvalue()


def dockerfile(*steps: str) -> bytes:
    """A build context whose Dockerfile runs ``steps`` (each unique to the test, so that
    no step comes from the engine's cache)."""
    mark = uuid.uuid4().hex[:8]
    lines = ["FROM flip7/python-base:latest", f"RUN echo start-{mark}", *steps]
    return tar_gz({"Dockerfile": "\n".join(lines) + "\n"})


def slow(seconds: int = SLOW) -> bytes:
    return dockerfile(f"RUN echo sleeping && sleep {seconds} && echo woke", "RUN exit 1")


def quick(code: int) -> bytes:
    return dockerfile(f"RUN exit {code}")


def kit_archive() -> bytes:
    buf = io.BytesIO()
    with tarfile.open(fileobj=buf, mode="w:gz") as tar:
        tar.add(EV, arcname="ev")
    return buf.getvalue()


class Participant:
    def __init__(self, server: Server, token: str) -> None:
        self.c = server.client()
        self.auth = {"authorization": f"Bearer {token}"}

    def upload(self, name: str, data: bytes) -> tuple[int, float]:
        """Upload; the build's id and how long the answer took."""
        t0 = time.monotonic()
        r = self.c.post(
            "/api/me/bots",
            data={"name": name},
            files={"file": ("bot.tar.gz", data, "application/gzip")},
            headers=self.auth,
        )
        took = time.monotonic() - t0
        assert r.status_code == 202, r.text
        body = r.json()
        assert body["status"] == "queued" and body["page"] == f"/build/{body['build']}.html"
        return int(body["build"]), took

    def build(self, build_id: int) -> dict[str, Any]:
        r = self.c.get(f"/api/builds/{build_id}", headers=self.auth)
        assert r.status_code == 200, r.text
        return dict(r.json())

    def status(self, build_id: int) -> str:
        return str(self.build(build_id)["status"])

    def wait(self, build_id: int, *statuses: str, timeout: float = 300) -> dict[str, Any]:
        def reached() -> dict[str, Any] | None:
            b = self.build(build_id)
            return b if b["status"] in statuses else None

        return dict(wait_for(reached, timeout, f"build {build_id} to be {statuses}", every=0.2))

    def cancel(self, build_id: int) -> httpx.Response:
        return self.c.post(f"/api/builds/{build_id}/cancel", headers=self.auth)


def made_by(log: str) -> tuple[list[str], list[str]]:
    """What a build's log says it created in the engine: the images of its own steps (not
    its base, not a step taken from the cache) and the tags it set."""
    ids: list[str] = []
    tags: list[str] = []
    step, cached = 0, False
    for line in log.splitlines():
        if m := re.match(r"Step (\d+)/\d+ :", line):
            step, cached = int(m[1]), False
        elif line.strip() == "---> Using cache":
            cached = True
        elif (m := re.fullmatch(r" ---> ([0-9a-f]{12,64})", line)) and step > 1 and not cached:
            ids.append(m[1])
        elif m := re.fullmatch(r"Successfully tagged (\S+)", line):
            tags.append(m[1])
    return ids, tags


def gone(docker_engine: Any, ref: str) -> bool:
    import docker.errors

    try:
        docker_engine.images.get(ref)
    except docker.errors.ImageNotFound:
        return True
    return False


def registered_image(db: str, name: str) -> str:
    from arena.registry import latest

    found = latest(db, name)
    assert found is not None and found[1].image, name
    return str(found[1].image)


def ended(b: dict[str, Any]) -> float:
    from datetime import datetime

    return datetime.fromisoformat(b["finished"]).timestamp()


@pytest.mark.timeout(900)
def test_a_slow_build_delays_nobody_else_and_each_participants_builds_run_in_turn(
    tmp_path: Path, serve: Any, docker_engine: Any
) -> None:
    db = f"sqlite:///{tmp_path / 'arena.db'}"
    a = add_user(db, "alice")
    b = add_user(db, "bob")
    server = serve(db, "--builds", "2")
    alice, bob = Participant(server, a), Participant(server, b)

    a1, took_a1 = alice.upload("alice-slow", slow())
    alice.wait(a1, "building", timeout=60)
    a2, took_a2 = alice.upload("alice-quick", quick(2))
    b1, took_b1 = bob.upload("bob-quick", quick(3))
    assert max(took_a1, took_a2, took_b1) < ANSWERED, (took_a1, took_a2, took_b1)
    # alice's second upload waits for her first; bob's is built beside alice's slow one
    waiting = alice.build(a2)
    assert waiting["status"] == "queued" and waiting["position"] == 1, waiting
    done_b1 = bob.wait(b1, "failed", timeout=SLOW)
    assert "returned a non-zero code: 3" in done_b1["detail"]
    assert alice.status(a1) == "building"  # bob's build ended while alice's slept
    assert alice.status(a2) == "queued"
    done_a1 = alice.wait(a1, "failed", timeout=300)
    done_a2 = alice.wait(a2, "failed", timeout=120)
    assert "woke" in done_a1["detail"] or "woke" in alice.build(a1)["log"]
    assert "returned a non-zero code: 2" in done_a2["detail"]
    assert ended(done_b1) < ended(done_a1) <= ended(done_a2)
    print(
        f"\nanswers: {took_a1:.2f} s, {took_a2:.2f} s, {took_b1:.2f} s; bob's build ended "
        f"{ended(done_a1) - ended(done_b1):.1f} s before alice's slow one"
    )


@pytest.mark.timeout(900)
def test_a_queued_or_running_build_is_cancelled_and_leaves_nothing(
    tmp_path: Path, serve: Any, docker_engine: Any
) -> None:
    db = f"sqlite:///{tmp_path / 'arena.db'}"
    a = add_user(db, "alice")
    b = add_user(db, "bob")
    server = serve(db, "--builds", "1")
    alice, bob = Participant(server, a), Participant(server, b)
    tag = uuid.uuid4().hex[:6]

    running, _ = alice.upload(f"sleepy-{tag}", slow(300))
    queued, _ = alice.upload(f"never-{tag}", quick(4))
    # another participant may not cancel them
    assert bob.cancel(running).status_code == 404 and bob.cancel(queued).status_code == 404
    # the queued one: cancelled at once, it never starts
    r = alice.cancel(queued)
    assert r.status_code == 200 and r.json()["status"] == "cancelled", r.text
    assert alice.build(queued)["log"] == ""
    assert alice.cancel(queued).status_code == 409  # it has ended
    # the running one: stopped in the middle of its sleep
    wait_for(lambda: "sleeping" in alice.build(running)["log"], 120, "the slow step to start")
    t0 = time.monotonic()
    assert alice.cancel(running).status_code == 200
    done = alice.wait(running, "cancelled", timeout=60)
    assert time.monotonic() - t0 < 60
    assert "woke" not in done["detail"] and "nothing was registered" in done["detail"]
    assert alice.c.get("/api/me/bots", headers=alice.auth).json() == []
    made, _tags = made_by(done["log"])
    assert made, "the log shows the image of the step before the sleep"
    assert [i for i in made if not gone(docker_engine, i)] == []
    leftovers = [
        c.name
        for c in docker_engine.containers.list()
        if "sleep 300" in " ".join(c.attrs.get("Config", {}).get("Cmd") or [])
    ]
    assert leftovers == []


@pytest.mark.timeout(900)
def test_a_build_cancelled_during_its_compliance_check_registers_nothing(
    tmp_path: Path, serve: Any, docker_engine: Any
) -> None:
    db = f"sqlite:///{tmp_path / 'arena.db'}"
    token = add_user(db, "alice")
    server = serve(db, "--builds", "1")
    alice = Participant(server, token)
    name = f"ev-{uuid.uuid4().hex[:6]}"
    # through the build page's form, as a participant in a browser would
    c = signed_in(server, token)
    me = c.get("/me.html")
    r = c.post(
        "/upload",
        data={"name": name, "csrf": csrf_of(me.text)},
        files={"file": ("ev.tar.gz", kit_archive(), "application/gzip")},
    )
    assert r.status_code == 303, r.text
    page = r.headers["location"]
    build_id = int(page.removeprefix("/build/").removesuffix(".html"))
    wait_for(lambda: "check: " in alice.build(build_id)["log"], 300, "the compliance check")
    shown = c.get(page).text
    assert 'id="cancel-form"' in shown and "build.js" in shown
    r = c.post(f"/build/{build_id}/cancel", data={"csrf": csrf_of(shown)})
    assert r.status_code == 303 and r.headers["location"] == page
    done = alice.wait(build_id, "cancelled", timeout=60)
    assert done["version"] is None
    assert alice.c.get("/api/me/bots", headers=alice.auth).json() == []
    _made, tags = made_by(alice.build(build_id)["log"])
    assert tags, "the image was built (and tagged) before its check"
    assert [t for t in tags if not gone(docker_engine, t)] == []
    assert "cancelled" in c.get(page).text and 'id="cancel-form"' not in c.get(page).text


def test_the_hourly_limit_holds_under_concurrent_uploads(db_url: str, serve: Any) -> None:
    """15 uploads at once by one participant: exactly 10 are taken (on SQLite and on
    PostgreSQL); the others are answered 429."""
    token = add_user(db_url, "alice")
    server = serve(db_url, "--builds", "1")
    at_once = limits.UPLOADS_PER_HOUR + 5
    # a build that fails at its first step (a Dockerfile that cannot be planned, such as
    # one FROM an image that is not here, is refused before it is queued: 400, not counted)
    data = tar_gz({"Dockerfile": "FROM flip7/python-base:latest\nRUN exit 3\n"})
    go = threading.Barrier(at_once)
    codes: list[int] = []

    def upload() -> None:
        with server.client() as c:
            go.wait()
            r = c.post(
                "/api/me/bots",
                data={"name": "box"},
                files={"file": ("bot.tar.gz", data, "application/gzip")},
                headers={"authorization": f"Bearer {token}"},
            )
            codes.append(r.status_code)

    threads = [threading.Thread(target=upload) for _ in range(at_once)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(120)
    assert sorted(codes) == [202] * limits.UPLOADS_PER_HOUR + [429] * 5, codes
    auth = {"authorization": f"Bearer {token}"}
    stored = server.client().get("/api/me/builds", headers=auth).json()
    assert len(stored) == limits.UPLOADS_PER_HOUR


@pytest.mark.timeout(900)
@pytest.mark.parametrize("how", ["killed", "stopped"])
def test_builds_queued_or_running_when_the_server_ends_fail_and_say_upload_again(
    how: str, tmp_path: Path, serve: Any, docker_engine: Any
) -> None:
    db = f"sqlite:///{tmp_path / 'arena.db'}"
    token = add_user(db, "alice")
    server = serve(db, "--builds", "1")
    alice = Participant(server, token)
    running, _ = alice.upload("sleepy", slow(300))
    queued = [alice.upload(f"later-{i}", quick(5))[0] for i in range(2)]
    wait_for(lambda: "sleeping" in alice.build(running)["log"], 120, "the slow step to start")
    if how == "killed":
        server.kill()
    else:
        server.stop()
        assert server.proc is not None and server.proc.returncode == 0, server.output()
    assert server.proc is not None
    spools = set(Path(tempfile.gettempdir()).glob(f"flip7-builds-{server.proc.pid}-*"))
    assert len(spools) == (1 if how == "killed" else 0)  # the stopped server removed its own
    again = serve(db, "--builds", "1")
    assert not any(d.exists() for d in spools)  # the killed server's: removed at the start
    alice = Participant(again, token)
    for build_id in (running, *queued):
        b = alice.build(build_id)
        assert b["status"] == "failed" and "upload again" in b["detail"], b
    assert "during the build" in alice.build(running)["detail"]
    assert "before the build" in alice.build(queued[0])["detail"]
    # the restarted server builds new uploads
    fresh, _ = alice.upload("fresh", quick(6))
    assert "non-zero code: 6" in alice.wait(fresh, "failed", timeout=120)["detail"]


@pytest.mark.timeout(900)
def test_two_participants_bots_are_built_and_checked_side_by_side(
    tmp_path: Path, serve: Any, docker_engine: Any
) -> None:
    """Two compliance checks at once in one server (each in its builder thread, with its
    own event loop): both bots pass and are registered."""
    db = f"sqlite:///{tmp_path / 'arena.db'}"
    server = serve(db, "--builds", "2")
    people = [Participant(server, add_user(db, who)) for who in ("alice", "bob")]
    names = [f"ev-{uuid.uuid4().hex[:6]}" for _ in people]
    ids = [p.upload(n, kit_archive())[0] for p, n in zip(people, names, strict=True)]
    wait_for(
        lambda: all("check: " in p.build(i)["log"] for p, i in zip(people, ids, strict=True)),
        300,
        "both compliance checks to run",
    )
    for p, i, n in zip(people, ids, names, strict=True):
        done = p.wait(i, "passed", "failed", "cancelled", timeout=600)
        assert done["status"] == "passed" and done["version"] == 1, done
        mine = p.c.get("/api/me/bots", headers=p.auth).json()
        assert [m["name"] for m in mine] == [n]
        docker_engine.api.remove_image(registered_image(db, n), force=True)
