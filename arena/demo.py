"""The demo: the example bots play a Swiss tournament over gRPC on the embedded SQLite
database, then the HTML report is rendered.

It registers the example bots (reusing them on later runs), runs the event through the
same code as ``arena tournament``, and prints the standings and the report's index page.
"""

from __future__ import annotations

from pathlib import Path

from arena.errors import ArenaError

EXAMPLES = Path(__file__).resolve().parent.parent / "bots" / "examples" / "python"

# (registry name, example folder, arguments): eight entrants for 4-seat tables
FIELD = [
    ("ev", "ev", ""),
    ("threshold-27", "threshold", "27"),
    ("threshold-24", "threshold", "24"),
    ("threshold-21", "threshold", "21"),
    ("threshold-18", "threshold", "18"),
    ("threshold-15", "threshold", "15"),
    ("threshold-12", "threshold", "12"),
    ("random", "random", ""),
]


def example_command(folder: str, args: str) -> str:
    script = EXAMPLES / folder / "bot.py"
    if not script.is_file():
        raise ArenaError(
            f"the example bots are not here ({EXAMPLES}); run the demo from a checkout of the "
            "project (bash scripts/demo)"
        )
    return f"python {script}{' ' + args if args else ''}"


def register_examples(db: str | None) -> list[str]:
    """Register (or reuse) the example bots; returns their names."""
    from arena.registry import add_bot, latest

    names = []
    for name, folder, args in FIELD:
        command = example_command(folder, args)
        found = latest(db, name)
        if found is None or found[1].command != command:
            add_bot(db, name, command=command)
        names.append(name)
    return names
