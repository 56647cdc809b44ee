"""``arena leaderboard``, ``arena report`` and ``arena db upgrade``."""

from __future__ import annotations

import os
from typing import Annotated

import typer

from arena import limits
from arena.cli.app import app, db_app, emit_json, make_table, out
from arena.cli.options import (
    DbOpt,
    JsonOpt,
    ReportDirOpt,
    ruleset,
)
from arena.errors import UsageProblem


# ------------------------------------------------------------------ leaderboard
@app.command()
def leaderboard(
    variant: Annotated[
        str | None,
        typer.Option("--variant", metavar="base|vengeance", help="Only games of this variant."),
    ] = None,
    brutal: Annotated[
        bool | None,
        typer.Option(
            "--brutal/--no-brutal",
            help="Only games in Brutal mode, or only games without it (default: both, "
            "each in its own table).",
        ),
    ] = None,
    tournament: Annotated[
        int | None,
        typer.Option(
            "--tournament", metavar="ID", help="Only this tournament (every version in it)."
        ),
    ] = None,
    all_versions: Annotated[
        bool,
        typer.Option(
            "--all-versions",
            help="Every version of each registered bot (default: the newest version that "
            "has games on the board).",
        ),
    ] = False,
    as_json: JsonOpt = False,
    db: DbOpt = None,
) -> None:
    """The Elo leaderboards: a maximum-likelihood fit over every stored game's ranking,
    one table per variant and mode (Brutal games are rated apart from the others).

    Each version of a registered bot is rated on its own, as NAME@vN; by default a board
    shows the newest rated version of each bot (--all-versions: the history). Ratings are
    on the Elo scale (mean 1500) with 95 % intervals; LOS is the likelihood that a bot is
    stronger than the one ranked just below it among the rows shown. --json prints one
    list of rows, board after board, each with the keys rank, bot, elo, ci_low, ci_high,
    games, score, los_next, variant and brutal.
    """
    from itertools import groupby

    from arena.leaderboard import leaderboard_rows
    from arena.store.db import read_engine
    from arena.tournament import load

    if variant is not None:
        ruleset(variant, False)
    eng = read_engine(db)
    if tournament is not None:
        load(eng, tournament)  # an unknown id is an error, not an empty board
    rows = leaderboard_rows(
        eng, variant=variant, brutal=brutal, tournament=tournament, all_versions=all_versions
    )
    if as_json:
        emit_json(rows)
        return
    if not rows:
        filtered = (variant, brutal, tournament) != (None, None, None)
        out.print("no stored games match these options" if filtered else "no games stored yet")
        return
    for (v, b), board in groupby(rows, key=lambda r: (r["variant"], r["brutal"])):
        title = f"Elo leaderboard: {v}{' brutal' if b else ''}"
        if tournament is not None:
            title += f", tournament {tournament}"
        table = make_table(
            *("rank", "bot", "elo", "95% interval", "games", "score", "LOS next"),
            title=title,
            left=["bot"],
        )
        for r in board:
            table.add_row(
                str(r["rank"]),
                r["bot"],
                f"{r['elo']:.0f}",
                f"{r['ci_low']:.0f} – {r['ci_high']:.0f}",
                str(r["games"]),
                "–" if r["score"] is None else f"{r['score']:.1%}",
                "" if r["los_next"] is None else f"{r['los_next']:.1%}",
            )
        out.print(table)


# ------------------------------------------------------------------ report
@app.command()
def report(
    out_dir: ReportDirOpt = None,
    private: Annotated[
        bool,
        typer.Option(
            "--private",
            help="The organiser's own copy: also the bots' logs (stderr tails stored with "
            "their faults), the bots' commands and fault details with their file paths, and "
            "the database; each page says it is private. Default folder: the public one's "
            "name + '-private', beside it (never inside it).",
        ),
    ] = False,
    replays: Annotated[
        str,
        typer.Option(
            "--replays",
            metavar="auto|inline|compact",
            help="inline: each game's replay in its page. compact: packed in data files "
            "(game/data/N.js, 50 games each) that a game's page loads when opened: about a "
            "quarter of the size, for ladders and other long runs. auto (default): compact "
            "above 2,000 games.",
        ),
    ] = "auto",
    full: Annotated[
        bool,
        typer.Option(
            "--full",
            help="Render every page again. Default: a folder this command rendered before "
            "keeps the game pages that would come out the same (a game's page changes only "
            "when the game or its neighbours do), so a re-render costs the new games.",
        ),
    ] = False,
    jobs: Annotated[
        int | None,
        typer.Option(
            "--jobs",
            metavar="N",
            help="Processes rendering the game pages (1–64; default: one per core). Each "
            "replays its games with the engine, the costly part of a report.",
        ),
    ] = None,
    as_json: JsonOpt = False,
    db: DbOpt = None,
) -> None:
    """Render the static HTML site: leaderboards, tournaments, bots and game replays.

    Self-contained (no network): open DIR/index.html from disk or serve DIR anywhere.
    The report is public by default: no bot's log, no absolute file path (a command's
    paths are shortened to the file's name) and no database URL; --private shows them.
    Rendering again into the same folder writes only what changed (see --full).
    """
    from arena.report.cli import REPLAYS, default_out, report_command
    from arena.store.db import read_engine

    if replays not in REPLAYS:
        raise UsageProblem(
            f"unknown form {replays!r} (choose from {', '.join(REPLAYS)})", param="--replays"
        )
    if jobs is not None:
        limits.check_count(jobs, "--jobs", 1, 64)
    eng = read_engine(db)
    report_command(
        out_dir or default_out(db, private),
        eng,
        as_json,
        private=private,
        compact=REPLAYS[replays],
        incremental=not full,
        jobs=jobs if jobs is not None else max(1, min(64, os.cpu_count() or 1)),
    )


# ------------------------------------------------------------------ database
@db_app.command("upgrade")
def db_upgrade(db: DbOpt = None) -> None:
    """Create the database or migrate it to the current schema."""
    from arena.store.db import current_revision, describe, get_engine, resolve_url

    eng = get_engine(db)
    url = resolve_url(db)
    shown = url if url.startswith("sqlite") else describe(url)  # never a password
    out.print(f"{shown}: schema at revision {current_revision(eng)}")
