"""Errors that the CLI turns into one-line messages instead of tracebacks."""

from __future__ import annotations


class ArenaError(Exception):
    """A failure the user should read about (exit code 1)."""


class UsageProblem(ArenaError):
    """Bad input on the command line (exit code 2)."""

    def __init__(self, message: str, param: str | None = None) -> None:
        super().__init__(f"{param}: {message}" if param else message)
        self.param = param
