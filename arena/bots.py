"""What a bot is: one tagged type, carried unchanged from the command line to the match.

A bot is run from one of four **sources**:

* :class:`Command` — a local command the arena starts as a (sandboxed) process;
* :class:`Policy` — a built-in policy played in-process (no network), e.g. ``builtin:ev``;
* :class:`Image` — a Docker image (pinned by id), run in a sandboxed container;
* :class:`Remote` — a bot running elsewhere that connects with its token.

The CLI parses a bot once (:func:`parse_source`), the registry maps its stored versions to a
source (``arena.registry.source_of``), tournaments store it with their entries, and the
match runner starts it through the runtime registered for its type (``arena.runtime``).
Sources are plain frozen data, so a match spec can travel to a worker process or machine.
"""

from __future__ import annotations

import shlex
from collections.abc import Iterable, Mapping
from dataclasses import MISSING, dataclass, field, fields
from typing import Any, TypeAlias


@dataclass(frozen=True)
class Command:
    """A local command; ``env`` adds environment entries, ``share`` lists host paths the
    bot may write (everything else it sees read-only where it is sandboxed), ``cwd`` its
    working directory (default: the arena's)."""

    command: str
    cwd: str | None = None
    env: Mapping[str, str] = field(default_factory=dict)
    share: tuple[str, ...] = ()

    kind = "process"

    def describe(self) -> str:
        return self.command


@dataclass(frozen=True)
class Policy:
    """A built-in policy (``engine.policies``), e.g. ``ev`` or ``threshold:23``."""

    spec: str

    kind = "policy"

    def describe(self) -> str:
        return f"builtin:{self.spec}"


@dataclass(frozen=True)
class Image:
    """A Docker image, by id or name (registered bots are pinned by id)."""

    image: str

    kind = "docker"

    def describe(self) -> str:
        return f"docker:{self.image}"


@dataclass(frozen=True)
class Remote:
    """A bot that connects by itself. ``token_hash`` (hex SHA-256) is a registered bot's
    stored token; a bot entered with a known ``token`` (tests, one-off matches) gives that."""

    token_hash: str | None = None

    kind = "remote"

    def describe(self) -> str:
        return "remote"


BotSource: TypeAlias = Command | Policy | Image | Remote
SOURCE_TYPES: dict[str, type[BotSource]] = {t.kind: t for t in (Command, Policy, Image, Remote)}


def source_dict(source: BotSource) -> dict[str, Any]:
    """A source as plain JSON-able data (storage, transport to workers): its kind and its
    fields that differ from their defaults."""
    d: dict[str, Any] = {"kind": source.kind}
    for f in fields(source):
        value = getattr(source, f.name)
        default = f.default_factory() if f.default_factory is not MISSING else f.default
        if value != default:
            d[f.name] = (
                list(value)
                if isinstance(value, tuple)
                else (dict(value) if isinstance(value, Mapping) else value)
            )
    return d


def source_from_dict(data: Mapping[str, Any]) -> BotSource:
    """The inverse of :func:`source_dict`."""
    kind = data.get("kind")
    cls = SOURCE_TYPES.get(str(kind))
    if cls is None:
        raise ValueError(f"unknown bot source kind {kind!r}")
    known = {f.name: f for f in fields(cls)}
    values = {k: v for k, v in data.items() if k in known}
    for name, value in values.items():
        if isinstance(value, list):  # sequences travel as lists, are kept as tuples
            values[name] = tuple(value)
    return cls(**values)


class SourceError(ValueError):
    """A bot given on the command line that is none of the accepted forms."""


def parse_source(value: str) -> tuple[str | None, BotSource]:
    """``docker:IMAGE``, ``builtin:POLICY``, ``NAME=COMMAND`` or ``COMMAND`` → (the name the
    value gives, if any; the source). Registered names are looked up by the caller first."""
    value = value.strip()
    if value.startswith("docker:"):
        image = value.split(":", 1)[1]
        if not image:
            raise SourceError("docker: needs an image name, e.g. docker:flip7-bot/ev:v1")
        return None, Image(image)
    if value.startswith("builtin:"):
        from engine.policies import PolicyError, parse_policy

        try:
            return None, Policy(parse_policy(value.split(":", 1)[1]))
        except PolicyError as e:
            raise SourceError(str(e)) from None
    name, sep, command = value.partition("=")
    if sep and name and " " not in name:
        return name, Command(command)
    return None, Command(value)


def suggested_name(source: BotSource) -> str:
    """The entry name a source suggests when none is given: the script's name (or its
    folder for bot.py/main.py/index.js), the image's name, or the policy."""
    from pathlib import Path

    if isinstance(source, Policy):
        return source.spec
    if isinstance(source, Image):
        base = source.image.rsplit("/", 1)[-1].split("@")[0]
        return base.split(":")[0] or "bot"
    if isinstance(source, Remote):
        return "remote"
    argv = shlex.split(source.command)
    for arg in reversed(argv):
        p = Path(arg)
        if p.suffix in (".py", ".js", ".jar", ".sh") or p.exists():
            if p.stem in ("bot", "main", "index") and p.parent.name:
                return p.parent.name
            return p.stem
    return Path(argv[0]).name if argv else "bot"


# a command's first argument is its script when it is spelled like a file: one of these
# suffixes, or a path from here, above, the root or home
SCRIPT_SUFFIXES = (".py", ".js", ".mjs", ".cjs", ".ts", ".rb", ".pl", ".sh", ".jar", ".php", ".lua")
_PATH_PREFIXES = ("./", "../", "/", "~/")
# options after which the program is code, a module or a class path, not a file argument
_CODE_OPTIONS = frozenset(
    {"-c", "-m", "-e", "-p", "-r", "--eval", "--print", "--require", "-cp", "-classpath"}
)


def script_argument(command: str) -> str | None:
    """The file a command runs as its script, where that is clear: the first argument
    after the executable that is not an option (``-jar`` counts as one), if it ends in a
    script suffix (``.py``, ``.js``, ``.sh``, ``.jar``, ...) or starts with ``./``,
    ``../``, ``/`` or ``~/`` — ``python bots/ev/bot.py`` → ``bots/ev/bot.py``. None when
    the command gives code or a module instead (``-c``, ``-m``, ``-e``, ``--require``,
    ``-cp``), when the first argument is not spelled like a file, or when there is none."""
    try:
        argv = shlex.split(command)
    except ValueError:
        return None
    for arg in argv[1:]:
        if arg in _CODE_OPTIONS:
            return None
        if arg.startswith("-"):
            continue
        if arg.endswith(SCRIPT_SUFFIXES) or arg.startswith(_PATH_PREFIXES):
            return arg
        return None
    return None


def unique_names(names: Iterable[str], numbered: Any = None) -> list[str]:
    """The names with repeats told apart: ``ev``, ``ev#2``, ``ev#3`` … (``numbered(name,
    n)`` makes the n-th, by default ``f"{name}#{n}"``)."""
    seen: dict[str, int] = {}
    out = []
    for name in names:
        seen[name] = seen.get(name, 0) + 1
        n = seen[name]
        out.append(name if n == 1 else (numbered(name, n) if numbered else f"{name}#{n}"))
    return out


def is_builtin(source: BotSource) -> bool:
    return isinstance(source, Policy)
