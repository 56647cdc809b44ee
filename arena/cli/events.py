"""``arena tournament`` (run, resume, list) and ``arena demo``."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Annotated, Any

import typer

from arena import interrupt, limits
from arena.bots import Command, is_builtin
from arena.cli.app import app, emit_json, err, make_table, out, tournament_app
from arena.cli.bots import check_images
from arena.cli.options import (
    AllowAbsentOpt,
    BrutalOpt,
    ConcurrencyOpt,
    DbOpt,
    DbRetryOpt,
    DeadlineOpt,
    DuplicateOpt,
    ExecutorOpt,
    IsolationOpt,
    JsonOpt,
    NoReportOpt,
    ProcessLimitOpt,
    RayAddressOpt,
    ReportDirOpt,
    SeedOpt,
    StartTimeoutOpt,
    StrikesOpt,
    TimeBankOpt,
    VariantOpt,
    WorkersOpt,
    container_limits,
    executor,
    optional_seed,
    process_options,
    ruleset,
    warn_guessable,
    workers,
)
from arena.cli.play import fault_rows, print_fault_summary
from arena.console import make_progress
from arena.errors import UsageProblem
from arena.names import check_entry_name, numbered


# ------------------------------------------------------------------ tournaments
def entries_from(
    values: list[str],
    challengers: list[str],
    db: str | None,
    option: Callable[[str], str] | None = None,
) -> list[Any]:
    """--bots values: registered names, commands, NAME=COMMAND, docker:IMAGE or
    builtin:POLICY (see arena.cli.bots.parse_source); the bots of a disabled participant
    are refused (they sit out of new events). Only reads the registry (a database that
    does not exist is not created). ``option``: how the caller names its settings
    (arena.tournament.cli_option, the default, or api_option for the server's API)."""
    from arena.bots import Remote, unique_names
    from arena.cli.bots import parse_source
    from arena.tournament import EntrySpec, cli_option

    option = option or cli_option
    bots_param, challenger_param = option("entries"), option("challengers")
    parsed = [parse_source(v, db, bots_param) for v in values]
    if any(version is not None for _, _, version in parsed):
        from arena.store.db import read_engine
        from arena.store.participants import disabled_bot_ids

        benched = disabled_bot_ids(read_engine(db))
        for name, _, version in parsed:
            if version is not None and version.bot_id in benched:
                raise UsageProblem(
                    f"{name} belongs to a disabled participant: their bots sit out of new "
                    "events until 'arena user enable'",
                    param=bots_param,
                )
    remote = [name for name, source, _ in parsed if isinstance(source, Remote)]
    for name in remote:
        if remote.count(name) > 1:
            raise UsageProblem(
                f"remote bot {name!r} is entered twice: a remote bot has one "
                "connection and plays one seat per table; enter it once",
                param=bots_param,
            )
    entries = []
    for name, (_, source, version) in zip(
        unique_names([p[0] for p in parsed], numbered), parsed, strict=True
    ):
        check_entry_name(name, param=bots_param)
        entries.append(EntrySpec(name, source, bot_version_id=version.id if version else None))
    names = [e.name for e in entries]
    for c in challengers:
        chosen = challenger_entry(c, names, values, db, challenger_param)
        if chosen is None:
            raise UsageProblem(
                f"challenger {c!r} is not one of the {bots_param}", param=challenger_param
            )
        entries[names.index(chosen)].challenger = True
    return entries


def challenger_entry(
    value: str, names: list[str], given: list[str], db: str | None, param: str = "--challenger"
) -> str | None:
    """The entry a --challenger names: by its entry name (``ev@v2``, ``threshold:25``), as
    it was given in --bots (``ev``), or as the registered version it selects."""
    from arena.cli.bots import registered
    from arena.registry import label

    value = value.strip()
    if value in names:
        return value
    as_given = [v.strip() for v in given]
    if value in as_given:
        return names[as_given.index(value)]
    found = registered(value, db, param)
    if found is not None and label(found[0], found[1]) in names:
        return label(found[0], found[1])
    return None


def run_and_report(
    db: str | None,
    tid: int,
    as_json: bool,
    out_dir: Path | None = None,
    listen: str | None = None,
    db_retry: float | None = None,
    workers: int = 1,
    allow_absent: bool = False,
    where: tuple[str, str | None] = ("local", None),
) -> None:
    """Run (or resume) a tournament with a progress bar (after its pre-flight), print
    standings and the fault summary, render the report. ``where``: the executor's name
    and the Ray cluster's address (options.executor)."""
    from arena.tournament import run_tournament

    progress = make_progress(err)
    with progress:
        task = progress.add_task("tournament", total=None)

        def warn(message: str) -> None:
            progress.console.print(f"warning: {message}", markup=False, soft_wrap=True)

        def say(message: str) -> None:
            progress.console.print(message, markup=False, soft_wrap=True)

        def show(p: Any) -> None:
            progress.update(
                task,
                description=f"round {p.round}/{p.rounds}",
                completed=p.games_done,
                total=max(p.games_total, p.games_done),
            )

        outcome = interrupt.run(
            run_tournament(
                db,
                tid,
                show,
                listen,
                db_retry=db_retry,
                warn=warn,
                workers=workers,
                allow_absent=allow_absent,
                say=say,
                executor=where[0],
                address=where[1],
            ),
            f"tournament {tid} interrupted: every bot was stopped and the games played so far "
            f"are kept; continue it with: arena tournament resume {tid}",
        )
    report = None
    if out_dir is not None:
        from arena.report import render_site

        report = render_site(db, out_dir)  # the public form (arena report --private: not)
    print_standings(outcome, as_json, report)


def report_dir(db: str | None, out_dir: Path | None, no_report: bool = False) -> Path | None:
    """Where an event's report goes: --out, else the database's own folder under reports/
    (arena.report.cli.default_out); None with --no-report."""
    if no_report:
        return None
    from arena.report.cli import default_out

    return out_dir if out_dir is not None else default_out(db)


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
                    for k in (
                        *("rank", "bot", "points", "elo_rank", "tiebreaks"),
                        *("games", "forfeits", "wins", "byes"),
                    )
                }
                for r in rows
            ],
            "faults": fault_rows(outcome.faults),
            "absent": [{"bot": a.bot, "reason": a.reason} for a in outcome.absent],
        }
        los = outcome.winner_los()
        if los is not None:
            data["winner"] = {"bot": los[0], "runner_up": los[1], "los": round(los[2], 4)}
            odds = outcome.winner_odds()
            data["winner"]["odds"] = None if odds is None else odds.as_dict()
        if report is not None:
            data["report"] = str(report.index)
        emit_json(data)
        return
    # forfeits and byes get a column of their own only when a bot had one
    forfeits = any(r.forfeits for r in rows)
    byes = any(r.byes for r in rows)
    table = make_table(
        *("rank", "bot", "points", "Elo rank", "games"),
        *(["forfeits"] if forfeits else []),
        *("wins", "opp. strength"),
        *(["byes"] if byes else []),
        title=f"Tournament {t.id}: {t.format}, {t.variant}{' brutal' if t.brutal else ''}, "
        f"{t.seats}-seat tables, {t.rounds} rounds"
        f"{', duplicate deals' if (t.options or {}).get('duplicate') else ''} ({t.status})",
        left=["bot"],
    )
    for r in rows:
        table.add_row(
            str(r.rank),
            r.bot,
            f"{r.points:.1f}",
            "–" if r.elo_rank is None else str(r.elo_rank),
            str(r.games),
            *([str(r.forfeits) if r.forfeits else ""] if forfeits else []),
            f"{r.wins:g}",
            f"{r.opponents:.2f}",
            *([str(r.byes) if r.byes else ""] if byes else []),
            style="bold" if r.forfeits and r.forfeits == r.games else None,
        )
    out.print(table)
    print_fault_summary(outcome.faults, outcome.games)
    los = outcome.winner_los()
    if los is not None:
        out.print(
            f"winner {los[0]}: likelihood of being stronger than {los[1]} (second) "
            f"{los[2]:.1%}, from this event's games",
            markup=False,
            soft_wrap=True,
        )
        odds = outcome.winner_odds()
        if odds is not None and odds.short:
            out.print(odds_line(outcome.tournament, odds), markup=False, soft_wrap=True)
    for note in outcome.notes:
        out.print(f"note: {note}")
    if outcome.seconds:
        rate = outcome.games_played / outcome.seconds if outcome.seconds else 0
        out.print(f"{outcome.games_played} games in {outcome.seconds:.1f} s ({rate:.1f} games/s)")
    if report is not None:
        out.print(f"report: {report.index.resolve()} ({report.pages} pages)")


def odds_line(t: Any, odds: Any) -> str:
    """The warning under the winner's LOS for a short event (arena.winner_odds)."""
    length = f"{t.rounds} round{'s' if t.rounds != 1 else ''} of {t.games_per_match} game" + (
        "s" if t.games_per_match != 1 else ""
    )
    line = (
        f"short event: if the fitted ratings were the bots' true strengths, {length} per "
        f"table would name the strongest bot ({odds.best}) the winner in "
        f"{odds.this.rate:.0%} of {odds.this.runs} simulated runs"
    )
    if odds.longer is not None and odds.longer.rate >= limits.SURE_WINNER:
        line += f"; --games {odds.longer.games} would in {odds.longer.rate:.0%}"
    elif odds.longer is not None:  # the best bots are too close to tell apart soon
        line += f"; even --games {odds.longer.games} would only in {odds.longer.rate:.0%}"
    return line


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
            help="An entrant (repeatable): a registered bot's name (its latest version), "
            "NAME@vN for another version, a command, NAME=COMMAND, docker:IMAGE or "
            "builtin:POLICY. Registered bots play as NAME@vN.",
        ),
    ] = None,
    seats: Annotated[
        int,
        typer.Option(
            "--seats",
            metavar="N",
            help=f"Seats per table ({limits.MIN_EVENT_SEATS}–{limits.MAX_TABLE_SEATS}).",
        ),
    ] = 4,
    rounds: Annotated[
        int | None,
        typer.Option(
            "--rounds",
            metavar="N",
            help=f"Rounds (1–{limits.MAX_ROUNDS:,}; default per format). An event plays at "
            f"most {limits.MAX_EVENT_GAMES:,} games in all.",
        ),
    ] = None,
    games: Annotated[
        int,
        typer.Option(
            "--games",
            metavar="N",
            help=f"Games per table each round (1–{limits.MAX_MATCH_GAMES:,}).",
        ),
    ] = 4,
    concurrency: ConcurrencyOpt = 8,
    variant: VariantOpt = "base",
    brutal: BrutalOpt = False,
    seed: SeedOpt = None,
    duplicate: DuplicateOpt = False,
    challenger: Annotated[
        list[str] | None,
        typer.Option("--challenger", metavar="BOT", help="Gauntlet: a challenger (repeatable)."),
    ] = None,
    name: Annotated[
        str,
        typer.Option(
            "--name", metavar="NAME", help="A name for the event (one line, up to 200 characters)."
        ),
    ] = "",
    deadline: DeadlineOpt = limits.DEFAULT_DEADLINE,
    time_bank: TimeBankOpt = limits.DEFAULT_TIME_BANK,
    max_strikes: StrikesOpt = limits.DEFAULT_MAX_STRIKES,
    start_timeout: StartTimeoutOpt = limits.DEFAULT_START_TIMEOUT,
    allow_absent: AllowAbsentOpt = False,
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
    executor_: ExecutorOpt = "local",
    ray_address: RayAddressOpt = None,
    listen: Annotated[
        str | None,
        typer.Option(
            "--listen",
            metavar="HOST:PORT",
            help="Also serve bots on TCP: remote bots (bot add --remote) connect here "
            "(port 0: any free port).",
        ),
    ] = None,
    out_dir: ReportDirOpt = None,
    no_report: NoReportOpt = False,
    db_retry: DbRetryOpt = None,
    as_json: JsonOpt = False,
    db: DbOpt = None,
) -> None:
    """Run a tournament (options below), resume one, or list them.

    A tournament stores every game and prints the standings. Before the first game
    every bot is started and must say hello within --start-timeout (remote bots:
    connect); if one does not, nothing is played and each such bot is named with the
    reason (exit 1; resume the event once fixed, or give --allow-absent).

    After the standings: a summary of the faults (per bot and kind, with the first
    reason), and the winner's likelihood of superiority (LOS) over the runner-up. When
    the event is short, a line says how often an event of its length names the strongest
    bot the winner: the event is replayed 200 times in simulation (fewer for big events)
    with the fitted ratings as true strengths — same format, rounds, tables and games,
    the same scheduler and standings rules, each game's order drawn from the model the
    ratings are fitted with — and "short" means under 95 %; a larger --games that would
    do better (x2, x4 or x8) is named.

    Example: arena tournament --format swiss --bots ev --bots builtin:random ... --seats 4
    """
    if ctx.invoked_subcommand is not None:
        return
    from arena.gateway.address import check_listen
    from arena.store.retry import retry_limit
    from arena.tournament import (
        FORMATS,
        TournamentConfig,
        check_config,
        check_settings,
        cli_option,
        create_tournament,
    )

    if format is None:
        raise UsageProblem(f"give --format ({', '.join(FORMATS)}), or a subcommand: resume, list")
    cfg = TournamentConfig(
        format=format,
        entries=[],
        seats=seats,
        rounds=rounds,
        games=games,
        concurrency=concurrency,
        variant=variant,
        brutal=brutal,
        seed=optional_seed(seed),
        name=name,
        deadline=deadline,
        time_bank=time_bank,
        max_strikes=max_strikes,
        start_timeout=start_timeout,
        container=container_limits(memory, cpus, pids),
        process=process_options(process_limit),
        isolation=isolation_,
        duplicate=duplicate,
    )
    # the settings first, then the entries (which read the registry): the checks the
    # server's API makes too (arena.tournament.check_config), so neither accepts what
    # the other refuses
    check_settings(cfg, cli_option)
    retry_limit(db_retry)
    where = executor(executor_, ray_address, workers_)
    n_workers = workers(workers_)
    if listen:
        check_listen(listen)  # before anything is stored: the port must be ours to serve
    cfg.entries = entries_from(bots or [], challenger or [], db)
    check_config(cfg, cli_option)
    warn_guessable(cfg.seed, [e.name for e in cfg.entries if not is_builtin(e.source)])
    if any(e.remote for e in cfg.entries) and not listen:
        raise UsageProblem("remote bots connect over TCP: give --listen HOST:PORT", param="--bots")
    check_images(cfg.entries, param="--bots")
    tid = create_tournament(cfg, db, cli_option)
    err.print(f"tournament {tid} created; if it is interrupted: arena tournament resume {tid}")
    if listen:
        err.print(f"remote bots connect to {listen} with their tokens")
    run_and_report(
        db,
        tid,
        as_json,
        report_dir(db, out_dir, no_report),
        listen,
        db_retry,
        n_workers,
        allow_absent,
        where,
    )


@tournament_app.command("resume")
def tournament_resume(
    tid: Annotated[int, typer.Argument(metavar="ID", help="The tournament's id.")],
    listen: Annotated[
        str | None,
        typer.Option("--listen", metavar="HOST:PORT", help="TCP address for remote bots."),
    ] = None,
    out_dir: ReportDirOpt = None,
    no_report: NoReportOpt = False,
    db_retry: DbRetryOpt = None,
    workers_: WorkersOpt = None,
    allow_absent: AllowAbsentOpt = False,
    executor_: ExecutorOpt = "local",
    ray_address: RayAddressOpt = None,
    as_json: JsonOpt = False,
    db: DbOpt = None,
) -> None:
    """Continue a tournament that was interrupted, or that did not start because a bot
    failed the pre-flight (completed games are kept; every bot is started and heard from
    again first).

    Refused while the event is still running in another process. It may run on another
    executor than it started on: the same games are played."""
    from arena.gateway.address import check_listen
    from arena.store.db import read_engine
    from arena.store.retry import retry_limit
    from arena.tournament import load

    retry_limit(db_retry)
    where = executor(executor_, ray_address, workers_)
    n_workers = workers(workers_)
    load(read_engine(db), tid)  # an unknown id is an error, and creates nothing
    if listen:
        check_listen(listen)
    run_and_report(
        db,
        tid,
        as_json,
        report_dir(db, out_dir, no_report),
        listen,
        db_retry,
        n_workers,
        allow_absent,
        where,
    )


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
    table = make_table(
        *("id", "name", "format", "variant", "seats", "rounds", "games", "status", "created"),
        left=["name", "format", "variant", "status", "created"],
    )
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
            "--games", metavar="N", help=f"Games per table (1–{limits.MAX_MATCH_GAMES:,})."
        ),
    ] = 4,
    rounds: Annotated[
        int,
        typer.Option("--rounds", metavar="N", help=f"Swiss rounds (1–{limits.MAX_ROUNDS:,})."),
    ] = 5,
    variant: VariantOpt = "base",
    seed: SeedOpt = None,
    out_dir: ReportDirOpt = None,
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
    from arena.registry import label, latest

    entries = []
    for name in names:
        found = latest(db, name)
        assert found is not None and found[1].command is not None  # just registered
        entries.append(
            EntrySpec(label(*found), Command(found[1].command), bot_version_id=found[1].id)
        )
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
    run_and_report(db, tid, as_json, report_dir(db, out_dir), workers=n_workers)
    if serve:
        from arena.cli.serve import serve as serve_site
        from arena.participants import add_participant
        from arena.store import participants

        if not any(p.name == "demo" for p in participants.every(db)):
            made = add_participant(db, "demo")
            err.print(f"participant demo's login token (shown once): {made.token}", soft_wrap=True)
        serve_site(read_only=True, db=db)
