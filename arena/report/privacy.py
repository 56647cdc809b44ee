"""What the public report leaves out, and how the rest is shortened.

The report is public by default: it is made to be put on a web server. It then shows no
bot's log (the stderr tails stored with faults), no database URL, and no absolute file
path of the organiser's: a command's or a fault detail's paths are shortened to the file's
own name (``python /home/org/bots/ev/bot.py 18`` → ``python …/bot.py 18``; a relative
path too: ``python bots/ev/bot.py`` → ``python …/bot.py``). The
organiser's own copy (``arena report --private``) shows everything, and says so on every
page.

What a page leaves out it says it leaves out: a reader who may not see some bots' faults
(the live site's public, or another participant) reads how many there are, of which kinds
and how many forfeited (:class:`Hidden`), never their details; "No faults" is said only
where there are none at all.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass, field

# An absolute POSIX path of two components or more (``/usr/bin/python3``, ``~/x/y``), where
# a word starts: not the tail of a URL (``http://h/p``) or of a relative path (``a/b``),
# not a lone ``/2`` (a card of Vengeance).
_ABSOLUTE = re.compile(r"""(?<![\w.:/~-])~?/[^\s/'"`<>|;,()]+(?:/[^\s/'"`<>|;,()]*)+""")
_QUOTED = re.compile(r"""(['"])(~?/[^'"\n]*/[^'"\n]*)\1""")  # may hold spaces: '/a b/c'


# A relative path of two components or more (``bots/x/bot.py``, ``./bot``), where a word
# starts (not inside a URL or an ``image:tag``); it is a path only if it has a letter, so
# that ``3/4`` stays as it is.
_RELATIVE = re.compile(r"""(?<![\w.:/~@-])(?:[^\s/'"`<>|;,()=:]+/)+[^\s/'"`<>|;,()]+""")


def shorten_paths(text: str) -> str:
    """``text`` with every path, absolute or relative, cut down to ``…/`` and its last
    component."""

    def last(path: str) -> str:
        parts = [p for p in path.split("/") if p]
        return "…/" + parts[-1] if parts else "…/"

    def relative(m: re.Match[str]) -> str:
        path = m.group(0)
        return last(path) if any(c.isalpha() for c in path) else path

    text = _QUOTED.sub(lambda m: m.group(1) + last(m.group(2)) + m.group(1), text)
    text = _ABSOLUTE.sub(lambda m: last(m.group(0)), text)
    return _RELATIVE.sub(relative, text)


class Shown:
    """What one render may show: the filters the templates apply to the organiser's text."""

    def __init__(self, private: bool) -> None:
        self.private = private

    def text(self, value: object) -> str:
        """A command or a fault's detail: as stored when private, paths shortened if not."""
        s = "" if value is None else str(value)
        return s if self.private else shorten_paths(s)

    def log(self, fault: dict[str, object]) -> str | None:
        """A fault's log tail: only in the private copy."""
        if not self.private:
            return None
        tail = fault.get("log_tail") or fault.get("log")
        return str(tail) if tail else None


# a fault kind (arena.faults.FaultKind) in words: (one, many)
_KIND_WORDS = {
    "TIMEOUT": ("timeout", "timeouts"),
    "ILLEGAL": ("illegal answer", "illegal answers"),
    "CRASH": ("crash", "crashes"),
    "DISCONNECT": ("disconnection", "disconnections"),
    "INIT_FAIL": ("failed start", "failed starts"),
    "BOT_ERROR": ("bot error", "bot errors"),
    "INFRA": ("arena failure", "arena failures"),
}


def _count(n: int, one: str, many: str) -> str:
    return f"{n} {one if n == 1 else many}"


@dataclass
class Hidden:
    """The faults a page leaves out for its reader, counted: how many, of which kinds, how
    many forfeited a game. Nothing of what they say (their details, the bots' logs)."""

    faults: int = 0
    forfeits: int = 0
    kinds: Counter[str] = field(default_factory=Counter)

    @classmethod
    def of(cls, faults: Iterable[dict[str, object]]) -> Hidden:
        h = cls()
        for f in faults:
            h.faults += 1
            h.forfeits += 1 if f.get("forfeit") else 0
            h.kinds[str(f.get("kind") or "?")] += 1
        return h

    def __bool__(self) -> bool:
        return self.faults > 0

    def summary(self) -> str:
        """``3 faults (2 failed starts, 1 timeout; 2 forfeits)``."""
        order = list(_KIND_WORDS)
        kinds = sorted(
            self.kinds.items(),
            key=lambda kv: (order.index(kv[0]) if kv[0] in order else len(order), kv[0]),
        )
        words = [
            _count(n, *_KIND_WORDS.get(k, (f"{k.lower()} fault", f"{k.lower()} faults")))
            for k, n in kinds
        ]
        forfeits = f"; {_count(self.forfeits, 'forfeit', 'forfeits')}" if self.forfeits else ""
        return f"{_count(self.faults, 'fault', 'faults')} ({', '.join(words)}{forfeits})"
