"""``arena match`` and ``arena bot check``: external bots over gRPC."""

from __future__ import annotations

import os
import shlex
import shutil
import sys
from pathlib import Path
from typing import Annotated, Any

import typer
from rich.table import Table

from arena import interrupt, limits
from arena.bots import Command, Image, is_builtin
from arena.cli import (
    SEED_HELP,
    BrutalOpt,
    DbOpt,
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
from arena.console import progress_bar
from arena.errors import ArenaError, UsageProblem
from arena.faults import summarize
from arena.names import check_bot_name, check_entry_name, is_bot_name, made_up_name, numbered
from arena.status import GameStatus

DeadlineOpt = Annotated[
    float,
    typer.Option(
        "--deadline",
        metavar="SEC",
        help=f"Seconds per decision ({limits.MIN_DEADLINE:g}–{limits.MAX_DEADLINE:g}).",
    ),
]
TimeBankOpt = Annotated[
    float,
    typer.Option(
        "--time-bank",
        metavar="SEC",
        help=f"Extra seconds per seat and game, used when a decision runs over its deadline "
        f"(0–{limits.MAX_TIME_BANK:g}).",
    ),
]
StrikesOpt = Annotated[
    int,
    typer.Option(
        "--max-strikes",
        metavar="N",
        help=f"Faults before a seat forfeits a game (1–{limits.MAX_STRIKES:,}).",
    ),
]

bot_app = typer.Typer(help="Manage and test bots.", no_args_is_help=True, rich_markup_mode=None)
app.add_typer(bot_app, name="bot")


ProcessLimitOpt = Annotated[
    list[str] | None,
    typer.Option(
        "--process-limit",
        metavar="KEY=VALUE",
        help="Process bots: a resource limit (repeatable). Keys and defaults: memory=1g "
        "(data per process), processes=128 (of the bot's own user, root arenas), "
        "file-size=64m, open-files=1024, scratch=64m (its private /tmp). See 'arena sandbox'.",
    ),
]


def process_limits(items: list[str] | None) -> Any:
    """--process-limit values as ProcessLimits (None: the defaults)."""
    if not items:
        return None
    from arena.runtime.sandbox import ProcessLimits

    try:
        return ProcessLimits.parse(items)
    except (ValueError, TypeError) as e:
        raise UsageProblem(str(e), param="--process-limit") from None


def _check_command(command: str, param: str = "--bot") -> None:
    try:
        argv = shlex.split(command)
    except ValueError as e:
        raise UsageProblem(f"cannot parse bot command {command!r}: {e}", param=param) from None
    if not argv:
        raise UsageProblem("empty bot command", param=param)
    exe = argv[0]
    path = os.pathsep.join([str(Path(sys.executable).parent), os.environ.get("PATH", "")])
    if shutil.which(exe, path=path) is None and not (
        Path(exe).is_file() and os.access(exe, os.X_OK)
    ):
        raise UsageProblem(f"cannot run bot command {command!r}: {exe!r} not found", param=param)


def registered(value: str, db: str | None) -> tuple[Any, Any, Any] | None:
    """(bot, version, source) of the registered bot named ``value``, or None. Only reads:
    a database that does not exist is not created."""
    from sqlalchemy.exc import SQLAlchemyError

    from arena.registry import latest, source_of
    from arena.store.db import read_engine

    if not is_bot_name(value):
        return None
    try:
        found = latest(read_engine(db), value)
    except (ArenaError, SQLAlchemyError):  # no usable database: not a registered name
        return None
    if found is None:
        return None
    bot, version = found
    return bot, version, source_of(bot, version)


def parse_source(value: str, db: str | bool | None, param: str) -> tuple[str, Any, Any]:
    """One bot given on the command line → (its name, its source, its registered version
    or None). Forms: a registered NAME (looked up unless ``db`` is False), COMMAND,
    NAME=COMMAND, docker:IMAGE, builtin:POLICY."""
    from arena import bots

    value = value.strip()
    found = None if db is False else registered(value, db)  # type: ignore[arg-type]
    if found is not None:
        bot, version, source = found
        return bot.name, source, version
    try:
        name, source = bots.parse_source(value)
    except bots.SourceError as e:
        raise UsageProblem(str(e), param=param) from None
    if isinstance(source, bots.Command):
        if name is not None:
            check_bot_name(name, "name in NAME=COMMAND", param=param)
        elif db is not False and is_bot_name(value) and shutil.which(value) is None:
            raise UsageProblem(
                f"no bot named {value!r} is registered (see 'arena bot list'), and it "
                "is not a command either",
                param=param,
            )
        _check_command(source.command, param)
    return name or made_up_name(bots.suggested_name(source)), source, None


def parse_bots(
    values: list[str], db: str | bool | None = False, *, param: str = "--bot"
) -> list[Any]:
    """--bot values → BotEntry list (see :func:`parse_source`); repeated names are told
    apart (``ev``, ``ev#2``). Every name passes the one name check (arena.names); made-up
    names are made to pass it. Remote bots cannot be started here."""
    from arena.bots import Remote, unique_names
    from arena.match import BotEntry

    parsed = [parse_source(v, db, param) for v in values]
    entries = []
    for name, (given, source, _version) in zip(
        unique_names([p[0] for p in parsed], numbered), parsed, strict=True
    ):
        if isinstance(source, Remote):
            raise UsageProblem(
                f"bot {given!r} is a remote bot: it joins tournaments started with --listen",
                param=param,
            )
        check_entry_name(name, param=param)
        entries.append(BotEntry(name, source))
    return entries


def check_images(entries: list[Any], param: str = "--bot") -> None:
    """Every container entry's image is in the local Docker engine (a usage error if not:
    the arena never pulls)."""
    from arena.bots import Image

    images = [e.source.image for e in entries if isinstance(e.source, Image)]
    if not images:
        return
    from arena.runtime.build import image_id_of
    from arena.runtime.docker import ImageMissing

    for image in images:
        try:
            image_id_of(image)
        except ImageMissing as e:
            raise UsageProblem(str(e), param=param) from None


@app.command()
def match(
    bot: Annotated[
        list[str],
        typer.Option(
            "--bot",
            metavar="BOT",
            help="A bot: a registered name, a command (e.g. 'python "
            "bots/examples/python/ev/bot.py'), NAME=COMMAND, docker:IMAGE or builtin:POLICY. "
            "Once per seat, in seat order.",
        ),
    ],
    games: Annotated[
        int, typer.Option("--games", metavar="G", help=f"Games (1–{limits.MAX_MATCH_GAMES:,}).")
    ] = 10,
    variant: VariantOpt = "base",
    brutal: BrutalOpt = False,
    seed: Annotated[str | None, typer.Option("--seed", metavar="S", help=SEED_HELP)] = None,
    concurrency: Annotated[
        int, typer.Option("--concurrency", metavar="C", min=1, help="Games played at once.")
    ] = 16,
    deadline: DeadlineOpt = limits.DEFAULT_DEADLINE,
    time_bank: TimeBankOpt = limits.DEFAULT_TIME_BANK,
    max_strikes: StrikesOpt = limits.DEFAULT_MAX_STRIKES,
    events: Annotated[bool, typer.Option("--events", help="Include event logs in --json.")] = False,
    logs: Annotated[
        Path | None, typer.Option("--logs", metavar="DIR", help="Save each bot's output here.")
    ] = None,
    process_limit: ProcessLimitOpt = None,
    as_json: JsonOpt = False,
    db: DbOpt = None,
) -> None:
    """Play one table of external bots over gRPC (each bot is started as a local process).

    Seats rotate between games so every bot sits in every position equally often. Faults
    (timeouts, illegal answers, crashes) are recorded per game; a forfeiting seat plays the
    safe default and ranks last.
    """
    from arena.faults import FaultPolicy
    from arena.match import MatchSpec, run_match

    limits.check_games(games)
    limits.check_deadline(deadline)
    limits.check_time_bank(time_bank)
    limits.check_strikes(max_strikes)
    entries = parse_bots(bot, db)
    if not limits.MIN_MATCH_SEATS <= len(entries) <= limits.MAX_TABLE_SEATS:
        raise UsageProblem(
            f"a table has {limits.MIN_MATCH_SEATS} to {limits.MAX_TABLE_SEATS} seats, "
            f"got {len(entries)}",
            param="--bot",
        )
    _ruleset(variant, brutal)
    check_images(entries)
    master = _optional_seed(seed)
    warn_guessable(master, [e.name for e in entries if not is_builtin(e.source)])
    spec = MatchSpec(
        bots=entries,
        games=games,
        seed=master,
        variant=variant,
        brutal=brutal,
        concurrency=concurrency,
        faults=FaultPolicy(deadline=deadline, time_bank=time_bank, max_strikes=max_strikes),
        process_limits=process_limits(process_limit),
    )
    with progress_bar(err, "games", games) as advance:
        result = interrupt.run(
            run_match(spec, progress=lambda done, total: advance(done)),
            "match interrupted: every bot was stopped, nothing was stored",
        )
    if logs is not None:
        logs.mkdir(parents=True, exist_ok=True)
        for name, text in result.logs.items():
            (logs / f"{name.replace('/', '_')}.log").write_text(text)
    seats = result.seat_summary()
    if as_json:
        emit_json(
            {
                "games": [g.as_dict(events=events) for g in result.games],
                "seats": seats,
                "seed": spec.seed,  # the match is over: --seed with it replays every game
            }
        )
        return
    table = Table(title=f"{games} game(s) of {variant}{' brutal' if brutal else ''}")
    for col in ("bot", "wins", "mean total", "faults"):
        table.add_column(col, justify="left" if col in ("bot", "faults") else "right")
    for row in seats:
        faults = ", ".join(f"{k} {v}" for k, v in sorted(row["faults"].items())) or "-"
        table.add_row(row["bot"], f"{row['wins']:g}", f"{row['mean_total']:.1f}", faults)
    out.print(table)
    print_fault_summary(summarize([g.faults for g in result.games]), len(result.games))
    void = sum(1 for g in result.games if g.status != GameStatus.COMPLETED)
    out.print(
        f"{result.decisions} decisions over the network in {result.seconds:.1f} s"
        + (f"; {void} game(s) void (arena failure)" if void else "")
    )


def print_fault_summary(lines: list[Any], games: int) -> None:
    """The faults of a match or an event, one line per bot and kind with the first reason
    (on stdout, after the results; nothing when there were none)."""
    if not lines:
        return
    table = Table(title=f"faults in {games} game(s)", title_justify="left")
    for col in ("bot", "kind", "faults", "games", "forfeits", "first reason"):
        table.add_column(col, justify="right" if col in ("faults", "games", "forfeits") else "left")
    for ln in lines:
        table.add_row(
            ln.bot or "(the arena)",
            ln.kind,
            str(ln.count),
            str(ln.games),
            str(ln.forfeits),
            ln.first,
            style="bold" if ln.forfeits else None,
        )
    out.print(table)


@bot_app.command("check")
def bot_check(
    bot: Annotated[
        str,
        typer.Argument(
            metavar="BOT", help="A registered name, the bot's command line, or docker:IMAGE."
        ),
    ],
    deadline: DeadlineOpt = limits.DEFAULT_DEADLINE,
    as_json: JsonOpt = False,
    db: DbOpt = None,
) -> None:
    """Run the protocol compliance suite against a bot.

    Scripted games (stacked decks) put every decision kind of both variants in front of the
    bot; then 16 games at once; then the arena drops the bot's stream once and expects it
    to reconnect. Exit code 0 when every check passes, 1 otherwise.
    """
    from arena.check import run_checks

    limits.check_deadline(deadline)
    (entry,) = parse_bots([bot], db, param="BOT")
    if not isinstance(entry.source, Command | Image):
        raise UsageProblem("bot check needs a bot command or docker:IMAGE, not a built-in policy")
    check_images([entry], param="BOT")

    def say(msg: str) -> None:
        if err.is_terminal:
            err.print(msg, markup=False, style="dim")

    checks = interrupt.run(
        run_checks(entry.source, deadline=deadline, progress=say),
        "bot check interrupted: the bot was stopped",
    )
    passed = all(c.ok for c in checks)
    if as_json:
        emit_json({"passed": passed, "checks": [c.as_dict() for c in checks]})
    else:
        table = Table(title=f"bot check: {entry.name}")
        table.add_column("check")
        table.add_column("ok")
        table.add_column("detail")
        for c in checks:
            table.add_row(c.name, "yes" if c.ok else "NO", c.detail)
        out.print(table)
        out.print("passed" if passed else "FAILED")
    if not passed:
        raise typer.Exit(1)


@app.command()
def sandbox(as_json: JsonOpt = False) -> None:
    """How process bots are contained and isolated on this machine.

    Best first: bubblewrap (own PID, network and mount namespaces, read-only filesystem,
    a user of its own when the arena runs as root), else a cgroup killed as a whole, else
    a subreaper. Without bubblewrap process bots are trusted code: use containers
    (arena bot submit) for untrusted bots. ARENA_SANDBOX=bwrap|cgroup|reaper forces one.
    """
    from arena.runtime import sandbox as box
    from arena.runtime.sandbox import ProcessLimits

    info = box.current().as_dict()
    info["limits"] = ProcessLimits().as_options()
    if as_json:
        emit_json(info)
        return
    out.print(info["description"], soft_wrap=True)
    limits = ", ".join(f"{k.replace('_', '-')}={v}" for k, v in info["limits"].items())
    out.print(f"default limits: {limits}", soft_wrap=True)
