"""``arena simulate`` (in-process games of built-in policies), ``arena match`` (one table
of bots over gRPC) and ``arena sandbox`` (what isolation process bots get here)."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Any

import typer

from arena import interrupt, limits
from arena.bots import Remote, is_builtin
from arena.cli.app import app, emit_json, err, make_table, out
from arena.cli.bots import check_images, parse_bots
from arena.cli.options import (
    AllowAbsentOpt,
    BrutalOpt,
    ConcurrencyOpt,
    DbOpt,
    DeadlineOpt,
    DuplicateOpt,
    ExecutorOpt,
    JsonOpt,
    OrderedOptions,
    ProcessLimitOpt,
    RayAddressOpt,
    SeedOpt,
    StartTimeoutOpt,
    StrikesOpt,
    TimeBankOpt,
    VariantOpt,
    check_seats,
    executor,
    option_order,
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

SIMULATE_HELP = """Play games in this process (no network, no database): built-in policies and
your own bots.

Seats. Without --bot: --policy once for all --seats seats (default 4) or once per seat.
With --bot: every --bot and every --policy is one seat, in the order given on the command
line (--bot me.py --policy ev: me at seat 0, ev at seat 1); --seats N with a single --policy
gives that policy every seat the others leave. --rotate turns the seats between games as
arena match does (each row is then one bot or policy, wherever it sat).

A bot (--bot FILE[:NAME] [ARGS...]) is a Python file written with the SDK (arena.sdk),
loaded into this process: FILE runs as a script with ARGS in sys.argv, and its
run(choose) or run(MyBot()) hands the bot over instead of connecting; FILE:NAME takes the
choose function, Bot class or Bot object NAME from the file instead. It sees the requests,
hooks and faults of the network (deadline, time bank, strikes as in arena match, the time
measured around each call), at a fraction of the cost; a bot that opens its own connection
cannot be loaded. What a bot prints goes to stderr.

Game g's deal comes from --seed as game g of arena match --seed S: with --rotate and the
same table the games are those of arena match, choice for choice. Prints per-seat wins
(shared wins split), mean round score, bust and Flip 7 rates, mean total and faults.
"""


@app.command(cls=OrderedOptions, help=SIMULATE_HELP)
def simulate(
    ctx: typer.Context,
    variant: VariantOpt = "base",
    brutal: BrutalOpt = False,
    seats: Annotated[
        int | None,
        typer.Option(
            "--seats",
            metavar="N",
            help=f"Seats at the table ({limits.MIN_MATCH_SEATS}–{limits.MAX_TABLE_SEATS}; "
            "default 4, or one per --bot and --policy when a --bot is given).",
        ),
    ] = None,
    policy: Annotated[
        list[str] | None,
        typer.Option(
            "--policy",
            metavar="POLICY",
            help="random | threshold:N | ev (default ev). Without --bot: once for all seats or "
            "once per seat; with --bot: one seat each, in command-line order.",
        ),
    ] = None,
    bot: Annotated[
        list[str] | None,
        typer.Option(
            "--bot",
            metavar="FILE[:NAME] [ARGS]",
            help="A Python SDK bot loaded into this process, one seat each (repeatable).",
        ),
    ] = None,
    games: Annotated[
        int,
        typer.Option(
            "--games",
            metavar="N",
            help=f"Number of games (1–{limits.MAX_SIMULATE_GAMES:,}).",
        ),
    ] = 1000,
    seed: Annotated[
        str, typer.Option("--seed", metavar="SEED", help="Master seed (whole number).")
    ] = "1",
    rotate: Annotated[
        bool, typer.Option("--rotate", help="Rotate the seats between games (as arena match).")
    ] = False,
    single_round: Annotated[
        bool, typer.Option("--single-round", help="Each game is one round (statistics).")
    ] = False,
    deadline: DeadlineOpt = limits.DEFAULT_DEADLINE,
    time_bank: TimeBankOpt = limits.DEFAULT_TIME_BANK,
    max_strikes: StrikesOpt = limits.DEFAULT_MAX_STRIKES,
    as_json: JsonOpt = False,
) -> None:
    from arena.simulate import simulate as run

    limits.check_count(games, "--games", 1, limits.MAX_SIMULATE_GAMES)
    rules = ruleset(variant, brutal)
    master = parse_seed(seed)
    if not bot and not rotate:
        n = 4 if seats is None else seats
        check_seats(n)
        pols = policies(policy or [], n)
        with progress_bar(err, "simulating", games, enabled=games >= 2000) as advance:
            result = run(rules, n, pols, games, master, single_round=single_round, progress=advance)
    else:
        result = _simulate_table(
            ctx,
            variant,
            brutal,
            seats,
            policy or [],
            bot or [],
            games,
            master,
            rotate,
            single_round,
            deadline,
            time_bank,
            max_strikes,
        )
    data = result.as_dict()
    if as_json:
        emit_json(data)
        return
    n_seats = len(data["seats"])
    with_faults = any(s["faults"] for s in data["seats"])
    name_col = "bot" if bot else "policy"
    columns = ["seat" if not rotate else "#", name_col, "wins", "mean round"]
    columns += ["bust rate", "flip 7 rate", "mean total"] + (["faults"] if with_faults else [])
    table = make_table(
        *columns,
        title=f"{result.games} game(s) of {variant}{' brutal' if brutal else ''}, "
        f"{n_seats} seat(s){', seats rotating' if rotate else ''}",
        left=[name_col, "faults"],
    )
    for i, s in enumerate(data["seats"]):
        row = [
            str(i),
            s["name"],
            f"{s['wins']:g}",
            f"{s['mean_round_score']:.2f}",
            f"{s['bust_rate']:.1%}",
            f"{s['flip7_rate']:.2%}",
            f"{s['mean_total']:.1f}",
        ]
        if with_faults:
            row.append(", ".join(f"{k} {v}" for k, v in s["faults"].items()) or "-")
        table.add_row(*row)
    out.print(table)
    if result.faults:
        print_fault_summary(summarize(result.faults), result.games + result.void)
    speed = f"{data['rounds_per_second']:,.0f} rounds/s" if data["rounds_per_second"] else "-"
    out.print(
        f"{data['rounds']} rounds in {data['seconds']:.2f} s ({speed}), "
        f"{data['mean_rounds_per_game']:.2f} rounds per game"
        + (f", {result.decisions} bot decisions" if bot else "")
        + (f"; {result.void} game(s) void (arena failure)" if result.void else "")
    )


def _simulate_table(
    ctx: typer.Context,
    variant: str,
    brutal: bool,
    seats: int | None,
    policy: list[str],
    bot: list[str],
    games: int,
    master: int,
    rotate: bool,
    single_round: bool,
    deadline: float,
    time_bank: float,
    max_strikes: int,
) -> Any:
    """simulate with bots or rotating seats: the table in command-line order, its bots
    loaded, played through the referee (arena.simulate.simulate_match)."""
    import contextlib
    import sys

    from arena.bots import Command, Policy, suggested_name, unique_names
    from arena.faults import FaultPolicy
    from arena.match import BotEntry, MatchSpec
    from arena.names import check_entry_name, numbered
    from arena.sdk.load import BotLoadError, load_bot, parse_bot_arg
    from arena.simulate import simulate_match
    from engine.policies import PolicyError, parse_policy

    limits.check_deadline(deadline)
    limits.check_time_bank(time_bank)
    limits.check_strikes(max_strikes)
    try:
        specs = [parse_policy(p) for p in policy]
    except PolicyError as e:
        raise UsageProblem(str(e), param="--policy") from None
    if not bot:  # --rotate with policies only
        n = 4 if seats is None else seats
        check_seats(n)
        seat_list: list[tuple[str, str]] = [("policy", p) for p in policies(specs, n)]
    else:
        order = option_order(ctx, ("bot", "policy"))
        bots_left, pols_left = iter(bot), iter(specs)
        seat_list = [
            ("bot", next(bots_left)) if kind == "bot" else ("policy", next(pols_left))
            for kind in order
        ]
        if seats is not None and seats != len(seat_list):
            if len(specs) != 1 or seats < len(seat_list):
                raise UsageProblem(
                    f"{len(seat_list)} seat(s) given by --bot and --policy; --seats {seats} "
                    "needs exactly one --policy to fill the rest",
                    param="--seats",
                )
            at = seat_list.index(("policy", specs[0]))
            seat_list[at : at + 1] = [("policy", specs[0])] * (seats - len(seat_list) + 1)
        check_seats(len(seat_list))
    loaded = {}
    names_wanted = []
    sources: list[Any] = []
    for kind, value in seat_list:
        if kind == "policy":
            names_wanted.append(value)
            sources.append(Policy(value))
            continue
        try:
            path, attr, args = parse_bot_arg(value)
            with contextlib.redirect_stdout(sys.stderr):
                one = load_bot(path, attr, args)
        except BotLoadError as e:
            raise UsageProblem(str(e), param="--bot") from None
        command = " ".join(["python", str(path), *args])
        names_wanted.append(attr or suggested_name(Command(command)))
        sources.append((Command(command), one, value))
    entries = []
    given = {}
    for name, source in zip(unique_names(names_wanted, numbered), sources, strict=True):
        check_entry_name(name, param="--bot")
        if isinstance(source, Policy):
            entries.append(BotEntry(name, source))
        else:
            command_source, one, value = source
            entries.append(BotEntry(name, command_source))
            loaded[name] = one
            given[name] = value
    spec = MatchSpec(
        bots=entries,
        games=games,
        seed=master,
        variant=variant,
        brutal=brutal,
        rotate=rotate,
        single_round=single_round,
        faults=FaultPolicy(deadline=deadline, time_bank=time_bank, max_strikes=max_strikes),
    )
    with (
        progress_bar(err, "games", games, enabled=games >= 200) as advance,
        contextlib.redirect_stdout(sys.stderr),  # what a bot prints is not the results
    ):
        return simulate_match(spec, loaded, given, progress=advance)


@app.command()
def match(
    bot: Annotated[
        list[str],
        typer.Option(
            "--bot",
            metavar="BOT",
            help="A bot: a registered name (its latest version; NAME@vN for another), a "
            "command (e.g. 'python "
            "bots/examples/python/ev/bot.py'), NAME=COMMAND, docker:IMAGE or builtin:POLICY. "
            "Once per seat, in seat order.",
        ),
    ],
    games: Annotated[
        int, typer.Option("--games", metavar="N", help=f"Games (1–{limits.MAX_MATCH_GAMES:,}).")
    ] = 10,
    variant: VariantOpt = "base",
    brutal: BrutalOpt = False,
    seed: SeedOpt = None,
    duplicate: DuplicateOpt = False,
    concurrency: ConcurrencyOpt = 16,
    deadline: DeadlineOpt = limits.DEFAULT_DEADLINE,
    time_bank: TimeBankOpt = limits.DEFAULT_TIME_BANK,
    max_strikes: StrikesOpt = limits.DEFAULT_MAX_STRIKES,
    start_timeout: StartTimeoutOpt = limits.DEFAULT_START_TIMEOUT,
    allow_absent: AllowAbsentOpt = False,
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

    Seats rotate between games so every bot sits in every position equally often. Every bot
    is started and must say hello before the first game (a bot that does not is an error,
    unless --allow-absent). Faults (timeouts, illegal answers, crashes) are recorded per
    game; a forfeiting seat plays the safe default and ranks last; a summary of the
    faults follows the results.
    """
    from arena.faults import FaultPolicy
    from arena.match import MatchSpec, run_match

    limits.check_games(games)
    limits.check_concurrency(concurrency)
    limits.check_deadline(deadline)
    limits.check_time_bank(time_bank)
    limits.check_strikes(max_strikes)
    limits.check_start_timeout(start_timeout)
    entries = parse_bots(bot, db)
    if not limits.MIN_MATCH_SEATS <= len(entries) <= limits.MAX_TABLE_SEATS:
        raise UsageProblem(
            f"a table has {limits.MIN_MATCH_SEATS} to {limits.MAX_TABLE_SEATS} seats, "
            f"got {len(entries)}",
            param="--bot",
        )
    ruleset(variant, brutal)
    if duplicate:
        limits.check_duplicate_games(games, len(entries), of="the bots")
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
        faults=FaultPolicy(
            deadline=deadline,
            time_bank=time_bank,
            max_strikes=max_strikes,
            start_timeout=start_timeout,
        ),
        process_limits=process_limits(process_limit),
        games_per_deal=len(entries) if duplicate else 1,
    )
    n_workers = limits.check_count(
        1 if workers_ is None else workers_, "--workers", 1, limits.MAX_WORKERS
    )
    absent: list[Any] = []

    def preflight(found: list[Any]) -> None:
        from arena.match.preflight import settle

        hint = (
            "the match was not played: fix the bot(s), or give --allow-absent to play without them"
        )
        absent.extend(settle(found, allow_absent, hint))
        for a in absent:
            err.print(
                f"warning: {a.bot} is absent ({a.reason}): it forfeits every game",
                markup=False,
                soft_wrap=True,
            )

    with progress_bar(err, "games", games) as advance:
        if n_workers > 1 or kind != "local":
            from arena.executor import run_split

            done = [0]

            def one_game() -> None:
                done[0] += 1
                advance(done[0])

            parts = n_workers if kind == "local" else 0  # 0: the cluster's CPUs
            job = run_split(spec, parts, one_game, preflight=preflight, kind=kind, address=address)
        else:
            job = run_match(spec, progress=lambda done, total: advance(done), preflight=preflight)
        result = interrupt.run(job, "match interrupted: every bot was stopped, nothing was stored")
    if logs is not None:
        logs.mkdir(parents=True, exist_ok=True)
        for name, text in result.logs.items():
            (logs / f"{name.replace('/', '_')}.log").write_text(text)
    seats = result.seat_summary()
    fault_lines = summarize([g.faults for g in result.games])
    if as_json:
        emit_json(
            {
                "games": [g.as_dict(events=events) for g in result.games],
                "seats": seats,
                "seed": spec.seed,  # the match is over: --seed with it replays every game
                "faults": fault_rows(fault_lines),
                "absent": [{"bot": a.bot, "reason": a.reason} for a in absent],
            }
        )
        return
    table = make_table(
        "bot",
        "wins",
        "mean total",
        "faults",
        title=f"{games} game(s) of {variant}{' brutal' if brutal else ''}",
        left=["bot", "faults"],
    )
    for row in seats:
        faults = ", ".join(f"{k} {v}" for k, v in sorted(row["faults"].items())) or "-"
        table.add_row(row["bot"], f"{row['wins']:g}", f"{row['mean_total']:.1f}", faults)
    out.print(table)
    print_fault_summary(fault_lines, len(result.games))
    void = sum(1 for g in result.games if g.status != GameStatus.COMPLETED)
    out.print(
        f"{result.decisions} decisions over the network in {result.seconds:.1f} s"
        + (f"; {void} game(s) void (arena failure)" if void else "")
    )


def fault_rows(lines: list[Any]) -> list[dict[str, Any]]:
    """The fault summary (``arena.faults.summarize``) as ``--json`` prints it: one object
    per bot and kind with ``bot`` (null: the arena's own), ``kind``, ``count``,
    ``forfeits``, ``games`` and ``first`` (the first line of the first reason)."""
    return [ln.as_dict() for ln in lines]


def print_fault_summary(lines: list[Any], games: int) -> None:
    """The faults of a match or an event, one line per bot and kind with the first reason
    (on stdout, after the results; nothing when there were none)."""
    if not lines:
        return
    table = make_table(
        *("bot", "kind", "faults", "games", "forfeits", "first reason"),
        title=f"faults over {games} game(s)",
        left=["bot", "kind", "first reason"],
        title_justify="left",
    )
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
