"""The command line's objects: the ``arena`` app and its sub-command groups, and
the consoles (stdout for results and ``--json``, stderr for progress and errors)."""

from __future__ import annotations

import json
import sys
from typing import Any

import typer
from rich.console import Console

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


def emit_json(data: Any) -> None:
    sys.stdout.write(json.dumps(data, indent=2) + "\n")
    sys.stdout.flush()


bot_app = typer.Typer(help="Manage and test bots.", no_args_is_help=True, rich_markup_mode=None)


app.add_typer(bot_app, name="bot")


tournament_app = typer.Typer(
    help="Run a tournament (options below), resume one, or list them.",
    rich_markup_mode=None,
    invoke_without_command=True,
)


app.add_typer(tournament_app, name="tournament")


db_app = typer.Typer(help="Database maintenance.", no_args_is_help=True, rich_markup_mode=None)


app.add_typer(db_app, name="db")


user_app = typer.Typer(
    help="Participants of the competition server (arena serve).",
    no_args_is_help=True,
    rich_markup_mode=None,
)


app.add_typer(user_app, name="user")
