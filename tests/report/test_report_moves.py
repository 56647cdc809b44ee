"""What the replay tells spectators about each decision, checked against the engine itself.

* The bust chance printed at a hit-or-stay is the share of the draw pile whose card would
  bust the seat when drawn: checked by trying every card of the pile on top of a copy of
  the game and hitting (both variants, every hit-or-stay of several games).
* The arena's moves for a forfeited seat are marked, its own earlier moves are not.
* Names wrap only between words (<wbr>), the text itself unchanged and escaped.
* The public report shortens the organiser's paths, the private copy keeps them.
"""

from __future__ import annotations

import random

import pytest
from markupsafe import Markup

from arena.report.moves import bust_odds, bust_text, mark_forfeits, move_of, score_rounds
from arena.report.privacy import Shown, shorten_paths
from arena.report.site import WORD_CHUNK, breakable
from engine import HIT_OR_STAY, Game, get_ruleset
from engine.events import event_dict


def busts_by_trying_every_card(game: Game, seat: int) -> tuple[int, int]:
    """(cards of the draw pile that bust ``seat`` when a hit draws them now, cards in the
    pile), by trying each card on top of a copy of the game."""
    hit = game.decision.options.index("HIT")  # type: ignore[union-attr]
    busting = 0
    for i in range(len(game.deck)):
        trial = game.clone(record_events=True)
        trial.deck[i], trial.deck[-1] = trial.deck[-1], trial.deck[i]  # that card on top
        top = trial.deck[-1].label
        before = len(trial.events)
        trial.step(hit)
        # the card drawn busts the seat (not a later one a Flip Three draws; the round may
        # then end and reset the seat, so the events tell, not the seat's status)
        outcome = [event_dict(e) for e in trial.events[before:]]
        busting += any(
            e["kind"] == "bust" and e["seat"] == seat and e["card"] == top for e in outcome
        )
    return busting, len(game.deck)


@pytest.mark.parametrize("variant", ["base", "vengeance"])
def test_the_bust_chance_is_the_share_of_the_pile_that_busts_the_seat(variant: str) -> None:
    rules = get_ruleset(variant)
    rng = random.Random(11)
    checked = with_busts = with_second_chance = 0
    for seed in range(6):
        game = Game(rules, 3, seed)
        here = checked
        while not game.over and checked < here + 60:
            d = game.decision
            assert d is not None
            if d.kind == HIT_OR_STAY and game.deck:
                odds = bust_odds(game, d.seat)
                assert odds == busts_by_trying_every_card(game, d.seat), (seed, game.round)
                checked += 1
                with_busts += odds[0] > 0
                with_second_chance += bool(game.players[d.seat].extras)
            game.step(rng.randrange(len(d.options)))
    assert checked >= 200 and with_busts >= 40
    if variant == "base":  # a held Second Chance absorbs a duplicate: nothing busts
        assert with_second_chance >= 1


def test_the_bust_chance_is_printed_with_one_decimal() -> None:
    assert bust_text((7, 54)) == "13.0 %"
    assert bust_text((1, 3)) == "33.3 %"
    assert bust_text((0, 0)) == "0.0 %"


def test_a_forfeited_seats_moves_from_its_forfeit_on_are_marked_auto() -> None:
    """A seat answers with a non-default choice in round 1, then forfeits in round 2: the
    arena's defaults from there on are auto, its own round-1 moves are not."""
    rules = get_ruleset("base")
    game = Game(rules, 2, 5)
    moves = []
    while not game.over:
        d = game.decision
        assert d is not None
        mine = d.seat == 0
        if mine and game.round >= 2:
            choice = move_of(game, d, 0).default  # the arena plays the default
        elif d.kind == HIT_OR_STAY and game.round == 1 and mine:
            choice = d.options.index("HIT") if len(game.players[0].numbers) < 2 else 1
        else:
            choice = d.options.index("STAY") if "STAY" in d.options else 0
        moves.append(move_of(game, d, choice))
        game.step(choice)
    assert any(m.round == 1 and m.seat == 0 and m.chosen != m.default for m in moves)
    (forfeit,) = mark_forfeits(
        moves, [{"seat": 0, "round": 2, "forfeit": True, "kind": "CRASH"}, {"seat": 1}]
    )
    seat0 = [m for m in moves if m.seat == 0]
    assert [m.auto for m in seat0] == [m.round >= 2 for m in seat0]
    assert not any(m.auto for m in moves if m.seat == 1), "a fault without forfeit marks none"
    assert forfeit.step == next(m.step for m in seat0 if m.round >= 2)
    assert (forfeit.seat, forfeit.round, forfeit.kind) == (0, 2, "CRASH")


def test_score_rounds_come_from_the_round_end_events() -> None:
    events = [
        {"kind": "round_start", "round": 1},
        {"kind": "round_end", "round": 1, "totals": [10, 0]},
        {"kind": "round_start", "round": 2},
        {"kind": "round_end", "round": 2, "totals": [10, 25]},
    ]
    assert score_rounds(events) == [(1, 2, [10, 0]), (2, 4, [10, 25])]


# ---------------------------------------------------------------- names
@pytest.mark.parametrize(
    ("name", "pieces"),
    [
        ("threshold:23", ["threshold:", "23"]),
        ("ev", ["ev"]),
        ("MyBot_v2", ["My", "Bot_", "v2"]),
        ("<script>alert(1)</script>", ["&lt;script&gt;", "alert", "(1)", "&lt;/", "script&gt;"]),
        ("a" * 40, ["a" * WORD_CHUNK, "a" * WORD_CHUNK, "a" * (40 - 2 * WORD_CHUNK)]),
    ],
)
def test_names_may_wrap_only_between_words(name: str, pieces: list[str]) -> None:
    out = breakable(name)
    assert isinstance(out, Markup)
    assert str(out).split("<wbr>") == pieces
    assert Markup(str(out).replace("<wbr>", "")).unescape() == name, "the text is unchanged"


# ---------------------------------------------------------------- privacy
@pytest.mark.parametrize(
    ("text", "public"),
    [
        ("/usr/bin/python3 /home/org/bots/ev/bot.py 18", "…/python3 …/bot.py 18"),
        # a relative path is cut like an absolute one (it told the organiser's layout)
        ("python bots/ev/bot.py", "python …/bot.py"),
        ("node ./dist/index.js --fast", "node …/index.js --fast"),
        ("crash=python3 tests/bots/crash_at_start.py", "crash=python3 …/crash_at_start.py"),
        ("3/4 of the time, 1/2", "3/4 of the time, 1/2"),  # numbers are not paths
        ("image docker:flip7/python-base:latest", "image docker:flip7/python-base:latest"),
        ("node '/srv/my bots/x/main.js'", "node '…/main.js'"),
        ("see http://example.org/a/b", "see http://example.org/a/b"),
        ("cards /2 and ×2", "cards /2 and ×2"),
        ("~/arena/kit/bot --fast", "…/bot --fast"),
    ],
)
def test_the_public_report_cuts_paths_to_the_file_name(text: str, public: str) -> None:
    assert shorten_paths(text) == public
    assert Shown(private=False).text(text) == public
    assert Shown(private=True).text(text) == text


def test_only_the_private_copy_shows_a_faults_log() -> None:
    fault = {"kind": "CRASH", "log_tail": "Traceback ...\nValueError: boom\n"}
    assert Shown(private=False).log(fault) is None
    assert Shown(private=True).log(fault) == fault["log_tail"]
    assert Shown(private=True).log({"kind": "CRASH", "log_tail": ""}) is None
