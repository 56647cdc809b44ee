"""``arena test NEW BASE`` (an A/B test with a sequential stop), ``arena test resume ID``
and ``arena test list``."""

from __future__ import annotations

import re
import time
from pathlib import Path
from typing import Annotated, Any

import typer
from rich.table import Table
from typer.core import TyperGroup

from arena import interrupt, limits
from arena.bots import is_builtin
from arena.cli.app import app, emit_json, err, out
from arena.cli.bots import check_images
from arena.cli.options import (
    BrutalOpt,
    DbOpt,
    DbRetryOpt,
    DeadlineOpt,
    ExecutorOpt,
    IsolationOpt,
    JsonOpt,
    NoReportOpt,
    ProcessLimitOpt,
    RayAddressOpt,
    ReportDirOpt,
    SeedOpt,
    StrikesOpt,
    TimeBankOpt,
    VariantOpt,
    WorkersOpt,
    executor,
    isolation,
    optional_seed,
    process_options,
    ruleset,
    warn_guessable,
    workers,
)
from arena.errors import UsageProblem

_SPRT_TOKEN = re.compile(r"^(elo0|elo1|alpha|beta|model)=\S+$", re.IGNORECASE)


def join_sprt(args: list[str]) -> list[str]:
    """``--sprt elo0=0 elo1=10 ...`` unquoted: the settings after ``--sprt``'s value are
    that value's too (so the form the chess tools print works as typed)."""
    out: list[str] = []
    i = 0
    while i < len(args):
        a = args[i]
        if a == "--":
            return out + args[i:]
        if a == "--sprt" and i + 1 < len(args):
            value, i = args[i + 1], i + 2
        elif a.startswith("--sprt="):
            value, i = a[len("--sprt=") :], i + 1
        else:
            out.append(a)
            i += 1
            continue
        while i < len(args) and _SPRT_TOKEN.match(args[i]):
            value, i = f"{value} {args[i]}", i + 1
        out += ["--sprt", value]
    return out


class TestCommands(TyperGroup):
    """``arena test``: a group whose callback takes the two bots as arguments, so a
    subcommand name (``resume``, ``list``) in first place is told apart from a bot."""

    __test__ = False  # not a test class, whatever its name
    allow_interspersed_args = True  # options may follow NEW and BASE

    def parse_args(self, ctx: Any, args: list[str]) -> list[str]:
        if args and args[0] in self.commands:
            super(TyperGroup, self).parse_args(ctx, [])  # the group's options: defaults
            ctx._protected_args, ctx.args = args[:1], args[1:]
            return list(ctx.args)
        return super().parse_args(ctx, join_sprt(args))


test_app = typer.Typer(
    cls=TestCommands,
    short_help="A/B test two bots with a sequential probability ratio test, resume one, or "
    "list them.",
    rich_markup_mode=None,
    invoke_without_command=True,
)
app.add_typer(test_app, name="test")


def players(
    new: str, base: str, opponents: list[str], seats: int, db: str | None
) -> tuple[Any, Any, list[Any]]:
    """NEW, BASE and the opponents as test players (names told apart: ``ev``, ``ev#2``)."""
    from arena.abtest_runner import Player
    from arena.bots import Remote, unique_names
    from arena.cli.bots import parse_source
    from arena.names import check_entry_name, numbered

    if seats > 2 and not opponents:
        raise UsageProblem(
            f"a {seats}-seat test needs opponents for the other {seats - 2} seat(s): give "
            "--opponents BOT (once for all of them, or once per seat)",
            param="--opponents",
        )
    if seats == 2 and opponents:
        raise UsageProblem("a 2-seat test has no opponents (give --seats K)", param="--opponents")
    if seats > 2 and len(opponents) == 1:
        opponents = opponents * (seats - 2)
    if seats > 2 and len(opponents) != seats - 2:
        raise UsageProblem(
            f"give one opponent for all {seats - 2} other seats or one per seat, "
            f"got {len(opponents)}",
            param="--opponents",
        )
    given = [(new, "NEW"), (base, "BASE"), *((o, "--opponents") for o in opponents)]
    parsed = [parse_source(value, db, param) for value, param in given]
    names = unique_names([p[0] for p in parsed], numbered)
    out = []
    for name, (_, source, version), (_, param) in zip(names, parsed, given, strict=True):
        if isinstance(source, Remote):
            raise UsageProblem(
                f"bot {name!r} is a remote bot: a test starts its own bots", param=param
            )
        check_entry_name(name, param=param)
        out.append(Player(name, source, version.id if version is not None else None))
    return out[0], out[1], out[2:]


def parse_sprt_option(values: list[str] | None) -> Any:
    from arena.abtest import SprtSpecError, parse_sprt

    try:
        return parse_sprt(values or [])
    except SprtSpecError as e:
        raise UsageProblem(str(e), param="--sprt") from None


class LiveLine:
    """The test's one-line report on stderr: redrawn in place on a terminal, otherwise
    printed at most every ``every`` seconds (and always the first and the last)."""

    def __init__(self, every: float = 10.0) -> None:
        self.every = every
        self.last = 0.0
        self.text = ""
        self.shown = ""
        self.live: Any = None

    def __enter__(self) -> LiveLine:
        if err.is_terminal:
            from rich.live import Live
            from rich.text import Text

            self.live = Live(Text(""), console=err, transient=False, refresh_per_second=4)
            self.live.__enter__()
        return self

    def update(self, text: str) -> None:
        self.text = text
        if self.live is not None:
            from rich.text import Text

            self.live.update(Text(text, no_wrap=True, overflow="ellipsis"))
            return
        now = time.monotonic()
        if not self.shown or now - self.last >= self.every:
            self.print(text)

    def print(self, text: str) -> None:
        self.last = time.monotonic()
        self.shown = text
        err.print(text, markup=False, soft_wrap=True)

    def __exit__(self, *exc: object) -> None:
        if self.live is not None:
            self.live.__exit__(None, None, None)
        elif self.text and self.text != self.shown:
            self.print(self.text)


def run_and_print(
    db: str | None,
    tid: int,
    as_json: bool,
    n_workers: int,
    db_retry: float | None,
    out_dir: Path | None,
    executor_name: str = "local",
    address: str | None = None,
) -> None:
    from arena.abtest_runner import Progress, run_test

    with LiveLine() as line:

        def show(p: Progress) -> None:
            line.update(f"test {tid}: {p.state.line()}")

        def warn(message: str) -> None:
            err.print(f"warning: {message}", markup=False, soft_wrap=True)

        outcome = interrupt.run(
            run_test(
                db,
                tid,
                show,
                workers=n_workers,
                db_retry=db_retry,
                warn=warn,
                executor=executor_name,
                address=address,
            ),
            f"test {tid} interrupted: every bot was stopped and the units played so far are "
            f"kept; continue it with: arena test resume {tid}",
        )
    report = None
    if out_dir is not None:
        from arena.report import render_site

        report = render_site(db, out_dir)
    print_outcome(outcome, as_json, report)


def _signed(x: float | None) -> str:
    return "?" if x is None else f"{x:+.1f}"


def verdict_text(outcome: Any) -> str:
    st = outcome.state.status()
    spec = st.spec
    played_on = (
        f"; a fixed-length test, it played on to its {outcome.test.fixed_games:,} games"
        if outcome.stopped_by == "length"
        else ""
    )
    if outcome.verdict == "H1":
        return (
            f"H1 accepted at pair {st.decided_at}: NEW is better (the results favour "
            f"elo1={spec.elo1:g} over elo0={spec.elo0:g}){played_on}"
        )
    if outcome.verdict == "H0":
        return (
            f"H0 accepted at pair {st.decided_at}: NEW is not better by elo1={spec.elo1:g} "
            f"(the results favour elo0={spec.elo0:g}){played_on}"
        )
    if outcome.stopped_by == "length":
        return "no verdict: a fixed-length test (the LLR crossed neither bound)"
    if outcome.verdict == "inconclusive":
        return f"no verdict: the cap of {outcome.test.max_games:,} games was reached"
    return "no verdict yet: the test is still running (resume it)"


def gain_text(ratio: float, se: float) -> str:
    """What a measured variance ratio means for the length of a test, once it is clear
    (two standard errors away from 1)."""
    if ratio + 2 * se < 1:
        return f"≈ {100 * (1 - ratio):.0f} % fewer games for the same precision"
    if ratio - 2 * se > 1:
        return f"≈ {100 * (ratio - 1):.0f} % more games than independent deals would need"
    return "no clear difference yet"


def print_outcome(outcome: Any, as_json: bool, report: Any = None) -> None:
    t = outcome.test
    if as_json:
        data = outcome.as_dict()
        data["status"] = str(data["status"])
        if report is not None:
            data["report"] = str(report.index)
        emit_json(data)
        return
    st = outcome.state.status()
    e = st.estimate
    opponents = [b["name"] for b in t.bots[2:]]
    table = (
        f"{t.seats} seats"
        + (f" with {', '.join(opponents)}" if opponents else "")
        + f", {t.variant}"
    )
    out.print(
        f"test {t.id}: NEW {t.new} against BASE {t.base}, {table}"
        f"{' brutal' if t.brutal else ''}; SPRT {st.spec}",
        markup=False,
        soft_wrap=True,
    )
    out.print(verdict_text(outcome), markup=False, soft_wrap=True)
    out.print(
        f"LLR {st.llr:+.2f} (bounds {st.lower:+.2f}, {st.upper:+.2f}); Elo {_signed(e.elo)} "
        f"[{_signed(e.elo_low)}, {_signed(e.elo_high)}] (95 %), normalised Elo "
        f"{_signed(e.nelo)}, LOS {100 * e.los:.1f} %",
        markup=False,
        soft_wrap=True,
    )
    names = "0 ¼ ½ ¾ 1" if e.games_per_unit == 2 else "by score"
    out.print(
        f"{e.units:,} pairs ({e.games:,} games); pair outcomes (NEW's pair score {names}): "
        f"{' '.join(str(c) for c in e.counts)}",
        markup=False,
        soft_wrap=True,
    )
    if e.variance_ratio is not None and e.variance_ratio_se is not None:
        gain = gain_text(e.variance_ratio, e.variance_ratio_se)
        out.print(
            f"duplicate deals: variance ×{e.variance_ratio:.2f} ± {e.variance_ratio_se:.2f} of "
            f"the same games on independent deals ({gain})",
            markup=False,
            soft_wrap=True,
        )
    if outcome.void_units:
        out.print(f"note: {outcome.void_units} unit(s) void (arena failure), not counted")
    if outcome.seconds:
        rate = outcome.games_played / outcome.seconds
        out.print(f"{outcome.games_played:,} games in {outcome.seconds:.1f} s ({rate:.1f} games/s)")
    if report is not None:
        out.print(f"report: {report.index.resolve()} ({report.pages} pages)")


@test_app.callback()
def test(
    ctx: typer.Context,
    new: Annotated[
        str | None,
        typer.Argument(
            metavar="NEW",
            help="The bot under test: a registered name, a command, NAME=COMMAND, "
            "docker:IMAGE or builtin:POLICY.",
            show_default=False,
        ),
    ] = None,
    base: Annotated[
        str | None,
        typer.Argument(metavar="BASE", help="The bot it is compared with.", show_default=False),
    ] = None,
    sprt: Annotated[
        list[str] | None,
        typer.Option(
            "--sprt",
            metavar="KEY=VALUE",
            help="The sequential test: elo0=0 elo1=10 alpha=0.05 beta=0.05 "
            "[model=logistic|normalized] (these are the defaults; any key may be left out). "
            "H0: NEW is elo0 Elo stronger than BASE, H1: elo1; alpha and beta are the error "
            "rates (in (0, 0.5)). The test stops when the log-likelihood ratio crosses a "
            "bound.",
        ),
    ] = None,
    games: Annotated[
        int | None,
        typer.Option(
            "--games",
            metavar="N",
            help="A fixed-length test instead: exactly N games (a multiple of the games of "
            f"one deal, 2; up to {limits.MAX_TEST_GAMES:,}); the SPRT's LLR is shown but "
            "does not stop it.",
        ),
    ] = None,
    max_games: Annotated[
        int,
        typer.Option(
            "--max-games",
            metavar="N",
            help="The cap of a sequential test: it stops without a verdict after N games "
            f"(up to {limits.MAX_TEST_GAMES:,}).",
        ),
    ] = limits.DEFAULT_TEST_MAX_GAMES,
    seats: Annotated[
        int,
        typer.Option(
            "--seats",
            metavar="N",
            help=f"Seats at the table ({limits.MIN_EVENT_SEATS}–{limits.MAX_TABLE_SEATS}). "
            "Above 2, the other seats hold --opponents.",
        ),
    ] = 2,
    opponents: Annotated[
        list[str] | None,
        typer.Option(
            "--opponents",
            metavar="BOT",
            help="With --seats K > 2: the fixed opponents at the table (once for all K-2 "
            "seats, or once per seat).",
        ),
    ] = None,
    variant: VariantOpt = "base",
    brutal: BrutalOpt = False,
    concurrency: Annotated[
        int,
        typer.Option(
            "--concurrency",
            metavar="N",
            help=f"Games played at once (1–{limits.MAX_EVENT_GAMES:,}).",
        ),
    ] = limits.DEFAULT_TEST_CONCURRENCY,
    workers_: WorkersOpt = None,
    executor_: ExecutorOpt = "local",
    ray_address: RayAddressOpt = None,
    seed: SeedOpt = None,
    deadline: DeadlineOpt = limits.DEFAULT_DEADLINE,
    time_bank: TimeBankOpt = limits.DEFAULT_TIME_BANK,
    max_strikes: StrikesOpt = limits.DEFAULT_MAX_STRIKES,
    process_limit: ProcessLimitOpt = None,
    isolation_: IsolationOpt = "event",
    out_dir: ReportDirOpt = Path("reports"),
    no_report: NoReportOpt = False,
    db_retry: DbRetryOpt = None,
    as_json: JsonOpt = False,
    db: DbOpt = None,
) -> None:
    """Is NEW better than BASE? Plays them on duplicate deals (each deal twice, NEW and
    BASE exchanging seats; at more seats the opponents keep theirs) until a sequential
    probability ratio test decides, stores every pair, prints the verdict, the Elo
    difference with its 95 % interval, the pair outcomes and how much the duplicate deals
    reduced the variance. Progress goes to stderr; resumable after a crash.

    Example: arena test ev cautious --sprt elo0=0 elo1=10 alpha=0.05 beta=0.05

    Subcommands: arena test resume ID (continue a test that was killed), arena test list.
    """
    if ctx.invoked_subcommand is not None:
        return
    from arena.abtest_runner import AbTestConfig, create_test
    from arena.store.retry import retry_limit

    if new is None or base is None:
        raise UsageProblem(
            "give the two bots: arena test NEW BASE [options] (or: arena test resume ID, "
            "arena test list)"
        )
    executor_name, address = executor(executor_, ray_address, None)
    spec = parse_sprt_option(sprt)
    limits.check_count(seats, "--seats", limits.MIN_EVENT_SEATS, limits.MAX_TABLE_SEATS)
    if games is not None:
        limits.check_count(games, "--games", 1, limits.MAX_TEST_GAMES)
    limits.check_count(max_games, "--max-games", 1, limits.MAX_TEST_GAMES)
    limits.check_deadline(deadline)
    limits.check_time_bank(time_bank)
    limits.check_strikes(max_strikes)
    retry_limit(db_retry)
    isolation(isolation_)
    n_workers = workers(workers_)
    ruleset(variant, brutal)
    master = optional_seed(seed)
    p_new, p_base, p_opp = players(new, base, list(opponents or []), seats, db)
    everyone = [p_new, p_base, *p_opp]
    warn_guessable(master, [p.name for p in everyone if not is_builtin(p.source)])
    check_images(everyone, param="NEW/BASE")
    cfg = AbTestConfig(
        new=p_new,
        base=p_base,
        opponents=p_opp,
        seats=seats,
        sprt=spec,
        games=games,
        max_games=max_games,
        variant=variant,
        brutal=brutal,
        seed=master,
        concurrency=concurrency,
        deadline=deadline,
        time_bank=time_bank,
        max_strikes=max_strikes,
        process=process_options(process_limit),
        isolation=isolation_,
    )
    tid = create_test(cfg, db)
    err.print(f"test {tid} created; if it is interrupted: arena test resume {tid}")
    run_and_print(
        db, tid, as_json, n_workers, db_retry, None if no_report else out_dir, executor_name,
        address,
    )  # fmt: skip


@test_app.command("resume")
def test_resume(
    tid: Annotated[int, typer.Argument(metavar="ID", help="The test's id.")],
    workers_: WorkersOpt = None,
    executor_: ExecutorOpt = "local",
    ray_address: RayAddressOpt = None,
    out_dir: ReportDirOpt = Path("reports"),
    no_report: NoReportOpt = False,
    db_retry: DbRetryOpt = None,
    as_json: JsonOpt = False,
    db: DbOpt = None,
) -> None:
    """Continue a test that was interrupted (its stored pairs are kept; it ends as it
    would have without the interruption). Refused while it runs in another process."""
    from arena.abtest_runner import load
    from arena.store.db import read_engine
    from arena.store.retry import retry_limit

    retry_limit(db_retry)
    n_workers = workers(workers_)
    executor_name, address = executor(executor_, ray_address, None)
    load(read_engine(db), tid)  # an unknown id is an error, and creates nothing
    run_and_print(
        db, tid, as_json, n_workers, db_retry, None if no_report else out_dir, executor_name,
        address,
    )  # fmt: skip


@test_app.command("list")
def test_list(as_json: JsonOpt = False, db: DbOpt = None) -> None:
    """The stored tests."""
    from arena.abtest_runner import list_tests
    from arena.store.db import read_engine

    rows = list_tests(read_engine(db))
    if as_json:
        emit_json(rows)
        return
    if not rows:
        out.print("no tests yet")
        return
    table = Table()
    cols = ("id", "new", "base", "seats", "variant", "sprt", "games", "elo", "llr", "verdict")
    for col in (*cols, "status", "created"):
        table.add_column(col)
    for r in rows:
        cells = []
        for c in (*cols, "status", "created"):
            v = r[c]
            if c == "elo":
                v = _signed(v)
            elif c == "llr":
                v = "–" if v is None else f"{v:+.2f}"
            cells.append(str(v))
        table.add_row(*cells)
    out.print(table)
