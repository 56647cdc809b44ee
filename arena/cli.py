"""The ``arena`` command line.

Conventions for every command: ``--help``; readable one-line errors (exit 2 for usage
errors, 1 for failures, never a traceback for a user mistake); progress on stderr;
``--json`` prints machine-readable output on stdout.
"""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path
from typing import Annotated, Any

import typer
from rich.console import Console
from rich.table import Table

from arena import limits
from arena.bots import Command
from arena.console import progress_bar
from arena.errors import ArenaError, UsageProblem

app = typer.Typer(
    name="arena",
    help="Flip 7 Arena: referee Flip 7 games between bots, run tournaments, rate the bots.",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
    rich_markup_mode=None,
)

out = Console(highlight=False)
err = Console(stderr=True, highlight=False)

DEFAULT_DB = "sqlite:///arena.db"

VariantOpt = Annotated[
    str,
    typer.Option(
        "--variant",
        metavar="base|vengeance",
        help="Rules: 'base' (Flip 7) or 'vengeance' (With a Vengeance).",
    ),
]
BrutalOpt = Annotated[
    bool, typer.Option("--brutal", help="Brutal mode (negative scores, the Flip 7 penalty choice).")
]
JsonOpt = Annotated[bool, typer.Option("--json", help="Print machine-readable JSON on stdout.")]
DbOpt = Annotated[
    str | None,
    typer.Option(
        "--db",
        metavar="URL",
        envvar="ARENA_DB",
        help="Database URL (default: SQLite file arena.db here; ARENA_DB overrides).",
    ),
]


DbRetryOpt = Annotated[
    float | None,
    typer.Option(
        "--db-retry",
        metavar="SEC",
        envvar="ARENA_DB_RETRY",
        help="Seconds to ride through a database outage (e.g. a PostgreSQL restart) before "
        "stopping; the event stays resumable (0–86400, default 60; ARENA_DB_RETRY).",
    ),
]


def db_url(db: str | None) -> str:
    return db or os.environ.get("ARENA_DB") or DEFAULT_DB


def emit_json(data: Any) -> None:
    sys.stdout.write(json.dumps(data, indent=2) + "\n")
    sys.stdout.flush()


def _ruleset(variant: str, brutal: bool) -> Any:
    from engine import RULESETS, get_ruleset

    if variant not in RULESETS:
        raise UsageProblem(
            f"unknown variant {variant!r} (choose from {', '.join(RULESETS)})", param="--variant"
        )
    return get_ruleset(variant, brutal=brutal) if brutal else get_ruleset(variant)


SEED_HELP = (
    "Seed for a reproducible run: the same seed plays the same games. Without it, deals "
    "come from a fresh secret that no bot can predict. A seeded event's deals are "
    "guessable by anyone who knows or guesses the seed: use it for tests and trusted bots."
)


def _seed(seed: str) -> int:
    from arena.seeds import MAX_SEED

    try:
        value = int(seed, 0)
    except ValueError:
        raise UsageProblem(f"bad seed {seed!r}: give a whole number", param="--seed") from None
    if not 0 <= value <= MAX_SEED:
        raise UsageProblem(f"bad seed {seed}: must be between 0 and 2^63-1", param="--seed")
    return value


def _optional_seed(seed: str | None) -> int | None:
    return None if seed is None else _seed(seed)


def warn_guessable(seed: int | None, untrusted: list[str]) -> None:
    """Say on stderr that a seeded event's deals can be predicted by the bots in it."""
    if seed is None or not untrusted:
        return
    err.print(
        f"warning: --seed {seed} makes every deal reproducible, so a bot that knows or "
        f"guesses the seed can predict every card ({', '.join(untrusted)}); leave --seed "
        "out for a competition",
        markup=False,
        soft_wrap=True,
    )


def _policies(specs: list[str], seats: int) -> list[str]:
    from engine.policies import PolicyError, parse_policy

    if not specs:
        specs = ["ev"]
    try:
        parsed = [parse_policy(s) for s in specs]
    except PolicyError as e:
        raise UsageProblem(str(e), param="--policy") from None
    if len(parsed) == 1:
        return parsed * seats
    if len(parsed) != seats:
        raise UsageProblem(
            f"give --policy once for all seats or once per seat ({seats}), got {len(parsed)}",
            param="--policy",
        )
    return parsed


def _check_seats(seats: int) -> None:
    from arena.limits import MAX_TABLE_SEATS, MIN_MATCH_SEATS

    if not MIN_MATCH_SEATS <= seats <= MAX_TABLE_SEATS:
        raise UsageProblem(
            f"seats must be between {MIN_MATCH_SEATS} and {MAX_TABLE_SEATS}, got {seats}",
            param="--seats",
        )


@app.command()
def simulate(
    variant: VariantOpt = "base",
    brutal: BrutalOpt = False,
    seats: Annotated[
        int,
        typer.Option(
            "--seats", metavar="N", help=f"Seats at the table (1–{limits.MAX_TABLE_SEATS})."
        ),
    ] = 4,
    policy: Annotated[
        list[str] | None,
        typer.Option(
            "--policy",
            metavar="SPEC",
            help="random | threshold:N | ev. Once for all seats, or once per seat in seat order.",
        ),
    ] = None,
    games: Annotated[
        int, typer.Option("--games", metavar="G", help="Number of games.", min=1)
    ] = 1000,
    seed: Annotated[
        str, typer.Option("--seed", metavar="S", help="Master seed (whole number).")
    ] = "1",
    single_round: Annotated[
        bool, typer.Option("--single-round", help="Each game is one round (statistics).")
    ] = False,
    as_json: JsonOpt = False,
    db: DbOpt = None,
) -> None:
    """Play games in-process between built-in policies (no network, no database).

    Every game's seed derives from --seed, so a run is reproducible. Prints per-seat wins
    (shared wins split), mean round score, bust and Flip 7 rates, and engine speed.
    """
    from arena.simulate import simulate as run

    _check_seats(seats)
    pols = _policies(policy or [], seats)
    rules = _ruleset(variant, brutal)
    master = _seed(seed)
    with progress_bar(err, "simulating", games, enabled=games >= 2000) as advance:
        result = run(rules, seats, pols, games, master, single_round=single_round, progress=advance)
    data = result.as_dict()
    if as_json:
        emit_json(data)
        return
    table = Table(
        title=f"{games} game(s) of {variant}{' brutal' if brutal else ''}, {seats} seat(s)"
    )
    for col in ("seat", "policy", "wins", "mean round", "bust rate", "flip 7 rate", "mean total"):
        if col == "policy":
            table.add_column(col, no_wrap=True)
        else:
            table.add_column(col, justify="right")
    for i, s in enumerate(data["seats"]):
        table.add_row(
            str(i),
            s["policy"],
            f"{s['wins']:g}",
            f"{s['mean_round_score']:.2f}",
            f"{s['bust_rate']:.1%}",
            f"{s['flip7_rate']:.2%}",
            f"{s['mean_total']:.1f}",
        )
    out.print(table)
    out.print(
        f"{data['rounds']} rounds in {data['seconds']:.2f} s "
        f"({data['rounds_per_second']:,.0f} rounds/s), "
        f"{data['mean_rounds_per_game']:.2f} rounds per game"
    )


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
    seed: Annotated[str | None, typer.Option("--seed", metavar="S", help=SEED_HELP)] = None,
    out_dir: Annotated[
        Path, typer.Option("--out", metavar="DIR", help="Where to write the HTML report.")
    ] = Path("reports"),
    as_json: JsonOpt = False,
    db: DbOpt = None,
) -> None:
    """The full demo: the example bots play a Swiss tournament over gRPC (4-seat tables) on
    the database (default: SQLite file arena.db here), then the HTML report is rendered."""
    from arena.cli_events import run_and_report
    from arena.demo import register_examples
    from arena.tournament import EntrySpec, TournamentConfig, create_tournament

    limits.check_games(games)
    limits.check_rounds(rounds)
    _ruleset(variant, False)
    names = register_examples(db)
    from arena.registry import latest

    entries = []
    for name in names:
        found = latest(db, name)
        assert found is not None
        entries.append(EntrySpec(name, Command(found[1].command), bot_version_id=found[1].id))
    cfg = TournamentConfig(
        format="swiss",
        entries=entries,
        seats=4,
        rounds=rounds,
        games=games,
        concurrency=8,
        variant=variant,
        seed=_optional_seed(seed),
        name="demo",
    )
    tid = create_tournament(cfg, db)
    err.print(f"demo tournament {tid}: {len(entries)} example bots, Swiss, {rounds} rounds")
    run_and_report(db, tid, as_json, out_dir)


def _kind(exc: BaseException) -> set[str]:
    """Class names in the exception's MRO (click may be vendored inside typer)."""
    return {c.__name__ for c in type(exc).__mro__}


def _interrupted(exc: BaseException) -> bool:
    return isinstance(exc.__cause__ or exc.__context__, KeyboardInterrupt)


def main(argv: list[str] | None = None) -> int:
    """Console entry point with one-line errors and stable exit codes."""
    from arena import interrupt

    command = typer.main.get_command(app)
    try:
        with interrupt.handled():
            rv = command.main(args=argv, prog_name="arena", standalone_mode=False)
    except interrupt.Interrupted as e:
        err.print(e.message, markup=False, soft_wrap=True)
        return interrupt.exit_code()
    except UsageProblem as e:
        err.print(f"error: {e}", markup=False, soft_wrap=True)
        return 2
    except ArenaError as e:
        err.print(f"error: {e}", markup=False, soft_wrap=True)
        return 1
    except KeyboardInterrupt:
        err.print("interrupted", markup=False)
        return interrupt.exit_code()
    except Exception as e:
        kinds = _kind(e)
        ctx = getattr(e, "ctx", None)
        if "NoArgsIsHelpError" in kinds and ctx is not None:
            err.print(ctx.get_help(), markup=False)
            return 2
        if "UsageError" in kinds:
            hint = f" (see '{ctx.command_path} --help')" if ctx is not None else ""
            err.print(f"error: {e.format_message()}{hint}", markup=False, soft_wrap=True)  # type: ignore[attr-defined]
            return 2
        if "Exit" in kinds:
            return int(getattr(e, "exit_code", 0))
        if "Abort" in kinds:
            err.print("interrupted" if _interrupted(e) else "aborted", markup=False)
            return interrupt.exit_code()
        if "ClickException" in kinds:
            err.print(f"error: {e.format_message()}", markup=False, soft_wrap=True)  # type: ignore[attr-defined]
            return int(getattr(e, "exit_code", 1))
        if "SQLAlchemyError" in kinds:  # the database failed (full disk, read-only file, ...)
            from arena.store.db import explain

            err.print(f"error: {explain(e)}", markup=False, soft_wrap=True)
            return 1
        if isinstance(e, OSError) and e.strerror:  # the file system or the network failed
            where = f"{e.filename}: " if e.filename else ""
            err.print(f"error: {where}{e.strerror}", markup=False, soft_wrap=True)
            return 1
        raise
    return rv if isinstance(rv, int) else 0


def entry() -> None:
    sys.exit(main())


# commands defined in other modules register themselves on `app`
from arena import cli_events, cli_play  # noqa: E402, F401
