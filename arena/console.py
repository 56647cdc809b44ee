"""Progress display on stderr (never on stdout, which belongs to --json output)."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager

from rich.console import Console
from rich.progress import (
    BarColumn,
    MofNCompleteColumn,
    Progress,
    TextColumn,
    TimeElapsedColumn,
    TimeRemainingColumn,
)


def make_progress(console: Console) -> Progress:
    """The arena's progress bar: label, bar, done/total, elapsed, eta. Shown only when the
    console is a terminal (stderr), transient."""
    return Progress(
        TextColumn("{task.description}"),
        BarColumn(),
        MofNCompleteColumn(),
        TimeElapsedColumn(),
        TextColumn("eta"),
        TimeRemainingColumn(),
        console=console,
        transient=True,
        disable=not console.is_terminal,
    )


@contextmanager
def progress_bar(
    console: Console, label: str, total: int, *, enabled: bool = True
) -> Iterator[Callable[[int], None]]:
    """Yield ``advance(done)`` that sets how much of ``total`` is done.

    Shown only when stderr is a terminal and the work is long enough to deserve it.
    """
    if not (enabled and console.is_terminal):
        yield lambda done: None
        return
    with make_progress(console) as progress:
        task = progress.add_task(label, total=total)
        yield lambda done: progress.update(task, completed=done)
