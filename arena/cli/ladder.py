"""``arena ladder`` (run, status, enable)."""

from __future__ import annotations

from typing import Annotated, Any

import typer
from rich.table import Table

from arena import interrupt, limits
from arena.cli.app import emit_json, err, ladder_app, out
from arena.cli.options import (
    BrutalOpt,
    ConcurrencyOpt,
    DbOpt,
    DbRetryOpt,
    DeadlineOpt,
    ExecutorOpt,
    IsolationOpt,
    JsonOpt,
    ProcessLimitOpt,
    RayAddressOpt,
    StrikesOpt,
    TimeBankOpt,
    VariantOpt,
    executor,
    isolation,
    optional_seed,
    process_options,
    ruleset,
    workers,
)
from arena.errors import ArenaError

LadderWorkersOpt = Annotated[
    int | None,
    typer.Option(
        "--workers",
        metavar="N",
        help="--executor local: worker processes that play the tables, each with its own "
        "copy of the bots (default: 1, all in this process).",
    ),
]

SeatsOpt = Annotated[
    int,
    typer.Option(
        "--seats",
        metavar="N",
        help=f"Seats per table ({limits.MIN_EVENT_SEATS}–{limits.MAX_TABLE_SEATS}); each "
        "variant, Brutal mode and table size is a ladder of its own.",
    ),
]


@ladder_app.command("run")
def ladder_run(
    variant: VariantOpt = "base",
    brutal: BrutalOpt = False,
    seats: SeatsOpt = 4,
    games: Annotated[
        int,
        typer.Option(
            "--games",
            metavar="N",
            help=f"Games per table (1–{limits.MAX_MATCH_GAMES:,}; default 1: every game is "
            "chosen on the latest ratings). Set by the ladder's first run.",
        ),
    ] = 1,
    concurrency: ConcurrencyOpt = 16,
    workers_: LadderWorkersOpt = None,
    executor_: ExecutorOpt = "local",
    ray_address: RayAddressOpt = None,
    max_games: Annotated[
        int | None,
        typer.Option(
            "--max-games",
            metavar="N",
            help=f"Stop once this run has played N games (1–{limits.MAX_LADDER_GAMES:,}; "
            "default: run until stopped with Ctrl-C or SIGTERM).",
        ),
    ] = None,
    seed: Annotated[
        str | None,
        typer.Option(
            "--seed",
            metavar="SEED",
            help="Seed of the matchmaker's draws (the deals stay secret either way).",
        ),
    ] = None,
    deadline: DeadlineOpt = limits.DEFAULT_DEADLINE,
    time_bank: TimeBankOpt = limits.DEFAULT_TIME_BANK,
    max_strikes: StrikesOpt = limits.DEFAULT_MAX_STRIKES,
    process_limit: ProcessLimitOpt = None,
    isolation_: IsolationOpt = "event",
    db_retry: DbRetryOpt = None,
    as_json: JsonOpt = False,
    db: DbOpt = None,
) -> None:
    """Play games continuously among the registered bots (each bot's latest version;
    older versions retire with their games kept; remote bots do not take part), choosing
    each table where the ratings are least settled (docs/ladder.md).

    Safe to stop at any moment (Ctrl-C, SIGTERM, even kill -9): run it again with the same
    --variant, --brutal and --seats to continue; the tables in flight are replayed. The
    rules options (--games, --deadline, --time-bank, --max-strikes, --isolation,
    --process-limit) are those of the ladder's first run.
    """
    from arena.ladder.runner import LadderConfig, LadderRunner, Progress, open_ladder
    from arena.store.retry import retry_limit

    ruleset(variant, brutal)
    limits.check_count(seats, "--seats", limits.MIN_EVENT_SEATS, limits.MAX_TABLE_SEATS)
    limits.check_games(games)
    limits.check_concurrency(concurrency)
    if max_games is not None:
        limits.check_count(max_games, "--max-games", 1, limits.MAX_LADDER_GAMES)
    if executor_ == "workers":  # the ladder's name for worker processes before Ray came
        err.print(
            "warning: --executor workers is deprecated: use --executor local --workers N",
            markup=False,
            soft_wrap=True,
        )
        executor_ = "local"
        workers_ = workers(workers_)
    kind, address = executor(executor_, ray_address, workers_)
    n_workers = 1 if workers_ is None else workers(workers_)
    retry_limit(db_retry)
    isolation(isolation_)
    draws = optional_seed(seed)
    cfg = LadderConfig(
        variant=variant,
        brutal=brutal,
        seats=seats,
        games=games,
        deadline=deadline,
        time_bank=time_bank,
        max_strikes=max_strikes,
        isolation=isolation_,
        process=process_options(process_limit),
    )
    ladder = open_ladder(db, cfg)

    def warn(message: str) -> None:
        err.print(f"warning: {message}", markup=False, soft_wrap=True)

    shown = {"games": -1}

    def show(p: Progress) -> None:
        if p.games != shown["games"] and p.games % 100 == 0:
            shown["games"] = p.games
            err.print(
                f"ladder: {p.games} games this run, {p.stored} stored, {p.active} active bots"
                + (f" ({p.note})" if p.note and p.games == 0 else ""),
                markup=False,
                highlight=False,
            )

    runner = LadderRunner(
        db,
        ladder,
        concurrency=concurrency,
        workers=n_workers,
        max_games=max_games,
        progress=show,
        warn=warn,
        db_retry=db_retry,
        seed=draws,
        executor=kind,
        address=address,
    )
    outcome = interrupt.run(
        runner.run(),
        "ladder interrupted: every bot was stopped and every finished game is stored; "
        f"continue it with: arena ladder run --variant {variant}"
        f"{' --brutal' if brutal else ''} --seats {seats}",
    )
    if as_json:
        emit_json(
            {
                "ladder": ladder.id,
                "games": outcome.games,
                "seconds": round(outcome.seconds, 3),
                "admitted": outcome.admitted,
                "suspended": [{"bot": b, "reason": r} for b, r in outcome.suspended],
            }
        )
        return
    out.print(f"{outcome.games} games played in {outcome.seconds:.1f} s", highlight=False)
    for bot, reason in outcome.suspended:
        out.print(f"suspended {bot}: {reason}", markup=False, highlight=False)


@ladder_app.command("status")
def ladder_status(
    variant: Annotated[
        str | None,
        typer.Option("--variant", metavar="base|vengeance", help="Only this variant's ladders."),
    ] = None,
    seats: Annotated[
        int | None, typer.Option("--seats", metavar="N", help="Only ladders of N seats.")
    ] = None,
    as_json: JsonOpt = False,
    db: DbOpt = None,
) -> None:
    """Each ladder's leaderboard: the full Plackett–Luce fit of its games (Elo scale, 95 %
    intervals: ± is how settled a rating is), games, and each bot version's state — active
    (provisional while its interval is wide or it has few games), retired (an older
    version, games kept) or suspended (with the reason; arena ladder enable BOT).

    --json prints a list of ladders, each with its rows (rank, bot, status, reason, elo,
    ci_low, ci_high, games, provisional).
    """
    from arena.ladder.board import rows
    from arena.store import ladders
    from arena.store.db import read_engine

    if variant is not None:
        ruleset(variant, False)
    eng = read_engine(db)
    chosen = [
        lad
        for lad in ladders.every(eng)
        if (variant is None or lad.variant == variant) and (seats is None or lad.seats == seats)
    ]
    boards = [(lad, rows(eng, lad)) for lad in chosen]
    if as_json:
        emit_json(
            [
                {
                    "ladder": lad.id,
                    "variant": lad.variant,
                    "brutal": lad.brutal,
                    "seats": lad.seats,
                    "rows": board,
                }
                for lad, board in boards
            ]
        )
        return
    if not boards:
        filtered = variant is not None or seats is not None
        out.print(
            "no ladder matches these options"
            if filtered
            else "no ladder yet: start one with arena ladder run"
        )
        return
    for lad, board in boards:
        table = Table(
            title=f"ladder: {lad.variant}{' brutal' if lad.brutal else ''}, {lad.seats} seats"
        )
        for col in ("#", "bot", "Elo", "±95%", "games", "state"):
            table.add_column(
                col, justify="right" if col in ("#", "Elo", "±95%", "games") else "left"
            )
        for r in board:
            state = _state(r)
            elo = "-" if r["elo"] is None else f"{r['elo']:.0f}"
            width = "-" if r["elo"] is None else f"{(r['ci_high'] - r['ci_low']) / 2:.0f}"
            table.add_row(str(r["rank"]), r["bot"], elo, width, str(r["games"]), state)
        out.print(table)


def _state(row: dict[str, Any]) -> str:
    if row["status"] == "active":
        return "active, provisional" if row["provisional"] else "active"
    return f"{row['status']}: {row['reason']}" if row["reason"] else row["status"]


@ladder_app.command("enable")
def ladder_enable(
    bot: Annotated[str, typer.Argument(metavar="BOT", help="A registered bot's name.")],
    db: DbOpt = None,
) -> None:
    """Re-enable a suspended bot on every ladder where it is suspended; its crashes count
    afresh from now. A running ladder picks it up within a second."""
    from arena.ladder.runner import enable
    from arena.names import check_bot_name

    check_bot_name(bot)
    found = enable(db, bot)
    if not found:
        raise ArenaError(f"bot {bot!r} is not suspended on any ladder")
    for lad in found:
        out.print(
            f"{bot} re-enabled on the {lad.variant}{' brutal' if lad.brutal else ''} ladder "
            f"of {lad.seats} seats",
            markup=False,
            highlight=False,
        )
