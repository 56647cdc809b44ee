"""The site as files: escaping, self-containment, links, phone-friendliness, the CLI body."""

from __future__ import annotations

import asyncio
import json
import re
from pathlib import Path
from urllib.parse import unquote, urlsplit

import pytest
from htmltree import Node, load, parse
from reportkit import QUOTED, XSS, Site
from sqlmodel import Session, select

from arena.bots import Policy
from arena.report import render_site
from arena.report.cli import report_command
from arena.report.site import json_for_script, slug
from arena.store.db import get_engine
from arena.store.models import Game
from arena.tournament import EntrySpec, TournamentConfig, create_tournament, run_tournament


def pages(site: Site) -> list[Path]:
    return sorted(site.out.rglob("*.html"))


# ---------------------------------------------------------------- escaping
def test_user_text_is_escaped_on_every_page(site: Site) -> None:
    escaped_xss = "&lt;script&gt;alert(1)&lt;/script&gt;"
    found_escaped = 0
    for p in pages(site):
        html = p.read_text(encoding="utf-8")
        assert XSS not in html, p
        assert "<b>'s</b>" not in html, p
        assert "<Open>" not in html, p  # the tournament's name
        found_escaped += escaped_xss in html
        # the only scripts are the replay's data block and its script file
        for tag in re.findall(r"<script\b[^>]*>", html):
            assert tag in (
                '<script type="application/json" id="replay-data">',
                '<script src="../replay.js">',
            ), (p, tag)
    assert found_escaped >= 3  # index, the tournaments, the bot page, its games...
    index = load(site.out / "index.html")
    names = [a.clean() for a in index.find_all("a")]
    assert XSS in names and QUOTED in names  # shown as text, exactly


def test_escaped_names_keep_their_own_file_names(site: Site) -> None:
    for name in (XSS, QUOTED):
        f = slug(name)
        assert re.fullmatch(r"[A-Za-z0-9_.-]+", f)
        doc = load(site.out / "bot" / f"{f}.html")
        assert doc.find("h1").clean() == name
        assert doc.find("title").clean().startswith(name)


def test_replay_data_blocks_cannot_close_their_script(site: Site) -> None:
    for p in sorted((site.out / "game").glob("*.html"))[:30]:
        doc = load(p)
        block = doc.find("script", id="replay-data")
        raw = block.text()
        assert "<" not in raw and ">" not in raw
        json.loads(raw)


def test_json_for_script_escapes_markup_characters() -> None:
    text = str(json_for_script({"name": "</script><!-- & -->", "n": [1, 2]}))
    assert "<" not in text and ">" not in text and "&" not in text
    assert json.loads(text) == {"name": "</script><!-- & -->", "n": [1, 2]}
    doc = parse(f'<script type="application/json" id="d">{text}</script>')
    assert json.loads(doc.find("script").text())["name"] == "</script><!-- & -->"


# ---------------------------------------------------------------- self-contained
def test_no_page_or_asset_refers_to_an_external_address(site: Site) -> None:
    files = [*pages(site), site.out / "style.css", site.out / "replay.js"]
    for p in files:
        text = p.read_text(encoding="utf-8")
        assert "http://" not in text and "https://" not in text, p
    css = (site.out / "style.css").read_text(encoding="utf-8")
    assert "url(" not in css and "@import" not in css
    js = (site.out / "replay.js").read_text(encoding="utf-8")
    assert "fetch(" not in js and "XMLHttpRequest" not in js and "innerHTML" not in js
    for p in pages(site):
        doc = load(p)
        for node in doc.iter():
            for attr in ("href", "src", "action", "srcset", "poster", "data"):
                v = node.get(attr)
                if v == "data:," and node.get("rel") == "icon":
                    continue  # an empty icon: no favicon.ico request to any server
                if v:
                    assert not urlsplit(v).scheme and not v.startswith("//"), (p, attr, v)


def _targets(doc: Node) -> list[str]:
    out = []
    for n in doc.iter():
        for attr in ("href", "src"):
            v = n.get(attr)
            if v is not None and not v.startswith("data:"):
                out.append(v)
    return out


def test_every_local_link_and_anchor_resolves(site: Site) -> None:
    ids: dict[Path, set[str]] = {}

    def ids_of(p: Path) -> set[str]:
        if p not in ids:
            ids[p] = {n.get("id") for n in load(p).iter() if n.get("id")}  # type: ignore[misc]
        return ids[p]

    checked = 0
    for p in pages(site):
        for v in _targets(load(p)):
            parts = urlsplit(v)
            target = p if not parts.path else (p.parent / unquote(parts.path)).resolve()
            assert target.is_file(), (p, v)
            assert site.out.resolve() in target.resolve().parents, (p, v)
            if parts.fragment and target.suffix == ".html":
                assert parts.fragment in ids_of(target), (p, v)
            checked += 1
    assert checked > 500


# ---------------------------------------------------------------- phones
def test_every_page_has_a_viewport_and_scrollable_tables(site: Site) -> None:
    for p in pages(site):
        doc = load(p)
        metas = [m for m in doc.find_all("meta") if m.get("name") == "viewport"]
        assert metas and "width=device-width" in (metas[0].get("content") or ""), p
        assert doc.find("html").get("lang") == "en"
        for table in doc.find_all("table"):
            assert table.parent is not None and "scroll" in table.parent.classes, p


# ---------------------------------------------------------------- the CLI's body
def test_report_command_prints_out_and_pages_as_json(
    site: Site, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    report_command(tmp_path / "r", site.url, True)
    data = json.loads(capsys.readouterr().out)
    assert data == {
        "out": str(tmp_path / "r"),
        "pages": site.result.pages,
        "kept": 0,
        "replays": "inline",
        "private": False,
    }
    report_command(tmp_path / "r", site.url, False)  # again: the games are unchanged
    text = capsys.readouterr().out
    kept = int(re.search(r"kept (\d+) unchanged game pages", text).group(1))  # type: ignore[union-attr]
    written = int(re.search(r"wrote (\d+) pages", text).group(1))  # type: ignore[union-attr]
    assert kept > 0 and written + kept == site.result.pages, text


def test_render_reports_progress_page_by_page(site: Site, tmp_path: Path) -> None:
    seen: list[tuple[int, int]] = []
    result = render_site(site.url, tmp_path / "p", progress=lambda d, t: seen.append((d, t)))
    assert [d for d, _ in seen] == list(range(1, result.pages + 1))
    assert {t for _, t in seen} == {result.pages}


def test_report_command_refuses_a_file_as_output_folder(site: Site, tmp_path: Path) -> None:
    from arena.errors import ArenaError

    f = tmp_path / "file"
    f.write_text("x")
    with pytest.raises(ArenaError, match="not a folder"):
        report_command(f, site.url, True)


def test_an_empty_database_renders_an_index(tmp_path: Path) -> None:
    result = render_site(f"sqlite:///{tmp_path / 'empty.db'}", tmp_path / "site")
    assert result.pages == 1
    doc = load(result.index)
    assert "No completed games yet" in doc.clean()
    assert "No tournaments yet" in doc.clean()


def test_render_reads_sqlite_and_postgresql_alike(db_url: str, tmp_path: Path) -> None:
    """The report only reads through the store's models, on any supported database."""
    cfg = TournamentConfig(
        format="round-robin",
        variant="vengeance",
        entries=[EntrySpec(XSS, Policy("ev")), EntrySpec("b", Policy("random"))],
        seats=2,
        games=3,
        seed=5,
    )
    tid = create_tournament(cfg, db_url)
    asyncio.run(run_tournament(db_url, tid))
    result = render_site(db_url, tmp_path / "site")
    with Session(get_engine(db_url)) as s:
        n_games = len(s.exec(select(Game.id)).all())
    assert n_games >= 3
    assert result.pages == 1 + 1 + 2 + n_games
    doc = load(tmp_path / "site" / "tournament" / f"{tid}.html")
    assert [tr.get("data-bot") for tr in doc.find("tbody").find_all("tr")] != []
    for g in sorted((tmp_path / "site" / "game").glob("*.html")):
        assert load(g).find_all("script", id="replay-data"), g
