"""``arena report [--out DIR]``: the command's body, for the typer app to wire in.

    @app.command("report")
    def report(out: Path = Path("reports"), db: DbOpt = None, as_json: JsonOpt = False):
        report_command(out, db, as_json)

Prints ``{"out", "pages"}`` with ``--json`` (stdout), a one-line summary otherwise; a
progress bar goes to stderr when it is a terminal.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

from sqlalchemy import Engine

from arena.errors import ArenaError

DEFAULT_OUT = Path("reports")


def report_command(
    out: Path = DEFAULT_OUT, db: str | Engine | None = None, as_json: bool = False
) -> None:
    from rich.console import Console
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn

    from arena.report import render_site

    out = Path(out)
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
                db, out, progress=lambda done, total: bar.update(task, completed=done, total=total)
            )
    except OSError as e:
        raise ArenaError(f"cannot write the report to {out}: {e.strerror or e}") from None
    if as_json:
        sys.stdout.write(
            json.dumps({"out": str(result.out), "pages": result.pages}, indent=2) + "\n"
        )
        sys.stdout.flush()
        return
    sys.stdout.write(
        f"wrote {result.pages} pages to {result.out} in {result.seconds:.1f} s; "
        f"open {result.index}\n"
    )
