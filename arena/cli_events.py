"""``arena bot add|list|remove``, ``arena tournament``, ``arena leaderboard``, ``arena db``."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Any

import typer
from rich.table import Table

from arena import interrupt, limits
from arena.bots import is_builtin
from arena.cli import (
    SEED_HELP,
    BrutalOpt,
    DbOpt,
    DbRetryOpt,
    JsonOpt,
    VariantOpt,
    _optional_seed,
    _ruleset,
    app,
    emit_json,
    err,
    out,
    warn_guessable,
)
from arena.cli_play import (
    DeadlineOpt,
    ProcessLimitOpt,
    StrikesOpt,
    TimeBankOpt,
    bot_app,
    check_images,
    parse_bots,
    process_limits,
)
from arena.console import make_progress
from arena.errors import ArenaError, UsageProblem

tournament_app = typer.Typer(
    help="Run a tournament (options below), resume one, or list them.",
    rich_markup_mode=None,
    invoke_without_command=True,
)
app.add_typer(tournament_app, name="tournament")
db_app = typer.Typer(help="Database maintenance.", no_args_is_help=True, rich_markup_mode=None)
app.add_typer(db_app, name="db")


# ------------------------------------------------------------------ bots
@bot_app.command("add")
def bot_add(
    name: Annotated[str, typer.Argument(help="A unique name (letters, digits, . _ -).")],
    cmd: Annotated[
        str | None, typer.Option("--cmd", metavar="CMD", help="A local command that runs the bot.")
    ] = None,
    image: Annotated[
        str | None, typer.Option("--image", metavar="IMG", help="A Docker image name.")
    ] = None,
    remote: Annotated[
        bool, typer.Option("--remote", help="A bot that connects from elsewhere with a token.")
    ] = False,
    as_json: JsonOpt = False,
    db: DbOpt = None,
) -> None:
    """Register a bot (or a new version of it). A remote bot's token is shown once."""
    from arena.registry import add_bot, check_name

    check_name(name)
    if (cmd is not None) + (image is not None) + remote != 1:
        raise UsageProblem("give exactly one of --cmd, --image or --remote")
    if cmd is not None:
        parse_bots([cmd], param="--cmd")  # the command must be runnable
    digest = None
    if image is not None:
        from arena.runtime.build import image_id
        from arena.runtime.docker import ImageMissing

        try:
            digest = image_id(image)  # must exist locally; containers run by id, tags move
        except ImageMissing as e:
            raise UsageProblem(str(e), param="--image") from None
    added = add_bot(db, name, command=cmd, image=image, digest=digest, remote=remote)
    data = {
        "name": added.bot.name,
        "runtime": added.bot.runtime,
        "version": added.version.version,
        "created": added.bot.created.isoformat(timespec="seconds"),
    }
    if added.token:
        data["token"] = added.token
    if as_json:
        emit_json(data)
        return
    out.print(f"added {data['name']} ({data['runtime']}), version {data['version']}")
    if added.token:
        out.print(f"token (shown once, store it now): {added.token}")


@bot_app.command("submit")
def bot_submit(
    path: Annotated[Path, typer.Argument(help="A folder with a Dockerfile (the build context).")],
    name: Annotated[str, typer.Option("--name", help="The bot's name in the registry.")],
    base: Annotated[
        str | None,
        typer.Option(
            "--base",
            metavar="IMG",
            help="The build argument BASE. Default: the Dockerfile's own ARG BASE default; "
            "for a FROM ${BASE} without one, the offline base of the kit's language "
            "(flip7/python-base, node-base, cpp-base, java-base; Go: scratch).",
        ),
    ] = None,
    build_arg: Annotated[
        list[str] | None,
        typer.Option("--build-arg", metavar="KEY=VALUE", help="A build argument (repeatable)."),
    ] = None,
    network: Annotated[
        str,
        typer.Option(
            "--build-network",
            metavar="MODE",
            help="Network of the RUN steps. Any mode but none (host, default, "
            "a network name) is a RISK: the bot's build steps can then reach what the "
            "engine's host reaches.",
        ),
    ] = "none",
    memory: Annotated[
        str,
        typer.Option("--build-memory", metavar="SIZE", help="Memory of a build step, no swap."),
    ] = "1g",
    cpus: Annotated[
        float, typer.Option("--build-cpus", metavar="N", min=0.01, help="CPUs of a build step.")
    ] = 1.0,
    pids: Annotated[
        int,
        typer.Option(
            "--build-pids",
            metavar="N",
            min=8,
            help="Processes and threads of a build step.",
        ),
    ] = 256,
    timeout: Annotated[
        float,
        typer.Option(
            "--build-timeout",
            metavar="SEC",
            min=1,
            help="Wall-clock seconds for the whole build.",
        ),
    ] = 300.0,
    max_context: Annotated[
        str,
        typer.Option(
            "--max-context",
            metavar="SIZE",
            help="Cap on the files sent to the build, after .dockerignore.",
        ),
    ] = "100m",
    max_image: Annotated[
        str,
        typer.Option(
            "--max-image",
            metavar="SIZE",
            help="Cap on the built image, its base included.",
        ),
    ] = "2g",
    skip_check: Annotated[
        bool,
        typer.Option(
            "--skip-check",
            help="Register the image without running the compliance suite on it first "
            "(a broken bot then fails in events instead).",
        ),
    ] = False,
    as_json: JsonOpt = False,
    db: DbOpt = None,
) -> None:
    """Build a bot's Docker image, run the compliance suite (arena bot check) on it, and
    register it as the bot's next version, pinned by image id (later tags with the same
    name do not change what plays). A bot that fails a check is not registered (exit 1).

    The build is sandboxed: its RUN steps have no network, 1g of memory without swap, 1 CPU
    and 256 processes each, the whole build 300 s; the context may hold 100m, the image 2g
    (options below). A build that fails, runs out of time or grows too big leaves no
    container and no image behind. Steps run as the Dockerfile's USER (root unless it says
    otherwise) with Docker's default capabilities. The process limit needs the engine on
    this machine with the cgroupfs driver; elsewhere a warning says it is not enforced.
    Every image the Dockerfile starts FROM must already be in the engine (never pulled):
    a missing one is named with its offline recipe (exit 2).
    """
    from arena.registry import add_bot, check_name, latest
    from arena.runtime.build import bot_image_tag, build_image, parse_build_args
    from arena.runtime.build_sandbox import BuildLimits
    from arena.store.db import read_engine

    check_name(name)
    if not path.is_dir():
        raise UsageProblem(f"{path} is not a folder", param="PATH")
    if not (path / "Dockerfile").is_file():
        raise UsageProblem(f"no Dockerfile in {path}", param="PATH")
    args = parse_build_args(build_arg or [])
    try:
        build_limits = BuildLimits(
            network=network,
            memory=memory,
            cpus=cpus,
            pids=pids,
            timeout=timeout,
            max_context=max_context,
            max_image=max_image,
        )
    except ValueError as e:
        raise UsageProblem(str(e)) from None
    found = latest(read_engine(db), name)  # nothing is created before the build succeeds
    version = (found[1].version + 1) if found else 1
    tag = bot_image_tag(name, version)

    def echo(line: str) -> None:
        if err.is_terminal:
            err.print(line.rstrip(), markup=False, highlight=False)

    built = build_image(path, tag, base=base, build_args=args, limits=build_limits, on_line=echo)
    for warning in built.warnings:
        err.print(f"warning: {warning}", markup=False, soft_wrap=True)
    checks = None if skip_check else _submit_checks(built.id)
    failed = [c for c in checks or [] if not c.ok]
    data: dict[str, Any] = {
        "name": name,
        "runtime": "docker",
        "image": built.tag,
        "digest": built.id,
        "size": built.size,
        "base": list(built.bases),
        "checked": checks is not None,
        "registered": not failed,
    }
    if checks is not None:
        data["checks"] = [c.as_dict() for c in checks]
    if failed:
        for c in failed:
            err.print(f"FAIL {c.name}: {c.detail}", markup=False, soft_wrap=True)
        if as_json:
            emit_json(data)
        raise ArenaError(
            f"{name} was not registered: {len(failed)} of {len(checks or [])} compliance "
            f"checks failed (the image stays as {built.tag}: 'arena bot check "
            f"docker:{built.tag}' shows them all; --skip-check registers it anyway)"
        )
    added = add_bot(db, name, image=built.tag, digest=built.id)
    data["version"] = added.version.version
    if as_json:
        emit_json(data)
        return
    passed = f"passed {len(checks)} compliance checks; " if checks is not None else ""
    out.print(
        f"built {built.tag} ({built.id[:19]}); {passed}{name} is now at version {data['version']}"
    )


def _submit_checks(image: str) -> list[Any]:
    """``bot submit``'s compliance run on the freshly built image (progress on stderr)."""
    from arena.bots import Image
    from arena.check import run_checks

    def say(msg: str) -> None:
        if err.is_terminal:
            err.print(f"check: {msg}", markup=False, style="dim")

    return interrupt.run(
        run_checks(Image(image), progress=say),
        "bot submit interrupted: the bot was stopped and not registered",
    )


@bot_app.command("list")
def bot_list(as_json: JsonOpt = False, db: DbOpt = None) -> None:
    """The registered bots."""
    from arena.registry import list_bots
    from arena.store.db import read_engine

    rows = list_bots(read_engine(db))
    if as_json:
        emit_json([{k: r[k] for k in ("name", "runtime", "version", "created")} for r in rows])
        return
    if not rows:
        out.print("no bots yet: add one with 'arena bot add NAME --cmd CMD'")
        return
    table = Table()
    for col in ("name", "runtime", "version", "created", "runs"):
        table.add_column(col)
    for r in rows:
        table.add_row(
            r["name"],
            r["runtime"],
            str(r["version"]),
            r["created"],
            r["command"] or r["image"] or "",
        )
    out.print(table)


@bot_app.command("remove")
def bot_remove(
    name: Annotated[str, typer.Argument(help="The bot's name.")],
    as_json: JsonOpt = False,
    db: DbOpt = None,
) -> None:
    """Remove a bot from the registry (its games and ratings stay)."""
    from arena.registry import remove_bot
    from arena.store.db import read_engine

    remove_bot(read_engine(db), name)  # a database that does not exist has no such bot
    if as_json:
        emit_json({"removed": name})
    else:
        out.print(f"removed {name}")


# ------------------------------------------------------------------ tournaments
def _entries(values: list[str], challengers: list[str], db: str | None) -> list[Any]:
    """--bots values: registered names, commands, NAME=COMMAND, docker:IMAGE or
    builtin:POLICY (see cli_play.parse_source). Only reads the registry (a database that
    does not exist is not created)."""
    from arena.bots import Remote, unique_names
    from arena.cli_play import parse_source
    from arena.names import check_entry_name, numbered
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
            run_tournament(db, tid, show, listen, db_retry=db_retry, warn=warn),
            f"tournament {tid} interrupted: every bot was stopped and the games played so far "
            f"are kept; continue it with: arena tournament resume {tid}",
        )
    report = None
    if out_dir is not None:
        from arena.report import render_site

        report = render_site(db, out_dir)
    _print_standings(outcome, as_json, report)


def _print_standings(outcome: Any, as_json: bool, report: Any = None) -> None:
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


def _limits(memory: str, cpus: float, pids: int) -> dict[str, Any]:
    from arena.runtime.docker import ContainerLimits

    try:
        ContainerLimits(memory=memory, cpus=cpus, pids=pids)
    except (ValueError, TypeError) as e:
        raise UsageProblem(str(e)) from None
    return {"memory": memory, "cpus": cpus, "pids": pids}


def _process_options(items: list[str] | None) -> dict[str, Any]:
    limits = process_limits(items)
    return limits.as_options() if limits is not None else {}


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
    concurrency: Annotated[
        int, typer.Option("--concurrency", metavar="C", min=1, help="Games played at once.")
    ] = 8,
    variant: VariantOpt = "base",
    brutal: BrutalOpt = False,
    seed: Annotated[str | None, typer.Option("--seed", metavar="S", help=SEED_HELP)] = None,
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
    listen: Annotated[
        str | None,
        typer.Option(
            "--listen",
            metavar="HOST:PORT",
            help="Also serve bots on TCP: remote bots (bot add --remote) connect here "
            "(port 0: any free port).",
        ),
    ] = None,
    out_dir: Annotated[
        Path, typer.Option("--out", metavar="DIR", help="Where to write the HTML report.")
    ] = Path("reports"),
    no_report: Annotated[bool, typer.Option("--no-report", help="Skip the report.")] = False,
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
    if format == "gauntlet" and not challenger:
        raise UsageProblem("a gauntlet needs at least one --challenger", param="--challenger")
    _ruleset(variant, brutal)
    if listen:
        check_listen(listen)  # before anything is stored: the port must be ours to serve
    master = _optional_seed(seed)
    entries = _entries(bots, challenger or [], db)
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
        container=_limits(memory, cpus, pids),
        process=_process_options(process_limit),
    )
    if any(e.remote for e in cfg.entries) and not listen:
        raise UsageProblem("remote bots connect over TCP: give --listen HOST:PORT", param="--bots")
    check_images(cfg.entries, param="--bots")
    tid = create_tournament(cfg, db)
    err.print(f"tournament {tid} created; if it is interrupted: arena tournament resume {tid}")
    if listen:
        err.print(f"remote bots connect to {listen} with their tokens")
    run_and_report(db, tid, as_json, None if no_report else out_dir, listen, db_retry)


@tournament_app.command("resume")
def tournament_resume(
    tid: Annotated[int, typer.Argument(metavar="ID", help="The tournament's id.")],
    listen: Annotated[
        str | None,
        typer.Option("--listen", metavar="HOST:PORT", help="TCP address for remote bots."),
    ] = None,
    out_dir: Annotated[
        Path, typer.Option("--out", metavar="DIR", help="Where to write the HTML report.")
    ] = Path("reports"),
    no_report: Annotated[bool, typer.Option("--no-report", help="Skip the report.")] = False,
    db_retry: DbRetryOpt = None,
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
    load(read_engine(db), tid)  # an unknown id is an error, and creates nothing
    if listen:
        check_listen(listen)
    run_and_report(db, tid, as_json, None if no_report else out_dir, listen, db_retry)


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
        int | None, typer.Option("--tournament", metavar="ID", help="Only this tournament.")
    ] = None,
    as_json: JsonOpt = False,
    db: DbOpt = None,
) -> None:
    """The Elo leaderboards: a maximum-likelihood fit over every stored game's ranking,
    one table per variant and mode (Brutal games are rated apart from the others).

    Ratings are on the Elo scale (mean 1500) with 95 % intervals; LOS is the likelihood
    that a bot is stronger than the one ranked just below it. --json prints one list of
    rows, board after board, each with the keys rank, bot, elo, ci_low, ci_high, games,
    score, los_next, variant and brutal.
    """
    from itertools import groupby

    from arena.leaderboard import leaderboard_rows
    from arena.store.db import read_engine
    from arena.tournament import load

    if variant is not None:
        _ruleset(variant, False)
    eng = read_engine(db)
    if tournament is not None:
        load(eng, tournament)  # an unknown id is an error, not an empty board
    rows = leaderboard_rows(eng, variant=variant, brutal=brutal, tournament=tournament)
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
        table = Table(title=title)
        for col in ("rank", "bot", "elo", "95% interval", "games", "score", "LOS next"):
            table.add_column(col, justify="left" if col == "bot" else "right")
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
    out_dir: Annotated[
        Path, typer.Option("--out", metavar="DIR", help="Output folder (default: reports).")
    ] = Path("reports"),
    as_json: JsonOpt = False,
    db: DbOpt = None,
) -> None:
    """Render the static HTML site: leaderboards, tournaments, bots and game replays.

    Self-contained (no network): open DIR/index.html from disk or serve DIR anywhere.
    """
    from arena.report.cli import report_command
    from arena.store.db import read_engine

    report_command(out_dir, read_engine(db), as_json)


# ------------------------------------------------------------------ database
@db_app.command("upgrade")
def db_upgrade(db: DbOpt = None) -> None:
    """Create the database or migrate it to the current schema."""
    from arena.store.db import current_revision, describe, get_engine, resolve_url

    eng = get_engine(db)
    url = resolve_url(db)
    shown = url if url.startswith("sqlite") else describe(url)  # never a password
    out.print(f"{shown}: schema at revision {current_revision(eng)}")
