"""Compact replays: the heavy part of game pages, packed in data files read on demand.

A report of many games (a ladder's) does not inline each game's replay in its page. The
page keeps what it shows at once (the result, the faults, the links) and loads the rest,
the replay section, its states and moves, and the events, from ``game/data/<chunk>.js``,
a file shared by :data:`CHUNK` consecutive game ids. That file is a script, so the site
still works when opened from a file (``file://`` forbids ``fetch`` of local files, not
``<script src>``)::

    Flip7Chunk({"101": "<base64 of zlib-deflated JSON>", "102": "...", ...});

Each game is deflated on its own, so a page unpacks only its own game
(``DecompressionStream`` in the browser) and a re-render keeps the games already packed
without unpacking them (:func:`read`), rewriting only the chunks that gained or changed a
game.
"""

from __future__ import annotations

import base64
import json
import re
import zlib
from pathlib import Path
from typing import Any

CHUNK = 50  # game ids per data file: opening a game loads about CHUNK * 10 kB
FOLDER = "game/data"
_ENTRY = re.compile(r'"(\d+)":"([A-Za-z0-9+/=]*)"')
_COMPACT = json.JSONEncoder(ensure_ascii=False, separators=(",", ":"))


def chunk_of(gid: int) -> int:
    return (gid - 1) // CHUNK if gid > 0 else 0


def rel(chunk: int) -> str:
    """The data file's path in the site."""
    return f"{FOLDER}/{chunk}.js"


def pack(html: str, data: dict[str, Any] | None, events: list[Any]) -> str:
    """One game's entry: the replay section's HTML, the replay's data, the events."""
    text = _COMPACT.encode({"html": html, "data": data, "events": events})
    return base64.b64encode(zlib.compress(text.encode("utf-8"), 9)).decode("ascii")


def unpack(packed: str) -> dict[str, Any]:
    """The inverse of :func:`pack` (for tests and tools)."""
    out: dict[str, Any] = json.loads(zlib.decompress(base64.b64decode(packed)).decode("utf-8"))
    return out


def render(entries: dict[int, str]) -> str:
    """The data file's text for these packed games."""
    body = ",".join(f'"{gid}":"{entries[gid]}"' for gid in sorted(entries))
    return f"Flip7Chunk({{{body}}});\n"


def read(path: Path) -> dict[int, str]:
    """The packed games of a data file written by :func:`render` ({} if none)."""
    try:
        text = path.read_text(encoding="ascii")
    except (OSError, UnicodeDecodeError):
        return {}
    return {int(m.group(1)): m.group(2) for m in _ENTRY.finditer(text)}
