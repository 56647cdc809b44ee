"""One validation for every name the arena stores, on every database.

* bot names (``bot add NAME``, ``bot submit --name``) and the NAME of ``NAME=CMD`` in
  matches and tournaments: 1–64 letters, digits, ``.``, ``_`` or ``-``, starting with a
  letter or digit (``builtin…`` is reserved);
* entry names in an event: the same, plus the names the arena makes up itself: a
  built-in policy's spec (``threshold:25``) and ``#2``, ``#3`` … for a repeated bot;
* an event's ``--name``: up to 200 printable characters on one line.

Every check matches the whole string (``fullmatch``): ``$`` would let a trailing newline
through. Lengths are those of the database columns, so a name that passes fits on SQLite
and on PostgreSQL alike.
"""

from __future__ import annotations

import re

from arena.errors import UsageProblem

NAME_MAX = 64  # bot.name, entry.name, rating_point.bot
EVENT_NAME_MAX = 200  # tournament.name

BOT_NAME_RE = re.compile(r"[A-Za-z0-9][A-Za-z0-9._-]{0,63}")
ENTRY_NAME_RE = re.compile(r"[A-Za-z0-9][A-Za-z0-9._:#-]{0,63}")
_SPELLING = "use 1-64 letters, digits, '.', '_' or '-', starting with a letter or digit"


def is_bot_name(value: str) -> bool:
    """Whether ``value`` is spelled like a registered bot's name."""
    return BOT_NAME_RE.fullmatch(value) is not None


def check_bot_name(name: str, what: str = "bot name", param: str | None = None) -> str:
    if not isinstance(name, str) or not is_bot_name(name):
        raise UsageProblem(f"bad {what} {name!r}: {_SPELLING}", param=param)
    if name.startswith("builtin"):
        raise UsageProblem(
            f"bad {what} {name!r}: names starting with 'builtin' are reserved for built-in "
            "policies",
            param=param,
        )
    return name


def check_entry_name(name: str, param: str | None = None) -> str:
    if not isinstance(name, str) or ENTRY_NAME_RE.fullmatch(name) is None:
        raise UsageProblem(f"bad entry name {name!r}: {_SPELLING}", param=param)
    return name


def check_event_name(name: str, param: str | None = "--name") -> str:
    if len(name) > EVENT_NAME_MAX:
        raise UsageProblem(f"at most {EVENT_NAME_MAX} characters, got {len(name)}", param=param)
    if not name.isprintable():
        raise UsageProblem(
            f"bad event name {name!r}: printable characters on one line only", param=param
        )
    return name


def made_up_name(raw: str, fallback: str = "bot") -> str:
    """A valid entry name from something the arena derives a name from (a script's file
    name, an image name): other characters become '-', the length is capped so that a
    ``#N`` suffix still fits."""
    name = re.sub(r"[^A-Za-z0-9._:-]+", "-", raw).lstrip("._:-")[: NAME_MAX - 4].rstrip("-")
    return name or fallback


def numbered(name: str, n: int) -> str:
    """The ``n``-th entry of the same bot: ``name#n`` (within the column's length)."""
    suffix = f"#{n}"
    return name[: NAME_MAX - len(suffix)] + suffix
