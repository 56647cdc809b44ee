"""Flip 7 as an OpenSpiel game: ``pyspiel.load_game("flip7")`` once this module is imported.

    import pyspiel
    import arena.envs.openspiel  # registers "flip7"
    game = pyspiel.load_game("flip7", {"players": 3, "variant": "vengeance", "brutal": True})

Parameters: ``players`` (1–18, default 2), ``variant`` (``base`` or ``vengeance``),
``brutal`` (bool), ``target_score`` (default 200).

Every card that leaves the draw pile is an explicit chance node: its outcomes are the
labels still in the pile (or, when the pile is empty, in the discard pile about to be
reshuffled), each with its share of the pile, so the deck is never shuffled in advance and
no state holds a hidden order. With the draws at chance nodes and every card face up,
Flip 7 is a game of perfect information with chance (like backgammon): an information
state is the public history, the same for every seat but for whose it is.

* Player actions are option indices (:mod:`arena.envs.encoding`): action ``i`` answers the
  pending decision with its option ``i``; chance actions are card labels, numbered in
  sorted order (``state.action_to_string`` names both).
* ``information_state_string(p)``: the seat, then every public event so far (the engine's
  event log: deals, draws, choices, busts, round ends, reshuffles), one per line;
  ``observation_string(p)`` and ``observation_tensor(p)``: the public state now, from
  ``p``'s chair (:class:`arena.envs.encoding.Encoding`, built from :func:`engine.observe`).
* Returns come at the end, as in the PettingZoo environment: the share of the other seats a
  seat beat minus the share that beat it (zero-sum, −1 to +1).

How: the engine draws inside its rules, so a state's game draws the labels it is given
(engine.Game.draw_label) and stops at the first draw it has no label for: the state is then
a chance node. Its outcome resumes the game from a clone taken at the last decision
(:class:`_Position`). Python OpenSpiel games are for algorithms and tests; the engine
itself is the fast path.
"""

from __future__ import annotations

from collections import Counter
from typing import Any

import numpy as np
import pyspiel

from arena.envs.encoding import Encoding, max_options, outcome
from engine import Game, Ruleset, get_ruleset, observe
from engine.cards import Card

SHORT_NAME = "flip7"
MAX_PLAYERS = 18
DEFAULTS: dict[str, Any] = {"players": 2, "variant": "base", "brutal": False, "target_score": 200}
# every label of both variants: chance action ids are indices into it
LABELS = sorted({c.label for v in ("base", "vengeance") for c in get_ruleset(v).cards})
LABEL_ID = {label: i for i, label in enumerate(LABELS)}
# a bound on the player decisions of one game (the engine ends every game: at most
# max_tie_rounds rounds past the target, each of a bounded number of decisions)
MAX_GAME_LENGTH = 100_000

GAME_TYPE = pyspiel.GameType(
    short_name=SHORT_NAME,
    long_name="Flip 7",
    dynamics=pyspiel.GameType.Dynamics.SEQUENTIAL,
    chance_mode=pyspiel.GameType.ChanceMode.EXPLICIT_STOCHASTIC,
    information=pyspiel.GameType.Information.PERFECT_INFORMATION,
    utility=pyspiel.GameType.Utility.ZERO_SUM,
    reward_model=pyspiel.GameType.RewardModel.TERMINAL,
    max_num_players=MAX_PLAYERS,
    min_num_players=1,
    provides_information_state_string=True,
    provides_information_state_tensor=False,
    provides_observation_string=True,
    provides_observation_tensor=True,
    parameter_specification=DEFAULTS,
)


class _NeedCard(Exception):
    """The replay reached a draw past the history: the state is a chance node."""


class _Dealt(Game):
    """A game whose draws are the labels of ``script``, in turn; a draw past its end
    raises :class:`_NeedCard` (with the pile as it is at that moment)."""

    script: list[str]
    at: int

    def draw(self) -> Card | None:
        if not self.deck and not self.discard:
            return None  # nothing to draw: no chance at all
        if self.at == len(self.script):
            raise _NeedCard
        label = self.script[self.at]
        self.at += 1
        return self.draw_label(label)


def _dealt(game: Game, script: list[str]) -> _Dealt:
    """``game`` (a plain clone) turned into a :class:`_Dealt` whose next draws are
    ``script``."""
    game.__class__ = _Dealt
    assert isinstance(game, _Dealt)
    game.script = script
    game.at = 0
    return game


class _Position:
    """A history and its game: ``draws`` (the labels drawn) and ``choices`` (the options
    chosen), the game as it is (``chance`` false) or as it stopped at the first draw past
    the history (``chance``: the game is then only read, never stepped).

    To resume after a chance outcome, the game is rebuilt from ``base``, a clone taken at
    the last decision (before its choice, the last of ``choices``), which then makes that
    choice again with the cards drawn since (``pending``) — or, before the first decision,
    from the start. A clone costs the round so far (engine.Game.clone), so a state moves on
    at the cost of its round, whatever the length of the game.
    """

    def __init__(self, rules: Ruleset, seats: int) -> None:
        self.rules = rules
        self.seats = seats
        self.draws: list[str] = []
        self.choices: list[int] = []
        self.base: Game | None = None  # never stepped: only cloned
        self.pending: list[str] = []
        self.game: Game = Game.__new__(Game)
        self.chance = False
        self.resume()

    def resume(self) -> None:
        """Rebuild the game from ``base`` (or the start) with the ``pending`` draws."""
        try:
            if self.base is None:
                g = _Dealt.__new__(_Dealt)
                g.script = self.pending
                g.at = 0
                self.game = g
                Game.__init__(g, self.rules, self.seats, 0)
            else:
                self.game = _dealt(self.base.clone(), self.pending)
                self.game.step(self.choices[-1])
        except _NeedCard:
            self.chance = True
        else:
            self.chance = False

    def __deepcopy__(self, memo: dict[int, Any]) -> _Position:
        # pyspiel clones a Python state by deep-copying its attributes; a game holds a
        # generator, which cannot be copied: the copy clones or rebuilds it instead
        other = _Position.__new__(_Position)
        other.rules, other.seats, other.base = self.rules, self.seats, self.base
        other.draws, other.choices = self.draws[:], self.choices[:]
        other.pending = self.pending[:]
        if self.chance:
            other.resume()
        else:
            other.game = _dealt(self.game.clone(), [])
            other.chance = False
        return other

    def draw(self, label: str) -> None:
        self.draws.append(label)
        self.pending.append(label)
        self.resume()

    def choose(self, option: int) -> None:
        g = self.game
        assert isinstance(g, _Dealt)
        self.base = g.clone()
        self.pending = []
        self.choices.append(option)
        g.script = self.pending
        g.at = 0
        try:
            g.step(option)
        except _NeedCard:
            self.chance = True


class Flip7Game(pyspiel.Game):
    def __init__(self, params: dict[str, Any] | None = None) -> None:
        p = {**DEFAULTS, **(params or {})}
        seats = int(p["players"])
        if not 1 <= seats <= MAX_PLAYERS:
            raise ValueError(f"players must be between 1 and {MAX_PLAYERS}")
        self.rules = get_ruleset(
            str(p["variant"]), brutal=bool(p["brutal"]), target_score=int(p["target_score"])
        )
        self.seats = seats
        self.encoding = Encoding(self.rules, seats)
        info = pyspiel.GameInfo(
            num_distinct_actions=max_options(self.rules, seats),
            max_chance_outcomes=len(LABELS),
            num_players=seats,
            min_utility=-1.0 if seats > 1 else 0.0,
            max_utility=1.0 if seats > 1 else 0.0,
            utility_sum=0.0,
            max_game_length=MAX_GAME_LENGTH,
        )
        super().__init__(GAME_TYPE, info, p)

    def new_initial_state(self) -> Flip7State:
        return Flip7State(self)

    def make_py_observer(
        self, iig_obs_type: Any = None, params: dict[str, Any] | None = None
    ) -> Flip7Observer:
        if params:
            raise ValueError(f"observation parameters not supported: {params}")
        history = iig_obs_type is not None and iig_obs_type.perfect_recall
        return Flip7Observer(self.encoding, history)


class Flip7State(pyspiel.State):
    def __init__(self, game: Flip7Game) -> None:
        super().__init__(game)
        self.seats = game.seats
        self.at = _Position(game.rules, game.seats)

    @property
    def game(self) -> Game:
        return self.at.game

    def current_player(self) -> int:
        if self.at.chance:
            return int(pyspiel.PlayerId.CHANCE)
        d = self.game.decision
        return int(pyspiel.PlayerId.TERMINAL) if d is None else d.seat

    def _legal_actions(self, player: int) -> list[int]:
        d = self.game.decision
        assert d is not None and d.seat == player and not self.at.chance
        return list(range(len(d.options)))

    def chance_outcomes(self) -> list[tuple[int, float]]:
        assert self.at.chance
        g = self.game
        counts = Counter(c.label for c in (g.deck or g.discard))
        total = sum(counts.values())
        return [(LABEL_ID[lb], n / total) for lb, n in sorted(counts.items())]

    def _apply_action(self, action: int) -> None:
        if self.at.chance:
            self.at.draw(LABELS[action])
        else:
            self.at.choose(action)

    def _action_to_string(self, player: int, action: int) -> str:
        if player == pyspiel.PlayerId.CHANCE:
            return f"draw {LABELS[action]}"
        d = self.game.decision
        if d is not None and d.seat == player and not self.at.chance and action < len(d.options):
            return f"{d.kind} {d.options[action]}"
        return f"option {action}"

    def is_terminal(self) -> bool:
        return not self.at.chance and self.game.over

    def returns(self) -> list[float]:
        if not self.is_terminal():
            return [0.0] * self.seats
        return [outcome(self.game, s) for s in range(self.seats)]

    def public(self, player: int) -> dict[str, Any]:
        """:func:`engine.observe` from ``player``'s chair (no decision at a chance node)."""
        obs = observe(self.game, player)
        if self.at.chance:
            obs.pop("decision", None)
        return obs

    def __str__(self) -> str:
        g = self.game
        drawing = ", drawing" if self.at.chance else ""
        lines = [f"round {g.round}, draw pile {len(g.deck)}{drawing}"]
        for p in g.players:
            cards = " ".join(c.label for c in (*p.numbers, *p.modifiers))
            lines.append(f"seat {p.seat}: {p.total} {p.status} {cards}")
        return "\n".join(lines)


class Flip7Observer:
    """OpenSpiel's PyObserver: with ``history`` the information state (the public event
    log, as a string only), else the public state now (a string and the encoded tensor)."""

    def __init__(self, encoding: Encoding, history: bool) -> None:
        self.encoding = encoding
        self.history = history
        self.tensor = None if history else np.zeros(encoding.size, np.float32)
        self.dict = {} if history else {"observation": self.tensor}

    def set_from(self, state: Flip7State, player: int) -> None:
        if self.tensor is not None:
            self.tensor[:] = self.encoding.encode(state.public(player))

    def string_from(self, state: Flip7State, player: int) -> str:
        if self.history:
            events = "\n".join(" ".join(map(str, e)) for e in state.game.events)
            return f"seat {player}\n{events}"
        obs = state.public(player)
        players = "; ".join(
            f"{p['seat']}: {p['total']} {p['status']} {' '.join(p['numbers'] + p['modifiers'])}"
            for p in obs["players"]
        )
        d = obs.get("decision")
        asked = f" | {d['kind']} {d['card'] or ''} {d['options']}" if d else ""
        return (
            f"seat {player} | round {obs['round']} | pile {obs['deck_size']} | "
            f"discard {len(obs['discard'])} | {players}{asked}"
        )


def register() -> None:
    """Register the game with pyspiel (done on import; a second call changes nothing)."""
    if SHORT_NAME not in pyspiel.registered_names():
        pyspiel.register_game(GAME_TYPE, Flip7Game)


register()

__all__ = ["GAME_TYPE", "LABELS", "Flip7Game", "Flip7Observer", "Flip7State", "register"]
