"""``arena simulate`` (in-process games of built-in policies), ``arena match`` (one table
of bots over gRPC) and ``arena sandbox`` (what isolation process bots get here)."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Any

import typer
from rich.table import Table

from arena import interrupt, limits
from arena.bots import Remote, is_builtin
from arena.cli.app import app, emit_json, err, out
from arena.cli.bots import check_images, parse_bots
from arena.cli.options import (
    BrutalOpt,
    ConcurrencyOpt,
    DbOpt,
    DeadlineOpt,
    ExecutorOpt,
    JsonOpt,
    ProcessLimitOpt,
    RayAddressOpt,
    SeedOpt,
    StrikesOpt,
    TimeBankOpt,
    VariantOpt,
    check_seats,
    executor,
    optional_seed,
    parse_seed,
    policies,
    process_limits,
    ruleset,
    warn_guessable,
)
from arena.console import progress_bar
from arena.errors import UsageProblem
from arena.faults import summarize
from arena.status import GameStatus


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

    check_seats(seats)
    pols = policies(policy or [], seats)
    rules = ruleset(variant, brutal)
    master = parse_seed(seed)
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
    seed: SeedOpt = None,
    concurrency: ConcurrencyOpt = 16,
    deadline: DeadlineOpt = limits.DEFAULT_DEADLINE,
    time_bank: TimeBankOpt = limits.DEFAULT_TIME_BANK,
    max_strikes: StrikesOpt = limits.DEFAULT_MAX_STRIKES,
    events: Annotated[bool, typer.Option("--events", help="Include event logs in --json.")] = False,
    logs: Annotated[
        Path | None, typer.Option("--logs", metavar="DIR", help="Save each bot's output here.")
    ] = None,
    process_limit: ProcessLimitOpt = None,
    workers_: Annotated[
        int | None,
        typer.Option(
            "--workers",
            metavar="N",
            help="Worker processes sharing the games (default 1: this process), each with its "
            "own copy of the bots; the same games are played for any number. With "
            "--executor ray the games are shared by as many Ray tasks as the cluster has CPUs.",
        ),
    ] = None,
    executor_: ExecutorOpt = "local",
    ray_address: RayAddressOpt = None,
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
    ruleset(variant, brutal)
    kind, address = executor(executor_, ray_address, workers_)
    if kind != "local" and any(isinstance(e.source, Remote) for e in entries):
        raise UsageProblem(
            "remote bots play on this machine: leave --executor out", param="--executor"
        )
    check_images(entries)
    master = optional_seed(seed)
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
    n_workers = limits.check_count(
        1 if workers_ is None else workers_, "--workers", 1, limits.MAX_WORKERS
    )
    with progress_bar(err, "games", games) as advance:
        if n_workers > 1 or kind != "local":
            from arena.executor import run_split

            done = [0]

            def one_game() -> None:
                done[0] += 1
                advance(done[0])

            parts = n_workers if kind == "local" else 0  # 0: the cluster's CPUs
            job = run_split(spec, parts, one_game, kind=kind, address=address)
        else:
            job = run_match(spec, progress=lambda done, total: advance(done))
        result = interrupt.run(job, "match interrupted: every bot was stopped, nothing was stored")
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
    defaults = ProcessLimits().as_options()
    info["limits"] = defaults
    if as_json:
        emit_json(info)
        return
    out.print(info["description"], soft_wrap=True)
    limits = ", ".join(f"{k.replace('_', '-')}={v}" for k, v in defaults.items())
    out.print(f"default limits: {limits}", soft_wrap=True)
