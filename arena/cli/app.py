"""The command line's objects: the ``arena`` app (with ``--version``) and its sub-command
groups, the consoles (stdout for results and ``--json``, stderr for progress and errors)
and the tables printed on them, made to fit the terminal."""

from __future__ import annotations

import json
import sys
from collections.abc import Iterable
from typing import Annotated, Any

import typer
from rich.cells import cell_len
from rich.console import Console, ConsoleOptions, RenderResult
from rich.table import Table

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


def version_line() -> str:
    """What ``arena --version`` prints: the arena's version and the database schema
    revision it migrates to."""
    from arena import __version__
    from arena.store.db import head_revision

    return f"arena {__version__} (database schema {head_revision()})"


def _show_version(value: bool) -> None:
    if value:
        out.print(version_line(), markup=False, highlight=False)
        raise typer.Exit(0)


@app.callback()
def _arena(
    version: Annotated[
        bool,
        typer.Option(
            "--version",
            is_eager=True,
            callback=_show_version,
            help="Print the arena's version and its database schema revision, and exit.",
        ),
    ] = False,
) -> None:
    """Flip 7 Arena: referee Flip 7 games between bots, run tournaments, rate the bots."""


TEXT_MIN = 6  # the narrowest a text column gets before figures are split instead


class FittedTable(Table):
    """A table of the command line's output that fits the terminal instead of cutting.

    Text cells wrap at their spaces, and a word longer than its column (a bot's name, a
    command, a path) folds onto the next line instead of ending in an ellipsis. Figures
    stay whole: when the table is wider than the terminal, it drops its outer border and
    each figure column is made just as wide as its widest figure (its header wraps at its
    spaces, "Elo rank" over two lines), and the text columns share the rest — unless that
    leaves them under TEXT_MIN characters each, where every column folds alike."""

    def __init__(self, *args: Any, figures: Iterable[str] = (), **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.figures = set(figures)

    def _figure_widths(self) -> dict[int, int]:
        out = {}
        for i, col in enumerate(self.columns):
            if col.header in self.figures and col.width is None:
                words = str(col.header).split() or [""]
                out[i] = max([cell_len(str(c)) for c in col.cells] + [cell_len(w) for w in words])
        return out

    def __rich_console__(self, console: Console, options: ConsoleOptions) -> RenderResult:
        if self.__rich_measure__(console, options).maximum <= options.max_width:
            yield from super().__rich_console__(console, options)
            return
        widths = self._figure_widths()
        n = len(self.columns)
        # without the outer border: n - 1 rules between the columns, one space each side
        # of a cell but at the table's two edges
        frame = (n - 1) + 2 * n - 2
        text = n - len(widths)
        if text and options.max_width - frame - sum(widths.values()) < TEXT_MIN * text:
            yield from super().__rich_console__(console, options)
            return
        saved = (self.show_edge, self.pad_edge)
        self.show_edge, self.pad_edge = False, False
        for i, w in widths.items():
            self.columns[i].width = w
        try:
            yield from super().__rich_console__(console, options)
        finally:
            self.show_edge, self.pad_edge = saved
            for i in widths:
                self.columns[i].width = None


def make_table(
    *columns: str, title: str | None = None, left: Iterable[str] = (), **options: Any
) -> FittedTable:
    """A :class:`FittedTable` of ``columns``: those named in ``left`` hold text and are
    left-aligned, the others hold figures and are right-aligned; ``options`` go to the
    Table (title_justify, ...)."""
    text = set(left)
    figures = [c for c in columns if c not in text]
    table = FittedTable(title=title, figures=figures, **options)
    for col in columns:
        table.add_column(col, justify="left" if col in text else "right", overflow="fold")
    return table


def emit_json(data: Any) -> None:
    sys.stdout.write(json.dumps(data, indent=2) + "\n")
    sys.stdout.flush()


bot_app = typer.Typer(help="Manage and test bots.", no_args_is_help=True, rich_markup_mode=None)


app.add_typer(bot_app, name="bot")


tournament_app = typer.Typer(  # its help is the docstring of arena.cli.events.tournament
    rich_markup_mode=None,
    invoke_without_command=True,
)


app.add_typer(tournament_app, name="tournament")


db_app = typer.Typer(help="Database maintenance.", no_args_is_help=True, rich_markup_mode=None)


app.add_typer(db_app, name="db")


ladder_app = typer.Typer(
    help="A continuous ladder among the registered bots: run it, see it, re-enable a bot.",
    no_args_is_help=True,
    rich_markup_mode=None,
)
user_app = typer.Typer(
    help="Participants of the competition server (arena serve).",
    no_args_is_help=True,
    rich_markup_mode=None,
)


app.add_typer(ladder_app, name="ladder")
app.add_typer(user_app, name="user")
