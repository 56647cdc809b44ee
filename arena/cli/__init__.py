"""The ``arena`` command line (typer).

* :mod:`~arena.cli.app` — the app, its sub-command groups and the consoles;
* :mod:`~arena.cli.options` — options and checks several commands share;
* :mod:`~arena.cli.bots` — ``bot add|submit|list|remove|check`` and parsing a bot;
* :mod:`~arena.cli.play` — ``simulate``, ``match``, ``sandbox``;
* :mod:`~arena.cli.events` — ``tournament`` (run, resume, list) and ``demo``;
* :mod:`~arena.cli.results` — ``leaderboard``, ``report``, ``db upgrade``;
* :mod:`~arena.cli.serve` — ``serve`` (the competition server) and ``user add``;
* :mod:`~arena.cli.main` — ``main()``/``entry()``: one-line errors and exit codes.

Conventions for every command: ``--help``; readable one-line errors (exit 2 for usage
errors, 1 for failures, never a traceback for a user mistake); progress on stderr;
``--json`` prints machine-readable output on stdout.
"""

from arena.cli.app import app
from arena.cli.main import entry, main

__all__ = ["app", "entry", "main"]
