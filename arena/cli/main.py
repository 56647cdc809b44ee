"""The entry point: runs a command with the project's error conventions.

Every command has ``--help``; a user mistake is one line on stderr starting ``error:``
(exit 2 for bad input, 1 for failures), never a traceback; an interruption (Ctrl-C,
SIGTERM, SIGHUP) stops every bot, says how to resume and exits 130/143/129.
"""

from __future__ import annotations

import sys

import typer

# the command modules register their commands on the app as they are imported
from arena.cli import abtest, bots, events, ladder, play, results, serve  # noqa: F401
from arena.cli.app import app, err
from arena.errors import ArenaError, UsageProblem


def _kind(exc: BaseException) -> set[str]:
    """Class names in the exception's MRO (click may be vendored inside typer)."""
    return {c.__name__ for c in type(exc).__mro__}


def _interrupted(exc: BaseException) -> bool:
    return isinstance(exc.__cause__ or exc.__context__, KeyboardInterrupt)


def main(argv: list[str] | None = None) -> int:
    """Console entry point with one-line errors and stable exit codes."""
    from arena import interrupt

    command = typer.main.get_command(app)
    try:
        with interrupt.handled():
            rv = command.main(args=argv, prog_name="arena", standalone_mode=False)
    except interrupt.Interrupted as e:
        err.print(e.message, markup=False, soft_wrap=True)
        return interrupt.exit_code()
    except UsageProblem as e:
        err.print(f"error: {e}", markup=False, soft_wrap=True)
        return 2
    except ArenaError as e:
        for problem in e.problems:
            err.print(f"error: {problem}", markup=False, soft_wrap=True)
        if e.hint:
            err.print(e.hint, markup=False, soft_wrap=True)
        return 1
    except KeyboardInterrupt:
        err.print("interrupted", markup=False)
        return interrupt.exit_code()
    except Exception as e:
        kinds = _kind(e)
        ctx = getattr(e, "ctx", None)
        if "NoArgsIsHelpError" in kinds and ctx is not None:
            err.print(ctx.get_help(), markup=False)
            return 2
        if "UsageError" in kinds:
            hint = f" (see '{ctx.command_path} --help')" if ctx is not None else ""
            # a click UsageError, recognised by class name (typer may vendor click)
            message = e.format_message()  # type: ignore[attr-defined]
            err.print(f"error: {message}{hint}", markup=False, soft_wrap=True)
            return 2
        if "Exit" in kinds:
            return int(getattr(e, "exit_code", 0))
        if "Abort" in kinds:
            err.print("interrupted" if _interrupted(e) else "aborted", markup=False)
            return interrupt.exit_code()
        if "ClickException" in kinds:
            message = e.format_message()  # type: ignore[attr-defined]  # as above
            err.print(f"error: {message}", markup=False, soft_wrap=True)
            return int(getattr(e, "exit_code", 1))
        if "SQLAlchemyError" in kinds:  # the database failed (full disk, read-only file, ...)
            from arena.store.db import explain

            err.print(f"error: {explain(e)}", markup=False, soft_wrap=True)
            return 1
        if isinstance(e, OSError) and e.strerror:  # the file system or the network failed
            where = f"{e.filename}: " if e.filename else ""
            err.print(f"error: {where}{e.strerror}", markup=False, soft_wrap=True)
            return 1
        raise
    return rv if isinstance(rv, int) else 0


def entry() -> None:
    sys.exit(main())
