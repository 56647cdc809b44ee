"""The steppable, deterministic game state.

A game is fully determined by (ruleset, seat count, seed, choices). It runs as a generator
pipeline: the round flow and every card behaviour are generator functions that *yield* a
:class:`Decision` whenever someone must choose, and receive the chosen option index back.
Nested actions (Flip Three inside Flip Three, set-aside cards) are plain nested generators,
so there is no recursion in the driver and depth is bounded by the number of action cards.

The driver loop is::

    game = Game(RULESETS["base"], seats=4, seed=7)
    while not game.over:
        d = game.decision          # kind, seat, options
        game.step(choose(d))       # index into d.options

For search, :meth:`Game.clone` copies a game (it replays the current round from its start,
since generators cannot be copied) and :meth:`Game.determinized` (or ``determinize`` of
:mod:`engine.determinization`, from the public event log) samples a game that agrees with
everything public, the draw pile shuffled. :meth:`Game.card_locations` lists
where every card is: each card of the deck is always in exactly one place.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Generator, Iterable, Sequence
from enum import StrEnum
from typing import TYPE_CHECKING, Any, cast

from engine.cards import ACTION, MODIFIER, NUMBER, Card, CardType

if TYPE_CHECKING:
    from engine.rulesets import Ruleset

# Player status (B2)
ACTIVE = "active"
STAYED = "stayed"
FROZEN = "frozen"
BUSTED = "busted"


class DecisionKind(StrEnum):
    """What a pending decision asks (docs/rules.md, "Decision points"). Members are the
    strings they name, so ``d.kind == "HIT_OR_STAY"`` holds and they print as strings."""

    HIT_OR_STAY = "HIT_OR_STAY"
    CHOOSE_TARGET = "CHOOSE_TARGET"
    GIVE_SECOND_CHANCE = "GIVE_SECOND_CHANCE"
    GIVE_MODIFIER = "GIVE_MODIFIER"
    STEAL = "STEAL"
    DISCARD = "DISCARD"
    SWAP = "SWAP"
    FLIP7_BONUS = "FLIP7_BONUS"

    __repr__ = str.__repr__  # a kind in a repr reads as the string it is


HIT_OR_STAY = DecisionKind.HIT_OR_STAY
CHOOSE_TARGET = DecisionKind.CHOOSE_TARGET
GIVE_SECOND_CHANCE = DecisionKind.GIVE_SECOND_CHANCE
GIVE_MODIFIER = DecisionKind.GIVE_MODIFIER
STEAL = DecisionKind.STEAL
DISCARD = DecisionKind.DISCARD
SWAP = DecisionKind.SWAP
FLIP7_BONUS = DecisionKind.FLIP7_BONUS
DECISION_KINDS = tuple(DecisionKind)

HIT = "HIT"
STAY = "STAY"
# how a card handed out by a pass round the table is recorded (event kinds)
DEAL = "deal"
DRAW = "draw"
HIT_STAY = (HIT, STAY)
HIT_ONLY = (HIT,)

# where a card can be (Game.card_locations)
DECK = "deck"
DISCARD_PILE = "discard"
LIMBO = "limbo"
BOX = "box"
NUMBERS = "numbers"
MODIFIERS = "modifiers"
EXTRAS = "extras"
PILES = (DECK, DISCARD_PILE, LIMBO, BOX, NUMBERS, MODIFIERS, EXTRAS)

MAX_SEATS = 18
FLIP7_CARDS = 7
FLIP7_BONUS_POINTS = 15

# A flow: a generator that yields each pending Decision and is sent the chosen index.
Flow = Generator["Decision", int, None]
# An event as recorded: ``(kind, *fields)``; the fields' types depend on the kind (named in
# engine.events.EVENT_FIELDS), so the tuple is typed loosely.
Event = tuple[Any, ...]
# An option value; its type depends on the decision kind (see Decision). A union would make
# every reader narrow by isinstance what the kind already says, so it is typed loosely.
Option = Any


class IllegalChoice(ValueError):
    """An answer that is not an index into the pending decision's options."""


class GameOver(RuntimeError):
    """A step was attempted on a finished game."""


class CardNotInLimbo(LookupError):
    """A flow tried to move a card out of limbo that is not there (an engine bug)."""

    def __init__(self, card: Card) -> None:
        super().__init__(f"{card!r} is not set aside or being resolved")
        self.card = card


class Decision:
    """A pending choice: who chooses, what kind, and the enumerated legal options.

    ``options`` is a tuple; the answer is an index into it. Option values by kind:
    HIT_OR_STAY → "HIT"/"STAY"; CHOOSE_TARGET, GIVE_SECOND_CHANCE, GIVE_MODIFIER → seat;
    STEAL, DISCARD → (seat, card label); SWAP → ((seat, label), (seat, label));
    FLIP7_BONUS → -1 for +15 to oneself, else the seat that loses 15.
    ``card`` is the label of the card being resolved, if any.
    """

    __slots__ = ("kind", "seat", "options", "card")

    def __init__(self, kind: str, seat: int, options: Sequence[Option], card: str | None) -> None:
        self.kind = kind
        self.seat = seat
        self.options: tuple[Option, ...] = options if type(options) is tuple else tuple(options)
        self.card = card

    def __repr__(self) -> str:
        return (
            f"Decision({self.kind}, seat={self.seat}, options={self.options!r}, card={self.card!r})"
        )


class Player:
    """One seat's state within the current round plus its game total."""

    __slots__ = (
        "seat",
        "numbers",
        "modifiers",
        "extras",
        "status",
        "flip7",
        "sum",
        "ranks",
        "total",
        "round_score",
        "penalty",
    )

    def __init__(self, seat: int) -> None:
        self.seat = seat
        self.total = 0
        self.round_score = 0
        self.penalty = 0
        self.reset()

    def reset(self) -> None:
        self.numbers: list[Card] = []
        self.modifiers: list[Card] = []
        self.extras: list[Card] = []  # held Second Chance
        self.status = ACTIVE
        self.flip7 = False
        self.sum = 0
        self.ranks: set[int] = set()

    def line(self) -> list[Card]:
        return self.numbers + self.modifiers + self.extras

    def copy_from(self, other: Player) -> None:
        """Take over another player's state (own lists, shared cards)."""
        self.numbers = other.numbers[:]
        self.modifiers = other.modifiers[:]
        self.extras = other.extras[:]
        self.status = other.status
        self.flip7 = other.flip7
        self.sum = other.sum
        self.ranks = set(other.ranks)
        self.total = other.total
        self.round_score = other.round_score
        self.penalty = other.penalty

    def add_number(self, card: Card) -> None:
        self.numbers.append(card)
        self.sum += card.value
        self.ranks.add(card.value)

    def remove(self, card: Card) -> None:
        """Take a face-up card out of the line (Steal, Swap, Discard, Unlucky 7)."""
        if card.kind == NUMBER:
            self.numbers.remove(card)
            self.recount()
        elif card.kind == MODIFIER:
            self.modifiers.remove(card)
        else:
            self.extras.remove(card)

    def recount(self) -> None:
        self.sum = sum(c.value for c in self.numbers)
        self.ranks = {c.value for c in self.numbers}


class Game:
    """One game of Flip 7 under a ruleset.

    Parameters
    ----------
    ruleset: the rules (see :mod:`engine.rulesets`).
    seats: 1–18.
    seed: any int; the only source of randomness.
    stack: card labels to put on top of the shuffled deck, drawn first in the given order
        (tests use it to script scenarios; the rest of the deck is shuffled by the seed).
    deck: an exact draw order of card labels; cards of the full deck not listed are set
        out of play ("box"). Mutually exclusive with ``stack``.
    single_round: end after one round (statistics).
    record_events: keep the event log (on by default).
    """

    deck: list[Card]  # the draw pile, bottom first
    deck_count: dict[CardType, int]  # the draw pile by type (X10's unseen multiset)

    def __init__(
        self,
        ruleset: Ruleset,
        seats: int,
        seed: int,
        *,
        stack: Iterable[str] | None = None,
        deck: Iterable[str] | None = None,
        single_round: bool = False,
        record_events: bool = True,
    ) -> None:
        self._setup(ruleset, seats, seed, single_round, record_events, random.Random(seed))
        self.deck = self._build_deck(stack, deck)
        if deck is None:  # the whole deck: its counts are the ruleset's
            self.deck_count = {t: n for t, n in ruleset.deck if n}
        else:
            self._count_deck()
        self._start()

    def _setup(
        self,
        ruleset: Ruleset,
        seats: int,
        seed: int,
        single_round: bool,
        record_events: bool,
        rng: random.Random | None,
    ) -> None:
        """Everything but the deck, before the first round."""
        if not 1 <= seats <= MAX_SEATS:
            raise ValueError(f"seats must be between 1 and {MAX_SEATS}, got {seats}")
        self.ruleset = ruleset
        self.n = seats
        self.seed = seed
        self.single_round = single_round
        # the random source (X4: the first shuffle and every reshuffle), see the rng property
        self._rng = rng
        self.players = [Player(i) for i in range(seats)]
        self.events: list[Event] = []
        self.record_events = record_events
        self.choices: list[int] = []
        self.box: list[Card] = []
        self.discard: list[Card] = []
        self.limbo: list[Card] = []  # set aside or being resolved
        self.deck = []
        self.deck_count = {}
        self.round = 0
        self.dealer = 0
        self.order: list[int] = []
        self.n_active = 0
        self.round_over = False
        self.flip7_seat: int | None = None
        self.bonus_declined = False
        self.extra_rounds = 0
        self.winners: tuple[int, ...] = ()
        self.ranks: tuple[int, ...] = ()
        self.over = False
        self.decision: Decision | None = None
        # what clone() needs to rebuild this game (one attribute: a game has many already,
        # and CPython's attribute lookups are fastest with at most 30 per instance)
        self._replay = _Replay()

    def _start(self) -> None:
        # the first send primes the generator with None (the generator protocol); the
        # flows themselves are only ever sent option indices
        self._gen = cast("Generator[Decision, int | None, None]", self._play())
        self._advance(None)

    @property
    def rng(self) -> random.Random:
        """The game's random source. A clone shares its original's state until it needs it
        (a snapshot of the state, taken once and reused while the original does not draw
        from it); a determinized game seeds its own lazily from its seed."""
        r = self._rng
        replay = self._replay
        if r is None:
            r = random.Random(self.seed)
            if replay.rng_state is not None:
                r.setstate(replay.rng_state)
            self._rng = r
        replay.rng_state = None  # the caller may draw from it: any snapshot becomes stale
        return r

    @rng.setter
    def rng(self, value: random.Random) -> None:
        self._rng = value
        self._replay.rng_state = None

    # ------------------------------------------------------------------ setup
    def _build_deck(self, stack: Iterable[str] | None, exact: Iterable[str] | None) -> list[Card]:
        cards = list(self.ruleset.cards)
        if exact is not None:
            if stack is not None:
                raise ValueError("give either stack or deck, not both")
            order = [_take(cards, label) for label in exact]
            self.box = cards
            return order[::-1]
        top = [_take(cards, label) for label in (stack or ())]
        self.rng.shuffle(cards)
        return cards + top[::-1]

    def _count_deck(self) -> None:
        """Count the draw pile by type, keyed in the ruleset's type order: the keys' order
        must not depend on the order of the pile (X10)."""
        counts = dict.fromkeys(self.ruleset.types, 0)
        for c in self.deck:
            counts[c.type] += 1
        self.deck_count = {t: n for t, n in counts.items() if n}

    # ------------------------------------------------------------------ driving
    def step(self, index: int) -> None:
        """Answer the pending decision with an index into its options."""
        d = self.decision
        if d is None:
            raise GameOver("the game is over")
        if type(index) is not int or not 0 <= index < len(d.options):
            raise IllegalChoice(f"option {index!r} is not in 0..{len(d.options) - 1}")
        self.choices.append(index)
        self._advance(index)

    def _advance(self, answer: int | None) -> None:
        send = self._gen.send
        auto = self.ruleset.auto_single
        try:
            d = send(answer)
            while auto and len(d.options) == 1:
                d = send(0)
        except StopIteration:
            self.decision = None
            self.over = True
            return
        self.decision = d

    @classmethod
    def replay(
        cls,
        ruleset: Ruleset,
        seats: int,
        seed: int,
        choices: Iterable[int],
        *,
        stack: Iterable[str] | None = None,
        deck: Iterable[str] | None = None,
        single_round: bool = False,
        record_events: bool = True,
    ) -> Game:
        """Rebuild a game from its seed and recorded choices (keywords as for Game)."""
        g = cls(
            ruleset,
            seats,
            seed,
            stack=stack,
            deck=deck,
            single_round=single_round,
            record_events=record_events,
        )
        for c in choices:
            g.step(c)
        return g

    # ------------------------------------------------------------------ primitives
    def ev(self, event: Event) -> None:
        if self.record_events:
            self.events.append(event)

    def draw(self) -> Card | None:
        """Top card of the deck, reshuffling the discard pile when empty (X4)."""
        deck = self.deck
        if not deck:
            if not self.discard:
                return None
            deck = self.discard
            self.discard = []
            replay = self._replay
            start, pile, kept, choices, events = replay.start
            if pile is deck:  # keep the round's start: this list is about to be shuffled
                replay.start = (start, deck[:kept], kept, choices, events)
            if replay.reorders:  # a replayed or determinized reshuffle
                deck = replay.reorders.pop(0)(deck)
            else:
                self.rng.shuffle(deck)
            self.deck = deck
            replay.decks.append(deck[:])
            self._count_deck()
            if self.record_events:
                self.events.append(("reshuffle", len(deck)))
        card = deck.pop()
        self.deck_count[card.type] -= 1
        return card

    def draw_label(self, label: str) -> Card:
        """Draw a ``label`` as the next card, as if the shuffle had put one on top of the
        draw pile — or, when the pile is empty, on top of the discard pile that this draw
        reshuffles (X4). The round's record follows, so a later clone replays this draw.

        For explicit chance (a card chosen when it is drawn, as OpenSpiel's chance nodes
        do: ``arena.envs.openspiel`` overrides :meth:`draw` with it). Raises ValueError
        when no such card is there to draw.
        """
        deck = self.deck
        replay = self._replay
        if deck:
            _to_top(deck, label)
            m = len(deck)  # the pile is the bottom of the record's deck: keep its cards' order
            if replay.decks:
                replay.decks[-1] = deck + replay.decks[-1][m:]
            else:
                start, pile, kept, choices, events = replay.start
                replay.start = (deck + start[m:], pile, kept, choices, events)
        elif any(c.label == label for c in self.discard):
            if replay.reorders:
                raise ValueError("a scripted reshuffle is pending: no card can be chosen")
            replay.reorders.append(_OnTop(label))
        else:
            raise ValueError(f"no {label!r} to draw")
        card = Game.draw(self)
        assert card is not None and card.label == label
        return card

    def give(self, seat: int, card: Card) -> Flow | None:
        """Deliver a drawn card to a seat; returns the card's flow if it needs decisions."""
        if self.record_events:
            self.events.append((DRAW, seat, card.label))
        return card.receive(self, seat, card)

    def hit(self, seat: int) -> Flow:
        """The seat draws one card and receives it (X6); an exhausted deck is a stay (X4)."""
        card = self.draw()
        if card is None:
            if self.players[seat].status is ACTIVE:
                self.stay(seat)
            return
        flow = self.give(seat, card)
        if flow is not None:
            yield from flow

    def stay(self, seat: int) -> None:
        p = self.players[seat]
        if p.status is ACTIVE:
            self.n_active -= 1
        p.status = STAYED
        if self.record_events:
            self.events.append(("stay", seat))

    def freeze(self, seat: int) -> None:
        p = self.players[seat]
        if p.status is ACTIVE:
            self.n_active -= 1
        p.status = FROZEN
        self.ev(("frozen", seat))

    def bust(self, seat: int, card: Card | None) -> None:
        """The seat busts on ``card`` (None: on a card already in the line, after a Swap)."""
        p = self.players[seat]
        if p.status is ACTIVE:
            self.n_active -= 1
        p.status = BUSTED
        if card is not None:
            p.numbers.append(card)  # the duplicate stays on the table (X7)
        self.ev(("bust", seat, card.label if card is not None else None))

    def flip7(self, seat: int) -> None:
        self.players[seat].flip7 = True
        self.flip7_seat = seat
        self.round_over = True
        self.ev(("flip7", seat))

    def to_discard(self, card: Card, reason: str) -> None:
        """Discard a card that is in limbo (set aside or being resolved), with an event.

        Raises :class:`CardNotInLimbo` if it is not there: every card is in exactly one
        place, so a card that is not where a flow says it is means an engine bug."""
        try:
            self.limbo.remove(card)
        except ValueError:
            raise CardNotInLimbo(card) from None
        self.discard.append(card)
        self.ev(("discard", card.label, reason))

    def retire(self, card: Card) -> None:
        """A resolved action card goes from limbo to the discard pile (B3), also when the
        round ended while it resolved (the rest of the table follows at the round's end).
        Raises :class:`CardNotInLimbo` if it is not in limbo."""
        try:
            self.limbo.remove(card)
        except ValueError:
            raise CardNotInLimbo(card) from None
        self.discard.append(card)

    def can_stay(self, p: Player) -> bool:
        if not (p.numbers or p.modifiers or p.extras):
            return False
        for c in p.numbers:
            if c.type.blocks_stay:
                return False
        return True

    def active_seats(self, _chooser: int | None = None) -> list[int]:
        """Active seats in turn order from the dealer's left."""
        players = self.players
        return [s for s in self.order if players[s].status is ACTIVE]

    def unbusted_seats(self, _chooser: int | None = None) -> list[int]:
        players = self.players
        return [s for s in self.order if players[s].status is not BUSTED]

    def unseen(self) -> dict[str, int]:
        """The draw pile as a multiset of labels (X10): public to card counters."""
        out: dict[str, int] = {}
        for ctype, n in self.deck_count.items():
            if n:
                out[ctype.label] = out.get(ctype.label, 0) + n
        return out

    def card_locations(self) -> list[tuple[str, int | None, Card]]:
        """Where every card of the game is, as ``(pile, seat, card)`` triples.

        ``pile`` is one of :data:`PILES`: ``deck`` (the draw pile, bottom first),
        ``discard``, ``limbo`` (set aside or being resolved), ``box`` (out of play, with an
        exact deck), or a seat's ``numbers``, ``modifiers`` or ``extras`` (a held Second
        Chance); ``seat`` is None for the shared piles. Card conservation (X2: one deck):
        every card of the ruleset's deck appears exactly once, by identity.
        """
        out: list[tuple[str, int | None, Card]] = [(DECK, None, c) for c in self.deck]
        out += [(DISCARD_PILE, None, c) for c in self.discard]
        out += [(LIMBO, None, c) for c in self.limbo]
        out += [(BOX, None, c) for c in self.box]
        for p in self.players:
            seat = p.seat
            out += [(NUMBERS, seat, c) for c in p.numbers]
            out += [(MODIFIERS, seat, c) for c in p.modifiers]
            out += [(EXTRAS, seat, c) for c in p.extras]
        return out

    def all_cards(self) -> list[Card]:
        """Every card of the game, wherever it is (for accounting checks)."""
        return [c for _, _, c in self.card_locations()]

    # ------------------------------------------------------------------ search support
    def clone(self, *, record_events: bool | None = None) -> Game:
        """An independent copy that evolves exactly like this game under the same choices.

        Generators cannot be copied, so the copy is rebuilt: from the current round's
        start (the deck and discard pile as they were, the totals, which change only
        between rounds, and the event log up to then) it replays this round's choices, its
        reshuffles dealt as they fell, and then takes this game's random state. The cost
        is that of the round so far, whatever the length of the game. Cards are shared
        (they are immutable); every list and the random source are the copy's own.

        ``record_events`` defaults to this game's; off, the copy's log is empty (and the
        replay is a little faster). The copy is a plain :class:`Game`, also when this is
        a subclass.
        """
        rec = self.record_events if record_events is None else record_events
        g = Game.__new__(Game)
        g._setup(self.ruleset, self.n, self.seed, self.single_round, False, None)
        g.box = self.box[:]
        if self.over:
            g.deck = self.deck[:]
            g.discard = self.discard[:]
            g.deck_count = dict(self.deck_count)
            for p, q in zip(g.players, self.players, strict=True):
                p.copy_from(q)
            g.round = self.round
            g.dealer = self.dealer
            g.order = self.order[:]
            g.extra_rounds = self.extra_rounds
            g.flip7_seat = self.flip7_seat
            g.bonus_declined = self.bonus_declined
            g.round_over = self.round_over
            g.winners = self.winners
            g.ranks = self.ranks
            g.over = True
            g.choices = self.choices[:]
            g.record_events = rec
            g.events = self.events[:] if rec else []
        else:
            replay = self._replay
            deck, discard, kept, done, logged = replay.start
            g.deck = deck[:]
            g.discard = discard[:kept]
            g.deck_count = dict.fromkeys(self.ruleset.types, 0)  # taken over after the replay
            g.round = self.round - 1
            g.dealer = self.dealer
            g.extra_rounds = self.extra_rounds
            for p, q in zip(g.players, self.players, strict=True):
                p.total = q.total
                p.round_score = q.round_score
            choices = self.choices
            g.choices = choices[:done]
            g._replay.reorders = [_Exactly(d) for d in replay.decks]
            # the replay records this round's events again (the flows keep the log and the
            # recording switch they start with)
            g.record_events = rec
            g.events = self.events[:logged] if rec else []
            g._start()
            advance = g._advance
            record = g.choices.append
            for c in choices[done:]:
                record(c)
                advance(c)
            g.deck_count = dict(self.deck_count)
        mine = self._replay
        if self._rng is not None and mine.rng_state is None:
            mine.rng_state = self._rng.getstate()
        g._replay.rng_state = mine.rng_state  # None: neither has drawn; both seed alike
        return g

    def determinized(self, seat: int, rng: random.Random) -> Game:
        """A game consistent with everything ``seat`` has seen, its draw pile shuffled.

        The copy has this game's public history (event log, lines, totals, discard pile,
        limbo, pending decision); only the order of the draw pile differs: its cards (the
        observation's ``unseen`` multiset) are put in a canonical order and shuffled by
        ``rng``, and later reshuffles use a random source seeded from ``rng``. Nothing
        depends on this game's hidden order or seed, so two games that share a public
        history give the same determinization for the same ``rng`` state. Everything but
        the draw order is public (X10), so the result is the same from every seat; the
        seat is checked. For many samples of one position, determinize once and call this
        method on the result: :func:`engine.determinization.determinize` builds the same
        game from the public event log alone.
        """
        if not 0 <= seat < self.n:
            raise ValueError(f"no seat {seat} at a table of {self.n}")
        if self.over:
            raise ValueError("the game is over: there is nothing to determinize")
        seed = rng.getrandbits(64)
        g = self.clone(record_events=self.record_events)
        g._redeal(canonical_shuffle(g.deck, rng), seed)
        return g

    def _redeal(self, deck: list[Card], seed: int) -> None:
        """Replace the draw pile by ``deck`` (the same cards, bottom first) and the random
        source by one seeded from ``seed``; the round's record follows, so that a clone of
        this game replays to the new pile."""
        m = len(deck)
        # the current pile is the bottom of the deck this round started with or that its
        # last reshuffle made; the cards above it have been drawn
        replay = self._replay
        if replay.decks:
            replay.decks[-1] = deck + replay.decks[-1][m:]
        else:
            start, pile, kept, choices, events = replay.start
            replay.start = (deck + start[m:], pile, kept, choices, events)
        self.deck = deck
        self._count_deck()
        self.seed = seed
        self._rng = None
        replay.rng_state = None

    # ------------------------------------------------------------------ flow
    def _play(self) -> Flow:
        while True:
            replay = self._replay
            pile = self.discard
            replay.start = (self.deck[:], pile, len(pile), len(self.choices), len(self.events))
            if replay.decks:
                replay.decks = []
            yield from self._round()
            if self._finish_round():
                return

    def _round(self) -> Flow:
        self.round += 1
        n = self.n
        dealer = self.dealer
        self.order = order = [(dealer + 1 + i) % n for i in range(n)]
        players = self.players
        for p in players:
            p.reset()
        self.n_active = n
        self.round_over = False
        self.flip7_seat = None
        self.bonus_declined = False
        record = self.record_events
        events = self.events
        if record:
            events.append(("round_start", self.round, dealer))
        # Passes round the table in turn order: first the initial deal (X5: actions are
        # resolved at once; a seat with an empty line is dealt without being asked, one who
        # already holds cards is asked), then turns until nobody is active or someone
        # flips 7 (X6, X8: every active seat is asked; STAY only with a non-empty line).
        # This loop is the one place where a seat is offered HIT or STAY, draws, has the
        # draw recorded and receives the card; a card that cannot be drawn (X4) is a stay.
        kind = DEAL
        ask_all = False
        while True:
            for seat in order:
                if self.round_over:
                    break
                p = players[seat]
                if p.status is not ACTIVE:
                    continue
                if ask_all or p.numbers or p.modifiers or p.extras:
                    opts = HIT_STAY if self.can_stay(p) else HIT_ONLY
                    if (yield Decision(HIT_OR_STAY, seat, opts, None)) == 1:
                        self.stay(seat)
                        continue
                card = self.draw()
                if card is None:
                    self.stay(seat)
                    continue
                if record:
                    events.append((kind, seat, card.label))
                flow = card.receive(self, seat, card)
                if flow is not None:
                    yield from flow
            if self.round_over or not self.n_active:
                break
            kind = DRAW
            ask_all = True
        # Brutal: the Flip 7 player may choose a penalty instead of the bonus (V8)
        if self.flip7_seat is not None and self.ruleset.brutal:
            yield from self._brutal_flip7(self.flip7_seat)

    def _brutal_flip7(self, seat: int) -> Flow:
        others = [s for s in self.order if s != seat]
        options = (-1, *others)
        idx = yield Decision(FLIP7_BONUS, seat, options, None)
        victim = options[idx]
        if victim >= 0:
            self.bonus_declined = True  # no +15 for themselves
            self.players[victim].penalty += FLIP7_BONUS_POINTS
            self.ev(("flip7_penalty", seat, victim))

    def _finish_round(self) -> bool:
        """Score the round, clear the table, rotate the dealer; True when the game is over."""
        rules = self.ruleset
        score = rules.score
        bust_score = rules.bust_score
        discard = self.discard
        scores = []
        for p in self.players:
            s = bust_score(p, rules) if p.status is BUSTED else score(p, rules)
            if p.flip7 and p.status is not BUSTED and not self.bonus_declined:
                s += FLIP7_BONUS_POINTS
            p.round_score = s
            p.total += s - p.penalty
            p.penalty = 0
            scores.append(s)
            discard.extend(p.numbers)
            discard.extend(p.modifiers)
            discard.extend(p.extras)
            p.numbers = []
            p.modifiers = []
            p.extras = []
            p.sum = 0
            p.ranks = set()
        if self.limbo:
            discard.extend(self.limbo)
            self.limbo = []
        totals = tuple(p.total for p in self.players)
        self.ev(("round_end", self.round, tuple(scores), totals))
        self.dealer = (self.dealer + 1) % self.n
        top = max(totals)
        leaders = tuple(s for s, t in enumerate(totals) if t == top)
        over = False
        if self.single_round:
            over = True
        elif not self.deck and not self.discard and not any(scores):
            # X4 ruling, degenerate decks only: no card can ever be drawn again, so no
            # round can change the totals; the game ends as it stands
            over = True
        elif top >= rules.target_score:
            if len(leaders) == 1 or self.extra_rounds >= rules.max_tie_rounds:
                over = True
            else:
                self.extra_rounds += 1
                self.ev(("tie_continue", leaders))
        if over:
            self.winners = leaders
            self.ranks = tuple(1 + sum(1 for u in totals if u > t) for t in totals)
            self.ev(("game_over", leaders, totals))
        return over


def _uid(card: Card) -> int:
    return card.uid


def canonical_shuffle(cards: Iterable[Card], rng: random.Random) -> list[Card]:
    """The cards in canonical order (by uid: by type, then copy), then shuffled by ``rng``:
    the result depends on the multiset of labels and on ``rng`` only, never on the order
    the cards came in (determinization must not leak the hidden order)."""
    out = sorted(cards, key=_uid)
    rng.shuffle(out)
    return out


class _Replay:
    """What :meth:`Game.clone` needs: the current round's start (the deck and discard pile
    as they were, how many choices had been made) and the decks its reshuffles made;
    scripted reshuffles still to come (oldest first: each turns the discard pile into the
    new deck); and a snapshot of the random state, kept while nobody draws from it."""

    __slots__ = ("start", "decks", "reorders", "rng_state")

    def __init__(self) -> None:
        # (deck copy, discard pile, its length, choices made, events logged) at the round's
        # start; the discard pile only grows during a round, so the list itself is kept
        # (copied only when a reshuffle is about to shuffle it)
        self.start: tuple[list[Card], list[Card], int, int, int] = ([], [], 0, 0, 0)
        self.decks: list[list[Card]] = []
        self.reorders: list[Callable[[list[Card]], list[Card]]] = []
        self.rng_state: tuple[Any, ...] | None = None  # random.Random.getstate()'s type


class _Exactly:
    """A scripted reshuffle that makes the deck it was given (replaying a round)."""

    __slots__ = ("order",)

    def __init__(self, order: list[Card]) -> None:
        self.order = order

    def __call__(self, pile: list[Card]) -> list[Card]:
        return self.order[:]


class _OnTop:
    """A reshuffle that keeps the discard pile's order but for one card of ``label``,
    which goes on top (:meth:`Game.draw_label`)."""

    __slots__ = ("label",)

    def __init__(self, label: str) -> None:
        self.label = label

    def __call__(self, pile: list[Card]) -> list[Card]:
        _to_top(pile, self.label)
        return pile


def _to_top(pile: list[Card], label: str) -> None:
    """Move the card of ``label`` nearest the top of ``pile`` (its end) to the top."""
    for i in range(len(pile) - 1, -1, -1):
        if pile[i].label == label:
            pile.append(pile.pop(i))
            return
    raise ValueError(f"no {label!r} to draw")


def _take(cards: list[Card], label: str) -> Card:
    for i, c in enumerate(cards):
        if c.label == label:
            return cards.pop(i)
    raise ValueError(f"no card {label!r} left in the deck")


__all__ = [
    "ACTION",
    "ACTIVE",
    "BUSTED",
    "FROZEN",
    "STAYED",
    "Decision",
    "Game",
    "GameOver",
    "IllegalChoice",
    "Player",
]
