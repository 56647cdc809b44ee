"""The static HTML report: ``render_site(db, out)`` renders the whole site from the database.

Self-contained (one stylesheet and one small script copied beside the pages, no CDN, no
network, no external address), relative links only (opens from ``file://`` or any web
server), Jinja templates with autoescaping on. See :mod:`arena.report.site` for the layout
and :mod:`arena.report.replay` for how game replays are built.
"""

from arena.report.site import RenderResult, render_site
from arena.report.stats import PROVISIONAL_MAX_INTERVAL, PROVISIONAL_MIN_GAMES, is_provisional

__all__ = [
    "PROVISIONAL_MAX_INTERVAL",
    "PROVISIONAL_MIN_GAMES",
    "RenderResult",
    "is_provisional",
    "render_site",
]
