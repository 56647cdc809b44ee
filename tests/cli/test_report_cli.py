"""`arena tournament` and `arena report` as an organiser runs them: where the report goes,
what a mistyped ``--db`` says, and what the public report leaves out.

* Each database has its own default report folder, so the report of one event never
  overwrites another's (two databases of the same file name in two folders: two folders).
* ``--db foo`` (neither a URL nor a path to a file) is a usage error that shows the forms
  a database is given in, and creates nothing.
* The public report shows no bot's stderr, no database path and no file path of the
  organiser's (commands are cut to the file's name); ``--private`` shows them, in a folder
  beside the public one.
"""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path

import pytest
from arenacli import run_arena

ROOT = Path(__file__).resolve().parents[2]
CRASHER = ROOT / "tests" / "bots" / "crash_mid_game.py"
STDERR_LINE = "crash-mid-game: dying on decision"  # what the crasher prints before it dies


def arena(cwd: Path, *args: str) -> tuple[int, str, str]:
    r = run_arena(*args, cwd=cwd, drop=("ARENA_DB",), env={"ARENA_LOG": "WARNING"})
    return r.returncode, r.stdout, r.stderr


def one_error_line(err: str) -> str:
    assert "Traceback" not in err, err
    lines = [ln for ln in err.splitlines() if ln.strip()]
    assert len(lines) == 1 and lines[0].startswith("error: "), err
    return lines[0]


def small_event(cwd: Path, db: str, name: str, *bots: str) -> dict:
    code, out, err = arena(
        cwd,
        "tournament",
        "--format",
        "swiss",
        *(x for b in bots for x in ("--bots", b)),
        "--seats",
        "3",
        "--rounds",
        "1",
        "--games",
        "2",
        "--seed",
        "7",
        "--workers",
        "1",
        "--name",
        name,
        "--db",
        db,
        "--json",
    )
    assert code == 0, err
    return json.loads(out)


def where(cwd: Path, printed: str) -> Path:
    """A path the arena printed, relative to the folder it ran in."""
    p = Path(printed)
    return p if p.is_absolute() else cwd / p


def page_texts(folder: Path) -> str:
    """Every page and file of a rendered report, as one text."""
    return "\n".join(
        p.read_text(encoding="utf-8", errors="replace")
        for p in sorted(folder.rglob("*"))
        if p.is_file() and p.suffix in (".html", ".jsonl", ".js", ".css", ".txt", "")
    )


BUILTINS = ("builtin:ev", "builtin:random", "builtin:threshold:23")


def test_two_databases_get_two_report_folders(tmp_path: Path) -> None:
    """Two events in two databases both called arena.db: two report folders, each with its
    own event; rendering one again goes to its own folder, not the other's."""
    (tmp_path / "spring").mkdir()
    (tmp_path / "autumn").mkdir()
    spring = small_event(tmp_path, "spring/arena.db", "Spring cup", *BUILTINS)
    autumn = small_event(tmp_path, "autumn/arena.db", "Autumn cup", *BUILTINS)
    spring_index = where(tmp_path, spring["report"])
    autumn_index = where(tmp_path, autumn["report"])
    assert spring_index.parent != autumn_index.parent
    assert spring_index.parent.parent == autumn_index.parent.parent == tmp_path / "reports"
    assert spring_index.parent.name.startswith("arena-")
    assert sorted(p.name for p in (tmp_path / "reports").iterdir()) == sorted(
        [spring_index.parent.name, autumn_index.parent.name]
    )
    spring_text = page_texts(spring_index.parent)
    autumn_text = page_texts(autumn_index.parent)
    assert "Spring cup" in spring_text and "Autumn cup" not in spring_text
    assert "Autumn cup" in autumn_text and "Spring cup" not in autumn_text

    # the report command finds the same folder for the same database, however it is named
    code, out, err = arena(
        tmp_path, "report", "--db", f"sqlite:///{tmp_path / 'spring' / 'arena.db'}", "--json"
    )
    assert code == 0, err
    assert where(tmp_path, json.loads(out)["out"]) == spring_index.parent
    assert "Autumn cup" in page_texts(autumn_index.parent), "the other report is untouched"
    assert len(list((tmp_path / "reports").iterdir())) == 2


@pytest.mark.parametrize(
    "argv",
    [
        ("report",),
        ("leaderboard",),
        ("tournament", "--format", "swiss", *(x for b in BUILTINS for x in ("--bots", b))),
    ],
    ids=["report", "leaderboard", "tournament"],
)
def test_db_that_is_neither_a_url_nor_a_file_is_a_usage_error(
    tmp_path: Path, argv: tuple[str, ...]
) -> None:
    code, _, err = arena(tmp_path, *argv, "--db", "foo")
    line = one_error_line(err)
    assert code == 2
    assert "--db" in line and "'foo'" in line
    assert "sqlite:///" in line and "postgresql+psycopg://" in line, "the expected forms"
    assert os.listdir(tmp_path) == [], "no database, no report folder"


def test_db_given_as_a_file_path_is_still_a_sqlite_file(tmp_path: Path) -> None:
    """Paths without a scheme keep working: a name with a SQLite suffix, or a folder in it."""
    small_event(tmp_path, "cup.db", "Cup", *BUILTINS)
    (tmp_path / "data").mkdir()
    small_event(tmp_path, "data/league", "League", *BUILTINS)
    assert (tmp_path / "cup.db").is_file() and (tmp_path / "data" / "league").is_file()
    names = sorted(p.name.rsplit("-", 1)[0] for p in (tmp_path / "reports").iterdir())
    assert names == ["cup", "league"]


def test_public_report_hides_stderr_and_paths_private_shows_them(tmp_path: Path) -> None:
    """A process bot that writes to stderr and crashes, entered by its absolute path: the
    public report has neither its stderr, nor the path of its script or interpreter, nor
    the database's path; the private copy (beside it, not inside it) has all three."""
    db = tmp_path / "events" / "arena.db"
    db.parent.mkdir()
    command = f"{sys.executable} {CRASHER}"
    small_event(
        tmp_path, str(db), "Faulty cup", f"crasher={command}", "builtin:ev", "builtin:random"
    )
    code, out, err = arena(tmp_path, "report", "--db", str(db), "--json")
    assert code == 0, err
    public = where(tmp_path, json.loads(out)["out"])
    code, out, err = arena(tmp_path, "report", "--db", str(db), "--private", "--json")
    assert code == 0, err
    data = json.loads(out)
    private = where(tmp_path, data["out"])
    assert data["private"] is True
    assert private.parent == public.parent and private.name == public.name + "-private"

    secrets = {
        "the bot's stderr": STDERR_LINE,
        "the script's folder": str(CRASHER.parent),
        "the interpreter's path": str(Path(sys.executable).parent),
        "the database's path": str(db),
    }
    shown = page_texts(public)
    assert "crasher" in shown and "CRASH" in shown, "the fault itself is public"
    assert "…/crash_mid_game.py" in shown, "the command, cut to the file's name"
    for what, text in secrets.items():
        assert text not in shown, f"the public report shows {what}"
    assert "Private copy" not in shown

    kept = page_texts(private)
    for what, text in secrets.items():
        assert text in kept, f"the private copy lacks {what}"
    assert "Private copy for the organiser" in kept
    assert command in kept, "the whole command"


def report_json(cwd: Path, db: str, *args: str) -> dict:
    code, out, err = arena(cwd, "report", "--db", db, "--json", *args)
    assert code == 0, err
    return json.loads(out)


def test_report_again_renders_only_what_changed_and_full_renders_all(tmp_path: Path) -> None:
    db = str(tmp_path / "a.db")
    small_event(tmp_path, db, "again", *BUILTINS)  # 3 bots, 1 round of 2 games
    out = str(tmp_path / "fresh")  # the event rendered its own folder already
    first = report_json(tmp_path, db, "--out", out, "--jobs", "2")
    second = report_json(tmp_path, db, "--out", out)
    full = report_json(tmp_path, db, "--out", out, "--full")
    assert first["kept"] == 0 and second["kept"] == 2 and full["kept"] == 0
    assert second["pages"] + second["kept"] == first["pages"] == full["pages"]
    assert first["replays"] == "inline"  # a small event: replays in their pages


def test_report_replays_compact_packs_the_replays_in_data_files(tmp_path: Path) -> None:
    db = str(tmp_path / "a.db")
    small_event(tmp_path, db, "compact", *BUILTINS)
    data = report_json(tmp_path, db, "--replays", "compact")
    out = where(tmp_path, data["out"])
    assert data["replays"] == "compact"
    assert list((out / "game" / "data").glob("*.js")) and not list(out.glob("game/*.jsonl"))


@pytest.mark.parametrize(
    ("args", "says"),
    [
        (("--replays", "zip"), "--replays"),
        (("--jobs", "0"), "--jobs"),
        (("--jobs", "65"), "--jobs"),
    ],
)
def test_report_options_out_of_range_are_one_error_line(
    tmp_path: Path, args: tuple[str, ...], says: str
) -> None:
    code, _, err = arena(tmp_path, "report", "--db", str(tmp_path / "none.db"), *args)
    assert code == 2
    assert says in one_error_line(err)
