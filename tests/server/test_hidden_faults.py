"""Public pages say what they hide (a real event on a real ``arena serve``, and the real
``arena report``).

Signed out, an event whose bot forfeited every game used to say "No faults: every bot
answered every decision in time", and a command registered with a relative path was
shown in full although the page said paths were shortened. Now a reader who may not see
a bot's faults reads how many there are, of which kinds and how many forfeited, and none
of their details; its owner and the organiser see them all; relative paths are cut to the
file's name like absolute ones."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

from arenacli import ROOT, run_arena
from serverkit import add_user, wait_for

RELATIVE = "tests/bots/crash_at_start.py"  # from the repository's root, where it runs


def _texts(folder: Path) -> str:
    return "\n".join(p.read_text() for p in folder.rglob("*.html"))


def test_public_pages_count_the_faults_they_hide_and_show_none_of_them(
    tmp_path: Path, serve: Any
) -> None:
    from arena.participants import sign_in
    from arena.registry import add_bot
    from arena.report.site import slug

    assert (ROOT / RELATIVE).is_file()
    db = f"sqlite:///{tmp_path / 'arena.db'}"
    alice, bob = add_user(db, "alice"), add_user(db, "bob")
    org = add_user(db, "org", organiser=True)
    owner = sign_in(db, alice)
    assert owner is not None
    command = f"{sys.executable} {RELATIVE}"
    add_bot(db, "alice-crash", command=command, owner_id=owner.id)
    server = serve(db, "--read-only")
    api = server.client()
    as_org = {"authorization": f"Bearer {org}"}
    event = {"bots": ["alice-crash", "builtin:ev", "builtin:random"], "seats": 3}
    r = api.post("/api/tournaments", json={**event, "rounds": 1, "games": 3}, headers=as_org)
    assert r.status_code == 201, r.text
    tid = r.json()["id"]
    wait_for(
        lambda: api.get(f"/api/tournaments/{tid}").json()["status"] == "completed",
        120,
        "the event to finish",
    )
    faults = api.get("/api/bots/alice-crash/faults", headers=as_org).json()
    assert len(faults) == 3 and all(f["forfeit"] and f["kind"] == "INIT_FAIL" for f in faults)
    secrets = {f["detail"] for f in faults} | {f["log_tail"].strip() for f in faults}
    secrets.discard("")
    assert any("crash-at-start" in s for s in secrets), secrets
    game = faults[0]["game"]
    pages = {
        "tournament": f"/tournament/{tid}.html",
        "bot": f"/bot/{slug('alice-crash@v1')}.html",
        "game": f"/game/{game}.html",
    }
    said = "3 faults (3 failed starts; 3 forfeits)"

    for headers in ({}, {"authorization": f"Bearer {bob}"}):  # the public, another participant
        shown = {k: api.get(p, headers=headers).text for k, p in pages.items()}
        for kind, html in shown.items():
            for s in secrets:
                assert s not in html, (kind, s)
            assert "No faults" not in html, kind
        assert said in shown["tournament"] and "visible to the bots' owners" in shown["tournament"]
        assert said in shown["bot"] and "visible to the bot's owner" in shown["bot"]
        assert "1 fault (1 failed start; 1 forfeit)" in shown["game"]
        assert "details visible to its owner" in shown["game"]
        assert "…/crash_at_start.py" in shown["tournament"]
        assert RELATIVE not in shown["tournament"]
        assert RELATIVE not in api.get("/api/bots", headers=headers).text

    for token in (alice, org):  # the owner and the organiser see every fault, hiding none
        headers = {"authorization": f"Bearer {token}"}
        shown = {k: api.get(p, headers=headers).text for k, p in pages.items()}
        assert "INIT_FAIL" in shown["tournament"] and "INIT_FAIL" in shown["bot"]
        assert "crash-at-start" in shown["bot"]  # the log stored with the fault
        for html in shown.values():
            assert "not shown here" not in html and "details visible" not in html

    # the static report: public, it shows the faults but not the bots' logs and says so;
    # the organiser's private copy shows the logs and the whole command
    public, private = tmp_path / "public", tmp_path / "private"
    for out, flag in ((public, ()), (private, ("--private",))):
        r = run_arena("report", "--db", db, "--out", str(out), *flag, "--json")
        assert r.returncode == 0, r.stderr
        assert json.loads(r.stdout)["private"] is bool(flag)
    page = (public / "tournament" / f"{tid}.html").read_text()
    assert "No faults" not in page and "INIT_FAIL" in page
    assert "logs are kept out of the public report" in page
    everything = _texts(public)
    assert RELATIVE not in everything and "…/crash_at_start.py" in everything
    for f in faults:
        tail = f["log_tail"].strip()
        if tail and tail not in f["detail"]:
            assert tail not in everything
    kept = _texts(private)
    assert command in kept and "INIT_FAIL" in kept
    assert all(f["log_tail"].strip() in kept for f in faults)
