"""``arena report [--out DIR] [--private]``: the command's body, and where reports go.

    @app.command("report")
    def report(out: Path | None = None, private: bool = False, db: DbOpt = None, ...):
        report_command(out, db, as_json, private=private)

Prints ``{"out", "pages", "kept", "replays", "private"}`` with ``--json`` (stdout), a
one-line summary otherwise; a progress bar goes to stderr when it is a terminal.

The default folder is one per database (:func:`default_out`), so that the report of one
database never overwrites another's: ``reports/NAME-HASH/``, NAME the SQLite file's name
(or the server's database name), HASH eight hex digits of the file's absolute path (or of
the URL without its password). The private form (``--private``) goes to a sibling folder,
``reports/NAME-HASH-private/``, never inside the public one, so publishing the public
folder never publishes the private copy.
"""

from __future__ import annotations

import hashlib
import json
import re
import sys
from pathlib import Path

from sqlalchemy import Engine
from sqlalchemy.engine import URL, make_url

from arena.errors import ArenaError

REPLAYS: dict[str, bool | None] = {"auto": None, "inline": False, "compact": True}
REPORTS = Path("reports")  # every default report folder is under this one, here
PRIVATE_SUFFIX = "-private"


def folder_name(db: str | Engine | URL | None) -> str:
    """The name of a database's report folder: ``NAME-HASH`` (see the module's doc)."""
    from arena.store.db import resolve_url, sqlite_file

    if isinstance(db, Engine):
        parsed = db.url
    elif isinstance(db, URL):
        parsed = db
    else:
        parsed = make_url(resolve_url(db))
    path = sqlite_file(parsed)
    if path is not None:
        name = path.name
        for suffix in (".sqlite3", ".sqlite", ".db3", ".db"):
            if name.lower().endswith(suffix) and len(name) > len(suffix):
                name = name[: -len(suffix)]
                break
        key = str(path.expanduser().resolve())
    else:
        name = parsed.database or parsed.get_backend_name()
        if parsed.get_backend_name() == "sqlite":
            name = "memory"
        key = parsed.render_as_string(hide_password=True)  # the same whatever the password
    readable = re.sub(r"[^A-Za-z0-9_.-]+", "-", name).strip("-.")[:40] or "db"
    digest = hashlib.sha256(key.encode("utf-8")).hexdigest()[:8]
    return f"{readable}-{digest}"


def default_out(db: str | Engine | URL | None, private: bool = False) -> Path:
    """The report folder of a database when ``--out`` is not given."""
    return REPORTS / (folder_name(db) + (PRIVATE_SUFFIX if private else ""))


def report_command(
    out: Path | None = None,
    db: str | Engine | None = None,
    as_json: bool = False,
    *,
    private: bool = False,
    compact: bool | None = None,
    incremental: bool = True,
    jobs: int = 1,
) -> None:
    from rich.console import Console
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn

    from arena.report import render_site

    out = default_out(db, private) if out is None else Path(out)
    if out.exists() and not out.is_dir():
        raise ArenaError(f"--out {out}: exists and is not a folder")
    err = Console(stderr=True)
    bar = Progress(
        TextColumn("report"),
        BarColumn(),
        MofNCompleteColumn(),
        console=err,
        transient=True,
        disable=not err.is_terminal,
    )
    task = bar.add_task("pages", total=None)
    try:
        with bar:
            result = render_site(
                db,
                out,
                progress=lambda done, total: bar.update(task, completed=done, total=total),
                private=private,
                compact=compact,
                incremental=incremental,
                jobs=jobs,
            )
    except OSError as e:
        raise ArenaError(f"cannot write the report to {out}: {e.strerror or e}") from None
    if as_json:
        data = {
            "out": str(result.out),
            "pages": result.pages,
            "kept": result.kept,
            "replays": "compact" if result.compact else "inline",
            "private": private,
        }
        sys.stdout.write(json.dumps(data, indent=2) + "\n")
        sys.stdout.flush()
        return
    note = " (the private copy: bots' logs and the organiser's paths; do not publish it)"
    kept = f", kept {result.kept} unchanged game pages" if result.kept else ""
    sys.stdout.write(
        f"wrote {result.pages} pages{kept} to {result.out} in {result.seconds:.1f} s; "
        f"open {result.index}{note if private else ''}\n"
    )
