"""Attack: recover the deck from the seeds. No bot may know a card before it is drawn.

A hostile bot knows the arena's code, guesses small master seeds over the (round, table,
game) grid and confirms a guess exactly through the ``bot_seed`` it receives (see
``bots/seed_cracker.py``). Against an event with secret deals it must never confirm a guess
and must predict the next card no better than card counting does. Against a seeded event
(the operator's explicit, warned-about choice) the same bot succeeds — which shows that the
attack is real and that the measurement can tell the difference.
"""

from __future__ import annotations

import asyncio
import json
import math
import sys
from pathlib import Path
from typing import Any

import pytest
from sqlmodel import Session, select

from arena.bots import Command, Policy
from arena.match import BotEntry, MatchResult, MatchSpec, run_match
from arena.report import render_site
from arena.seeds import DealKey, bot_seed, game_seed
from arena.store.db import get_engine
from arena.store.models import Game, Match, Tournament
from arena.tournament import (
    EntrySpec,
    TournamentConfig,
    TournamentRunner,
    create_tournament,
)

HERE = Path(__file__).resolve().parent
CRACKER = f"{sys.executable} {HERE / 'bots' / 'seed_cracker.py'}"
OPPONENTS = ["ev", "threshold:21", "random"]


class LogKeepingRunner(TournamentRunner):
    """The real tournament runner; it also keeps each match's bot logs for the test."""

    def __init__(self, *a: Any, **kw: Any) -> None:
        super().__init__(*a, **kw)
        self.logs: list[str] = []

    def _store(self, t: Any, m: Any, result: MatchResult) -> None:
        super()._store(t, m, result)
        self.logs.extend(result.logs.values())


def reports(logs: list[str]) -> list[dict[str, Any]]:
    """The cracker's report of each game, once each (a bot that stays up for the event
    hands in its whole log so far with every match)."""
    out: dict[str, dict[str, Any]] = {}
    for text in logs:
        for line in text.splitlines():
            if line.startswith("{") and '"cheat_hits"' in line:
                r = json.loads(line)
                out[r["game_id"]] = r
    return list(out.values())


def cracker_tournament(url: str, seed: int | None) -> tuple[int, list[dict[str, Any]]]:
    entries = [EntrySpec("cracker", Command(CRACKER))]
    entries += [EntrySpec(p, Policy(p)) for p in OPPONENTS]
    cfg = TournamentConfig(
        format="swiss",
        entries=entries,
        seats=4,
        rounds=2,
        games=6,
        seed=seed,
        variant="base",
        isolation="match",  # each match's log is complete when it is stored
    )
    tid = create_tournament(cfg, url)
    runner = LogKeepingRunner(url, tid)
    outcome = asyncio.run(runner.run())
    assert outcome.tournament.status == "completed"
    found = reports(runner.logs)
    assert len(found) == 12, "the cracker reports every game it played"
    return tid, found


def totals(found: list[dict[str, Any]]) -> tuple[int, int, int, int]:
    n = sum(r["n"] for r in found)
    return (
        sum(r["confirmed"] for r in found),
        n,
        sum(r["cheat_hits"] for r in found),
        sum(r["count_hits"] for r in found),
    )


def no_better_than_counting(n: int, cheat: int, count: int) -> bool:
    """The cheater's hits exceed counting's by less than three standard deviations."""
    return cheat <= count + 3 * math.sqrt(max(n, 1)) + 1


def test_seed_cracker_learns_nothing_from_a_tournament_with_secret_deals(tmp_path: Path) -> None:
    url = f"sqlite:///{tmp_path / 'arena.db'}"
    _, found = cracker_tournament(url, seed=None)
    confirmed, n, cheat, count = totals(found)
    assert n >= 60, "enough predictions to measure"
    assert confirmed == 0, "no guess over small seeds and the id grid matched a bot_seed"
    assert no_better_than_counting(n, cheat, count), (n, cheat, count)


def test_seed_cracker_reads_the_deck_of_a_seeded_tournament(tmp_path: Path) -> None:
    """The control: with --seed 3 the deals are guessable, and the same bot reads them."""
    url = f"sqlite:///{tmp_path / 'arena.db'}"
    _, found = cracker_tournament(url, seed=3)
    confirmed, n, cheat, count = totals(found)
    assert confirmed == len(found)
    assert cheat >= 0.95 * n  # it knows the next card before it is drawn
    assert count < 0.35 * n  # counting does not
    assert not no_better_than_counting(n, cheat, count)


def cracker_match(seed: int | None) -> list[dict[str, Any]]:
    bots = [BotEntry("cracker", Command(CRACKER))]
    bots += [BotEntry(p, Policy(p)) for p in OPPONENTS]
    result = asyncio.run(run_match(MatchSpec(bots=bots, games=8, seed=seed)))
    assert all(g.status == "completed" and not g.faults for g in result.games)
    found = reports(list(result.logs.values()))
    assert len(found) == 8
    return found


def test_seed_cracker_learns_nothing_from_a_match_without_seed() -> None:
    confirmed, n, cheat, count = totals(cracker_match(None))
    assert n >= 40 and confirmed == 0
    assert no_better_than_counting(n, cheat, count), (n, cheat, count)


def test_seed_cracker_reads_the_deck_of_a_match_with_a_small_seed() -> None:
    confirmed, n, cheat, _ = totals(cracker_match(7))
    assert confirmed == 8 and cheat >= 0.95 * n


# ------------------------------------------------------------------ the deal key


def test_each_event_without_a_seed_gets_its_own_secret_key_and_deals(tmp_path: Path) -> None:
    url = f"sqlite:///{tmp_path / 'arena.db'}"
    entries = [EntrySpec(p, Policy(p)) for p in ["ev", "threshold:21", "random", "threshold:25"]]
    ids = []
    for _ in range(2):
        cfg = TournamentConfig(format="swiss", entries=entries, seats=4, rounds=1, games=2)
        tid = create_tournament(cfg, url)
        asyncio.run(TournamentRunner(url, tid).run())
        ids.append(tid)
    with Session(get_engine(url)) as s:
        ts = [s.get(Tournament, i) for i in ids]
        seeds = [{g.seed for g in s.exec(select(Game).where(Game.tournament_id == i))} for i in ids]
        match_seeds = [
            {m.seed for m in s.exec(select(Match).where(Match.tournament_id == i))} for i in ids
        ]
    assert all(t is not None and t.seed is None and t.secret for t in ts)
    assert ts[0].secret != ts[1].secret  # type: ignore[union-attr]
    assert len(ts[0].secret) == 64  # type: ignore[union-attr,arg-type]  # 32 random bytes
    assert not seeds[0] & seeds[1] and not match_seeds[0] & match_seeds[1]
    # every stored seed derives from the event's own key
    t0 = ts[0]
    assert t0 is not None
    assert match_seeds[0] == {t0.deal_key().seed("round", 0, "table", 0)}


def test_a_seeded_event_is_reproducible_and_stores_no_secret(tmp_path: Path) -> None:
    url = f"sqlite:///{tmp_path / 'arena.db'}"
    entries = [EntrySpec(p, Policy(p)) for p in ["ev", "threshold:21", "random", "threshold:25"]]
    games = []
    for _ in range(2):
        cfg = TournamentConfig(format="swiss", entries=entries, seats=4, rounds=2, games=2, seed=8)
        tid = create_tournament(cfg, url)
        asyncio.run(TournamentRunner(url, tid).run())
        with Session(get_engine(url)) as s:
            t = s.get(Tournament, tid)
            assert t is not None and t.seed == 8 and t.secret is None
            rows = s.exec(select(Game).where(Game.tournament_id == tid).order_by(Game.id))
            games.append([(g.seed, g.seating, g.ranks, g.choices) for g in rows])
    assert games[0] == games[1] and len(games[0]) == 4


def test_deal_keys_are_keyed_and_never_printed() -> None:
    a, b = DealKey.fresh(), DealKey.fresh()
    assert a.hex() != b.hex()
    assert a.seed("round", 0, "table", 0) != b.seed("round", 0, "table", 0)
    assert a.hex() not in repr(a) and repr(a) == "DealKey(secret)"
    again = DealKey.from_hex(a.hex())
    assert again.seed("x", 1) == a.seed("x", 1)
    assert DealKey.from_seed(5).seed("x") == DealKey.from_seed(5).seed("x")
    assert DealKey.from_seed(5).reproducible and not a.reproducible
    with pytest.raises(ValueError):
        DealKey.from_seed(-1)


def test_a_revealed_game_seed_and_the_bot_seeds_are_independent_outputs() -> None:
    """GameEnd reveals a game's seed; no other game's deal or bot seed is a function of it
    that a bot could compute (they are separate HMAC outputs of a secret match seed)."""
    match_seed = DealKey.fresh().seed("round", 0, "table", 0)
    deals = [game_seed(match_seed, i) for i in range(200)]
    bots = [bot_seed(match_seed, i, s) for i in range(200) for s in range(4)]
    assert len(set(deals)) == 200 and len(set(bots)) == 800
    assert not set(deals) & set(bots)
    assert all(0 <= x < 2**63 for x in deals + bots)


def test_the_report_hides_the_key_until_the_event_is_over(tmp_path: Path) -> None:
    url = f"sqlite:///{tmp_path / 'arena.db'}"
    entries = [EntrySpec(p, Policy(p)) for p in ["ev", "threshold:21", "random", "threshold:25"]]
    cfg = TournamentConfig(format="swiss", entries=entries, seats=4, rounds=1, games=2)
    tid = create_tournament(cfg, url)
    with Session(get_engine(url)) as s:
        t = s.get(Tournament, tid)
        assert t is not None and t.secret
        secret = t.secret
    site = render_site(url, tmp_path / "before")
    page = (site.out / "tournament" / f"{tid}.html").read_text()
    assert secret not in page and "revealed when the event is over" in page
    asyncio.run(TournamentRunner(url, tid).run())
    site = render_site(url, tmp_path / "after")
    page = (site.out / "tournament" / f"{tid}.html").read_text()
    assert secret in page


def test_tournament_cli_warns_when_a_seed_meets_external_bots(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from arena.cli import main

    db = f"sqlite:///{tmp_path / 'arena.db'}"
    args = ["tournament", "--format", "swiss", "--seats", "2", "--rounds", "1", "--games", "1"]
    args += ["--db", db, "--no-report", "--json", "--bots", f"cracker={CRACKER}"]
    for extra, warned in ((["--seed", "12"], True), ([], False)):
        assert main([*args, "--bots", "builtin:ev", *extra]) == 0
        text = capsys.readouterr().err
        assert ("warning: --seed 12" in text) is warned, text
        if warned:
            assert "cracker" in text and "predict every card" in text
    # built-in policies cannot cheat: a seeded event of them is not warned about
    builtins = ["--bots", "builtin:random", "--bots", "builtin:ev", "--seed", "3"]
    assert main([*args[:-2], *builtins]) == 0
    assert "warning" not in capsys.readouterr().err
