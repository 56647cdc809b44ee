"""Errors that the CLI turns into one-line messages instead of tracebacks."""

from __future__ import annotations


class ArenaError(Exception):
    """A failure the user should read about (exit code 1): each of its ``problems`` is
    one ``error:`` line, then its ``hint`` (what to do next), if any, one more line."""

    hint: str = ""

    @property
    def problems(self) -> list[str]:
        return [str(self)]


class UsageProblem(ArenaError):
    """Bad input on the command line (exit code 2)."""

    def __init__(self, message: str, param: str | None = None) -> None:
        super().__init__(f"{param}: {message}" if param else message)
        self.param = param
