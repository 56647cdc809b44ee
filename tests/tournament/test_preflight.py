"""The pre-flight of a tournament: before the first game every entrant is started and must
say hello (a remote one: connect). One that does not stops the event before anything is
played, naming the bot and why; with ``--allow-absent`` the event goes on without it: it
forfeits every game, the standings mark it, and its games do not count for its rating.
Real bot processes, real sockets, SQLite and PostgreSQL."""

from __future__ import annotations

import asyncio
import json
import re
import socket
import subprocess
import sys
import time
from pathlib import Path

import pytest
from arenacli import run_arena
from sqlmodel import Session, create_engine, select

from arena.bots import Command, Policy, Remote
from arena.leaderboard import rated, ratings
from arena.match.preflight import PreflightFailed
from arena.registry import add_bot
from arena.store.games import Result
from arena.store.models import Game, Tournament
from arena.tournament import EntrySpec, TournamentConfig, create_tournament, run_tournament

ROOT = Path(__file__).resolve().parents[2]
EX = ROOT / "bots" / "examples" / "python"
# exits at once with the line an interpreter prints when a dependency is missing
BROKEN = (
    f"{sys.executable} -c \"import sys; print('ModuleNotFoundError: No module named grpc', "
    'file=sys.stderr); sys.exit(1)"'
)
BROKEN_REASON = (
    "bot exited with code 1 before it connected: ModuleNotFoundError: No module named grpc"
)


def cli(*args: str) -> subprocess.CompletedProcess[str]:
    return run_arena(*args, columns=200, timeout=300)


def stored_games(url: str, tid: int) -> list[Game]:
    eng = create_engine(url)
    with Session(eng) as s:
        rows = list(s.exec(select(Game).where(Game.tournament_id == tid)))
    eng.dispose()
    return rows


def status_of(url: str, tid: int) -> str:
    eng = create_engine(url)
    with Session(eng) as s:
        t = s.get(Tournament, tid)
        assert t is not None
        status = t.status
    eng.dispose()
    return status


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def test_an_entrant_that_cannot_start_stops_the_tournament_before_any_game_and_is_named(
    db_url: str, tmp_path: Path
) -> None:
    for name, cmd in (("broken", BROKEN), ("ev", f"python {EX}/ev/bot.py")):
        r = cli("bot", "add", name, "--cmd", cmd, "--db", db_url)
        assert r.returncode == 0, r.stderr
    event = ["--format", "swiss", "--bots", "broken", "--bots", "ev", "--bots", "builtin:random"]
    event += ["--bots", "builtin:threshold:20", "--seats", "2", "--rounds", "2", "--games", "2"]
    r = cli("tournament", *event, "--seed", "3", "--db", db_url, "--out", str(tmp_path / "rep"))
    assert r.returncode == 1, r.stdout + r.stderr
    stderr = r.stderr
    assert "Traceback" not in stderr
    errors = [ln for ln in stderr.splitlines() if ln.startswith("error: ")]
    assert errors == [f"error: broken@v1 did not start: {BROKEN_REASON}"]  # ev passed: not named
    assert "pre-flight: starting 2 bot(s)" in stderr
    assert "arena tournament resume 1" in stderr and "--allow-absent" in stderr
    assert stored_games(db_url, 1) == [] and status_of(db_url, 1) != "completed"
    assert not (tmp_path / "rep").exists()  # no report of an event that never started

    # the operator goes on without it: it forfeits every game, visibly
    r = cli("tournament", "resume", "1", "--allow-absent", "--db", db_url, "--json",
            "--out", str(tmp_path / "rep"))  # fmt: skip
    assert r.returncode == 0, r.stderr
    assert f"warning: broken@v1 is absent ({BROKEN_REASON})" in r.stderr
    data = json.loads(r.stdout)
    assert data["absent"] == [{"bot": "broken@v1", "reason": BROKEN_REASON}]
    rows = {row["bot"]: row for row in data["standings"]}
    assert (
        rows["broken@v1"]["games"] > 0
        and rows["broken@v1"]["forfeits"] == rows["broken@v1"]["games"]
    )
    assert rows["broken@v1"]["elo_rank"] is None and rows["broken@v1"]["tiebreaks"]["elo"] is None
    assert all(rows[b]["forfeits"] == 0 for b in rows if b != "broken@v1")
    [line] = data["faults"]  # the summary: one line, the absent bot's INIT_FAIL
    assert (line["bot"], line["kind"], line["forfeits"]) == ("broken@v1", "INIT_FAIL", 4)
    assert line["first"] == BROKEN_REASON

    games = stored_games(db_url, 1)
    assert len(games) == 8 and all(g.status == "completed" for g in games)
    for g in [g for g in games if "broken@v1" in g.seating]:
        seat = g.seating.index("broken@v1")
        assert g.ranks[seat] == max(g.ranks)  # a forfeit ranks last
        assert [f["absent"] for f in g.faults if f["bot"] == "broken@v1"] == [True]
    board = ratings(db_url, variant="base", brutal=False)
    assert "broken@v1" not in board.ratings  # it never played: no rating on the leaderboard
    assert {"ev@v1", "random", "threshold:20"} <= set(board.ratings)
    r = cli("leaderboard", "--db", db_url, "--json")
    assert r.returncode == 0 and "broken" not in r.stdout

    # the HTML report marks the forfeits in its standings
    html = (tmp_path / "rep" / "tournament" / "1.html").read_text()
    row = re.search(r'<tr data-bot="broken@v1">.*?</tr>', html, re.S)
    assert row is not None, html
    assert '<td class="n forfeits"><strong>4</strong></td>' in row.group(0)


def test_the_terminal_shows_the_pre_flight_the_forfeits_and_the_fault_summary(
    tmp_path: Path,
) -> None:
    db = f"sqlite:///{tmp_path / 'arena.db'}"
    assert cli("bot", "add", "broken", "--cmd", BROKEN, "--db", db).returncode == 0
    r = cli("tournament", "--format", "round-robin", "--bots", "broken", "--bots",
            "builtin:ev", "--bots", "builtin:random", "--seats", "3", "--games", "2",
            "--allow-absent", "--no-report", "--db", db)  # fmt: skip
    assert r.returncode == 0, r.stderr
    out = r.stdout
    table = {
        cells[1]: cells
        for ln in out.splitlines()
        if ln.startswith("│") and len(cells := [c.strip() for c in ln.strip("│").split("│")]) == 8
    }
    # no bye in this event, so no byes column: 8 columns
    header = [
        c.strip()
        for c in next(ln for ln in out.splitlines() if "forfeits" in ln).strip("┃").split("┃")
    ]
    assert header[5] == "forfeits"
    assert table["broken@v1"][4] == table["broken@v1"][5] == "2"  # 2 games, both forfeited
    assert table["broken@v1"][3] == "–"  # no rating rank: it never played
    assert table["ev"][5] == ""
    summary = out[out.index("faults over 2 game(s)") :]
    assert "broken" in summary and "INIT_FAIL" in summary and "ModuleNotFoundError" in summary


@pytest.mark.parametrize("workers", [1, 2])
def test_a_remote_entrant_that_never_connects_is_caught_by_the_pre_flight(
    db_url: str, workers: int
) -> None:
    added = add_bot(db_url, "far", remote=True)
    entries = [EntrySpec("far", Remote(), bot_version_id=added.version.id)]
    entries += [EntrySpec("ev", Command(f"{sys.executable} {EX}/ev/bot.py"))]
    entries += [EntrySpec(p, Policy(p)) for p in ("random", "threshold:20")]
    cfg = TournamentConfig(
        format="swiss", entries=entries, seats=2, rounds=2, games=1, seed=4, start_timeout=1.0
    )
    tid = create_tournament(cfg, db_url)
    listen = f"127.0.0.1:{free_port()}"
    t0 = time.monotonic()
    with pytest.raises(PreflightFailed) as caught:
        asyncio.run(run_tournament(db_url, tid, listen=listen, workers=workers))
    assert time.monotonic() - t0 < 15  # the short timeout, not the default 20 s
    assert caught.value.problems == ["far did not start: remote bot did not connect within 1 s"]
    assert stored_games(db_url, tid) == []

    outcome = asyncio.run(
        run_tournament(db_url, tid, listen=listen, workers=workers, allow_absent=True)
    )
    assert outcome.tournament.status == "completed"
    assert [a.bot for a in outcome.absent] == ["far"]
    far = next(r for r in outcome.standings if r.bot == "far")
    assert far.games == far.forfeits > 0 and far.elo is None
    ev = next(r for r in outcome.standings if r.bot == "ev")
    assert ev.games > 0 and ev.forfeits == 0  # the process bot that passed plays normally
    assert [(ln.bot, ln.kind) for ln in outcome.faults] == [("far", "INIT_FAIL")]


@pytest.mark.parametrize(
    ("workers", "isolation"), [(2, "event"), (1, "match"), (2, "match")], ids=str
)
def test_the_pre_flight_works_with_workers_and_per_match_isolation(
    tmp_path: Path, workers: int, isolation: str
) -> None:
    db = f"sqlite:///{tmp_path / 'arena.db'}"
    entries = [
        EntrySpec("broken", Command(BROKEN)),
        EntrySpec("ev", Command(f"{sys.executable} {EX}/ev/bot.py")),
        EntrySpec("cautious", Command(f"{sys.executable} {EX}/threshold/bot.py 18")),
        EntrySpec("random", Policy("random")),
    ]
    cfg = TournamentConfig(
        format="round-robin", entries=entries, seats=2, games=2, seed=6, isolation=isolation
    )
    tid = create_tournament(cfg, db)
    with pytest.raises(PreflightFailed) as caught:
        asyncio.run(run_tournament(db, tid, workers=workers))
    assert caught.value.problems == [f"broken did not start: {BROKEN_REASON}"]
    assert stored_games(db, tid) == []

    outcome = asyncio.run(run_tournament(db, tid, workers=workers, allow_absent=True))
    assert outcome.tournament.status == "completed"
    rows = {r.bot: r for r in outcome.standings}
    n = rows["ev"].games
    assert n > 0 and rows["broken"].forfeits == rows["broken"].games == n
    assert all(rows[b].forfeits == 0 and rows[b].games == n for b in ("ev", "cautious"))
    assert [(ln.bot, ln.kind, ln.games) for ln in outcome.faults] == [("broken", "INIT_FAIL", n)]
    board = ratings(db, variant="base", brutal=False)
    assert "broken" not in board.ratings and {"ev", "cautious", "random"} <= set(board.ratings)


def test_a_seat_whose_bot_never_played_is_left_out_of_the_games_rating() -> None:
    """The others' places among themselves still count; a game with one player left
    (a two-seat game against an absent bot) tells the ratings nothing."""
    three = Result(1, 1, ["a", "gone", "b"], [1, 3, 2], absent=frozenset({1}))
    kept = rated(three)
    assert kept is not None and (kept.players, kept.ranks) == (("a", "b"), (1, 2))
    assert rated(Result(2, 1, ["a", "gone"], [1, 2], absent=frozenset({1}))) is None
    full = rated(Result(3, 1, ["a", "b"], [2, 1]))
    assert full is not None and (full.players, full.ranks) == (("a", "b"), (2, 1))
