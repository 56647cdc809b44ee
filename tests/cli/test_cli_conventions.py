"""The command line's small conventions, as a user meets them: ``arena --version``; the
fault options of ``tournament`` act as those of ``match``; ``bot list --json`` gives each
bot's source; counts are integers in every ``--json``; tables fit a narrow terminal by
folding long names instead of cutting them, with figures kept whole; one placeholder
style in every ``--help``; ``simulate`` (which stores nothing) has no ``--db``."""

from __future__ import annotations

import json
import re
import subprocess
from pathlib import Path
from typing import Any

import pytest
import typer
from arenacli import run_arena
from sqlmodel import Session, select
from typer.testing import CliRunner

import arena
from arena.cli import app
from arena.counts import split_count
from arena.store.db import MIGRATIONS, get_engine
from arena.store.models import Game

ROOT = Path(__file__).resolve().parents[2]
EX = ROOT / "bots" / "examples" / "python"
RANDOM = f"python {EX / 'random' / 'bot.py'}"
NEVER = f"never=python {ROOT / 'tests' / 'bots' / 'never_answers.py'}"
LONG = "a-bot-with-a-name-far-too-long-for-a-phone-screen"


def cli(
    *args: str, columns: int = 200, cwd: Path | None = None
) -> subprocess.CompletedProcess[str]:
    return run_arena(*args, columns=columns, cwd=cwd, drop=("ARENA_DB",))


def one_line_error(r: subprocess.CompletedProcess[str], code: int) -> str:
    assert r.returncode == code, (r.returncode, r.stdout, r.stderr)
    lines = r.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: "), r.stderr
    assert "Traceback" not in r.stderr
    return lines[0]


# ------------------------------------------------------------------ --version
def test_arena_version_prints_the_version_and_the_schema_it_migrates_to(tmp_path: Path) -> None:
    head = sorted(p.name.split("_")[0] for p in (MIGRATIONS / "versions").glob("0*.py"))[-1]
    r = cli("--version", cwd=tmp_path)
    assert r.returncode == 0, r.stderr
    assert r.stdout == f"arena {arena.__version__} (database schema {head})\n"
    assert list(tmp_path.iterdir()) == []  # it opens no database
    assert "--version" in cli("--help").stdout


# ------------------------------------------------------------------ fault options
def timeouts(db: str) -> list[list[tuple[str, bool]]]:
    """Per stored game: the timeouts of the bot 'never' (forfeit or not)."""
    with Session(get_engine(db)) as s:
        games = s.exec(select(Game).order_by(Game.id)).all()
    return [[(f["kind"], f["forfeit"]) for f in g.faults if f["bot"] == "never"] for g in games]


@pytest.mark.parametrize("strikes", [1, 3])
def test_tournament_applies_time_bank_and_max_strikes_as_match_does(
    tmp_path: Path, strikes: int
) -> None:
    """A bot that never answers, with no time bank: it forfeits each game on its
    ``--max-strikes``-th timeout, in a tournament exactly as in a match."""
    limits = ["--deadline", "0.05", "--time-bank", "0", "--max-strikes", str(strikes)]
    expected = [("TIMEOUT", False)] * (strikes - 1) + [("TIMEOUT", True)]
    r = cli("match", "--bot", NEVER, "--bot", "builtin:random", "--games", "2", *limits, "--json")
    assert r.returncode == 0, r.stderr
    in_match = [
        [(f["kind"], f["forfeit"]) for f in g["faults"] if f["bot"] == "never"]
        for g in json.loads(r.stdout)["games"]
    ]
    assert in_match == [expected, expected]
    db = f"sqlite:///{tmp_path / 'arena.db'}"
    r = cli(
        *("tournament", "--format", "round-robin", "--seats", "2", "--rounds", "2", "--games", "2"),
        *("--bots", NEVER, "--bots", "builtin:random", *limits),
        *("--db", db, "--no-report", "--json"),
    )
    assert r.returncode == 0, r.stderr
    assert timeouts(db) == [expected] * 4  # two rounds (both seat orders), two games


# ------------------------------------------------------------------ bot list --json
def test_bot_list_json_gives_each_bots_source(tmp_path: Path) -> None:
    db = f"sqlite:///{tmp_path / 'arena.db'}"
    image = "flip7/python-base:latest"  # the offline base image: registered, never run
    assert cli("bot", "add", "proc", "--cmd", RANDOM, "--db", db).returncode == 0
    r = cli("bot", "add", "boxed", "--image", image, "--db", db)
    assert r.returncode == 0, r.stderr
    assert cli("bot", "add", "far", "--remote", "--db", db).returncode == 0
    r = cli("bot", "list", "--db", db, "--json")
    assert r.returncode == 0, r.stderr
    rows = {row["name"]: row for row in json.loads(r.stdout)}
    source = {name: (row["runtime"], row["command"], row["image"]) for name, row in rows.items()}
    assert source == {
        "proc": ("process", RANDOM, None),
        "boxed": ("docker", None, image),
        "far": ("remote", None, None),
    }
    assert re.fullmatch(r"sha256:[0-9a-f]{64}", rows["boxed"]["digest"])  # what runs
    assert rows["proc"]["digest"] is None and "token" not in json.dumps(rows["far"])


# ------------------------------------------------------------------ counts in --json
COUNTS = {
    *("games", "rounds", "decisions", "rank", "elo_rank", "byes", "seat", "round", "index"),
    *("version", "version_id", "previous_version", "id", "seed", "ranks", "totals"),
    *("winners", "processes", "open_files"),
}
SPLIT = {"wins", "points"}  # a shared win or a tied place splits them


def audit(value: Any, key: str, seen: set[str]) -> None:
    """Every count under ``value`` is an int (a split count: unless it is fractional)."""
    if isinstance(value, dict):
        for k, v in value.items():
            # a fault summary counts faults by kind (TIMEOUT: 2)
            audit(v, "faults" if k.isupper() else k, seen)
        return
    if isinstance(value, list):
        for v in value:
            audit(v, key, seen)
        return
    if isinstance(value, bool) or not isinstance(value, int | float):
        return
    seen.add(key)
    if key in COUNTS or key == "faults":
        assert isinstance(value, int), (key, value)
    if key in SPLIT:
        assert isinstance(value, int) or not value.is_integer(), (key, value)


def test_counts_are_integers_in_every_json_output(tmp_path: Path) -> None:
    db = f"sqlite:///{tmp_path / 'arena.db'}"
    assert cli("bot", "add", "proc", "--cmd", RANDOM, "--db", db).returncode == 0
    outputs = {}
    for name, args in {
        "simulate": ["simulate", "--games", "30", "--seats", "3", "--json"],
        "match": [
            *("match", "--bot", NEVER, "--bot", "builtin:ev", "--bot", "builtin:random"),
            *("--games", "4", "--deadline", "0.05", "--time-bank", "0", "--json"),
        ],
        "tournament": [
            *("tournament", "--format", "swiss", "--seats", "2", "--rounds", "2"),
            *("--games", "2", "--bots", "proc", "--bots", "builtin:ev"),
            *("--bots", "builtin:random", "--db", db, "--no-report", "--json"),
        ],
        "tournament list": ["tournament", "list", "--db", db, "--json"],
        "leaderboard": ["leaderboard", "--db", db, "--json", "--all-versions"],
        "bot list": ["bot", "list", "--db", db, "--json"],
        "bot add": ["bot", "add", "proc", "--cmd", RANDOM, "--db", db, "--json"],
        "sandbox": ["sandbox", "--json"],
    }.items():
        r = cli(*args)
        assert r.returncode == 0, (name, r.stderr)
        outputs[name] = json.loads(r.stdout)
    seen: set[str] = set()
    for data in outputs.values():
        audit(data, "", seen)
    # the audit saw the counts it is about (it cannot pass on outputs without them)
    assert {"games", "rounds", "decisions", "wins", "points", "rank", "byes", "faults"} <= seen
    # two-seat Swiss over three bots: each round one bot has a bye, counted as an int
    assert sorted(row["byes"] for row in outputs["tournament"]["standings"]) == [0, 1, 1]
    # the wins of every seat add up to the games, shared wins split
    assert sum(s["wins"] for s in outputs["simulate"]["seats"]) == pytest.approx(30)


def test_a_split_count_is_an_int_when_whole_and_keeps_its_fraction_otherwise() -> None:
    assert split_count(3.0) == 3 and type(split_count(3.0)) is int
    assert type(split_count(2.0000001)) is int  # within the four decimals kept
    assert split_count(2.5) == 2.5 and split_count(1 / 3) == 0.3333


# ------------------------------------------------------------------ narrow terminals
def column(text: str, header: str) -> list[str]:
    """The cells of the column headed ``header`` in the table printed in ``text``, one
    piece per printed line (a folded cell spans several)."""
    lines = text.splitlines()
    head = next(ln for ln in lines if header in [p.strip() for p in ln.split("┃")])
    at = [p.strip() for p in head.split("┃")].index(header)
    rows = [ln.split("│") for ln in lines if "│" in ln]
    return [parts[at].strip() for parts in rows if len(parts) > at]


def fits(text: str, width: int) -> None:
    """Every line of the tables in ``text`` fits ``width`` and nothing is cut off."""
    assert "…" not in text
    for line in text.splitlines():
        if any(ch in line for ch in "│┃━─"):
            assert len(line) <= width, line


def test_tables_fit_a_60_column_terminal_and_fold_long_names(tmp_path: Path) -> None:
    db = f"sqlite:///{tmp_path / 'arena.db'}"
    assert cli("bot", "add", LONG, "--cmd", RANDOM, "--db", db).returncode == 0
    event = cli(
        *("tournament", "--format", "round-robin", "--seats", "3", "--games", "2"),
        *("--bots", LONG, "--bots", "builtin:ev", "--bots", "builtin:threshold:25"),
        *("--db", db, "--no-report"),
        columns=60,
    )
    assert event.returncode == 0, event.stderr
    board = cli("leaderboard", "--db", db, columns=60)
    listed = cli("bot", "list", "--db", db, columns=60)
    events = cli("tournament", "list", "--db", db, columns=60)
    crash = "python -c 'import sys; sys.exit(3)'"
    played = cli(
        *("match", "--bot", LONG, "--bot", crash, "--games", "1", "--allow-absent"),
        *("--db", db),
        columns=60,
    )
    for r in (event, board, listed, events, played):
        assert r.returncode == 0, r.stderr
        fits(r.stdout, 60)
    label = f"{LONG}@v1"
    # the long name is whole, folded over several lines of its cell
    for r, header in ((event, "bot"), (board, "bot"), (played, "bot"), (listed, "latest")):
        pieces = column(r.stdout, header)
        assert label in "".join(pieces) and label not in pieces, r.stdout
    # a command wraps at its space and folds its path
    assert RANDOM.replace(" ", "") in "".join(column(listed.stdout, "runs"))
    # figures are whole in their column: points 0.0–4.0, Elo ratings of three or four digits
    assert all(re.fullmatch(r"\d\.\d|", p) for p in column(event.stdout, "points")), event.stdout
    assert all(re.fullmatch(r"\d{3,4}|", p) for p in column(board.stdout, "elo")), board.stdout
    # a wide terminal prints one line per row
    wide = cli("leaderboard", "--db", db, columns=200)
    assert label in column(wide.stdout, "bot")


# ------------------------------------------------------------------ --help placeholders
PLACEHOLDERS = {
    *("N", "SEC", "SIZE", "DIR", "NAME", "BOT", "CMD", "IMAGE", "ID", "SEED", "POLICY"),
    *("URL", "MODE", "KEY=VALUE", "HOST:PORT", "NEW", "BASE"),  # arena test NEW BASE: two bots
    "FILE",  # bot pack --out: the archive to write
    "FILE[:NAME] [ARGS]",  # simulate --bot: a bot file, its Bot class, its arguments
    "ADDRESS",  # serve --trusted-proxy: an IP address
    "HOURS",  # serve --session-idle / --session-max: a duration in hours
}
CHOICE = re.compile(r"[a-z0-9-]+(\|[a-z0-9-]+)+")  # base|vengeance
COUNT_OPTIONS = {"--games", "--rounds", "--seats", "--concurrency", "--workers", "--max-strikes"}
SECONDS = {"--deadline", "--time-bank", "--db-retry", "--build-timeout"}


def commands(group: Any, path: tuple[str, ...] = ()) -> list[tuple[tuple[str, ...], Any]]:
    found = [(path, group)]
    for name, sub in sorted(getattr(group, "commands", {}).items()):
        found += commands(sub, (*path, name))
    return found


def test_every_help_uses_one_placeholder_style() -> None:
    every = commands(typer.main.get_command(app))
    assert len(every) > 15  # every command and group of the arena
    runner = CliRunner()
    for path, command in every:
        for param in command.params:
            if getattr(param, "is_flag", False) or param.name == "help":
                continue
            where = (" ".join(path), param.opts)
            metavar = param.metavar
            assert metavar in PLACEHOLDERS or CHOICE.fullmatch(metavar or ""), where
            if set(param.opts) & COUNT_OPTIONS:
                assert metavar == "N", where
            if set(param.opts) & SECONDS:
                assert metavar == "SEC", where
        shown = runner.invoke(app, [*path, "--help"])
        assert shown.exit_code == 0, path
        # none of the framework's own placeholders (TEXT, INTEGER, ...) is left
        assert not re.search(r"\b(TEXT|INTEGER|FLOAT|PATH|BOOLEAN|IMG)\b", shown.output), path


# ------------------------------------------------------------------ simulate
def test_simulate_has_no_db_option(tmp_path: Path) -> None:
    line = one_line_error(cli("simulate", "--db", "x.db", cwd=tmp_path), 2)
    assert "--db" in line
    assert "--db" not in cli("simulate", "--help").stdout
    r = cli("simulate", "--games", "5", cwd=tmp_path)
    assert r.returncode == 0, r.stderr
    assert list(tmp_path.iterdir()) == []  # in-process games store nothing
