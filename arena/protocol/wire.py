"""Hand-assembled DecisionRequest bytes: the arena's hot path.

Building a full Observation message through the protobuf API on every decision costs more
than the rest of the arena's work per decision. Protobuf's wire format is a concatenation
of fields, so a message can be assembled from cached, already-encoded pieces: a player's
line is encoded once and reused until it changes, the discard pile's encoding grows by
appending, the game's constant fields are encoded once. The result parses to exactly the
message :func:`arena.protocol.convert.observation_pb` builds (tests check this).
"""

from __future__ import annotations

from typing import Any

from arena.protocol import pb
from arena.protocol.convert import STATUS_TO_PB, option_pb, ruleset_pb
from engine import Decision, Game, Player
from engine.events import EVENT_FIELDS
from engine.scoring import line_value

# wire types
_VARINT = 0
_LEN = 2


def _numbers(descriptor: Any) -> dict[str, int]:
    return {f.name: f.number for f in descriptor.fields}


# field numbers, read from the generated messages' descriptors (arena.proto is the source)
_ARENA = _numbers(pb.ArenaMessage.DESCRIPTOR)
_REQ = _numbers(pb.DecisionRequest.DESCRIPTOR)
_OBS = _numbers(pb.Observation.DESCRIPTOR)
_PLAYER = _numbers(pb.PlayerView.DESCRIPTOR)
_UNSEEN = _numbers(pb.Observation.DESCRIPTOR.fields_by_name["unseen"].message_type)

ARENA_REQUEST, ARENA_BATCH = _ARENA["request"], _ARENA["batch"]
BATCH_REQUESTS = _numbers(pb.Batch.DESCRIPTOR)["requests"]
REQ_ID, REQ_GAME_ID, REQ_SEAT = _REQ["request_id"], _REQ["game_id"], _REQ["seat"]
REQ_KIND, REQ_CARD, REQ_OBSERVATION = _REQ["kind"], _REQ["card"], _REQ["observation"]
REQ_EVENTS, REQ_OPTIONS = _REQ["events"], _REQ["options"]
REQ_DEADLINE, REQ_BANK = _REQ["deadline_ms"], _REQ["time_bank_ms"]
OBS_VARIANT, OBS_RULESET, OBS_SEAT = _OBS["variant"], _OBS["ruleset"], _OBS["seat"]
OBS_SEATS, OBS_ROUND, OBS_DEALER = _OBS["seats"], _OBS["round"], _OBS["dealer"]
OBS_ORDER, OBS_PLAYERS, OBS_DISCARD = _OBS["order"], _OBS["players"], _OBS["discard"]
OBS_DECK_SIZE, OBS_UNSEEN, OBS_PENDING = _OBS["deck_size"], _OBS["unseen"], _OBS["pending"]
PV_SEAT, PV_STATUS, PV_NUMBERS = _PLAYER["seat"], _PLAYER["status"], _PLAYER["numbers"]
PV_MODIFIERS, PV_SECOND_CHANCES = _PLAYER["modifiers"], _PLAYER["second_chances"]
PV_TOTAL, PV_LINE_SCORE, PV_FLIP7 = _PLAYER["total"], _PLAYER["line_score"], _PLAYER["flip7"]
UNSEEN_KEY, UNSEEN_VALUE = _UNSEEN["key"], _UNSEEN["value"]
_EVENT = _numbers(pb.Event.DESCRIPTOR)


def _varint(n: int) -> bytes:
    if n < 0:
        n += 1 << 64  # int32/int64 negatives are ten-byte two's complement varints
    out = bytearray()
    while True:
        b = n & 0x7F
        n >>= 7
        if n:
            out.append(b | 0x80)
        else:
            out.append(b)
            return bytes(out)


_SMALL = [_varint(i) for i in range(1 << 14)]


def varint(n: int) -> bytes:
    """Protobuf base-128 varint (small non-negative values from a table)."""
    if 0 <= n < 16384:
        return _SMALL[n]
    return _varint(n)


def key(field: int, wire: int) -> bytes:
    return varint((field << 3) | wire)


def len_field(field: int, payload: bytes) -> bytes:
    return key(field, _LEN) + varint(len(payload)) + payload


_INT_CACHE: dict[tuple[int, int], bytes] = {}


def int_field(field: int, value: int) -> bytes:
    """A varint field; proto3 omits zeros."""
    k = (field, value)
    b = _INT_CACHE.get(k)
    if b is None:
        b = key(field, _VARINT) + varint(value) if value else b""
        if len(_INT_CACHE) < 100_000:
            _INT_CACHE[k] = b
    return b


_STR_CACHE: dict[tuple[int, str], bytes] = {}


def str_field(field: int, s: str) -> bytes:
    k = (field, s)
    b = _STR_CACHE.get(k)
    if b is None:
        b = _STR_CACHE[k] = len_field(field, s.encode())
    return b


def _signed(n: int) -> bytes:
    """An int32 as protobuf writes it (negatives: ten-byte two's complement varints)."""
    return varint(n) if n >= 0 else _varint(n)


def _event_bytes(event: tuple[Any, ...]) -> bytes:
    """An engine event as encoded Event bytes: what ``event_pb(event).SerializeToString()``
    gives (tests check it), without building the message."""
    kind = event[0]
    parts = [str_field(_EVENT["kind"], kind)]
    seats: list[int] = []
    cards: list[str] = []
    for name, value in zip(EVENT_FIELDS[kind], event[1:], strict=True):
        if name in ("seat", "target"):
            if value is not None:  # proto3 optional: present even when 0
                parts.append(key(_EVENT[name], _VARINT) + _signed(value))
        elif name in ("card", "reason"):
            if value:
                parts.append(str_field(_EVENT[name], value))
        elif name in ("round", "count"):
            parts.append(int_field(_EVENT[name], value))
        elif name in ("scores", "totals", "seats"):
            if name == "seats":
                seats.extend(value)
            elif value:
                packed = b"".join([_signed(v) for v in value])
                parts.append(len_field(_EVENT[name], packed))
        elif name == "cards":
            cards.extend(value)
        elif name in ("a", "b"):
            seats.append(value)
        elif name in ("card_a", "card_b"):
            cards.append(value)
    if seats:
        parts.append(len_field(_EVENT["seats"], b"".join([_signed(v) for v in seats])))
    parts.extend(str_field(_EVENT["cards"], c) for c in cards)
    return b"".join(parts)


_EVENT_CACHE: dict[tuple[Any, ...], bytes] = {}


def event_bytes(event: tuple[Any, ...]) -> bytes:
    """The encoded Event of an engine event (small repeated events from a cache)."""
    b = _EVENT_CACHE.get(event)
    if b is None:
        b = _event_bytes(event)
        if len(_EVENT_CACHE) < 100_000 and event[0] not in ("round_end", "game_over"):
            _EVENT_CACHE[event] = b
    return b


class ObservationEncoder:
    """Encodes the Observation of one game for any seat, reusing unchanged pieces."""

    def __init__(self, game: Game, rules_msg: pb.Ruleset | None = None) -> None:
        self.game = game
        rules_msg = rules_msg if rules_msg is not None else ruleset_pb(game.ruleset)
        self.head = (
            str_field(OBS_VARIANT, game.ruleset.name)
            + len_field(OBS_RULESET, rules_msg.SerializeToString())
            + int_field(OBS_SEATS, game.n)
        )
        self.players: list[tuple[tuple[Any, ...], bytes] | None] = [None] * game.n
        self.discard_list: list[Any] | None = None
        self.discard_len = 0
        self.discard_bytes = b""
        # unseen map entries by card type and count (labels are unique per card type)
        self.unseen_entry: dict[tuple[Any, int], bytes] = {}
        self._unseen_dict: dict[Any, int] | None = None
        self._unseen_types: list[Any] = []
        self._unseen_counts: tuple[int, ...] = ()
        self._unseen_parts: list[bytes] = []
        self._unseen = b""
        self._order_list: list[int] | None = None
        self._order = b""

    def _player(self, p: Player) -> bytes:
        k = (p.status, p.total, p.flip7, len(p.extras), *p.numbers, None, *p.modifiers)
        cached = self.players[p.seat]
        if cached is not None and cached[0] == k:
            return cached[1]
        body = b"".join(
            [
                int_field(PV_SEAT, p.seat),
                int_field(PV_STATUS, STATUS_TO_PB[p.status]),
                *[str_field(PV_NUMBERS, c.label) for c in p.numbers],
                *[str_field(PV_MODIFIERS, c.label) for c in p.modifiers],
                int_field(PV_SECOND_CHANCES, len(p.extras)),
                int_field(PV_TOTAL, p.total),
                int_field(PV_LINE_SCORE, line_value(self.game, p)),
                int_field(PV_FLIP7, 1 if p.flip7 else 0),
            ]
        )
        enc = len_field(OBS_PLAYERS, body)
        self.players[p.seat] = (k, enc)
        return enc

    def _unseen_entry(self, ctype: Any, n: int) -> bytes:
        k = (ctype, n)
        e = self.unseen_entry.get(k)
        if e is None:
            e = self.unseen_entry[k] = len_field(
                OBS_UNSEEN, str_field(UNSEEN_KEY, ctype.label) + int_field(UNSEEN_VALUE, n)
            )
        return e

    def encode(self, seat: int) -> bytes:
        game = self.game
        discard = game.discard
        if discard is not self.discard_list or self.discard_len > len(discard):
            self.discard_list = discard
            self.discard_len = 0
            self.discard_bytes = b""
        if self.discard_len < len(discard):
            self.discard_bytes += b"".join(
                [str_field(OBS_DISCARD, c.label) for c in discard[self.discard_len :]]
            )
            self.discard_len = len(discard)
        # the unseen multiset changes by draws (one count at a time) or a reshuffle (a new
        # count dict): patch the entries whose count changed, rebuild on a new dict
        deck_size = len(game.deck)
        dc = game.deck_count
        counts = tuple(dc.values())
        if dc is not self._unseen_dict or len(counts) != len(self._unseen_counts):
            self._unseen_dict = dc
            self._unseen_types = list(dc)
            self._unseen_parts = [self._unseen_entry(ct, n) if n else b"" for ct, n in dc.items()]
            self._unseen = b"".join(self._unseen_parts)
        elif counts != self._unseen_counts:
            parts = self._unseen_parts
            types = self._unseen_types
            for i, (was, n) in enumerate(zip(self._unseen_counts, counts, strict=True)):
                if was != n:
                    parts[i] = self._unseen_entry(types[i], n) if n else b""
            self._unseen = b"".join(parts)
        self._unseen_counts = counts
        if game.order is not self._order_list:  # a new list each round
            self._order_list = game.order
            order_bytes = b"".join([varint(s) for s in game.order])
            self._order = len_field(OBS_ORDER, order_bytes) if order_bytes else b""
        player = self._player
        limbo = game.limbo
        return b"".join(
            [
                self.head,
                int_field(OBS_SEAT, seat),
                int_field(OBS_ROUND, game.round),
                int_field(OBS_DEALER, game.dealer),
                self._order,
                *[player(p) for p in game.players],
                self.discard_bytes,
                int_field(OBS_DECK_SIZE, deck_size),
                self._unseen,
                *([str_field(OBS_PENDING, c.label) for c in limbo] if limbo else ()),
            ]
        )


_OPTIONS_CACHE: dict[tuple[str, tuple[Any, ...]], bytes] = {}


def options_bytes(kind: str, options: tuple[Any, ...]) -> bytes:
    """The ``repeated Option options`` field of a DecisionRequest (cached by value)."""
    k = (kind, options)
    b = _OPTIONS_CACHE.get(k)
    if b is None:
        b = b"".join(
            len_field(REQ_OPTIONS, option_pb(kind, v).SerializeToString()) for v in options
        )
        if len(_OPTIONS_CACHE) < 50_000:
            _OPTIONS_CACHE[k] = b
    return b


def request_message(body: bytes) -> bytes:
    """An ArenaMessage{request} around an encoded DecisionRequest."""
    return len_field(ARENA_REQUEST, body)


def batch_message(bodies: list[bytes]) -> bytes:
    """An ArenaMessage{batch} of encoded DecisionRequests."""
    return len_field(ARENA_BATCH, b"".join([len_field(BATCH_REQUESTS, b) for b in bodies]))


class RequestEncoder:
    """Encodes one game's DecisionRequests (the bytes of a ``DecisionRequest``; the link
    wraps them in an ArenaMessage{request} or ArenaMessage{batch} as it writes them).

    Each event is encoded once, when first sent to any seat; the observation comes from an
    :class:`ObservationEncoder`; options are cached by value. The bytes parse to the message
    the protobuf API would build from the same parts (tests check this).
    """

    def __init__(self, game: Game, game_id: str, rules_msg: pb.Ruleset | None = None) -> None:
        self.game = game
        self.observation = ObservationEncoder(game, rules_msg)
        self.game_id = str_field(REQ_GAME_ID, game_id)
        self.events: list[bytes] = []  # one encoded ``events`` field per game event

    def encode(
        self,
        request_id: int,
        d: Decision,
        kind: int,
        since: int,
        deadline_ms: int,
        bank_ms: int,
    ) -> bytes:
        """The DecisionRequest for ``d``, carrying the game's events from index ``since``."""
        evs = self.game.events
        out = self.events
        for i in range(len(out), len(evs)):
            out.append(len_field(REQ_EVENTS, event_bytes(evs[i])))
        return b"".join(
            [
                key(REQ_ID, _VARINT) + varint(request_id),
                self.game_id,
                int_field(REQ_SEAT, d.seat),
                int_field(REQ_KIND, kind),
                str_field(REQ_CARD, d.card) if d.card else b"",
                len_field(REQ_OBSERVATION, self.observation.encode(d.seat)),
                *out[since:],
                options_bytes(d.kind, d.options),
                int_field(REQ_DEADLINE, deadline_ms),
                key(REQ_BANK, _VARINT) + varint(bank_ms) if bank_ms else b"",
            ]
        )
