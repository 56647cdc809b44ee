"""One validation for every name the arena stores, on every database.

* bot names (``bot add NAME``, ``bot submit --name``) and the NAME of ``NAME=CMD`` in
  matches and tournaments — names people type and scripts pass around: 1–64 letters,
  digits, ``.``, ``_`` or ``-``, starting with a letter or digit (``builtin…`` is reserved);
* entry names in an event (a registered bot's version such as ``ev@v2``, a NAME, or one the
  arena makes up itself: a built-in policy's spec such as ``threshold:25``, ``ev#2`` for a
  repeated bot, a script's file name made to fit): one printable line of 1–100 characters
  with no surrounding spaces — the same limits for callers of the Python API;
* an event's ``--name``: one printable line of up to 200 characters.

**Sameness.** Bot names and participant names are unique ignoring case (and Unicode
compatibility forms): :func:`name_key` is what is compared, and a unique database column
holds it, so two registrations racing each other cannot both win.

**Versions.** Every registered bot's version is rated on its own, so results name the
version that played: ``NAME@vN`` (:func:`version_label`), in standings, leaderboards and
the report alike. On the command line ``NAME@vN`` and ``NAME@latest`` select a version
(:func:`version_ref`); a plain ``NAME`` is its latest. Bot names cannot contain ``@``, so
no other entry is spelled like a version.

Every check looks at the whole string (``fullmatch``, ``isprintable``): ``^…$`` let a
trailing newline through. The lengths are those of the database columns, so a name that
passes fits on SQLite and on PostgreSQL alike (where a longer one used to be a traceback).
"""

from __future__ import annotations

import re
import unicodedata

from arena.errors import UsageProblem

NAME_MAX = 64  # bot.name
ENTRY_NAME_MAX = 100  # entry.name: a bot name with its version (and a "#N" for repeats)
EVENT_NAME_MAX = 200  # tournament.name

BOT_NAME_RE = re.compile(r"[A-Za-z0-9][A-Za-z0-9._-]{0,63}")
_SPELLING = "use 1-64 letters, digits, '.', '_' or '-', starting with a letter or digit"


_VERSION_REF_RE = re.compile(rf"(?P<name>{BOT_NAME_RE.pattern})@(?:v(?P<n>[0-9]+)|latest)")
_VERSION_LABEL_RE = re.compile(rf"(?P<name>{BOT_NAME_RE.pattern})@v(?P<n>[1-9][0-9]*)(?:#[0-9]+)?")


def version_label(name: str, number: int) -> str:
    """How results name version ``number`` of the registered bot ``name``: ``name@vN``."""
    return f"{name}@v{number}"


def version_ref(value: str) -> tuple[str, int | None] | None:
    """``NAME@vN`` → (NAME, N); ``NAME@latest`` → (NAME, None); None for anything else."""
    m = _VERSION_REF_RE.fullmatch(value)
    if m is None:
        return None
    return m["name"], None if m["n"] is None else int(m["n"])


def labelled_version(entry_name: str) -> tuple[str, int] | None:
    """(bot name, version) of an entry named by :func:`version_label` (``ev@v2``, or
    ``ev@v2#2`` for a repeat in one event); None for any other entry name."""
    m = _VERSION_LABEL_RE.fullmatch(entry_name)
    return None if m is None else (m["name"], int(m["n"]))


def name_key(name: str) -> str:
    """What makes two names the same name: NFKC-normalised and case-folded, so that
    ``Victim``, ``VICTIM`` and ``victim`` (or a fullwidth ``ｖｉｃｔｉｍ``, should names ever
    allow more than ASCII) are one. Bot and participant names are unique by this key (the
    database holds it in a unique column); the one place it is computed."""
    return unicodedata.normalize("NFKC", unicodedata.normalize("NFKC", name).casefold())


def is_bot_name(value: str) -> bool:
    """Whether ``value`` is spelled like a registered bot's name."""
    return BOT_NAME_RE.fullmatch(value) is not None


def check_bot_name(name: str, what: str = "bot name", param: str | None = None) -> str:
    _one_line(name, NAME_MAX, what, param)
    if not is_bot_name(name):
        raise UsageProblem(f"bad {what} {name!r}: {_SPELLING}", param=param)
    if name_key(name).startswith("builtin"):  # Builtin, BUILTIN-ev: as reserved
        raise UsageProblem(
            f"bad {what} {name!r}: names starting with 'builtin' (in any case) are reserved "
            "for built-in policies",
            param=param,
        )
    return name


def _one_line(value: str, longest: int, what: str, param: str | None) -> str:
    """The rule under every name: a string, one printable line, within its column."""
    if not isinstance(value, str) or not value.isprintable():
        raise UsageProblem(f"bad {what} {value!r}: printable characters on one line only", param)
    if len(value) > longest:
        raise UsageProblem(f"bad {what}: at most {longest} characters, got {len(value)}", param)
    return value


def check_entry_name(name: str, param: str | None = None) -> str:
    _one_line(name, ENTRY_NAME_MAX, "entry name", param)
    if not name or name != name.strip():
        raise UsageProblem(f"bad entry name {name!r}: empty or surrounded by spaces", param)
    return name


def check_event_name(name: str, param: str | None = "--name") -> str:
    return _one_line(name, EVENT_NAME_MAX, "event name", param)


def made_up_name(raw: str, fallback: str = "bot") -> str:
    """A valid entry name from something the arena derives a name from (a script's file
    name, an image name): other characters become '-', the length is capped so that a
    ``#N`` suffix still fits."""
    name = re.sub(r"[^A-Za-z0-9._:-]+", "-", raw).lstrip("._:-")[: NAME_MAX - 4].rstrip("-")
    return name or fallback


def numbered(name: str, n: int) -> str:
    """The ``n``-th entry of the same bot: ``name#n`` (within the column's length)."""
    suffix = f"#{n}"
    return name[: ENTRY_NAME_MAX - len(suffix)] + suffix
