"""Shared by the report tests: names that must be escaped and the stored event to render."""

from __future__ import annotations

import asyncio
import sys
from dataclasses import dataclass
from pathlib import Path

from arena.abtest_runner import AbTestConfig, Player, create_test, run_test
from arena.bots import Command, Policy
from arena.report import RenderResult, render_site
from arena.tournament import EntrySpec, TournamentConfig, create_tournament, run_tournament

XSS = "<script>alert(1)</script>"
QUOTED = 'Tom & "Jerry" <b>\'s</b>'
BOTS = Path(__file__).resolve().parent.parent / "bots"
ARTIFACTS = Path(__file__).resolve().parent / "artifacts"


@dataclass
class Site:
    url: str
    out: Path
    result: RenderResult
    swiss: int
    brutal: int
    faulty: int
    base_brutal: int
    abtest: int


def _run(url: str, cfg: TournamentConfig) -> int:
    tid = create_tournament(cfg, url)
    asyncio.run(run_tournament(url, tid))
    return tid


def build_site(base: Path) -> Site:
    """Three real tournaments in a fresh SQLite database, rendered into base/site.

    * a Swiss event, base game, 4 seats, built-in policies, one of them named like an XSS
      attack and one with quotes, ampersands and tags in its name;
    * a round robin, Vengeance in Brutal mode, 3 seats;
    * a one-round event with a real process bot that crashes mid-game (tests/bots), so the
      fault tables have something true to show;
    * a one-round base game in Brutal mode, so one variant has two leaderboards;
    * a short A/B test whose NEW and BASE have the hostile names, so its page is checked
      like the others.
    """
    url = f"sqlite:///{base / 'arena.db'}"
    swiss = _run(
        url,
        TournamentConfig(
            format="swiss",
            name="Spring <Open> & Co",
            entries=[
                EntrySpec("ev", Policy("ev")),
                EntrySpec("threshold:23", Policy("threshold:23")),
                EntrySpec("threshold:15", Policy("threshold:15")),
                EntrySpec("random", Policy("random")),
                EntrySpec(XSS, Policy("threshold:20")),
                EntrySpec(QUOTED, Policy("threshold:27")),
            ],
            seats=4,
            rounds=3,
            games=2,
            seed=1,
        ),
    )
    brutal = _run(
        url,
        TournamentConfig(
            format="round-robin",
            variant="vengeance",
            brutal=True,
            entries=[
                EntrySpec("ev", Policy("ev")),
                EntrySpec("threshold:23", Policy("threshold:23")),
                EntrySpec("random", Policy("random")),
                EntrySpec(XSS, Policy("threshold:20")),
            ],
            seats=3,
            games=2,
            seed=2,
        ),
    )
    crasher = f"{sys.executable} {BOTS / 'crash_mid_game.py'}"
    faulty = _run(
        url,
        TournamentConfig(
            format="swiss",
            entries=[
                EntrySpec("ev", Policy("ev")),
                EntrySpec("threshold:23", Policy("threshold:23")),
                EntrySpec("random", Policy("random")),
                EntrySpec("crasher", Command(crasher)),
            ],
            seats=4,
            rounds=1,
            games=2,
            seed=3,
        ),
    )
    base_brutal = _run(
        url,
        TournamentConfig(
            format="swiss",
            brutal=True,
            entries=[
                EntrySpec("ev", Policy("ev")),
                EntrySpec("threshold:23", Policy("threshold:23")),
                EntrySpec("random", Policy("random")),
            ],
            seats=3,
            rounds=1,
            games=2,
            seed=4,
        ),
    )
    abtest = create_test(
        AbTestConfig(
            new=Player(XSS, Policy("threshold:20")),
            base=Player(QUOTED, Policy("threshold:27")),
            games=40,
            seed=5,
        ),
        url,
    )
    asyncio.run(run_test(url, abtest, workers=1))
    out = base / "site"
    result = render_site(url, out)
    return Site(url, out, result, swiss, brutal, faulty, base_brutal, abtest)
