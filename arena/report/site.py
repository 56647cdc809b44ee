"""Rendering the static site: one Jinja environment (autoescaping on), pages written to disk.

Layout of the output folder (every link is relative, so the site opens from ``file://``
and from any web server, in any folder):

    index.html                  leaderboards per variant and Brutal mode, list of tournaments
    style.css, replay.js        the only assets (no CDN, no external address)
    tournament/<id>.html        standings, rounds, crosstable, faults, seat statistics
    tournament/<id>-tables-<n>.html   a long tournament's tables, 1,000 a page (a ladder's)
    bot/<slug>.html             rating and its history, results by tournament and opponent,
                                faults
    bot/<slug>-games-<n>.html   a bot's games, 1,000 a page, when it has many
    game/<id>.html              the replay
    game/<id>.jsonl             the game's events, one JSON object per line
    game/data/<n>.js            compact replays: 50 games' replays and events, which their
                                pages load when opened (then there is no .jsonl; chunks.py)
    test/<id>.html              an A/B test: verdict, LLR over games, pair outcomes
    .arena-report               the manifest of what was rendered (manifest.py)

Rendering into a folder rendered before writes only what changed: a game page is kept
when what it shows is unchanged, as is a full archive page; the index, tournament and
bot pages show ratings, which every game moves, and are rendered each time. Long lists
show their most recent rows and link their archive pages, so no page grows with the
number of games.

Public or private (:mod:`arena.report.privacy`): by default the site leaves out the bots'
logs, the database and the organiser's file paths; ``private=True`` renders the
organiser's own copy with all of them, and every page says so.
"""

from __future__ import annotations

import dataclasses
import hashlib
import json
import multiprocessing
import re
import shutil
import signal
import threading
import time
from collections import defaultdict
from collections.abc import Callable, Collection, Iterable
from dataclasses import dataclass
from datetime import UTC, datetime
from functools import partial
from pathlib import Path
from typing import Any

from jinja2 import Environment, FileSystemLoader, StrictUndefined
from markupsafe import Markup, escape
from sqlalchemy import Engine

from arena import leaderboard
from arena.report import abtests, chunks, stats
from arena.report.data import GameInfo, SiteData, TournamentInfo, iter_game_logs, load_site
from arena.report.manifest import Manifest, digest, render_key
from arena.report.moves import Move, bust_text, mark_forfeits, option_texts, question, score_rounds
from arena.report.privacy import Hidden, Shown
from arena.report.replay import build_replay, card_names, describe
from arena.report.svg import interval_bar, rating_chart, scale_of, score_chart
from arena.store import games as store_games
from arena.store.db import describe as describe_db
from arena.store.db import engine_of

TEMPLATES = Path(__file__).resolve().parent / "templates"
ASSETS = ("style.css", "replay.js")
MARKER = ".arena-report"  # marks a folder this module wrote (its manifest: manifest.py)
SUBDIRS = ("tournament", "bot", "game", "test")
COMPACT_ABOVE = 2000  # games: above this, replays go to data files (chunks.py), not pages
LOG_BATCH = 200  # games whose logs are read from the database at a time
HISTORY_POINTS = 200  # at most this many points on a rating chart (refits: see history)
LONG = 500  # a list (a tournament's tables, a bot's games) longer than this is split:
RECENT = 200  # its page shows the most recent rows,
PER_PAGE = 1000  # and archive pages of this many rows each hold them all


def archive_of(total: int, href: Callable[[int], str]) -> dict[str, Any] | None:
    """The archive pages of a list of ``total`` rows (None if it is short): fixed slices
    of PER_PAGE rows, so that a full page never changes again; ``href(n)``: page n's path
    (from 1)."""
    if total <= LONG:
        return None
    n = -(-total // PER_PAGE)
    full = total // PER_PAGE  # the last page may be partial: its label is open-ended, so
    pages = [  # that no page's text changes until a new page is added
        {
            "k": k,
            "href": href(k + 1),
            "label": f"{k * PER_PAGE + 1}–{(k + 1) * PER_PAGE if k < full else ''}",
        }
        for k in range(n)
    ]
    return {"total": total, "shown": RECENT, "per_page": PER_PAGE, "pages": pages}


@dataclass(frozen=True)
class RenderResult:
    out: Path
    pages: int  # HTML pages written
    index: Path
    seconds: float
    kept: int = 0  # game pages left as the previous render wrote them (unchanged)
    compact: bool = False  # replays in data files, loaded on demand (chunks.py)


# ---------------------------------------------------------------- formatting helpers
def num(x: float | None, digits: int = 2) -> str:
    """A number as short as it can be: 12, 12.5, 4.33; a dash for None."""
    if x is None:
        return "–"
    if isinstance(x, int):
        return str(x)
    s = f"{x:.{digits}f}".rstrip("0").rstrip(".")
    return "0" if s in ("-0", "") else s


def pct(x: float | None, digits: int = 1) -> str:
    return "–" if x is None else f"{100 * x:.{digits}f}%"


def slug(name: str) -> str:
    """A file name for a bot: readable part + a hash, so any name maps to a distinct file."""
    readable = re.sub(r"[^A-Za-z0-9_.-]+", "-", name).strip("-.")[:40] or "bot"
    digest = hashlib.sha1(name.encode("utf-8")).hexdigest()[:8]
    return f"{readable}-{digest}"


# Where a name may wrap in a narrow column: after a separator, before an opening bracket,
# where a lower-case letter meets a capital (camelCase), and inside a run of letters and
# digits longer than a phone's column holds (every WORD_CHUNK characters). Nowhere else:
# a table cell never breaks ``threshold`` into ``thr``/``esh``/``old``.
WORD_CHUNK = 14
_BREAK = re.compile(
    r"(?<=[:/_\-.)\]>,;&#@=+])(?=[^\s:/_\-.)\]>,;&#@=+])"  # after a separator (not a run of them)
    r"|(?<=[^\s(\[<])(?=[(\[<])"  # before an opening bracket
    r"|(?<=[a-z])(?=[A-Z])"  # camelCase
)
_LONG_RUN = re.compile(rf"[A-Za-z0-9]{{{WORD_CHUNK + 1},}}")


def breakable(name: object) -> Markup:
    """A name, escaped, with <wbr> where it may wrap (see _BREAK); the text is unchanged."""
    out = []
    for piece in _BREAK.split(str(name)):
        pos = 0
        for m in _LONG_RUN.finditer(piece):
            run = m.group(0)
            out.append(escape(piece[pos : m.start()]))
            chunks = [run[i : i + WORD_CHUNK] for i in range(0, len(run), WORD_CHUNK)]
            out.append(Markup("<wbr>").join(escape(c) for c in chunks))
            pos = m.end()
        out.append(escape(piece[pos:]))
        out.append(Markup("<wbr>"))
    return Markup("").join(out[:-1])


_COMPACT = json.JSONEncoder(ensure_ascii=False, separators=(",", ":"))


def json_for_script(data: Any) -> Markup:
    """JSON safe inside <script type="application/json">: no '<', '>' or '&' survive, so
    no '</script>' or '<!--' can end or confuse the block."""
    text = _COMPACT.encode(data)
    text = text.replace("<", "\\u003c").replace(">", "\\u003e").replace("&", "\\u0026")
    return Markup(text)


def make_env() -> Environment:
    env = Environment(
        loader=FileSystemLoader(str(TEMPLATES)),
        autoescape=True,  # every page is HTML: escape everything not marked safe
        undefined=StrictUndefined,
        trim_blocks=True,
        lstrip_blocks=True,
    )
    env.filters["num"] = num
    env.filters["pct"] = pct
    env.filters["breakable"] = breakable
    env.filters["bot_href"] = lambda name: f"bot/{slug(name)}.html"
    env.filters["t_href"] = lambda tid: f"tournament/{tid}.html"
    env.filters["g_href"] = lambda gid: f"game/{gid}.html"
    return env


# ---------------------------------------------------------------- the site
Progress = Callable[[int, int], None]  # (pages written, pages in all)
Visible = Callable[[str | None], bool]  # may this reader see that bot's faults and logs?
Sink = Callable[[str, str], None]  # (page's path in the site, its HTML)


def _everything(_bot: str | None) -> bool:
    return True


class LiveShown(Shown):
    """What the live site shows one reader: paths shortened as in the public report, and
    the logs of the faults left after :meth:`_Site.seen` kept only the bots this reader
    may see (their own; the organiser: every bot's)."""

    def __init__(self) -> None:
        super().__init__(private=False)

    def log(self, fault: dict[str, object]) -> str | None:
        tail = fault.get("log_tail") or fault.get("log")
        return str(tail) if tail else None


def board_key(variant: str | None, brutal: bool | None) -> str:
    """A board's name in ids and anchors: the variant, with ``-brutal`` in Brutal mode."""
    return f"{variant}-brutal" if brutal else str(variant)


def board_title(variant: str | None, brutal: bool | None) -> str:
    return str(variant).capitalize() + (" (Brutal)" if brutal else "")


class _Site:
    def __init__(
        self,
        data: SiteData,
        out: Path,
        eng: Engine,
        progress: Progress | None = None,
        private: bool = False,
        *,
        visible: Visible = _everything,
        sink: Sink | None = None,
        extra: dict[str, Any] | None = None,
        shown: Shown | None = None,
        compact: bool = False,
        previous: Manifest | None = None,
        jobs: int = 1,
    ) -> None:
        """``visible``: whose faults and logs the reader may see (the static report: every
        bot's; the live site: their own); ``sink(rel, html)`` takes each page instead of
        a file under ``out``; ``extra``: more context for every template (the live site's
        reader and forms); ``shown``: the text filters (default: public or private);
        ``compact``: game replays in data files (chunks.py); ``previous``: the folder's
        manifest, whose unchanged game pages are kept (manifest.py); ``jobs``: processes
        that render the game pages."""
        self.data = data
        self.out = out
        self.progress = progress
        self.visible = visible
        self.sink = sink
        self.extra = extra or {}
        self.compact = compact
        self.jobs = jobs
        self.only: str | None = None  # render just this page (the live site's request)
        self.previous = previous or Manifest()
        self.manifest = Manifest()  # what this render writes (and keeps)
        self.kept = 0
        self._packed: dict[int, dict[int, str]] = defaultdict(dict)  # chunk -> game -> entry
        self._info: dict[int, GameInfo] = {}
        self._round_page: dict[int, str] = {}  # match id -> archive page of its table
        for t in data.tournaments:
            tables = [m for r in t.rounds for m in r.matches]
            if len(tables) > LONG:
                for i, m in enumerate(tables):
                    assert m.row.id is not None
                    self._round_page[m.row.id] = (
                        f"tournament/{t.id}-tables-{i // PER_PAGE + 1}.html"
                    )
        self._neighbours: dict[int, tuple[int | None, int | None]] = {}
        self._cards: dict[str, dict[str, tuple[str, str]]] = {}
        self.tests = abtests.load(eng)
        self.shown = shown or Shown(private)
        self.database = describe_db(eng.url) if private else None  # never a password
        self.total = (
            1 + len(data.tournaments) + len(data.bots()) + len(data.games) + len(self.tests)
        )
        self.env = make_env()
        self.pages = 0
        self.generated = datetime.now(UTC).strftime("%Y-%m-%d %H:%M UTC")
        # every rating on the site comes from arena.leaderboard, as the CLI's do
        self.boards = leaderboard.boards(eng)
        self.rows = {id(b): self._rows(b) for b in self.boards}
        self.histories = {
            id(b): leaderboard.history(
                eng, variant=str(b.variant), brutal=bool(b.brutal), max_points=HISTORY_POINTS
            )
            for b in self.boards
        }
        self.t_standings: dict[int, list[Any]] = {}
        self.t_los: dict[int, tuple[str, str, float] | None] = {}
        for t in data.tournaments:
            event = leaderboard.ratings(
                eng, variant=t.row.variant, brutal=t.row.brutal, tournament=t.id
            )
            st = stats.standings(t, event.ratings)
            self.t_standings[t.id] = st
            self.t_los[t.id] = leaderboard.winner_los(st, event)

    @staticmethod
    def _rows(board: leaderboard.Board) -> list[dict[str, Any]]:
        rows = board.rows()
        for r in rows:
            r["provisional"] = stats.is_provisional(r["games"], r["ci_low"], r["ci_high"])
        return rows

    # -------------------------------------------------------- output
    def prepare(self) -> None:
        """Make the folder ready: a previous render of another form or version is cleared
        (so no stale page survives); one of the same key is kept, to be updated."""
        out = self.out
        self.manifest.key = render_key(TEMPLATES, private=self.shown.private, compact=self.compact)
        if self.previous.ours and self.previous.key != self.manifest.key:
            for d in SUBDIRS:
                shutil.rmtree(out / d, ignore_errors=True)
            self.previous = Manifest(ours=True)
        for d in SUBDIRS:
            (out / d).mkdir(parents=True, exist_ok=True)
        if self.compact:
            (out / chunks.FOLDER).mkdir(parents=True, exist_ok=True)
        for name in ASSETS:
            shutil.copyfile(TEMPLATES / name, out / name)

    def finish(self) -> None:
        """Delete every file of the site's folders that this render did not write or keep
        (pages of games since deleted, anything else put there), if the folder was already
        ours; save the manifest."""
        if self.previous.ours:
            for d in SUBDIRS:
                for path in (self.out / d).rglob("*"):
                    rel = path.relative_to(self.out).as_posix()
                    if rel not in self.manifest.files and not path.is_dir():
                        path.unlink(missing_ok=True)
        form = "the private copy (do not publish)" if self.shown.private else "public"
        self.manifest.save(self.out, form)

    def wants(self, rel: str) -> bool:
        """Is this page to be rendered? (The live site renders one page at a time.)"""
        return self.only is None or rel == self.only

    def write(self, rel: str, template: str, **ctx: Any) -> None:
        if not self.wants(rel):
            return
        root = "../" * rel.count("/")
        html = self.env.get_template(template).render(
            root=root,
            generated=self.generated,
            private=self.shown.private,
            shown=self.shown,
            database=self.database,
            **{"live": None, **self.extra, **ctx},
        )
        self.put(rel, html)
        self.pages += 1
        if self.progress is not None:
            self.progress(self.pages + self.kept, self.total)

    def put(self, rel: str, text: str) -> None:
        if self.sink is not None:
            self.sink(rel, text)
        else:
            (self.out / rel).write_text(text, encoding="utf-8")
            self.manifest.files.add(rel)

    # -------------------------------------------------------- pages
    def index(self) -> None:
        boards = []
        for b in self.boards:
            rows = self.rows[id(b)]
            axis = scale_of([r["ci_low"] for r in rows], [r["ci_high"] for r in rows])
            for r in rows:
                r["bar"] = interval_bar(r["elo"], r["ci_low"], r["ci_high"], axis)
            boards.append(
                {
                    "variant": b.variant,
                    "brutal": bool(b.brutal),
                    "key": board_key(b.variant, b.brutal),
                    "title": board_title(b.variant, b.brutal),
                    "rows": rows,
                    "axis": axis,
                }
            )
        tournaments = []
        for t in self.data.tournaments:
            st = self.t_standings[t.id]
            leader = st[0].bot if st and st[0].games else None
            tournaments.append({"t": t.row, "games": len(t.games), "leader": leader})
        self.write(
            "index.html",
            "index.html",
            boards=boards,
            tournaments=tournaments,
            tests=abtests.index_rows(self.tests),
            min_games=stats.PROVISIONAL_MIN_GAMES,
            max_interval=stats.PROVISIONAL_MAX_INTERVAL,
        )

    def tournament(self, t: TournamentInfo) -> None:
        st = self.t_standings[t.id]
        order = [r.bot for r in st]
        h2h = stats.head_to_head(t.games)
        cross = [
            [None if a == b else h2h.get((a, b), stats.Record()) for b in order] for a in order
        ]
        tables = [(r, m) for r in t.rounds for m in r.matches]
        archive = archive_of(len(tables), partial("tournament/{}-tables-{}.html".format, t.id))
        if archive is None:
            rounds = self._rounds(t, [(r, list(r.matches)) for r in t.rounds])
        else:
            rounds = self._rounds(t, _by_round(tables[-RECENT:]))
            self._table_archive(t, tables, archive)
        seen = [self.seen(g) for g in t.games]
        kinds, fbots, fcounts = stats.fault_table(seen)
        hidden = Hidden.of(f for g in t.games for f in self.unseen(g.faults))
        faults = [(g, f) for g in seen for f in g.faults]
        self.write(
            f"tournament/{t.id}.html",
            "tournament.html",
            t=t.row,
            entries=t.entries,
            standings=st,
            leader_los=self.t_los[t.id],
            order=order,
            cross=cross,
            rounds=rounds,
            archive=archive,
            fault_kinds=kinds,
            fault_bots=fbots,
            fault_counts=fcounts,
            faults=faults[-RECENT:],
            n_faults=len(faults),
            hidden=hidden,
            seat_stats=stats.seat_stats(t.games),
            n_games=len(t.games),
            n_void=sum(1 for g in t.games if not g.completed),
            round_index={r.row.id: r.row.index for r in t.rounds},
            match_of=self.data.match_of,
        )

    def _rounds(self, t: TournamentInfo, parts: list[tuple[Any, list[Any]]]) -> list[Any]:
        """The template's rounds: each round with (some of) its tables and their lines."""
        out = []
        for r, matches in parts:
            tables = [
                {
                    "m": m.row,
                    "games": m.games,
                    "lines": stats.match_lines(m.row.seats, m.games, t.row.seats),
                }
                for m in matches
            ]
            out.append({"r": r.row, "tables": tables})
        return out

    def _table_archive(
        self, t: TournamentInfo, tables: list[tuple[Any, Any]], archive: dict[str, Any]
    ) -> None:
        """A long tournament's tables, PER_PAGE a page; a page showing what it showed is
        kept. The tables' games link their round here (see :meth:`round_href`)."""
        for page in archive["pages"]:
            k = page["k"]
            part = tables[k * PER_PAGE : (k + 1) * PER_PAGE]
            if not self.wants(page["href"]):
                continue
            d = digest(
                [
                    [p["href"] for p in archive["pages"]],
                    t.row.name,
                    t.row.seats,
                    [
                        [r.row.index, r.row.status, r.row.note, r.row.byes, m.row.id, m.row.table]
                        + [m.row.status, m.row.seats]
                        + [[g.id, g.index, g.status, g.ranks, g.totals] for g in m.games]
                        for r, m in part
                    ],
                ]
            )
            if not self.keep(page["href"], d):
                name = t.row.name or f"Tournament {t.id}"
                rounds = self._rounds(t, _by_round(part))
                self._archive_page(
                    page, archive, "tables", name, f"tournament/{t.id}.html#rounds", rounds=rounds
                )

    def _archive_page(
        self,
        page: dict[str, Any],
        archive: dict[str, Any],
        kind: str,
        owner: str,
        back_href: str,
        **rows: Any,
    ) -> None:
        """One archive page of ``owner``'s ``kind`` (tables or games), ``rows`` its part."""
        self.write(
            page["href"],
            "archive.html",
            kind=kind,
            title=f"{owner}: {kind}",
            label=f"{kind} {page['label']}",
            here=page["href"],
            back_href=back_href,
            back_label=owner,
            archive=archive,
            **rows,
        )

    def round_href(self, g: GameInfo) -> str:
        """Where a game's round is listed: its tournament's page, or the archive page of a
        long tournament that holds its table (a link that stays valid as the list grows)."""
        return self._round_page.get(g.match_id) or f"tournament/{g.tournament_id}.html"

    def keep(self, rel: str, d: str) -> bool:
        """Is the page the previous render wrote from the same data (digest)? Then it is
        kept as it is."""
        self.manifest.pages[rel] = d
        if self.previous.pages.get(rel) == d and rel in self.previous.files:
            self.manifest.files.add(rel)
            return True
        return False

    def unseen(self, faults: Iterable[dict[str, Any]]) -> list[dict[str, Any]]:
        """The faults this reader may not see (of other bots than theirs): the page counts
        them (privacy.Hidden) and shows nothing else of them."""
        if self.visible is _everything:
            return []
        return [f for f in faults if f.get("bot") is not None and not self.visible(f.get("bot"))]

    def seen(self, g: GameInfo) -> GameInfo:
        """The game as this reader may see it: only the faults of bots they may see (and
        the arena's own, which blame nobody)."""
        if self.visible is _everything:
            return g
        kept = [f for f in g.faults if f.get("bot") is None or self.visible(f.get("bot"))]
        return g if len(kept) == len(g.faults) else dataclasses.replace(g, faults=kept)

    def bots(self, only: str | None = None) -> None:
        data = self.data
        games_of: dict[str, list[GameInfo]] = defaultdict(list)
        for g in data.games:
            for b in g.seating:
                games_of[b].append(g)
        h2h = stats.head_to_head(data.games)
        opponents_of: dict[str, list[tuple[str, stats.Record]]] = defaultdict(list)
        for (a, b), rec in h2h.items():
            opponents_of[a].append((b, rec))
        for bot in data.bots():
            if only is not None and bot != only:
                continue
            ratings = []
            for board in self.boards:
                rows = self.rows[id(board)]
                row = next((r for r in rows if r["bot"] == bot), None)
                if row is None:
                    continue
                hist = self.histories[id(board)].ratings.get(bot) or []
                every = self.histories[id(board)].every
                title = board_title(board.variant, board.brutal)
                ratings.append(
                    {
                        "variant": board.variant,
                        "brutal": bool(board.brutal),
                        "key": board_key(board.variant, board.brutal),
                        "title": title,
                        "row": row,
                        "of": len(rows),
                        "chart": rating_chart(
                            hist,
                            title=f"{bot}: rating after each round, {title}",
                            x_label="rounds" if every == 1 else f"every {every} rounds",
                        )
                        if hist
                        else None,
                        "rounds": len(hist),
                        "every": every,
                    }
                )
            events = []
            for t in data.tournaments:
                if not any(e.name == bot for e in t.entries):
                    continue
                st = next((r for r in self.t_standings[t.id] if r.bot == bot), None)
                events.append({"t": t.row, "row": st, "field": len(t.entries)})
            opponents = sorted(opponents_of.get(bot, []), key=lambda o: (-o[1].games, o[0]))
            faults = [
                (g, f)
                for g in games_of.get(bot, [])
                for f in g.faults
                if f.get("bot") == bot and self.visible(bot)
            ]
            hidden = Hidden.of(
                f
                for g in games_of.get(bot, [])
                for f in self.unseen(g.faults)
                if f.get("bot") == bot
            )
            games = []
            for g in games_of.get(bot, []):
                s = g.seating.index(bot)
                m = data.match_of.get(g.match_id)
                rnd = data.round_of.get(m.round_id) if m is not None else None
                games.append(
                    {
                        "g": g,
                        "seat": s,
                        "rank": g.ranks[s] if g.completed and s < len(g.ranks) else None,
                        "total": g.totals[s] if s < len(g.totals) else None,
                        "round": rnd.index + 1 if rnd is not None else None,
                        "table": m.table + 1 if m is not None else None,
                    }
                )
            key = slug(bot)
            archive = archive_of(len(games), partial("bot/{}-games-{}.html".format, key))
            if archive is not None:
                self._games_archive(bot, games, archive)
                games = games[-RECENT:]
            self.write(
                f"bot/{key}.html",
                "bot.html",
                bot=bot,
                ratings=ratings,
                events=events,
                opponents=opponents,
                faults=faults[-RECENT:],
                n_faults=len(faults),
                hidden=hidden,
                games=games,
                archive=archive,
                round_of=data.round_of,
                match_of=data.match_of,
            )

    def _games_archive(self, bot: str, games: list[Any], archive: dict[str, Any]) -> None:
        """A bot's games, PER_PAGE a page; a page showing what it showed is kept."""
        for page in archive["pages"]:
            k = page["k"]
            part = games[k * PER_PAGE : (k + 1) * PER_PAGE]
            if not self.wants(page["href"]):
                continue
            d = digest(
                [
                    [p["href"] for p in archive["pages"]],
                    [
                        [x["g"].id, x["g"].tournament_id, x["g"].status, x["g"].seating]
                        + [x[f] for f in ("seat", "rank", "total", "round", "table")]
                        for x in part
                    ],
                ]
            )
            if not self.keep(page["href"], d):
                self._archive_page(
                    page, archive, "games", bot, f"bot/{slug(bot)}.html#games", games=part
                )

    def games(self, eng: Engine, only: int | None = None) -> None:
        """Every game's replay page (``only``: just that game's, for the live site). A game
        whose page shows what the previous render's did is kept as it is (manifest.py)."""
        data = self.data
        self._info = {g.id: g for g in data.games}
        for t in data.tournaments:
            ids = [g.id for r in t.rounds for m in r.matches for g in m.games]
            for i, gid in enumerate(ids):
                self._neighbours[gid] = (
                    ids[i - 1] if i else None,
                    ids[i + 1] if i + 1 < len(ids) else None,
                )
        if only is not None:
            for gid, choices, events in store_games.logs(eng, only - 1, 1):
                if gid == only:
                    self.game(gid, choices, events)
            return
        todo = []
        for g in data.games:
            d = self.manifest.games[g.id] = self._digest(g)
            files = self._files_of(g.id)
            if self.previous.games.get(g.id) == d and all(f in self.previous.files for f in files):
                self.manifest.files.update(files)
                self.kept += 1
                if self.progress is not None:
                    self.progress(self.pages + self.kept, self.total)
            else:
                todo.append(g.id)
        if self.jobs > 1 and len(todo) > LOG_BATCH and self.sink is None:
            self._games_in_processes(eng, todo)
        elif len(todo) == len(data.games):  # nothing to keep: read the logs in one pass
            for gid, choices, events in iter_game_logs(eng, LOG_BATCH):
                self.game(gid, choices, events)
        else:
            for i in range(0, len(todo), LOG_BATCH):
                for gid, choices, events in store_games.logs_of(eng, todo[i : i + LOG_BATCH]):
                    self.game(gid, choices, events)
        if self.compact:
            self._write_chunks(set(todo))

    def _games_in_processes(self, eng: Engine, todo: list[int]) -> None:
        """The game pages rendered by ``jobs`` forked processes, LOG_BATCH games a task:
        each child inherits this site (its data, links and templates), reads its games'
        logs on a connection of its own and writes their pages; the compact entries and
        the files written come back here."""
        global _FORKED
        _FORKED = (self, eng)
        batches = [todo[i : i + LOG_BATCH] for i in range(0, len(todo), LOG_BATCH)]
        ctx = multiprocessing.get_context("fork")
        try:
            with ctx.Pool(min(self.jobs, len(batches)), initializer=_forked_init) as pool:
                for pages, packed, files in pool.imap_unordered(_forked_batch, batches):
                    self.pages += pages
                    self.manifest.files.update(files)
                    for k, entries in packed.items():
                        self._packed[k].update(entries)
                    if self.progress is not None:
                        self.progress(self.pages + self.kept, self.total)
                pool.close()  # the children end by themselves: no signal is needed
                pool.join()
        finally:
            _FORKED = None

    def _files_of(self, gid: int) -> tuple[str, ...]:
        if self.compact:
            return (f"game/{gid}.html", chunks.rel(chunks.chunk_of(gid)))
        return (f"game/{gid}.html", f"game/{gid}.jsonl")

    def _digest(self, g: GameInfo) -> str:
        """What the game's page shows, besides its stored log (which never changes)."""
        data = self.data
        owner = data.tournament_of.get(g.tournament_id)
        m = data.match_of.get(g.match_id)
        rnd = data.round_of.get(m.round_id) if m is not None else None
        t = owner.row if owner is not None else None
        return digest(
            [
                [getattr(g, f) for f in _GAME_FIELDS],
                [f for f in g.faults if f.get("bot") is None or self.visible(f.get("bot"))],
                {s: h.summary() for s, h in self.hidden_seats(g.faults).items()},
                [t.name, t.brutal, t.options] if t is not None else None,
                [m.table, m.games] if m is not None else None,
                rnd.index if rnd is not None else None,
                self._neighbours.get(g.id),
                self.round_href(g),
            ]
        )

    def hidden_seats(self, faults: list[dict[str, Any]]) -> dict[int, Hidden]:
        """Per seat of a game, the faults this reader may not see, counted."""
        by_seat: dict[int, list[dict[str, Any]]] = defaultdict(list)
        for f in self.unseen(faults):
            if isinstance(f.get("seat"), int):
                by_seat[f["seat"]].append(f)
        return {seat: Hidden.of(fs) for seat, fs in by_seat.items()}

    def _write_chunks(self, changed: set[int]) -> None:
        """Write each data file that gained, lost or changed a game; keep the others."""
        members: dict[int, set[int]] = defaultdict(set)
        for g in self.data.games:
            members[chunks.chunk_of(g.id)].add(g.id)
        before: dict[int, set[int]] = defaultdict(set)
        for gid in self.previous.games:
            before[chunks.chunk_of(gid)].add(gid)
        for k, ids in sorted(members.items()):
            rel = chunks.rel(k)
            if not (ids & changed) and before.get(k) == ids and rel in self.previous.files:
                self.manifest.files.add(rel)
                continue
            entries = self._packed.get(k, {})
            if ids - entries.keys():  # games packed by the previous render: reuse them
                old = chunks.read(self.out / rel)
                entries = {**{gid: old[gid] for gid in ids if gid in old}, **entries}
            self.put(rel, chunks.render({gid: entries[gid] for gid in ids if gid in entries}))
        self._packed.clear()

    def game(self, gid: int, choices: list[int], events: list[Any]) -> None:
        data = self.data
        neighbours, names_cache = self._neighbours, self._cards
        g = self._info.get(gid)
        if g is None:  # stored after we loaded the rest: next render
            return
        every_fault = g.faults  # the moves played for a forfeited seat are public
        hidden_seats = self.hidden_seats(every_fault)
        g = self.seen(g)
        owner = data.tournament_of.get(g.tournament_id)
        brutal = bool(owner.row.brutal) if owner is not None else False
        target = (owner.row.options or {}).get("target_score") if owner is not None else None
        m = data.match_of.get(g.match_id)
        rnd = data.round_of.get(m.round_id) if m is not None else None
        replay = build_replay(g.variant, brutal, len(g.seating), g.seed, choices, events, target)
        cards = names_cache.get(g.variant)
        if cards is None:
            cards = names_cache[g.variant] = card_names(g.variant)
        seen = _labels(events)
        forfeits = mark_forfeits(replay.moves, every_fault)
        words: dict[str, int] = {}  # the moves' texts, each once (see _move_row)
        move_rows = [_move_row(mv, g.seating, cards, words) for mv in replay.moves]
        payload = {
            "seats": len(g.seating),
            "names": list(g.seating),
            "initial": replay.initial_dict(),
            "steps": replay.patches(),
            "cards": {lb: list(cards[lb]) for lb in sorted(seen) if lb in cards},
            "moves": move_rows,
            "words": list(words),
            "forfeits": [[f.seat, f.step, f.round, f.kind] for f in forfeits],
        }
        rounds = score_rounds(events) if replay.states is not None else []
        prev_id, next_id = neighbours.get(gid, (None, None))
        ctx: dict[str, Any] = dict(
            g=g,
            t=owner.row if owner is not None else None,
            m=m,
            rnd=rnd,
            names=g.seating,
            n_events=len(events),
            event_items=_event_items(
                events, g.seating, cards, {mv.step + 1 for mv in replay.moves if mv.auto}
            ),
            score_chart=score_chart(rounds, g.seating) if rounds else None,
            n_rounds_scored=len(rounds),
            forfeits=forfeits,
            hidden_seats=hidden_seats,
            replay_ok=replay.states is not None,
            replay_note=replay.note,
            prev_id=prev_id,
            next_id=next_id,
            round_href=self.round_href(g),
        )
        if self.compact:
            k = chunks.chunk_of(gid)
            section = self.env.get_template("game_replay.html").render(
                root="../", shown=self.shown, **ctx
            )
            data_ = payload if replay.states is not None else None
            self._packed[k][gid] = chunks.pack(section, data_, events)
            self.write(f"game/{gid}.html", "game.html", compact=True, chunk=k, payload="", **ctx)
            return
        self.write(
            f"game/{gid}.html",
            "game.html",
            compact=False,
            chunk=None,
            payload=json_for_script(payload),
            **ctx,
        )
        lines = "".join(_COMPACT.encode(e) + "\n" for e in events)
        self.put(f"game/{gid}.jsonl", lines)


_GAME_FIELDS = tuple(f.name for f in dataclasses.fields(GameInfo))
_FORKED: tuple[_Site, Engine] | None = None  # the site a forked child renders games of


def _forked_init() -> None:
    """In a child: the default signal dispositions (a handler inherited from the parent,
    e.g. a local Ray node's, which calls threads the fork did not copy, would hang the
    child instead of ending it), Ctrl-C left to the parent; its own database connections
    (the parent's are the parent's), no progress bar (the parent draws it)."""
    for sig in (signal.SIGTERM, signal.SIGHUP):
        signal.signal(sig, signal.SIG_DFL)
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    assert _FORKED is not None
    site, eng = _FORKED
    eng.dispose(close=False)
    site.progress = None


def _forked_batch(
    ids: list[int],
) -> tuple[int, dict[int, dict[int, str]], set[str]]:
    """In a child: render these games' pages; (pages written, compact entries, files)."""
    assert _FORKED is not None
    site, eng = _FORKED
    site.pages = 0
    site._packed = defaultdict(dict)
    site.manifest.files = set()
    for gid, choices, events in store_games.logs_of(eng, ids):
        site.game(gid, choices, events)
    return site.pages, dict(site._packed), site.manifest.files


def _by_round(tables: list[tuple[Any, Any]]) -> list[tuple[Any, list[Any]]]:
    """(round, its tables) for consecutive tables of the same round."""
    out: list[tuple[Any, list[Any]]] = []
    for r, m in tables:
        if out and out[-1][0] is r:
            out[-1][1].append(m)
        else:
            out.append((r, [m]))
    return out


def _move_row(
    mv: Move, names: list[str], cards: dict[str, tuple[str, str]], words: dict[str, int]
) -> list[Any]:
    """A move as the page's script reads it: [step, seat, question, options, chosen,
    bust (null, or [cards that bust, cards drawn from, the chance as printed]), auto]; the
    question and each option are indices into the page's ``words`` (which ``words`` here
    grows: a game repeats "hit or stay?" and its names hundreds of times)."""

    def word(text: str) -> int:
        return words.setdefault(text, len(words))

    bust = None if mv.bust is None else [mv.bust[0], mv.bust[1], bust_text(mv.bust)]
    return [
        mv.step,
        mv.seat,
        word(question(mv, cards)),
        [word(t) for t in option_texts(mv, names, cards)],
        mv.chosen,
        bust,
        1 if mv.auto else 0,
    ]


def _event_items(
    events: list[dict[str, Any]],
    names: list[str],
    cards: dict[str, tuple[str, str]],
    auto: Collection[int] = (),
) -> Markup:
    """The <li> of every event (built here rather than in a template loop: a 1,000-game
    site has some 200,000 of them). Every text is escaped. ``auto``: the steps that are the
    outcome of a move the arena played for a forfeited seat."""
    parts = []
    for i, e in enumerate(events, 1):
        kind = re.sub(r"[^a-z0-9_]", "", str(e.get("kind", "")))
        text = escape(describe(e, names, cards))
        if i in auto:
            parts.append(
                f'<li id="step-{i}" data-step="{i}" class="ev-{kind} auto">{text} '
                '<span class="auto-tag" title="the seat had forfeited: the arena played its '
                'default">auto-played</span></li>'
            )
        else:
            parts.append(f'<li id="step-{i}" data-step="{i}" class="ev-{kind}">{text}</li>')
    return Markup("\n".join(parts))


def _labels(events: Iterable[dict[str, Any]]) -> set[str]:
    seen: set[str] = set()
    for e in events:
        c = e.get("card")
        if isinstance(c, str):
            seen.add(c)
        for c in e.get("cards") or ():
            if isinstance(c, str):
                seen.add(c)
    return seen


def render_site(
    db: str | Engine | None,
    out: Path | str,
    *,
    progress: Progress | None = None,
    private: bool = False,
    compact: bool | None = None,
    incremental: bool = True,
    jobs: int = 1,
) -> RenderResult:
    """Render the whole site from the database into ``out``; returns what was written.

    Reads everything from the database (``db``: a URL, an Engine, or None for the default
    database) and writes plain files: no network, no external address in any page.
    ``progress(done, total)`` is called after each page. ``private``: the organiser's own
    copy, with the bots' logs, the file paths and the database (see the module's doc).
    ``compact``: replays in data files loaded on demand (default: above
    :data:`COMPACT_ABOVE` games). ``incremental``: keep the game pages of a previous render
    into ``out`` that would come out the same (default); False renders every page.
    ``jobs``: processes rendering the game pages (forked from this one: give more than 1
    only from a process that runs no other threads, e.g. the ``arena report`` command).
    """
    t0 = time.perf_counter()
    eng = engine_of(db)
    out = Path(out)
    data = load_site(eng)
    if compact is None:
        compact = len(data.games) > COMPACT_ABOVE
    previous = Manifest.load(out)
    if not incremental and previous.ours:
        previous = Manifest(ours=True)
    site = _Site(data, out, eng, progress, private, compact=compact, previous=previous, jobs=jobs)
    site.prepare()
    site.index()
    for t in site.data.tournaments:
        site.tournament(t)
    site.bots()
    site.games(eng)
    abtests.write_pages(site, site.tests)
    site.finish()
    return RenderResult(
        out=out,
        pages=site.pages,
        index=out / "index.html",
        seconds=time.perf_counter() - t0,
        kept=site.kept,
        compact=compact,
    )


_PAGE = re.compile(r"(tournament|bot|game)/([A-Za-z0-9_.-]+)\.(html|jsonl)")


def _owner(key: str, marker: str) -> str:
    """The page an archive page belongs to: ``7`` for ``7-tables-3``; ``key`` itself if it
    is not an archive page's."""
    head, sep, tail = key.rpartition(marker)
    return head if sep and tail.isdigit() else key


class LiveSite:
    """The site as one reader may see it, loaded once from the database and rendered a
    page at a time (the live site keeps one per database version and kind of reader)."""

    def __init__(self, db: str | Engine | None, visible: Visible = _everything) -> None:
        self.eng = engine_of(db)
        self._pages: dict[str, str] = {}
        self._site = _Site(
            load_site(self.eng),
            Path("."),
            self.eng,
            visible=visible,
            sink=self._pages.__setitem__,
            shown=LiveShown(),
        )
        self._lock = threading.Lock()

    def render(self, rel: str, extra: dict[str, Any] | None = None) -> str | None:
        """One page (see :func:`render_page`) with ``extra`` in its templates' context."""
        with self._lock:
            self._pages.clear()
            site = self._site
            site.extra = extra or {}
            site.only = rel
            if rel == "index.html":
                site.index()
            elif m := _PAGE.fullmatch(rel):
                kind, key, ext = m.groups()
                if kind == "tournament" and ext == "html":
                    tid = _owner(key, "-tables-")  # its page, or an archive page of its tables
                    t = site.data.tournament_of.get(int(tid)) if tid.isdigit() else None
                    if t is not None:
                        site.tournament(t)
                elif kind == "bot" and ext == "html":
                    base = _owner(key, "-games-")  # its page, or an archive page of its games
                    name = next((b for b in site.data.bots() if slug(b) == base), None)
                    if name is not None:
                        site.bots(only=name)
                elif kind == "game" and key.isdigit():
                    site.games(self.eng, only=int(key))
            return self._pages.get(rel)


def render_page(
    db: str | Engine | None,
    rel: str,
    *,
    visible: Visible = _everything,
    extra: dict[str, Any] | None = None,
) -> str | None:
    """One page of the site, rendered now from the database: ``rel`` is its path as in the
    static site (``index.html``, ``tournament/3.html``, ``bot/<slug>.html``,
    ``game/7.html``, ``game/7.jsonl``). None if there is no such page. The live site
    (arena serve) serves these with ``visible`` and ``extra`` for its reader."""
    return LiveSite(db, visible).render(rel, extra)
