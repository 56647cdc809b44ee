"""The organiser's API checks a new event as ``arena tournament`` does (a real ``arena
serve``, real HTTP, the real CLI in a subprocess).

It used to answer 201 to variant "x" or concurrency 0: the event then sat "running"
forever and failed again at every start of the server. Now both the API and the CLI go
through one check (arena.tournament.check_config) before anything is stored, and an
event that cannot run ends "failed" with its reason instead of being retried."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from arenacli import run_arena
from serverkit import add_user, wait_for

BASE = {"bots": ["builtin:ev", "builtin:random"], "seats": 2, "rounds": 1, "games": 2}
CLI_BASE = {"--format": "swiss", "--seats": "2", "--rounds": "1", "--games": "2"}

# (what the API is sent on top of BASE, what the CLI is given on top of CLI_BASE, a part
# of the reason both give)
BAD: list[tuple[dict[str, Any], dict[str, Any], str]] = [
    ({"variant": "x"}, {"--variant": "x"}, "unknown variant 'x'"),
    ({"concurrency": 0}, {"--concurrency": "0"}, "concurrency"),
    ({"concurrency": 10**9}, {"--concurrency": str(10**9)}, "10,000"),
    ({"seats": 1}, {"--seats": "1"}, "between 2 and 18"),
    ({"seats": 19}, {"--seats": "19"}, "between 2 and 18"),
    ({"games": 0}, {"--games": "0"}, "between 1 and 100,000"),
    ({"games": 10**12}, {"--games": str(10**12)}, "between 1 and 100,000"),
    ({"rounds": 0}, {"--rounds": "0"}, "between 1 and 1,000"),
    ({"rounds": 1000, "games": 100_000}, {"--rounds": "1000", "--games": "100000"}, "limit"),
    ({"format": "knockout"}, {"--format": "knockout"}, "unknown format 'knockout'"),
    ({"bots": ["nosuch", "builtin:ev"]}, {"--bots": ["nosuch", "builtin:ev"]}, "nosuch"),
    ({"bots": ["builtin:ev"]}, {"--bots": ["builtin:ev"]}, "at least two bots"),
    ({"format": "gauntlet"}, {"--format": "gauntlet"}, "challenger"),
    (
        {"challengers": ["builtin:ev"]},
        {"--challenger": ["builtin:ev"]},
        "challengers only apply to a gauntlet",
    ),
    ({"name": "two\nlines"}, {"--name": "two\nlines"}, "one line"),
    ({"name": "x" * 201}, {"--name": "x" * 201}, "at most 200 characters"),
    ({"deadline": 0}, {"--deadline": "0"}, "deadline"),
    ({"time_bank": -1}, {"--time-bank": "-1"}, "time"),
    ({"max_strikes": 0}, {"--max-strikes": "0"}, "strikes"),
    ({"start_timeout": 10**6}, {"--start-timeout": str(10**6)}, "start"),
    ({"duplicate": True, "games": 3}, {"--duplicate": True, "--games": "3"}, "multiple"),
]


def _cli_args(extra: dict[str, Any]) -> list[str]:
    given: dict[str, Any] = {"--bots": ["builtin:ev", "builtin:random"], **CLI_BASE, **extra}
    args = ["tournament"]
    for option, value in given.items():
        if value is True:
            args.append(option)
        else:
            for v in value if isinstance(value, list) else [value]:
                args += [option, v]
    return args


def _post(api: Any, token: str, event: dict[str, Any]) -> Any:
    return api.post("/api/tournaments", json=event, headers={"authorization": f"Bearer {token}"})


def test_the_api_and_the_cli_refuse_the_same_events_and_store_nothing(
    tmp_path: Path, serve: Any
) -> None:
    db = f"sqlite:///{tmp_path / 'arena.db'}"
    org = add_user(db, "org", organiser=True)
    server = serve(db)
    api = server.client()
    auth = {"authorization": f"Bearer {org}"}
    for extra, cli_extra, reason in BAD:
        r = _post(api, org, {**BASE, **extra})
        assert r.status_code == 400, (extra, r.status_code, r.text)
        detail = r.json()["detail"]
        assert isinstance(detail, str) and "\n" not in detail and reason in detail, (extra, detail)
        assert api.get("/api/tournaments", headers=auth).json() == [], extra  # nothing stored
        ran = run_arena(*_cli_args(cli_extra), "--no-report", "--db", db)
        assert ran.returncode == 2, (cli_extra, ran.stderr)
        assert "Traceback" not in ran.stderr
        assert reason in ran.stderr.replace("\n", " "), (cli_extra, ran.stderr)
        assert api.get("/api/tournaments", headers=auth).json() == [], cli_extra
    # and a sound event is taken, and played
    r = _post(api, org, BASE)
    assert r.status_code == 201, r.text
    tid = r.json()["id"]
    wait_for(
        lambda: api.get(f"/api/tournaments/{tid}", headers=auth).json()["status"] == "completed",
        120,
        "the event to finish",
    )


def test_the_api_refuses_what_the_server_never_runs_and_unknown_fields(
    tmp_path: Path, serve: Any
) -> None:
    db = f"sqlite:///{tmp_path / 'arena.db'}"
    org = add_user(db, "org", organiser=True)
    server = serve(db)
    api = server.client()
    for event, status, reason in [
        # a command or an image named in a request is never started by the server
        ({**BASE, "bots": ["ls", "builtin:ev"]}, 400, "not a registered bot"),
        ({**BASE, "bots": ["docker:alpine", "builtin:ev"]}, 400, "not a registered bot"),
        # a misspelt setting is not silently ignored, nor a number given as text
        ({**BASE, "variants": "base"}, 422, "variants"),
        ({**BASE, "seats": "4"}, 422, "seats"),
        ({**BASE, "seats": True}, 422, "seats"),
    ]:
        r = _post(api, org, event)
        assert r.status_code == status, (event, r.text)
        assert reason in json.dumps(r.json()["detail"]), r.text
    assert api.get("/api/tournaments", headers={"authorization": f"Bearer {org}"}).json() == []


@pytest.mark.parametrize("bad", [{"variant": "x"}, {"concurrency": 0}])
def test_a_stored_event_that_cannot_run_ends_failed_and_is_not_retried(
    tmp_path: Path, serve: Any, bad: dict[str, Any]
) -> None:
    """An event stored unchecked (by a server before this check) is not retried forever."""
    from arena.bots import Policy
    from arena.seeds import DealKey
    from arena.store import tournaments
    from arena.store.models import Entry, Tournament, entry_columns

    db = f"sqlite:///{tmp_path / 'arena.db'}"
    row: dict[str, Any] = {
        "format": "swiss",
        "variant": "base",
        "seats": 2,
        "rounds": 1,
        "games_per_match": 2,
        "concurrency": 4,
        "secret": DealKey.fresh().hex(),
        **bad,
    }
    entries = [Entry(name=p, **entry_columns(Policy(p))) for p in ("ev", "random")]
    tid = tournaments.create(db, Tournament(**row), entries)
    server = serve(db, "--read-only")
    api = server.client()
    failed = wait_for(
        lambda: (t := api.get(f"/api/tournaments/{tid}").json())["status"] == "failed" and t,
        60,
        "the event to end failed",
    )
    assert next(iter(bad)) in failed["error"], failed
    server.stop()
    again = serve(db, "--read-only")
    shown = again.client().get(f"/api/tournaments/{tid}").json()
    assert shown["status"] == "failed" and next(iter(bad)) in shown["error"], shown
    assert "failed" not in again.output()  # not tried again: nothing new in its log
    page = again.client().get(f"/tournament/{tid}.html").text  # the site says why
    assert "stopped for good" in page and next(iter(bad)) in page
    listed = run_arena("tournament", "list", "--json", "--db", db)
    assert json.loads(listed.stdout)[0]["status"] == "failed"
    resumed = run_arena("tournament", "resume", str(tid), "--no-report", "--db", db)
    assert resumed.returncode == 1 and "cannot be resumed" in resumed.stderr, resumed.stderr
