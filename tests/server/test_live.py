"""Live events on a real ``arena serve``: the organiser starts an event over the API, the
server runs it, a server-sent event stream delivers its progress (games played, round,
status) as it goes, and a server killed mid-event (SIGKILL) and started again loses no
stored game and finishes the event."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import httpx
import pytest
from serverkit import add_user, wait_for
from sqlalchemy import create_engine, text

BOTS = ["builtin:ev", "builtin:random", "builtin:threshold:20", "builtin:threshold:25"]
EVENT = {"bots": BOTS, "format": "swiss", "seats": 2, "rounds": 10, "games": 50}
TOTAL = 10 * 2 * 50  # rounds × tables × games


def start_event(server: Any, token: str) -> int:
    r = server.client().post(
        "/api/tournaments", json=EVENT, headers={"authorization": f"Bearer {token}"}
    )
    assert r.status_code == 201, r.text
    return int(r.json()["id"])


def changes(server: Any, token: str, tid: int, until: Any) -> list[dict[str, Any]]:
    """The stream's ``change`` events (their data) up to the first for which ``until``
    holds."""
    seen: list[dict[str, Any]] = []
    headers = {"authorization": f"Bearer {token}"}
    with httpx.stream(
        "GET",
        f"{server.url}/api/stream?tournament={tid}",
        headers=headers,
        timeout=httpx.Timeout(120, connect=10),
    ) as r:
        assert r.status_code == 200
        assert r.headers["content-type"].startswith("text/event-stream")
        event = None
        for line in r.iter_lines():
            if line.startswith("event: "):
                event = line[7:]
            elif line.startswith("data: ") and event == "change":
                seen.append(json.loads(line[6:]))
                if until(seen[-1]):
                    return seen
    raise AssertionError("the stream ended before the event did")


@pytest.mark.timeout(300)
def test_server_sent_events_deliver_a_running_events_progress(tmp_path: Path, serve: Any) -> None:
    db = f"sqlite:///{tmp_path / 'arena.db'}"
    org = add_user(db, "org", organiser=True)
    server = serve(db)
    tid = start_event(server, org)
    seen = changes(server, org, tid, lambda d: d["tournament"]["status"] == "completed")
    progress = [d["tournament"] for d in seen]
    done = [p["games_done"] for p in progress]
    assert done == sorted(done), "games played never go back"
    assert any(0 < d < TOTAL for d in done), f"progress seen mid-event: {done}"
    assert progress[-1] == {
        "id": tid,
        "games_done": TOTAL,
        "round": 10,
        "rounds": 10,
        "status": "completed",
    }
    rounds = [p["round"] for p in progress]
    assert rounds == sorted(rounds) and len(set(rounds)) >= 3  # rounds went by on the stream
    # the standings so far come with the API's view of the event
    final = server.client().get(
        f"/api/tournaments/{tid}", headers={"authorization": f"Bearer {org}"}
    )
    standings = final.json()["standings"]
    assert sorted(s["bot"] for s in standings) == sorted(b.removeprefix("builtin:") for b in BOTS)
    assert sum(s["games"] for s in standings) == 2 * TOTAL


def _stored(db: str, tid: int) -> dict[int, tuple[int, int, str]]:
    eng = create_engine(db)
    with eng.connect() as c:
        rows = c.execute(
            text('SELECT id, match_id, "index", seating FROM game WHERE tournament_id = :t'),
            {"t": tid},
        ).all()
    eng.dispose()
    return {r[0]: (r[1], r[2], str(r[3])) for r in rows}


@pytest.mark.timeout(300)
def test_a_server_killed_mid_event_loses_nothing_and_the_event_resumes(
    db_url: str, serve: Any
) -> None:
    db = db_url  # SQLite and PostgreSQL
    org = add_user(db, "org", organiser=True)
    server = serve(db)
    tid = start_event(server, org)
    api = server.client()
    auth = {"authorization": f"Bearer {org}"}

    def mid_event() -> bool:
        p = api.get(f"/api/tournaments/{tid}", headers=auth).json()
        return p["status"] == "running" and 0 < p["games_done"] < TOTAL // 2

    wait_for(mid_event, 120, "the event to be under way", every=0.02)
    server.kill()
    before = _stored(db, tid)
    assert 0 < len(before) < TOTAL

    again = serve(db)
    api = again.client()
    wait_for(
        lambda: api.get(f"/api/tournaments/{tid}", headers=auth).json()["status"] == "completed",
        240,
        "the resumed event to finish",
    )
    after = _stored(db, tid)
    assert len(after) == TOTAL
    for gid, row in before.items():
        assert after[gid] == row, "a game stored before the crash is kept as it was"
    assert len({(m, i) for m, i, _ in after.values()}) == TOTAL  # no game twice
    page = api.get(f"/tournament/{tid}.html", headers=auth)
    assert page.status_code == 200 and f"{TOTAL}</span> games played" in page.text


@pytest.mark.timeout(300)
def test_a_participants_remote_bot_plays_the_servers_event_over_its_grpc_address(
    tmp_path: Path, serve: Any
) -> None:
    import os
    import subprocess
    import sys

    from serverkit import free_port

    db = f"sqlite:///{tmp_path / 'arena.db'}"
    alice = add_user(db, "alice")
    org = add_user(db, "org", organiser=True)
    grpc = f"127.0.0.1:{free_port()}"
    server = serve(db, "--grpc", grpc)
    api = server.client()
    made = api.post(
        "/api/me/remote", json={"name": "far"}, headers={"authorization": f"Bearer {alice}"}
    )
    assert made.status_code == 201, made.text
    root = Path(__file__).resolve().parents[2]
    bot = subprocess.Popen(
        [sys.executable, str(root / "bots/examples/python/threshold/bot.py"), "22"],
        env={**os.environ, "ARENA_ADDRESS": grpc, "ARENA_TOKEN": made.json()["token"]},
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
    )
    try:
        event = {
            "bots": ["far", "builtin:ev", "builtin:random"],
            "seats": 3,
            "rounds": 2,
            "games": 2,
        }
        r = api.post("/api/tournaments", json=event, headers={"authorization": f"Bearer {org}"})
        assert r.status_code == 201, r.text
        tid = r.json()["id"]
        auth = {"authorization": f"Bearer {org}"}
        wait_for(
            lambda: (
                api.get(f"/api/tournaments/{tid}", headers=auth).json()["status"] == "completed"
            ),
            240,
            "the event with the remote bot to finish",
        )
        assert bot.wait(60) == 0, bot.stderr.read() if bot.stderr else ""  # said goodbye
    finally:
        if bot.poll() is None:
            bot.kill()
    standings = api.get(f"/api/tournaments/{tid}", headers=auth).json()["standings"]
    assert {s["bot"]: s["games"] for s in standings}["far@v1"] == 4
    faults = api.get("/api/bots/far/faults", headers={"authorization": f"Bearer {alice}"})
    assert faults.status_code == 200 and faults.json() == []  # it answered every decision
