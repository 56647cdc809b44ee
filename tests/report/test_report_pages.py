"""The numbers on the rendered pages are the database's numbers.

Every expectation here is recomputed from the stored rows (games, rounds, matches), not
taken from the report's own helpers, except where the rule itself lives elsewhere (the
leaderboard fit is arena.leaderboard's).
"""

from __future__ import annotations

import json
from collections import defaultdict
from pathlib import Path

import pytest
from htmltree import Node, load, table_rows
from reportkit import QUOTED, XSS, Site
from sqlmodel import Session, select

from arena.leaderboard import leaderboard_rows
from arena.ratings import GameResult, fit_ratings
from arena.report import PROVISIONAL_MAX_INTERVAL, PROVISIONAL_MIN_GAMES
from arena.report.site import slug
from arena.store.db import get_engine
from arena.store.models import AbTest, Entry, Game, Match, Round, Tournament


def games_of(site: Site, tid: int | None = None) -> list[Game]:
    with Session(get_engine(site.url)) as s:
        q = select(Game).order_by(Game.id)
        if tid is not None:
            q = q.where(Game.tournament_id == tid)
        return list(s.exec(q))


def points(ranks: list[int], table_size: int) -> list[float]:
    """Placement points as the rules state them: first K−1 … last 0, ties share, scaled."""
    k = len(ranks)
    out = []
    for r in ranks:
        places = [p for p in range(k) if sorted(ranks)[p] == r]
        out.append(sum(k - 1 - p for p in places) / len(places))
    if k > 1 and k != table_size:
        out = [p * (table_size - 1) / (k - 1) for p in out]
    return out


def cell(tr: Node, cls: str) -> str:
    return tr.find("td", cls=cls).clean()


def page(site: Site, rel: str) -> Node:
    return load(site.out / rel)


# ---------------------------------------------------------------- the site as a whole
def test_render_writes_one_page_per_tournament_bot_game_and_test(site: Site) -> None:
    with Session(get_engine(site.url)) as s:
        n_t = len(s.exec(select(Tournament)).all())
        names = {e.name for e in s.exec(select(Entry))}
        tests = [t.id for t in s.exec(select(AbTest))]
    games = games_of(site)
    assert tests == [site.abtest]
    assert site.result.pages == 1 + n_t + len(names) + len(games) + len(tests)
    assert (site.out / "test" / f"{site.abtest}.html").is_file()
    assert site.result.index == site.out / "index.html"
    assert site.result.seconds > 0
    html = sorted(site.out.rglob("*.html"))
    assert len(html) == site.result.pages
    for g in games:
        assert (site.out / "game" / f"{g.id}.html").is_file()
        assert (site.out / "game" / f"{g.id}.jsonl").is_file()
    for name in names:
        assert (site.out / "bot" / f"{slug(name)}.html").is_file()
    assert (site.out / "style.css").is_file() and (site.out / "replay.js").is_file()


def test_rendering_again_replaces_the_previous_site(site: Site, tmp_path: Path) -> None:
    from arena.report import render_site

    out = tmp_path / "again"
    first = render_site(site.url, out)
    (out / "game" / "999999.html").write_text("stale")
    second = render_site(site.url, out)
    assert second.kept == len(games_of(site))  # nothing changed: every game page is kept
    assert second.pages + second.kept == first.pages
    assert not (out / "game" / "999999.html").exists()


# ---------------------------------------------------------------- index
def boards_of(site: Site) -> list[tuple[str, bool]]:
    """Every (variant, brutal) of the stored completed games, read from the rows."""
    with Session(get_engine(site.url)) as s:
        brutal = {t.id: t.brutal for t in s.exec(select(Tournament))}
    return sorted(
        {(g.variant, brutal[g.tournament_id]) for g in games_of(site) if g.status == "completed"}
    )


def test_index_has_one_leaderboard_per_variant_and_brutal_mode(site: Site) -> None:
    tables = page(site, "index.html").find_all("table", cls="leaderboard")
    shown = [(t.get("data-variant"), t.get("data-brutal") == "true") for t in tables]
    assert shown == boards_of(site) == [("base", False), ("base", True), ("vengeance", True)]
    assert [t.get("data-board") for t in tables] == ["base", "base-brutal", "vengeance-brutal"]


@pytest.mark.parametrize("variant,brutal", [("base", False), ("base", True), ("vengeance", True)])
def test_index_leaderboard_is_the_stored_games_fit(site: Site, variant: str, brutal: bool) -> None:
    expected = leaderboard_rows(site.url, variant=variant, brutal=brutal)
    assert expected
    assert all((r["variant"], r["brutal"]) == (variant, brutal) for r in expected)
    with Session(get_engine(site.url)) as s:
        is_brutal = {t.id: t.brutal for t in s.exec(select(Tournament))}
    fit = fit_ratings(
        GameResult(tuple(g.seating), tuple(g.ranks))
        for g in games_of(site)
        if g.status == "completed" and g.variant == variant and is_brutal[g.tournament_id] == brutal
    )
    assert [r["bot"] for r in expected] == fit.players
    assert {r["bot"]: r["elo"] for r in expected} == pytest.approx(fit.ratings, abs=0.051)
    key = f"{variant}-brutal" if brutal else variant
    table = page(site, "index.html").find("table", cls="leaderboard", data_board=key)
    rows = table_rows(table)
    assert [tr.get("data-bot") for tr in rows] == [r["bot"] for r in expected]
    for tr, r in zip(rows, expected, strict=True):
        assert int(cell(tr, "rank")) == r["rank"]
        assert tr.find("td", cls="bot").clean() == r["bot"]
        assert abs(int(cell(tr, "elo")) - r["elo"]) <= 0.51
        assert abs(int(tr.find("span", cls="ci-low").clean()) - r["ci_low"]) <= 0.51
        assert abs(int(tr.find("span", cls="ci-high").clean()) - r["ci_high"]) <= 0.51
        assert int(cell(tr, "games")) == r["games"]
        assert float(cell(tr, "score").rstrip("%")) == pytest.approx(100 * r["score"], abs=0.051)
        if r["los_next"] is None:
            assert cell(tr, "los") == "–"
        else:
            assert float(cell(tr, "los").rstrip("%")) == pytest.approx(
                100 * r["los_next"], abs=0.051
            )
        provisional = (
            r["games"] < PROVISIONAL_MIN_GAMES
            or r["ci_high"] - r["ci_low"] > PROVISIONAL_MAX_INTERVAL
        )
        assert bool(tr.find_all("span", cls="provisional")) == provisional
        assert tr.find_all("svg", cls="ci"), "the interval is drawn"


def test_index_lists_every_tournament_with_its_game_count(site: Site) -> None:
    with Session(get_engine(site.url)) as s:
        ts = list(s.exec(select(Tournament).order_by(Tournament.id)))
    rows = table_rows(page(site, "index.html").find("table", cls="tournaments"))
    assert [int(tr.get("data-tournament")) for tr in rows] == [t.id for t in ts]
    for tr, t in zip(rows, ts, strict=True):
        assert int(cell(tr, "games")) == len(games_of(site, t.id))
        assert tr.find("a").get("href") == f"tournament/{t.id}.html"


# ---------------------------------------------------------------- tournament
def test_standings_points_games_and_wins_are_the_stored_results(site: Site) -> None:
    tid = site.swiss
    with Session(get_engine(site.url)) as s:
        t = s.get(Tournament, tid)
        entries = [e.name for e in s.exec(select(Entry).where(Entry.tournament_id == tid))]
        byes = [b for r in s.exec(select(Round).where(Round.tournament_id == tid)) for b in r.byes]
    assert t is not None
    pts: dict[str, float] = defaultdict(float)
    n: dict[str, int] = defaultdict(int)
    wins: dict[str, float] = defaultdict(float)
    for g in games_of(site, tid):
        if g.status != "completed":
            continue
        p = points(g.ranks, t.seats)
        firsts = g.ranks.count(1)
        for seat, bot in enumerate(g.seating):
            pts[bot] += p[seat]
            n[bot] += 1
            if g.ranks[seat] == 1:
                wins[bot] += 1 / firsts
    for bot in byes:
        pts[bot] += (t.seats - 1) / 2 * t.games_per_match
    rows = table_rows(page(site, f"tournament/{tid}.html").find("table", id="standings-table"))
    assert sorted(tr.get("data-bot") for tr in rows) == sorted(entries)
    shown = []
    for tr in rows:
        bot = tr.get("data-bot")
        assert float(cell(tr, "points")) == pytest.approx(pts[bot], abs=0.006)
        assert int(cell(tr, "games")) == n[bot]
        assert float(cell(tr, "wins")) == pytest.approx(wins[bot], abs=0.006)
        shown.append((int(cell(tr, "rank")), float(cell(tr, "points"))))
    assert [r for r, _ in shown] == sorted(r for r, _ in shown)
    assert [p for _, p in shown] == sorted((p for _, p in shown), reverse=True)


def test_standings_show_the_rank_of_the_events_fitted_rating_and_the_leaders_los(
    site: Site,
) -> None:
    for tid in (site.swiss, site.brutal):
        fit = fit_ratings(
            GameResult(tuple(g.seating), tuple(g.ranks))
            for g in games_of(site, tid)
            if g.status == "completed"
        )
        doc = page(site, f"tournament/{tid}.html")
        rows = table_rows(doc.find("table", id="standings-table"))
        for tr in rows:
            bot = tr.get("data-bot")
            assert int(cell(tr, "elo-rank")) == fit.players.index(bot) + 1
            assert int(cell(tr, "elo")) == pytest.approx(fit.ratings[bot], abs=0.51)
        first, second = rows[0].get("data-bot"), rows[1].get("data-bot")
        shown = doc.find("p", cls="los").find("strong", cls="los-value").clean()
        assert float(shown.rstrip("%")) == pytest.approx(100 * fit.los(first, second), abs=0.051)


def test_every_round_table_shows_each_games_place_and_total(site: Site) -> None:
    tid = site.swiss
    doc = page(site, f"tournament/{tid}.html")
    with Session(get_engine(site.url)) as s:
        t = s.get(Tournament, tid)
        rounds = list(s.exec(select(Round).where(Round.tournament_id == tid)))
        matches = list(s.exec(select(Match).where(Match.tournament_id == tid)))
    assert t is not None
    assert len(doc.find_all("section", cls="round")) == len(rounds) == t.rounds
    by_match: dict[int, list[Game]] = defaultdict(list)
    for g in games_of(site, tid):
        by_match[g.match_id].append(g)
    for m in matches:
        table = doc.find("table", cls="match", data_match=str(m.id))
        games = sorted(by_match[m.id], key=lambda g: g.index)
        assert len(games) == m.games
        rows = table_rows(table)
        assert [tr.get("data-bot") for tr in rows] == m.seats
        for tr in rows:
            bot = tr.get("data-bot")
            cells = tr.find_all("td", cls="result")
            assert len(cells) == len(games)
            total_pts = 0.0
            for td, g in zip(cells, games, strict=True):
                seat = g.seating.index(bot)
                assert int(td.find("span", cls="place").clean()) == g.ranks[seat]
                assert td.find("span", cls="total").clean() == f"({g.totals[seat]})"
                assert td.find("a").get("href") == f"../game/{g.id}.html"
                total_pts += points(g.ranks, t.seats)[seat]
            assert float(cell(tr, "points")) == pytest.approx(total_pts, abs=0.006)


def test_crosstable_is_the_head_to_head_placement_record(site: Site) -> None:
    tid = site.swiss
    rec: dict[tuple[str, str], list[int]] = defaultdict(lambda: [0, 0, 0])
    for g in games_of(site, tid):
        for i, a in enumerate(g.seating):
            for j, b in enumerate(g.seating):
                if i != j:
                    r = rec[(a, b)]
                    r[0 if g.ranks[i] < g.ranks[j] else 1 if g.ranks[i] > g.ranks[j] else 2] += 1
    table = page(site, f"tournament/{tid}.html").find("table", cls="crosstable")
    checked = 0
    for tr in table_rows(table):
        a = tr.get("data-bot")
        for td in tr.find_all("td"):
            b = td.get("data-opponent")
            if b is None:
                continue
            if (a, b) not in rec:
                assert td.clean() == ""
                continue
            above, below, tied = rec[(a, b)]
            assert int(td.find("span", cls="above").clean()) == above
            assert int(td.find("span", cls="below").clean()) == below
            assert int(td.find("span", cls="tied").clean()) == tied
            checked += 1
    assert checked == len(rec)


def test_seat_statistics_are_win_rates_by_seat_position(site: Site) -> None:
    tid = site.swiss
    stat: dict[tuple[int, int], list[float]] = defaultdict(lambda: [0, 0.0])
    for g in games_of(site, tid):
        firsts = g.ranks.count(1)
        for s, r in enumerate(g.ranks):
            stat[(len(g.seating), s)][0] += 1
            if r == 1:
                stat[(len(g.seating), s)][1] += 1 / firsts
    table = page(site, f"tournament/{tid}.html").find("table", cls="seat-stats")
    rows = table_rows(table)
    assert len(rows) == len(stat)
    for tr in rows:
        games, wins = stat[(int(tr.get("data-table")), int(tr.get("data-seat")))]
        assert int(cell(tr, "games")) == games
        assert float(cell(tr, "wins")) == pytest.approx(wins, abs=0.006)
        assert float(cell(tr, "rate").rstrip("%")) == pytest.approx(100 * wins / games, abs=0.051)


def test_tournament_page_states_the_format_parameters_and_seed(site: Site) -> None:
    with Session(get_engine(site.url)) as s:
        t = s.get(Tournament, site.brutal)
    assert t is not None
    doc = page(site, f"tournament/{t.id}.html")
    params = doc.find("dl", cls="params")
    pairs = dict(
        zip(
            [dt.clean() for dt in params.find_all("dt")],
            [dd.clean() for dd in params.find_all("dd")],
            strict=True,
        )
    )
    assert pairs["format"] == "round-robin"
    assert pairs["variant"] == "vengeance (brutal)"
    assert pairs["seats per table"] == str(t.seats)
    assert pairs["rounds"] == str(t.rounds)
    assert pairs["games per table"] == str(t.games_per_match)
    seed, _, note = pairs["seed"].partition(" ")
    assert seed == str(t.seed)
    assert "reproducible" in note and "predict every deal" in note  # guessable, and says so
    assert pairs["max strikes"] == str(t.options["max_strikes"])


def test_fault_table_counts_every_stored_fault_by_kind_and_bot(site: Site) -> None:
    counts: dict[tuple[str, str], int] = defaultdict(int)
    for g in games_of(site, site.faulty):
        for f in g.faults:
            counts[(f["bot"] or "(arena)", f["kind"])] += 1
    assert counts, "the crashing bot left faults"
    assert any(k == "CRASH" for _, k in counts)
    table = page(site, f"tournament/{site.faulty}.html").find("table", id="fault-table")
    seen = {}
    for tr in table_rows(table):
        for td in tr.find_all("td"):
            kind = td.get("data-kind")
            if kind and td.clean():
                seen[(tr.get("data-bot"), kind)] = int(td.clean())
    assert seen == dict(counts)
    # a clean event says so
    clean = page(site, f"tournament/{site.swiss}.html").find("section", id="faults")
    assert "No faults" in clean.clean()


# ---------------------------------------------------------------- bot
def test_bot_page_games_opponents_and_faults_match_the_database(site: Site) -> None:
    games = games_of(site)
    for bot in ("ev", "crasher", XSS):
        doc = page(site, f"bot/{slug(bot)}.html")
        mine = [g for g in games if bot in g.seating]
        rows = table_rows(doc.find("table", cls="games"))
        assert [int(tr.get("data-game")) for tr in rows] == [g.id for g in mine]
        for tr, g in zip(rows, mine, strict=True):
            s = g.seating.index(bot)
            assert cell(tr, "place") == f"{g.ranks[s]} / {len(g.seating)}"
            assert int(cell(tr, "total")) == g.totals[s]
        opp: dict[str, list[int]] = defaultdict(lambda: [0, 0, 0])
        for g in mine:
            me = g.seating.index(bot)
            for j, other in enumerate(g.seating):
                if j != me:
                    r = opp[other]
                    a, b = g.ranks[me], g.ranks[j]
                    r[0 if a < b else 1 if a > b else 2] += 1
        shown = {
            tr.get("data-opponent"): [
                int(cell(tr, "above")),
                int(cell(tr, "below")),
                int(cell(tr, "tied")),
            ]
            for tr in table_rows(doc.find("table", cls="by-opponent"))
        }
        assert shown == dict(opp)
        faults = [f for g in mine for f in g.faults if f["bot"] == bot]
        assert len(doc.find_all("article", cls="fault")) == len(faults)


def test_bot_page_shows_one_elo_per_board_and_its_history_round_by_round(site: Site) -> None:
    """One Elo figure per board (the leaderboard's), and a chart with one point per round
    of that board from the bot's first (the fit re-run after each round), plus the start."""
    with Session(get_engine(site.url)) as s:
        brutal = {t.id: t.brutal for t in s.exec(select(Tournament))}
        round_of = {m.id: m.round_id for m in s.exec(select(Match))}
    doc = page(site, f"bot/{slug('ev')}.html")
    sections = doc.find("section", id="ratings").find_all("section", cls="rating")
    assert [(x.get("data-variant"), x.get("data-brutal") == "true") for x in sections] == (
        boards_of(site)
    )
    for section in sections:
        variant, is_brutal = section.get("data-variant"), section.get("data-brutal") == "true"
        mine = [
            g
            for g in games_of(site)
            if g.status == "completed"
            and g.variant == variant
            and brutal[g.tournament_id] == is_brutal
        ]
        last: dict[int, int] = {}
        for g in mine:
            last[round_of[g.match_id]] = g.id
        order = sorted(last, key=last.__getitem__)
        first = min(order.index(round_of[g.match_id]) for g in mine if "ev" in g.seating)
        line = section.find("polyline")
        assert len(line.get("points").split()) == len(order) - first + 1
        assert int(section.find("span", cls="rounds").clean()) == len(order) - first
        n = sum(1 for g in mine if "ev" in g.seating)
        assert int(section.find("span", cls="games").clean()) == n
        (row,) = [
            r
            for r in leaderboard_rows(site.url, variant=variant, brutal=is_brutal)
            if r["bot"] == "ev"
        ]
        (elo,) = section.find_all(cls="elo")  # the one Elo figure of this board
        assert abs(int(elo.clean()) - row["elo"]) <= 0.51


def test_bot_page_lists_results_by_tournament(site: Site) -> None:
    doc = page(site, f"bot/{slug(QUOTED)}.html")
    rows = table_rows(doc.find("table", cls="by-tournament"))
    assert [int(tr.get("data-tournament")) for tr in rows] == [site.swiss]
    swiss = {
        tr.get("data-bot"): tr
        for tr in table_rows(
            page(site, f"tournament/{site.swiss}.html").find("table", id="standings-table")
        )
    }
    assert cell(rows[0], "points") == cell(swiss[QUOTED], "points")
    assert cell(rows[0], "rank").split(" / ")[0] == cell(swiss[QUOTED], "rank")


# ---------------------------------------------------------------- game
def test_game_page_result_events_and_download(site: Site) -> None:
    for g in games_of(site)[::5]:
        doc = page(site, f"game/{g.id}.html")
        rows = table_rows(doc.find("table", id="result"))
        assert len(rows) == len(g.seating)
        for tr in rows:
            s = int(tr.get("data-seat"))
            assert tr.find("td", cls="bot").clean() == g.seating[s]
            assert int(cell(tr, "place")) == g.ranks[s]
            assert int(cell(tr, "total")) == g.totals[s]
        items = doc.find("ol", id="events").find_all("li")
        assert len(items) == len(g.events)
        assert [int(li.get("data-step")) for li in items] == list(range(1, len(g.events) + 1))
        link = doc.find("a", id="download")
        assert link.get("href") == f"{g.id}.jsonl"
        lines = (site.out / "game" / f"{g.id}.jsonl").read_text(encoding="utf-8").splitlines()
        assert [json.loads(x) for x in lines] == g.events
        data = json.loads(doc.find("script", id="replay-data").text())
        assert len(data["steps"]) == len(g.events)
        assert data["seats"] == len(g.seating)
        assert "seed" in doc.find("p", cls="sub").clean() and str(g.seed) in doc.clean()


def test_game_with_a_forfeit_seat_is_replayed_too(site: Site) -> None:
    faulty = [g for g in games_of(site, site.faulty) if g.faults]
    assert faulty
    for g in faulty:
        doc = page(site, f"game/{g.id}.html")
        assert doc.find_all("script", id="replay-data"), "the replay reproduces the game"
        kinds = {f["kind"] for f in g.faults}
        assert any(k in doc.find("table", id="result").clean() for k in kinds)


def test_game_page_charts_every_seats_total_after_each_round(site: Site) -> None:
    """The score chart: a point per round and seat at the stored round_end totals, each
    linking to the step of that round's scoring; a legend with every seat's name."""
    for g in games_of(site)[::4]:
        doc = page(site, f"game/{g.id}.html")
        ends = [(i + 1, e) for i, e in enumerate(g.events) if e["kind"] == "round_end"]
        assert len(ends) == g.rounds
        chart = doc.find("svg", id="score-chart")
        for seat in range(len(g.seating)):
            (group,) = chart.find_all("g", cls="seat", **{"data-seat": str(seat)})
            circles = group.find_all("circle", cls="point")
            assert [int(c.get("data-total")) for c in circles] == [
                e["totals"][seat] for _, e in ends
            ]
            links = [a.get("href") for a in group.find_all("a")]
            assert links == [f"#step-{i}" for i, _ in ends]
        assert circles[-1].get("data-total") == str(g.totals[-1])
        legend = [li.clean() for li in doc.find("ul", cls="chart-legend").find_all("li")]
        assert legend == list(g.seating)


def test_game_page_ships_one_move_per_stored_answer(site: Site) -> None:
    """The replay's data: every stored choice is a move, at a step where the engine asked,
    with the option chosen inside the options shown."""
    for g in games_of(site)[::3]:
        data = json.loads(page(site, f"game/{g.id}.html").find("script", id="replay-data").text())
        moves = data["moves"]
        assert [m[4] for m in moves] == g.choices
        assert data["names"] == g.seating
        steps = [m[0] for m in moves]
        assert steps == sorted(steps) and all(0 <= s < len(g.events) for s in steps)
        for _step, seat, _question, options, chosen, bust, _auto in moves:
            assert 0 <= chosen < len(options) and 0 <= seat < len(g.seating)
            if bust is not None:
                assert 0 <= bust[0] <= bust[1] and bust[2].endswith(" %")
