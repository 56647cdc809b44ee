"""Options and argument checks shared by several commands (one definition each)."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Any

import typer
from typer.core import TyperCommand

from arena import limits
from arena.cli.app import err
from arena.errors import UsageProblem

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
        help="Database: a URL (sqlite:///path/to/arena.db, "
        "postgresql+psycopg://user:pw@host/db) or a SQLite file (name.db, path/to/file); "
        "default: SQLite file arena.db here; ARENA_DB overrides.",
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


StartTimeoutOpt = Annotated[
    float,
    typer.Option(
        "--start-timeout",
        metavar="SEC",
        help="Seconds for each bot to start and say hello, remote bots to connect "
        f"({limits.MIN_START_TIMEOUT:g}–{limits.MAX_START_TIMEOUT:g}).",
    ),
]


AllowAbsentOpt = Annotated[
    bool,
    typer.Option(
        "--allow-absent",
        help="Before the first game every bot is started and must say hello (the "
        "pre-flight); one that does not stops the run, naming it and why. With this "
        "option the run goes on without it: it forfeits every game (a last place in the "
        "standings) and those games do not count for its rating.",
    ),
]


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


SEED_HELP = (
    "Seed for a reproducible run: the same seed plays the same games. Without it, deals "
    "come from a fresh secret that no bot can predict. A seeded event's deals are "
    "guessable by anyone who knows or guesses the seed: use it for tests and trusted bots."
)


SeedOpt = Annotated[str | None, typer.Option("--seed", metavar="SEED", help=SEED_HELP)]


ConcurrencyOpt = Annotated[
    int,
    typer.Option(
        "--concurrency",
        metavar="N",
        min=1,
        help=f"Games played at once (1–{limits.MAX_CONCURRENCY:,}).",
    ),
]


REPORT_DIR_HELP = (
    "Where to write the HTML report (default: a folder per database under reports/: "
    "reports/NAME-HASH/, NAME the SQLite file's name or the server's database, HASH "
    "8 hex digits of the file's absolute path or the URL without its password, so one "
    "database's report never overwrites another's)."
)


ReportDirOpt = Annotated[Path | None, typer.Option("--out", metavar="DIR", help=REPORT_DIR_HELP)]


NoReportOpt = Annotated[bool, typer.Option("--no-report", help="Skip the report.")]


DuplicateOpt = Annotated[
    bool,
    typer.Option(
        "--duplicate",
        help="Duplicate deals: a table's games come in sets, one game per rotation of its "
        "seats, that share one deal, so every bot plays the deal from every seat (--games "
        "must be a multiple of the seats). Luck evens out sooner; the shared seed is not "
        "revealed to the bots.",
    ),
]


def ruleset(variant: str, brutal: bool) -> Any:
    from engine import RULESETS, get_ruleset

    if variant not in RULESETS:
        raise UsageProblem(
            f"unknown variant {variant!r} (choose from {', '.join(RULESETS)})", param="--variant"
        )
    return get_ruleset(variant, brutal=brutal) if brutal else get_ruleset(variant)


def parse_seed(seed: str) -> int:
    from arena.seeds import MAX_SEED

    try:
        value = int(seed, 0)
    except ValueError:
        raise UsageProblem(f"bad seed {seed!r}: give a whole number", param="--seed") from None
    if not 0 <= value <= MAX_SEED:
        raise UsageProblem(f"bad seed {seed}: must be between 0 and 2^63-1", param="--seed")
    return value


def optional_seed(seed: str | None) -> int | None:
    return None if seed is None else parse_seed(seed)


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


def policies(specs: list[str], seats: int) -> list[str]:
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


def check_seats(seats: int) -> None:
    from arena.limits import MAX_TABLE_SEATS, MIN_MATCH_SEATS

    if not MIN_MATCH_SEATS <= seats <= MAX_TABLE_SEATS:
        raise UsageProblem(
            f"seats must be between {MIN_MATCH_SEATS} and {MAX_TABLE_SEATS}, got {seats}",
            param="--seats",
        )


def process_limits(items: list[str] | None) -> Any:
    """--process-limit values as ProcessLimits (None: the defaults)."""
    if not items:
        return None
    from arena.runtime.sandbox import ProcessLimits

    try:
        return ProcessLimits.parse(items)
    except (ValueError, TypeError) as e:
        raise UsageProblem(str(e), param="--process-limit") from None


def container_limits(memory: str, cpus: float, pids: int) -> dict[str, Any]:
    from arena.runtime.docker import ContainerLimits

    try:
        ContainerLimits(memory=memory, cpus=cpus, pids=pids)
    except (ValueError, TypeError) as e:
        raise UsageProblem(str(e)) from None
    return {"memory": memory, "cpus": cpus, "pids": pids}


def process_options(items: list[str] | None) -> dict[str, Any]:
    limits = process_limits(items)
    return limits.as_options() if limits is not None else {}


WorkersOpt = Annotated[
    int | None,
    typer.Option(
        "--workers",
        metavar="N",
        help="Worker processes that play the matches, each with its own copy of the bots "
        "(default: the machine's cores; 1: all in this process). Results are the same for "
        "any number.",
    ),
]
IsolationOpt = Annotated[
    str,
    typer.Option(
        "--isolation",
        metavar="event|match",
        help="event (default): each bot is started once (per worker) and plays all its "
        "games over one stream, many at once; a bot that crashes is restarted (3 times, "
        "then it forfeits the rest) and only its games in flight are lost. match: bots "
        "start and stop with every match. Container limits (--memory, --cpus, --pids) "
        "apply to each container, i.e. to all the games one bot plays at once.",
    ),
]


def workers(value: int | None, option: str = "--workers") -> int:
    """--workers as a number of worker processes (default: the machine's cores)."""
    from arena.executor import default_workers

    if value is None:
        return default_workers()
    return limits.check_count(value, option, 1, limits.MAX_WORKERS)


def isolation(value: str) -> str:
    from arena.executor import ISOLATIONS

    if value not in ISOLATIONS:
        raise UsageProblem(
            f"unknown isolation {value!r} (choose from {', '.join(ISOLATIONS)})",
            param="--isolation",
        )
    return value


class OrderedOptions(TyperCommand):
    """A command that also records the order in which its options were given, one entry
    per occurrence (``ctx.meta["option_order"]``: parameter names), so that two repeated
    options can be read as one sequence (``arena simulate --bot A --policy ev --bot B``)."""

    def parse_args(self, ctx: Any, args: list[str]) -> list[str]:
        try:
            _, _, order = self.make_parser(ctx).parse_args(args=list(args))
        except Exception:  # the real parse below reports the mistake
            order = []
        ctx.meta["option_order"] = [p.name for p in order]
        return super().parse_args(ctx, args)


def option_order(ctx: Any, names: tuple[str, ...]) -> list[str]:
    """The options among ``names`` in the order the command line gave them (one entry per
    occurrence) to an :class:`OrderedOptions` command whose context is ``ctx``."""
    return [n for n in ctx.meta.get("option_order", []) if n in names]


ExecutorOpt = Annotated[
    str,
    typer.Option(
        "--executor",
        metavar="local|ray",
        help="Where matches run. local (default): this machine, in this process or over "
        "--workers worker processes. ray: each match is a task on a Ray cluster (see "
        "--ray-address), which starts the match's bots on its node; needs "
        f"pip install 'flip7-arena[ray]'. A match whose node dies is played again from its "
        f"start on another node (up to {limits.RAY_TASK_RETRIES} times). Remote bots always "
        "play on this machine. The same games are played either way.",
    ),
]
RayAddressOpt = Annotated[
    str | None,
    typer.Option(
        "--ray-address",
        metavar="HOST:PORT",
        help="--executor ray: the Ray cluster's head (its GCS port, 6379 unless "
        "'ray start --head --port' said otherwise). Default: RAY_ADDRESS, else a Ray "
        "instance started on this machine for the run.",
    ),
]


def executor(name: str, address: str | None, workers: int | None) -> tuple[str, str | None]:
    """--executor and --ray-address checked (Ray installed, its head answering); returns
    (executor name, cluster address)."""
    from arena.executor import EXECUTORS

    if name not in EXECUTORS:
        raise UsageProblem(
            f"unknown executor {name!r} (choose from {', '.join(EXECUTORS)})", param="--executor"
        )
    if name != "ray":
        if address is not None:
            raise UsageProblem("give it with --executor ray", param="--ray-address")
        return name, None
    if workers is not None:
        raise UsageProblem(
            "is for the local executor: a Ray cluster's CPUs decide how many matches run at once",
            param="--workers",
        )
    from arena.executor.ray import check_address, import_ray

    import_ray()
    if address is not None:
        check_address(address)
    return name, address
