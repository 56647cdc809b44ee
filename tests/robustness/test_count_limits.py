"""Absurd game and round counts.

``--games 10000000000`` or ``--rounds 100000000`` used to be accepted (and memory grew
before the first game). Counts are now bounded — games per table, rounds, and the games
of a whole event — and refused in one line that states the limit, before anything is
stored: by the CLI and by the tournament itself.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from clikit import files, one_line_error
from sqlmodel import Session, select

from arena import limits
from arena.bots import Policy
from arena.errors import UsageProblem
from arena.store.db import get_engine
from arena.store.models import Tournament
from arena.tournament import EntrySpec, TournamentConfig, create_tournament

EVENT = ["tournament", "--format", "swiss", "--bots", "builtin:random", "--bots", "builtin:ev"]


@pytest.mark.parametrize("games", ["10000000000", "100001", "0", "-5"])
def test_match_refuses_an_absurd_number_of_games(cli, workdir: Path, games: str) -> None:
    r = cli("match", "--bot", "builtin:random", "--bot", "builtin:ev", "--games", games)
    line = one_line_error(r, 2)
    assert "--games" in line and "100,000" in line
    assert files(workdir) == set()


@pytest.mark.parametrize(
    ("option", "value", "limit"),
    [
        ("--games", "1000000000", "100,000"),
        ("--rounds", "100000000", "1,000"),
        ("--rounds", "0", "1,000"),
    ],
)
def test_tournament_refuses_absurd_counts_before_storing_anything(
    cli, workdir: Path, option: str, value: str, limit: str
) -> None:
    line = one_line_error(cli(*EVENT, option, value, "--no-report"), 2)
    assert option in line and limit in line
    assert files(workdir) == set()


def test_an_event_too_large_in_total_is_refused_with_its_size(cli, workdir: Path) -> None:
    # each count within its own bound, the product far beyond any sensible event
    r = cli(*EVENT, "--rounds", "1000", "--games", "100000", "--no-report")
    line = one_line_error(r, 2)
    assert "100,000,000 games" in line and f"{limits.MAX_EVENT_GAMES:,}" in line
    assert files(workdir) == set()


def test_demo_refuses_absurd_counts(cli, workdir: Path) -> None:
    one_line_error(cli("demo", "--games", "99999999999"), 2)
    one_line_error(cli("demo", "--rounds", "5000"), 2)
    assert files(workdir) == set()


def test_help_states_the_count_limits(cli) -> None:
    match_help = " ".join(cli("match", "--help").out.split())
    assert "1–100,000" in match_help
    event_help = " ".join(cli("tournament", "--help").out.split())
    assert "1–100,000" in event_help and "1–1,000" in event_help
    assert f"{limits.MAX_EVENT_GAMES:,} games" in event_help


def test_the_tournament_itself_refuses_absurd_counts_and_stores_nothing(db_url: str) -> None:
    entries = [EntrySpec(p, Policy(p)) for p in ("ev", "random", "threshold:20")]
    for bad in (
        {"games": 10**9},
        {"rounds": 10**8},
        {"rounds": 1000, "games": 10_000},
        {"seats": 40},
    ):
        cfg = TournamentConfig(**{"format": "swiss", "entries": entries, "seats": 2, **bad})
        with pytest.raises(UsageProblem):
            create_tournament(cfg, db_url)
    with Session(get_engine(db_url)) as s:
        assert s.exec(select(Tournament)).all() == []
