"""The replay for spectators, in a real headless Chromium at phone and desktop sizes.

Autoplay runs on the page's own timers, which Playwright's clock drives here: the test
moves time forward by exact amounts instead of waiting, so "one step a second" is checked
as one step per simulated second. What the page shows at a step is compared with what the
engine says about the stored game (``build_replay``: the decisions, their options, the
choice, the bust chance, the moves the arena played for a forfeited seat).
"""

from __future__ import annotations

import re
from typing import Any

import pytest
from browserkit import DESKTOP, PHONE, a_game, url_of
from reportkit import Site
from sqlmodel import Session, select

from arena.report.moves import Move, bust_text, mark_forfeits
from arena.report.replay import build_replay, card_names
from arena.report.site import slug
from arena.store.db import get_engine
from arena.store.models import Game, Tournament

SIZES = [pytest.param(PHONE, id="phone"), pytest.param(DESKTOP, id="desktop")]


def replay_of(site: Site, game: Game) -> tuple[list[Move], list[Any]]:
    """The game's moves (forfeits marked) and its forfeits, from the engine."""
    with Session(get_engine(site.url)) as s:
        t = s.get(Tournament, game.tournament_id)
    assert t is not None
    r = build_replay(
        game.variant, t.brutal, len(game.seating), game.seed, game.choices, game.events
    )
    assert r.states is not None
    forfeits = mark_forfeits(r.moves, game.faults)
    return r.moves, forfeits


def step_shown(page: Any) -> int:
    text = page.text_content("#replay-step")
    m = re.fullmatch(r"(\d+) / (\d+)", text.strip())
    assert m, text
    return int(m.group(1))


def turn_panel(page: Any) -> dict[str, Any]:
    return page.evaluate(
        """() => ({
          who: document.getElementById('replay-turn-who').textContent,
          question: document.getElementById('replay-question').textContent,
          options: Array.from(document.querySelectorAll('#replay-options li')).map(li =>
            li.firstChild.textContent),
          chosen: Array.from(document.querySelectorAll('#replay-options li')).findIndex(li =>
            li.classList.contains('chosen')),
          chosenTag: (document.querySelector('#replay-options li.chosen .chosen-tag') || {})
            .textContent || null,
          bust: document.getElementById('replay-bust').hidden ? null :
            document.getElementById('replay-bust').textContent,
          busting: document.getElementById('replay-bust').dataset.busting,
          pile: document.getElementById('replay-bust').dataset.pile,
          auto: document.getElementById('replay-auto').hidden ? null :
            document.getElementById('replay-auto').textContent,
          turnRows: Array.from(document.querySelectorAll('#table-state tbody tr.turn')).map(tr =>
            Number(tr.dataset.seat)),
        })"""
    )


# ---------------------------------------------------------------- autoplay
@pytest.mark.parametrize("viewport", SIZES)
def test_autoplay_steps_at_the_chosen_speed_pauses_and_stops_at_the_end(
    site: Site, watched: Any, viewport: dict[str, int]
) -> None:
    game = a_game(site, site.swiss)
    n = len(game.events)
    w = watched(viewport)
    w.page.clock.install()
    page = w.open(url_of(site, f"game/{game.id}.html"))
    assert step_shown(page) == 0
    assert page.get_attribute("#replay-play", "aria-pressed") == "false"

    page.click("#replay-play")  # 1× by default: a step a second
    assert page.get_attribute("#replay-play", "aria-pressed") == "true"
    page.clock.run_for(3000)
    assert step_shown(page) == 3
    assert page.evaluate("location.hash") == "#step-3", "the address follows the replay"

    page.select_option("#replay-speed", "250")  # 4×
    page.clock.run_for(2000)
    assert step_shown(page) == 3 + 8

    page.click("#replay-play")  # pause
    assert page.get_attribute("#replay-play", "aria-pressed") == "false"
    page.clock.run_for(10_000)
    assert step_shown(page) == 11, "paused: time passes, the replay does not move"

    page.select_option("#replay-speed", "100")
    page.click("#replay-play")
    page.clock.run_for(100 * n)  # more than enough for the rest of the game
    assert step_shown(page) == n
    assert page.get_attribute("#replay-play", "aria-pressed") == "false", "stops at the end"
    assert page.is_disabled("#replay-forward")
    assert w.problems == []


# ---------------------------------------------------------------- a link to a step
@pytest.mark.parametrize("viewport", SIZES)
def test_a_link_to_a_step_opens_the_replay_at_that_step(
    site: Site, watched: Any, viewport: dict[str, int]
) -> None:
    game = a_game(site, site.brutal)
    n = len(game.events)
    target = n // 2
    w = watched(viewport)
    page = w.open(url_of(site, f"game/{game.id}.html") + f"#step-{target}")
    assert step_shown(page) == target
    items = page.locator("#events li")
    assert page.text_content("#replay-event") == items.nth(target - 1).text_content()
    assert "current" in items.nth(target - 1).get_attribute("class").split()
    assert page.get_attribute("#replay-link", "href") == f"#step-{target}"
    # the page shows the replay (the table), not the event list the id also names
    page.wait_for_function(
        "() => { const r = document.getElementById('replay').getBoundingClientRect();"
        " return r.top >= -1 && r.top < window.innerHeight / 2; }"
    )

    page.click("#replay-forward")
    assert page.evaluate("location.hash") == f"#step-{target + 1}"
    assert page.get_attribute("#replay-link", "href") == f"#step-{target + 1}"

    page.evaluate("location.hash = '#step-5'")  # a link followed inside the page
    page.wait_for_function(
        "() => document.getElementById('replay-step').textContent.startsWith('5 /')"
    )
    # a round's point on the score chart opens that round's scoring
    ends = [i + 1 for i, e in enumerate(game.events) if e["kind"] == "round_end"]
    points = page.locator("#score-chart g.seat[data-seat='0'] circle.point")
    assert points.count() == len(ends) == game.rounds
    points.nth(1).click()
    assert step_shown(page) == ends[1]
    assert page.text_content("#replay-event").startswith("Round 2 scored")

    page2 = w.open(url_of(site, f"game/{game.id}.html") + f"#step-{n + 50}")
    assert step_shown(page2) == n, "past the end: the last step"
    assert w.problems == []


# ---------------------------------------------------------------- whose turn, options, choice
@pytest.mark.parametrize("viewport", SIZES)
def test_each_decision_shows_whose_turn_the_options_the_choice_and_the_bust_chance(
    site: Site, watched: Any, viewport: dict[str, int]
) -> None:
    game = a_game(site, site.brutal)
    moves, _ = replay_of(site, game)
    assert len(moves) == len(game.choices), "one move per stored answer"
    cards = card_names(game.variant)
    w = watched(viewport)
    page = w.open(url_of(site, f"game/{game.id}.html"))
    hits = [m for m in moves if m.kind == "HIT_OR_STAY"]
    others = [m for m in moves if m.kind != "HIT_OR_STAY"]
    assert hits and others, "the game has hit-or-stay and other decisions"
    busting = next(m for m in hits if m.bust and m.bust[0] > 0)
    chosen_hit = next(m for m in hits if m.options[m.chosen] == "HIT")
    last_at = {m.step: m for m in moves}  # the panel shows the last decision of a step
    for m in {id(x): x for x in (*hits[:3], busting, chosen_hit, *others[:4])}.values():
        if last_at[m.step] is not m:
            continue
        page.evaluate(f"location.hash = '#step-{m.step}'")
        page.wait_for_function(
            f"() => document.getElementById('replay-step').textContent.startsWith('{m.step} /')"
        )
        got = turn_panel(page)
        name = game.seating[m.seat]
        assert got["who"] == f"{name} to play:"
        assert got["turnRows"] == [m.seat], "the seat to play is marked in the table"
        assert len(got["options"]) == len(m.options)
        assert got["chosen"] == m.chosen
        assert got["chosenTag"] == "chosen"
        if m.kind == "HIT_OR_STAY":
            assert got["question"] == "hit or stay?"
            assert [o.strip() for o in got["options"]] == [str(o).lower() for o in m.options]
            assert m.bust is not None
            assert (int(got["busting"]), int(got["pile"])) == m.bust
            assert bust_text(m.bust) in got["bust"] and name in got["bust"]
        else:
            assert got["bust"] is None
            if m.card is not None and m.kind in ("CHOOSE_TARGET", "GIVE_MODIFIER"):
                assert cards[str(m.card)][0] in got["question"]
        assert got["auto"] is None
    # between decisions: whose turn comes next
    first = moves[0]
    if first.step > 0:
        page.click("#replay-first")
        assert turn_panel(page)["who"] == f"Next to play: {game.seating[first.seat]}"
    assert w.problems == []


# ---------------------------------------------------------------- forfeits
@pytest.mark.parametrize("viewport", SIZES)
def test_moves_the_arena_played_for_a_forfeited_seat_are_marked(
    site: Site, watched: Any, viewport: dict[str, int]
) -> None:
    with Session(get_engine(site.url)) as s:
        games = [
            g
            for g in s.exec(select(Game).where(Game.tournament_id == site.faulty))
            if any(f.get("forfeit") for f in g.faults)
        ]
    assert games, "the crasher forfeited"
    game = games[0]
    moves, forfeits = replay_of(site, game)
    (forfeit,) = forfeits
    seat = forfeit.seat
    fault = next(f for f in game.faults if f.get("forfeit"))
    mine = [m for m in moves if m.seat == seat]
    auto = [m for m in mine if m.auto]
    assert auto, "the arena played for the crashed seat"
    assert all(m.round >= fault["round"] for m in auto), "nothing before its forfeit round"
    assert all(m.chosen == m.default for m in auto), "each the safe default"
    assert any(not m.auto for m in mine), "its own earlier moves are its own"
    assert all(m.auto for m in mine if m.step >= auto[0].step), "and every later one is auto"

    w = watched(viewport)
    page = w.open(url_of(site, f"game/{game.id}.html"))
    note = page.locator(f".forfeit-note[data-seat='{seat}']")
    assert note.count() == 1 and game.seating[seat] in note.text_content()

    m = auto[0]
    page.evaluate(f"location.hash = '#step-{m.step}'")
    page.wait_for_function(
        f"() => document.getElementById('replay-step').textContent.startsWith('{m.step} /')"
    )
    got = turn_panel(page)
    assert got["chosen"] == m.chosen == m.default
    assert got["chosenTag"] == "played by the arena"
    assert got["auto"] is not None and got["auto"].startswith("Auto-played")
    status = page.text_content(f"#table-state tr[data-seat='{seat}'] .st-status")
    assert "forfeited" in status
    own = next(x for x in mine if not x.auto)
    page.evaluate(f"location.hash = '#step-{own.step}'")
    page.wait_for_function(
        f"() => document.getElementById('replay-step').textContent.startsWith('{own.step} /')"
    )
    assert turn_panel(page)["auto"] is None
    assert "forfeited" not in page.text_content(f"#table-state tr[data-seat='{seat}'] .st-status")

    # in the event list, the outcome of every auto-played move says so, and nothing else does
    marked = page.evaluate(
        "() => Array.from(document.querySelectorAll('#events li.auto')).map(li =>"
        " Number(li.dataset.step))"
    )
    assert marked == sorted({x.step + 1 for x in auto})
    assert page.locator("#events li.auto .auto-tag").first.text_content() == "auto-played"
    assert w.problems == []


# ---------------------------------------------------------------- names on a phone
WORDS_AND_NUMBERS = """() => {
  const width = document.documentElement.clientWidth;
  const broken = [], hidden = [];
  document.querySelectorAll('td.bot, th.bot').forEach(cell => {
    const walk = document.createTreeWalker(cell, NodeFilter.SHOW_TEXT);
    let node;
    while ((node = walk.nextNode())) {
      const re = /[A-Za-z0-9]{1,14}/g;  // a word (a longer run may wrap every 14 characters)
      let m;
      while ((m = re.exec(node.data))) {
        const r = document.createRange();
        r.setStart(node, m.index);
        r.setEnd(node, m.index + m[0].length);
        const lines = new Set(Array.from(r.getClientRects()).filter(x => x.width > 0)
          .map(x => Math.round(x.top)));
        if (lines.size > 1) broken.push(m[0] + ' in ' + cell.textContent);
      }
    }
  });
  document.querySelectorAll('td.n').forEach(td => {
    const r = td.getBoundingClientRect();
    if (r.width > 0 && (r.right > width + 0.5 || r.left < -0.5)) {
      hidden.push(td.closest('table').className + ': ' + td.textContent);
    }
  });
  return {broken, hidden, cells: document.querySelectorAll('td.bot, th.bot').length,
          numbers: document.querySelectorAll('td.n').length};
}"""


@pytest.mark.parametrize("viewport", SIZES)
def test_names_never_break_inside_a_word_and_every_number_is_on_screen(
    site: Site, watched: Any, viewport: dict[str, int]
) -> None:
    """On every kind of page, at a phone's width too: a bot's name wraps only between its
    words (``threshold:`` / ``23``, never ``thr`` / ``eshold``) and every number of every
    table is inside the screen without scrolling sideways."""
    game = a_game(site, site.faulty)
    rels = [
        "index.html",
        *(f"tournament/{t}.html" for t in (site.swiss, site.brutal, site.faulty)),
        *(f"bot/{slug(b)}.html" for b in ("threshold:23", "ev", "crasher")),
        f"game/{game.id}.html",
    ]
    w = watched(viewport)
    seen = 0
    for rel in rels:
        page = w.open(url_of(site, rel))
        got = page.evaluate(WORDS_AND_NUMBERS)
        assert got["broken"] == [], (rel, got["broken"])
        assert got["hidden"] == [], (rel, got["hidden"])
        seen += got["cells"]
        assert got["numbers"] > 0, rel
    assert seen > 50
    assert w.problems == []
