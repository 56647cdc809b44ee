"""``arena tournament`` (run, resume, list) and ``arena demo``."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Any

import typer
from rich.table import Table

from arena import interrupt, limits
from arena.bots import Command, is_builtin
from arena.cli.app import app, emit_json, err, out, tournament_app
from arena.cli.bots import check_images
from arena.cli.options import (
    BrutalOpt,
    ConcurrencyOpt,
    DbOpt,
    DbRetryOpt,
    DeadlineOpt,
    IsolationOpt,
    JsonOpt,
    NoReportOpt,
    ProcessLimitOpt,
    ReportDirOpt,
    SeedOpt,
    StrikesOpt,
    TimeBankOpt,
    VariantOpt,
    WorkersOpt,
    container_limits,
    isolation,
    optional_seed,
    process_options,
    ruleset,
    warn_guessable,
    workers,
)
from arena.console import make_progress
from arena.errors import UsageProblem
from arena.names import check_entry_name, numbered


# ------------------------------------------------------------------ tournaments
def entries_from(values: list[str], challengers: list[str], db: str | None) -> list[Any]:
    """--bots values: registered names, commands, NAME=COMMAND, docker:IMAGE or
    builtin:POLICY (see arena.cli.bots.parse_source). Only reads the registry (a database that
    does not exist is not created)."""
    from arena.bots import Remote, unique_names
    from arena.cli.bots import parse_source
    from arena.tournament import EntrySpec

    parsed = [parse_source(v, db, "--bots") for v in values]
    remote = [name for name, source, _ in parsed if isinstance(source, Remote)]
    for name in remote:
        if remote.count(name) > 1:
            raise UsageProblem(
                f"remote bot {name!r} is entered twice: a remote bot has one "
                "connection and plays one seat per table; enter it once",
                param="--bots",
            )
    entries = []
    for name, (_, source, version) in zip(
        unique_names([p[0] for p in parsed], numbered), parsed, strict=True
    ):
        check_entry_name(name, param="--bots")
        entries.append(EntrySpec(name, source, bot_version_id=version.id if version else None))
    names = [e.name for e in entries]
    for c in challengers:
        if c not in names:
            raise UsageProblem(f"challenger {c!r} is not one of the --bots", param="--challenger")
        entries[names.index(c)].challenger = True
    return entries


def run_and_report(
    db: str | None,
    tid: int,
    as_json: bool,
    out_dir: Path | None = Path("reports"),
    listen: str | None = None,
    db_retry: float | None = None,
    workers: int = 1,
) -> None:
    """Run (or resume) a tournament with a progress bar, print standings, render the report."""
    from arena.tournament import run_tournament

    progress = make_progress(err)
    with progress:
        task = progress.add_task("tournament", total=None)

        def warn(message: str) -> None:
            progress.console.print(f"warning: {message}", markup=False, soft_wrap=True)

        def show(p: Any) -> None:
            progress.update(
                task,
                description=f"round {p.round}/{p.rounds}",
                completed=p.games_done,
                total=max(p.games_total, p.games_done),
            )

        outcome = interrupt.run(
            run_tournament(db, tid, show, listen, db_retry=db_retry, warn=warn, workers=workers),
            f"tournament {tid} interrupted: every bot was stopped and the games played so far "
            f"are kept; continue it with: arena tournament resume {tid}",
        )
    report = None
    if out_dir is not None:
        from arena.report import render_site

        report = render_site(db, out_dir)
    print_standings(outcome, as_json, report)


def print_standings(outcome: Any, as_json: bool, report: Any = None) -> None:
    t = outcome.tournament
    rows = outcome.standings
    if as_json:
        data: dict[str, Any] = {
            "id": t.id,
            "status": t.status,
            "standings": [
                {
                    k: r.as_dict()[k]
                    for k in ("rank", "bot", "points", "elo_rank", "tiebreaks", "games")
                }
                for r in rows
            ],
        }
        los = outcome.winner_los()
        if los is not None:
            data["winner"] = {"bot": los[0], "runner_up": los[1], "los": round(los[2], 4)}
        if report is not None:
            data["report"] = str(report.index)
        emit_json(data)
        return
    table = Table(
        title=f"Tournament {t.id}: {t.format}, {t.variant}{' brutal' if t.brutal else ''}, "
        f"{t.seats}-seat tables, {t.rounds} rounds ({t.status})"
    )
    for col in ("rank", "bot", "points", "Elo rank", "games", "wins", "opp. strength", "byes"):
        table.add_column(col, justify="left" if col == "bot" else "right")
    for r in rows:
        table.add_row(
            str(r.rank),
            r.bot,
            f"{r.points:.1f}",
            "–" if r.elo_rank is None else str(r.elo_rank),
            str(r.games),
            f"{r.wins:g}",
            f"{r.opponents:.2f}",
            str(r.byes) if r.byes else "",
        )
    out.print(table)
    los = outcome.winner_los()
    if los is not None:
        out.print(
            f"winner {los[0]}: likelihood of being stronger than {los[1]} (second) "
            f"{los[2]:.1%}, from this event's games",
            markup=False,
            soft_wrap=True,
        )
    for note in outcome.notes:
        out.print(f"note: {note}")
    if outcome.seconds:
        rate = outcome.games_played / outcome.seconds if outcome.seconds else 0
        out.print(f"{outcome.games_played} games in {outcome.seconds:.1f} s ({rate:.1f} games/s)")
    if report is not None:
        out.print(f"report: {report.index.resolve()} ({report.pages} pages)")


@tournament_app.callback()
def tournament(
    ctx: typer.Context,
    format: Annotated[
        str | None,
        typer.Option("--format", metavar="swiss|round-robin|gauntlet", help="The event format."),
    ] = None,
    bots: Annotated[
        list[str] | None,
        typer.Option(
            "--bots",
            metavar="BOT",
            help="An entrant: a registered bot name, a command, NAME=COMMAND or builtin:POLICY.",
        ),
    ] = None,
    seats: Annotated[
        int,
        typer.Option(
            "--seats",
            metavar="K",
            help=f"Seats per table ({limits.MIN_EVENT_SEATS}–{limits.MAX_TABLE_SEATS}).",
        ),
    ] = 4,
    rounds: Annotated[
        int | None,
        typer.Option(
            "--rounds",
            metavar="R",
            help=f"Rounds (1–{limits.MAX_ROUNDS:,}; default per format). An event plays at "
            f"most {limits.MAX_EVENT_GAMES:,} games in all.",
        ),
    ] = None,
    games: Annotated[
        int,
        typer.Option(
            "--games",
            metavar="G",
            help=f"Games per table each round (1–{limits.MAX_MATCH_GAMES:,}).",
        ),
    ] = 4,
    concurrency: ConcurrencyOpt = 8,
    variant: VariantOpt = "base",
    brutal: BrutalOpt = False,
    seed: SeedOpt = None,
    challenger: Annotated[
        list[str] | None,
        typer.Option("--challenger", metavar="BOT", help="Gauntlet: a challenger (repeatable)."),
    ] = None,
    name: Annotated[
        str, typer.Option("--name", help="A name for the event (one line, up to 200 characters).")
    ] = "",
    deadline: DeadlineOpt = limits.DEFAULT_DEADLINE,
    time_bank: TimeBankOpt = limits.DEFAULT_TIME_BANK,
    max_strikes: StrikesOpt = limits.DEFAULT_MAX_STRIKES,
    memory: Annotated[
        str, typer.Option("--memory", metavar="SIZE", help="Container bots: memory limit.")
    ] = "256m",
    cpus: Annotated[
        float, typer.Option("--cpus", metavar="N", min=0.05, help="Container bots: CPU limit.")
    ] = 1.0,
    pids: Annotated[
        int, typer.Option("--pids", metavar="N", min=8, help="Container bots: process limit.")
    ] = 64,
    process_limit: ProcessLimitOpt = None,
    isolation_: IsolationOpt = "event",
    workers_: WorkersOpt = None,
    listen: Annotated[
        str | None,
        typer.Option(
            "--listen",
            metavar="HOST:PORT",
            help="Also serve bots on TCP: remote bots (bot add --remote) connect here "
            "(port 0: any free port).",
        ),
    ] = None,
    out_dir: ReportDirOpt = Path("reports"),
    no_report: NoReportOpt = False,
    db_retry: DbRetryOpt = None,
    as_json: JsonOpt = False,
    db: DbOpt = None,
) -> None:
    """Run a tournament of bots and store every game; prints the standings.

    Example: arena tournament --format swiss --bots ev --bots builtin:random ... --seats 4
    """
    if ctx.invoked_subcommand is not None:
        return
    from arena.gateway.address import check_listen
    from arena.names import check_event_name
    from arena.store.retry import retry_limit
    from arena.tournament import FORMATS, TournamentConfig, create_tournament

    if format is None:
        raise UsageProblem(f"give --format ({', '.join(FORMATS)}), or a subcommand: resume, list")
    if format not in FORMATS:
        raise UsageProblem(
            f"unknown format {format!r} (choose from {', '.join(FORMATS)})", param="--format"
        )
    if not bots or len(bots) < 2:
        raise UsageProblem("a tournament needs at least two --bots", param="--bots")
    limits.check_count(seats, "--seats", limits.MIN_EVENT_SEATS, limits.MAX_TABLE_SEATS)
    limits.check_rounds(rounds)
    limits.check_games(games)
    limits.check_deadline(deadline)
    limits.check_time_bank(time_bank)
    limits.check_strikes(max_strikes)
    check_event_name(name)
    retry_limit(db_retry)
    isolation(isolation_)
    n_workers = workers(workers_)
    if format == "gauntlet" and not challenger:
        raise UsageProblem("a gauntlet needs at least one --challenger", param="--challenger")
    ruleset(variant, brutal)
    if listen:
        check_listen(listen)  # before anything is stored: the port must be ours to serve
    master = optional_seed(seed)
    entries = entries_from(bots, challenger or [], db)
    warn_guessable(master, [e.name for e in entries if not is_builtin(e.source)])
    cfg = TournamentConfig(
        format=format,
        entries=entries,
        seats=seats,
        rounds=rounds,
        games=games,
        concurrency=concurrency,
        variant=variant,
        brutal=brutal,
        seed=master,
        name=name,
        deadline=deadline,
        time_bank=time_bank,
        max_strikes=max_strikes,
        container=container_limits(memory, cpus, pids),
        process=process_options(process_limit),
        isolation=isolation_,
    )
    if any(e.remote for e in cfg.entries) and not listen:
        raise UsageProblem("remote bots connect over TCP: give --listen HOST:PORT", param="--bots")
    check_images(cfg.entries, param="--bots")
    tid = create_tournament(cfg, db)
    err.print(f"tournament {tid} created; if it is interrupted: arena tournament resume {tid}")
    if listen:
        err.print(f"remote bots connect to {listen} with their tokens")
    run_and_report(db, tid, as_json, None if no_report else out_dir, listen, db_retry, n_workers)


@tournament_app.command("resume")
def tournament_resume(
    tid: Annotated[int, typer.Argument(metavar="ID", help="The tournament's id.")],
    listen: Annotated[
        str | None,
        typer.Option("--listen", metavar="HOST:PORT", help="TCP address for remote bots."),
    ] = None,
    out_dir: ReportDirOpt = Path("reports"),
    no_report: NoReportOpt = False,
    db_retry: DbRetryOpt = None,
    workers_: WorkersOpt = None,
    as_json: JsonOpt = False,
    db: DbOpt = None,
) -> None:
    """Continue a tournament that was interrupted (completed games are kept).

    Refused while the event is still running in another process."""
    from arena.gateway.address import check_listen
    from arena.store.db import read_engine
    from arena.store.retry import retry_limit
    from arena.tournament import load

    retry_limit(db_retry)
    n_workers = workers(workers_)
    load(read_engine(db), tid)  # an unknown id is an error, and creates nothing
    if listen:
        check_listen(listen)
    run_and_report(db, tid, as_json, None if no_report else out_dir, listen, db_retry, n_workers)


@tournament_app.command("list")
def tournament_list(as_json: JsonOpt = False, db: DbOpt = None) -> None:
    """The stored tournaments."""
    from arena.store.db import read_engine
    from arena.tournament import list_tournaments

    rows = list_tournaments(read_engine(db))
    if as_json:
        emit_json(rows)
        return
    if not rows:
        out.print("no tournaments yet")
        return
    table = Table()
    for col in ("id", "name", "format", "variant", "seats", "rounds", "games", "status", "created"):
        table.add_column(col)
    for r in rows:
        table.add_row(
            *(
                str(r[c])
                for c in (
                    "id",
                    "name",
                    "format",
                    "variant",
                    "seats",
                    "rounds",
                    "games",
                    "status",
                    "created",
                )
            )
        )
    out.print(table)


@app.command()
def demo(
    games: Annotated[
        int,
        typer.Option(
            "--games", metavar="G", help=f"Games per table (1–{limits.MAX_MATCH_GAMES:,})."
        ),
    ] = 4,
    rounds: Annotated[
        int,
        typer.Option("--rounds", metavar="R", help=f"Swiss rounds (1–{limits.MAX_ROUNDS:,})."),
    ] = 5,
    variant: VariantOpt = "base",
    seed: SeedOpt = None,
    out_dir: ReportDirOpt = Path("reports"),
    workers_: WorkersOpt = None,
    serve: Annotated[
        bool,
        typer.Option(
            "--serve",
            help="Then leave the competition server running (arena serve --read-only on "
            "127.0.0.1:8077) over the demo's database, with a participant 'demo' whose "
            "login token is printed when it is made.",
        ),
    ] = False,
    as_json: JsonOpt = False,
    db: DbOpt = None,
) -> None:
    """The full demo: the example bots play a Swiss tournament over gRPC (4-seat tables) on
    the database (default: SQLite file arena.db here), then the HTML report is rendered."""
    from arena.demo import register_examples
    from arena.tournament import EntrySpec, TournamentConfig, create_tournament

    limits.check_games(games)
    limits.check_rounds(rounds)
    ruleset(variant, False)
    n_workers = workers(workers_)
    names = register_examples(db)
    from arena.registry import latest

    entries = []
    for name in names:
        found = latest(db, name)
        assert found is not None and found[1].command is not None  # just registered
        entries.append(EntrySpec(name, Command(found[1].command), bot_version_id=found[1].id))
    cfg = TournamentConfig(
        format="swiss",
        entries=entries,
        seats=4,
        rounds=rounds,
        games=games,
        concurrency=8,
        variant=variant,
        seed=optional_seed(seed),
        name="demo",
    )
    tid = create_tournament(cfg, db)
    err.print(f"demo tournament {tid}: {len(entries)} example bots, Swiss, {rounds} rounds")
    run_and_report(db, tid, as_json, out_dir, workers=n_workers)
    if serve:
        from arena.cli.serve import serve as serve_site
        from arena.participants import add_participant
        from arena.store import participants

        if not any(p.name == "demo" for p in participants.every(db)):
            made = add_participant(db, "demo")
            err.print(f"participant demo's login token (shown once): {made.token}", soft_wrap=True)
        serve_site(read_only=True, db=db)
