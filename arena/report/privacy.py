"""What the public report leaves out, and how the rest is shortened.

The report is public by default: it is made to be put on a web server. It then shows no
bot's log (the stderr tails stored with faults), no database URL, and no absolute file
path of the organiser's: a command's or a fault detail's paths are shortened to the file's
own name (``python /home/org/bots/ev/bot.py 18`` → ``python …/bot.py 18``). The
organiser's own copy (``arena report --private``) shows everything, and says so on every
page.
"""

from __future__ import annotations

import re

# An absolute POSIX path of two components or more (``/usr/bin/python3``, ``~/x/y``), where
# a word starts: not the tail of a URL (``http://h/p``) or of a relative path (``a/b``),
# not a lone ``/2`` (a card of Vengeance).
_ABSOLUTE = re.compile(r"""(?<![\w.:/~-])~?/[^\s/'"`<>|;,()]+(?:/[^\s/'"`<>|;,()]*)+""")
_QUOTED = re.compile(r"""(['"])(~?/[^'"\n]*/[^'"\n]*)\1""")  # may hold spaces: '/a b/c'


def shorten_paths(text: str) -> str:
    """``text`` with every absolute path cut down to ``…/`` and its last component."""

    def last(path: str) -> str:
        parts = [p for p in path.split("/") if p]
        return "…/" + parts[-1] if parts else "…/"

    text = _QUOTED.sub(lambda m: m.group(1) + last(m.group(2)) + m.group(1), text)
    return _ABSOLUTE.sub(lambda m: last(m.group(0)), text)


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
