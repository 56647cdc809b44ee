"""What a report folder holds, so that the next render writes only what changed.

The folder's marker file (``.arena-report``) is this manifest, as JSON: the render's key
(a digest of the templates, the assets and :data:`FORMAT`, with the form: public or
private, inline or compact replays), a digest of what each game page shows, and every file
the render wrote. A re-render with the same key skips the games whose digest is unchanged
(their replays are the costly part of a report: the engine replays each game), and the
archive pages of long lists whose digest is unchanged (a full page of a ladder's oldest
tables never changes again), and deletes
the files the new render no longer has. Any other page (the index, the tournaments, the
bots) shows ratings, which every new game moves, so it is rendered each time.

A folder with an older marker (plain text) or none of ours is rendered from scratch.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

FORMAT = 2  # bump when a page's content changes for reasons the templates do not show
NAME = ".arena-report"


def render_key(templates: Path, *, private: bool, compact: bool) -> str:
    """Changes when any template or asset changes, or the form of the report does."""
    h = hashlib.sha256(f"{FORMAT}:{private}:{compact}".encode())
    for p in sorted(templates.iterdir()):
        if p.is_file():
            h.update(p.name.encode())
            h.update(p.read_bytes())
    return h.hexdigest()[:20]


def digest(parts: Any) -> str:
    """A short digest of JSON-serialisable data (what a page shows)."""
    text = json.dumps(parts, sort_keys=True, separators=(",", ":"), default=str)
    return hashlib.sha256(text.encode("utf-8")).hexdigest()[:16]


@dataclass
class Manifest:
    key: str = ""
    games: dict[int, str] = field(default_factory=dict)  # game id -> digest of its page
    pages: dict[str, str] = field(default_factory=dict)  # other kept pages: path -> digest
    files: set[str] = field(default_factory=set)  # every file written, relative to the folder
    ours: bool = False  # the folder was written by a report (of any format)

    @classmethod
    def load(cls, out: Path) -> Manifest:
        path = out / NAME
        if not path.exists():
            return cls()
        try:
            raw = json.loads(path.read_text(encoding="utf-8"))
            return cls(
                key=str(raw["key"]),
                games={int(k): str(v) for k, v in raw["games"].items()},
                files=set(raw["files"]),
                pages={str(k): str(v) for k, v in raw.get("pages", {}).items()},
                ours=True,
            )
        except (OSError, ValueError, KeyError, TypeError, AttributeError):
            return cls(ours=True)  # an older marker: ours, but nothing to reuse

    def save(self, out: Path, form: str) -> None:
        raw = {
            "about": f"rendered by arena report ({form}); safe to delete",
            "key": self.key,
            "games": {str(k): v for k, v in sorted(self.games.items())},
            "pages": dict(sorted(self.pages.items())),
            "files": sorted(self.files),
        }
        tmp = out / (NAME + ".tmp")
        tmp.write_text(json.dumps(raw, separators=(",", ":")) + "\n", encoding="utf-8")
        tmp.replace(out / NAME)
