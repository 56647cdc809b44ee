from google.protobuf.internal import containers as _containers
from google.protobuf.internal import enum_type_wrapper as _enum_type_wrapper
from google.protobuf import descriptor as _descriptor
from google.protobuf import message as _message
from collections.abc import Iterable as _Iterable, Mapping as _Mapping
from typing import ClassVar as _ClassVar, Optional as _Optional, Union as _Union

DESCRIPTOR: _descriptor.FileDescriptor

class DecisionKind(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    DECISION_KIND_UNSPECIFIED: _ClassVar[DecisionKind]
    HIT_OR_STAY: _ClassVar[DecisionKind]
    CHOOSE_TARGET: _ClassVar[DecisionKind]
    GIVE_SECOND_CHANCE: _ClassVar[DecisionKind]
    GIVE_MODIFIER: _ClassVar[DecisionKind]
    STEAL: _ClassVar[DecisionKind]
    DISCARD: _ClassVar[DecisionKind]
    SWAP: _ClassVar[DecisionKind]
    FLIP7_BONUS: _ClassVar[DecisionKind]

class Move(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    MOVE_UNSPECIFIED: _ClassVar[Move]
    HIT: _ClassVar[Move]
    STAY: _ClassVar[Move]

class PlayerStatus(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    PLAYER_STATUS_UNSPECIFIED: _ClassVar[PlayerStatus]
    ACTIVE: _ClassVar[PlayerStatus]
    STAYED: _ClassVar[PlayerStatus]
    FROZEN: _ClassVar[PlayerStatus]
    BUSTED: _ClassVar[PlayerStatus]

class FaultKind(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    FAULT_KIND_UNSPECIFIED: _ClassVar[FaultKind]
    TIMEOUT: _ClassVar[FaultKind]
    ILLEGAL: _ClassVar[FaultKind]
    CRASH: _ClassVar[FaultKind]
    DISCONNECT: _ClassVar[FaultKind]
    INIT_FAIL: _ClassVar[FaultKind]
    INFRA: _ClassVar[FaultKind]
    BOT_ERROR: _ClassVar[FaultKind]
DECISION_KIND_UNSPECIFIED: DecisionKind
HIT_OR_STAY: DecisionKind
CHOOSE_TARGET: DecisionKind
GIVE_SECOND_CHANCE: DecisionKind
GIVE_MODIFIER: DecisionKind
STEAL: DecisionKind
DISCARD: DecisionKind
SWAP: DecisionKind
FLIP7_BONUS: DecisionKind
MOVE_UNSPECIFIED: Move
HIT: Move
STAY: Move
PLAYER_STATUS_UNSPECIFIED: PlayerStatus
ACTIVE: PlayerStatus
STAYED: PlayerStatus
FROZEN: PlayerStatus
BUSTED: PlayerStatus
FAULT_KIND_UNSPECIFIED: FaultKind
TIMEOUT: FaultKind
ILLEGAL: FaultKind
CRASH: FaultKind
DISCONNECT: FaultKind
INIT_FAIL: FaultKind
INFRA: FaultKind
BOT_ERROR: FaultKind

class BotMessage(_message.Message):
    __slots__ = ("hello", "answer", "answers")
    HELLO_FIELD_NUMBER: _ClassVar[int]
    ANSWER_FIELD_NUMBER: _ClassVar[int]
    ANSWERS_FIELD_NUMBER: _ClassVar[int]
    hello: Hello
    answer: Answer
    answers: Answers
    def __init__(self, hello: _Optional[_Union[Hello, _Mapping]] = ..., answer: _Optional[_Union[Answer, _Mapping]] = ..., answers: _Optional[_Union[Answers, _Mapping]] = ...) -> None: ...

class Answers(_message.Message):
    __slots__ = ("answers",)
    ANSWERS_FIELD_NUMBER: _ClassVar[int]
    answers: _containers.RepeatedCompositeFieldContainer[Answer]
    def __init__(self, answers: _Optional[_Iterable[_Union[Answer, _Mapping]]] = ...) -> None: ...

class Hello(_message.Message):
    __slots__ = ("token", "bot_name", "protocol_version", "max_concurrent_games", "bot_version", "want_forced", "batches")
    TOKEN_FIELD_NUMBER: _ClassVar[int]
    BOT_NAME_FIELD_NUMBER: _ClassVar[int]
    PROTOCOL_VERSION_FIELD_NUMBER: _ClassVar[int]
    MAX_CONCURRENT_GAMES_FIELD_NUMBER: _ClassVar[int]
    BOT_VERSION_FIELD_NUMBER: _ClassVar[int]
    WANT_FORCED_FIELD_NUMBER: _ClassVar[int]
    BATCHES_FIELD_NUMBER: _ClassVar[int]
    token: str
    bot_name: str
    protocol_version: int
    max_concurrent_games: int
    bot_version: str
    want_forced: bool
    batches: bool
    def __init__(self, token: _Optional[str] = ..., bot_name: _Optional[str] = ..., protocol_version: _Optional[int] = ..., max_concurrent_games: _Optional[int] = ..., bot_version: _Optional[str] = ..., want_forced: _Optional[bool] = ..., batches: _Optional[bool] = ...) -> None: ...

class Answer(_message.Message):
    __slots__ = ("request_id", "option_index", "error")
    REQUEST_ID_FIELD_NUMBER: _ClassVar[int]
    OPTION_INDEX_FIELD_NUMBER: _ClassVar[int]
    ERROR_FIELD_NUMBER: _ClassVar[int]
    request_id: int
    option_index: int
    error: str
    def __init__(self, request_id: _Optional[int] = ..., option_index: _Optional[int] = ..., error: _Optional[str] = ...) -> None: ...

class ArenaMessage(_message.Message):
    __slots__ = ("welcome", "game_start", "request", "game_end", "error", "goodbye", "batch")
    WELCOME_FIELD_NUMBER: _ClassVar[int]
    GAME_START_FIELD_NUMBER: _ClassVar[int]
    REQUEST_FIELD_NUMBER: _ClassVar[int]
    GAME_END_FIELD_NUMBER: _ClassVar[int]
    ERROR_FIELD_NUMBER: _ClassVar[int]
    GOODBYE_FIELD_NUMBER: _ClassVar[int]
    BATCH_FIELD_NUMBER: _ClassVar[int]
    welcome: Welcome
    game_start: GameStart
    request: DecisionRequest
    game_end: GameEnd
    error: Error
    goodbye: Goodbye
    batch: Batch
    def __init__(self, welcome: _Optional[_Union[Welcome, _Mapping]] = ..., game_start: _Optional[_Union[GameStart, _Mapping]] = ..., request: _Optional[_Union[DecisionRequest, _Mapping]] = ..., game_end: _Optional[_Union[GameEnd, _Mapping]] = ..., error: _Optional[_Union[Error, _Mapping]] = ..., goodbye: _Optional[_Union[Goodbye, _Mapping]] = ..., batch: _Optional[_Union[Batch, _Mapping]] = ...) -> None: ...

class Batch(_message.Message):
    __slots__ = ("requests",)
    REQUESTS_FIELD_NUMBER: _ClassVar[int]
    requests: _containers.RepeatedCompositeFieldContainer[DecisionRequest]
    def __init__(self, requests: _Optional[_Iterable[_Union[DecisionRequest, _Mapping]]] = ...) -> None: ...

class Welcome(_message.Message):
    __slots__ = ("bot_name", "protocol_version", "session_id", "max_message_bytes", "reconnect_grace_ms", "arena_version", "batches")
    BOT_NAME_FIELD_NUMBER: _ClassVar[int]
    PROTOCOL_VERSION_FIELD_NUMBER: _ClassVar[int]
    SESSION_ID_FIELD_NUMBER: _ClassVar[int]
    MAX_MESSAGE_BYTES_FIELD_NUMBER: _ClassVar[int]
    RECONNECT_GRACE_MS_FIELD_NUMBER: _ClassVar[int]
    ARENA_VERSION_FIELD_NUMBER: _ClassVar[int]
    BATCHES_FIELD_NUMBER: _ClassVar[int]
    bot_name: str
    protocol_version: int
    session_id: str
    max_message_bytes: int
    reconnect_grace_ms: int
    arena_version: str
    batches: bool
    def __init__(self, bot_name: _Optional[str] = ..., protocol_version: _Optional[int] = ..., session_id: _Optional[str] = ..., max_message_bytes: _Optional[int] = ..., reconnect_grace_ms: _Optional[int] = ..., arena_version: _Optional[str] = ..., batches: _Optional[bool] = ...) -> None: ...

class GameStart(_message.Message):
    __slots__ = ("game_id", "seat", "seats", "ruleset", "seat_names", "deadline_ms", "time_bank_ms", "bot_seed")
    GAME_ID_FIELD_NUMBER: _ClassVar[int]
    SEAT_FIELD_NUMBER: _ClassVar[int]
    SEATS_FIELD_NUMBER: _ClassVar[int]
    RULESET_FIELD_NUMBER: _ClassVar[int]
    SEAT_NAMES_FIELD_NUMBER: _ClassVar[int]
    DEADLINE_MS_FIELD_NUMBER: _ClassVar[int]
    TIME_BANK_MS_FIELD_NUMBER: _ClassVar[int]
    BOT_SEED_FIELD_NUMBER: _ClassVar[int]
    game_id: str
    seat: int
    seats: int
    ruleset: Ruleset
    seat_names: _containers.RepeatedScalarFieldContainer[str]
    deadline_ms: int
    time_bank_ms: int
    bot_seed: int
    def __init__(self, game_id: _Optional[str] = ..., seat: _Optional[int] = ..., seats: _Optional[int] = ..., ruleset: _Optional[_Union[Ruleset, _Mapping]] = ..., seat_names: _Optional[_Iterable[str]] = ..., deadline_ms: _Optional[int] = ..., time_bank_ms: _Optional[int] = ..., bot_seed: _Optional[int] = ...) -> None: ...

class Ruleset(_message.Message):
    __slots__ = ("variant", "brutal", "target_score", "deck_size")
    VARIANT_FIELD_NUMBER: _ClassVar[int]
    BRUTAL_FIELD_NUMBER: _ClassVar[int]
    TARGET_SCORE_FIELD_NUMBER: _ClassVar[int]
    DECK_SIZE_FIELD_NUMBER: _ClassVar[int]
    variant: str
    brutal: bool
    target_score: int
    deck_size: int
    def __init__(self, variant: _Optional[str] = ..., brutal: _Optional[bool] = ..., target_score: _Optional[int] = ..., deck_size: _Optional[int] = ...) -> None: ...

class DecisionRequest(_message.Message):
    __slots__ = ("request_id", "game_id", "seat", "kind", "card", "observation", "events", "options", "deadline_ms", "time_bank_ms")
    REQUEST_ID_FIELD_NUMBER: _ClassVar[int]
    GAME_ID_FIELD_NUMBER: _ClassVar[int]
    SEAT_FIELD_NUMBER: _ClassVar[int]
    KIND_FIELD_NUMBER: _ClassVar[int]
    CARD_FIELD_NUMBER: _ClassVar[int]
    OBSERVATION_FIELD_NUMBER: _ClassVar[int]
    EVENTS_FIELD_NUMBER: _ClassVar[int]
    OPTIONS_FIELD_NUMBER: _ClassVar[int]
    DEADLINE_MS_FIELD_NUMBER: _ClassVar[int]
    TIME_BANK_MS_FIELD_NUMBER: _ClassVar[int]
    request_id: int
    game_id: str
    seat: int
    kind: DecisionKind
    card: str
    observation: Observation
    events: _containers.RepeatedCompositeFieldContainer[Event]
    options: _containers.RepeatedCompositeFieldContainer[Option]
    deadline_ms: int
    time_bank_ms: int
    def __init__(self, request_id: _Optional[int] = ..., game_id: _Optional[str] = ..., seat: _Optional[int] = ..., kind: _Optional[_Union[DecisionKind, str]] = ..., card: _Optional[str] = ..., observation: _Optional[_Union[Observation, _Mapping]] = ..., events: _Optional[_Iterable[_Union[Event, _Mapping]]] = ..., options: _Optional[_Iterable[_Union[Option, _Mapping]]] = ..., deadline_ms: _Optional[int] = ..., time_bank_ms: _Optional[int] = ...) -> None: ...

class CardRef(_message.Message):
    __slots__ = ("seat", "label")
    SEAT_FIELD_NUMBER: _ClassVar[int]
    LABEL_FIELD_NUMBER: _ClassVar[int]
    seat: int
    label: str
    def __init__(self, seat: _Optional[int] = ..., label: _Optional[str] = ...) -> None: ...

class SwapPair(_message.Message):
    __slots__ = ("first", "second")
    FIRST_FIELD_NUMBER: _ClassVar[int]
    SECOND_FIELD_NUMBER: _ClassVar[int]
    first: CardRef
    second: CardRef
    def __init__(self, first: _Optional[_Union[CardRef, _Mapping]] = ..., second: _Optional[_Union[CardRef, _Mapping]] = ...) -> None: ...

class Flip7Choice(_message.Message):
    __slots__ = ("bonus_to_self", "penalty_seat")
    BONUS_TO_SELF_FIELD_NUMBER: _ClassVar[int]
    PENALTY_SEAT_FIELD_NUMBER: _ClassVar[int]
    bonus_to_self: bool
    penalty_seat: int
    def __init__(self, bonus_to_self: _Optional[bool] = ..., penalty_seat: _Optional[int] = ...) -> None: ...

class Option(_message.Message):
    __slots__ = ("move", "seat", "card", "swap", "flip7")
    MOVE_FIELD_NUMBER: _ClassVar[int]
    SEAT_FIELD_NUMBER: _ClassVar[int]
    CARD_FIELD_NUMBER: _ClassVar[int]
    SWAP_FIELD_NUMBER: _ClassVar[int]
    FLIP7_FIELD_NUMBER: _ClassVar[int]
    move: Move
    seat: int
    card: CardRef
    swap: SwapPair
    flip7: Flip7Choice
    def __init__(self, move: _Optional[_Union[Move, str]] = ..., seat: _Optional[int] = ..., card: _Optional[_Union[CardRef, _Mapping]] = ..., swap: _Optional[_Union[SwapPair, _Mapping]] = ..., flip7: _Optional[_Union[Flip7Choice, _Mapping]] = ...) -> None: ...

class PlayerView(_message.Message):
    __slots__ = ("seat", "status", "numbers", "modifiers", "second_chances", "total", "line_score", "flip7")
    SEAT_FIELD_NUMBER: _ClassVar[int]
    STATUS_FIELD_NUMBER: _ClassVar[int]
    NUMBERS_FIELD_NUMBER: _ClassVar[int]
    MODIFIERS_FIELD_NUMBER: _ClassVar[int]
    SECOND_CHANCES_FIELD_NUMBER: _ClassVar[int]
    TOTAL_FIELD_NUMBER: _ClassVar[int]
    LINE_SCORE_FIELD_NUMBER: _ClassVar[int]
    FLIP7_FIELD_NUMBER: _ClassVar[int]
    seat: int
    status: PlayerStatus
    numbers: _containers.RepeatedScalarFieldContainer[str]
    modifiers: _containers.RepeatedScalarFieldContainer[str]
    second_chances: int
    total: int
    line_score: int
    flip7: bool
    def __init__(self, seat: _Optional[int] = ..., status: _Optional[_Union[PlayerStatus, str]] = ..., numbers: _Optional[_Iterable[str]] = ..., modifiers: _Optional[_Iterable[str]] = ..., second_chances: _Optional[int] = ..., total: _Optional[int] = ..., line_score: _Optional[int] = ..., flip7: _Optional[bool] = ...) -> None: ...

class Observation(_message.Message):
    __slots__ = ("variant", "ruleset", "seat", "seats", "round", "dealer", "order", "players", "discard", "deck_size", "unseen", "pending")
    class UnseenEntry(_message.Message):
        __slots__ = ("key", "value")
        KEY_FIELD_NUMBER: _ClassVar[int]
        VALUE_FIELD_NUMBER: _ClassVar[int]
        key: str
        value: int
        def __init__(self, key: _Optional[str] = ..., value: _Optional[int] = ...) -> None: ...
    VARIANT_FIELD_NUMBER: _ClassVar[int]
    RULESET_FIELD_NUMBER: _ClassVar[int]
    SEAT_FIELD_NUMBER: _ClassVar[int]
    SEATS_FIELD_NUMBER: _ClassVar[int]
    ROUND_FIELD_NUMBER: _ClassVar[int]
    DEALER_FIELD_NUMBER: _ClassVar[int]
    ORDER_FIELD_NUMBER: _ClassVar[int]
    PLAYERS_FIELD_NUMBER: _ClassVar[int]
    DISCARD_FIELD_NUMBER: _ClassVar[int]
    DECK_SIZE_FIELD_NUMBER: _ClassVar[int]
    UNSEEN_FIELD_NUMBER: _ClassVar[int]
    PENDING_FIELD_NUMBER: _ClassVar[int]
    variant: str
    ruleset: Ruleset
    seat: int
    seats: int
    round: int
    dealer: int
    order: _containers.RepeatedScalarFieldContainer[int]
    players: _containers.RepeatedCompositeFieldContainer[PlayerView]
    discard: _containers.RepeatedScalarFieldContainer[str]
    deck_size: int
    unseen: _containers.ScalarMap[str, int]
    pending: _containers.RepeatedScalarFieldContainer[str]
    def __init__(self, variant: _Optional[str] = ..., ruleset: _Optional[_Union[Ruleset, _Mapping]] = ..., seat: _Optional[int] = ..., seats: _Optional[int] = ..., round: _Optional[int] = ..., dealer: _Optional[int] = ..., order: _Optional[_Iterable[int]] = ..., players: _Optional[_Iterable[_Union[PlayerView, _Mapping]]] = ..., discard: _Optional[_Iterable[str]] = ..., deck_size: _Optional[int] = ..., unseen: _Optional[_Mapping[str, int]] = ..., pending: _Optional[_Iterable[str]] = ...) -> None: ...

class Event(_message.Message):
    __slots__ = ("kind", "seat", "target", "card", "round", "count", "reason", "seats", "cards", "scores", "totals")
    KIND_FIELD_NUMBER: _ClassVar[int]
    SEAT_FIELD_NUMBER: _ClassVar[int]
    TARGET_FIELD_NUMBER: _ClassVar[int]
    CARD_FIELD_NUMBER: _ClassVar[int]
    ROUND_FIELD_NUMBER: _ClassVar[int]
    COUNT_FIELD_NUMBER: _ClassVar[int]
    REASON_FIELD_NUMBER: _ClassVar[int]
    SEATS_FIELD_NUMBER: _ClassVar[int]
    CARDS_FIELD_NUMBER: _ClassVar[int]
    SCORES_FIELD_NUMBER: _ClassVar[int]
    TOTALS_FIELD_NUMBER: _ClassVar[int]
    kind: str
    seat: int
    target: int
    card: str
    round: int
    count: int
    reason: str
    seats: _containers.RepeatedScalarFieldContainer[int]
    cards: _containers.RepeatedScalarFieldContainer[str]
    scores: _containers.RepeatedScalarFieldContainer[int]
    totals: _containers.RepeatedScalarFieldContainer[int]
    def __init__(self, kind: _Optional[str] = ..., seat: _Optional[int] = ..., target: _Optional[int] = ..., card: _Optional[str] = ..., round: _Optional[int] = ..., count: _Optional[int] = ..., reason: _Optional[str] = ..., seats: _Optional[_Iterable[int]] = ..., cards: _Optional[_Iterable[str]] = ..., scores: _Optional[_Iterable[int]] = ..., totals: _Optional[_Iterable[int]] = ...) -> None: ...

class Fault(_message.Message):
    __slots__ = ("kind", "seat", "detail", "forfeit")
    KIND_FIELD_NUMBER: _ClassVar[int]
    SEAT_FIELD_NUMBER: _ClassVar[int]
    DETAIL_FIELD_NUMBER: _ClassVar[int]
    FORFEIT_FIELD_NUMBER: _ClassVar[int]
    kind: FaultKind
    seat: int
    detail: str
    forfeit: bool
    def __init__(self, kind: _Optional[_Union[FaultKind, str]] = ..., seat: _Optional[int] = ..., detail: _Optional[str] = ..., forfeit: _Optional[bool] = ...) -> None: ...

class GameEnd(_message.Message):
    __slots__ = ("game_id", "totals", "ranks", "winners", "rounds", "seed", "events", "faults", "status")
    GAME_ID_FIELD_NUMBER: _ClassVar[int]
    TOTALS_FIELD_NUMBER: _ClassVar[int]
    RANKS_FIELD_NUMBER: _ClassVar[int]
    WINNERS_FIELD_NUMBER: _ClassVar[int]
    ROUNDS_FIELD_NUMBER: _ClassVar[int]
    SEED_FIELD_NUMBER: _ClassVar[int]
    EVENTS_FIELD_NUMBER: _ClassVar[int]
    FAULTS_FIELD_NUMBER: _ClassVar[int]
    STATUS_FIELD_NUMBER: _ClassVar[int]
    game_id: str
    totals: _containers.RepeatedScalarFieldContainer[int]
    ranks: _containers.RepeatedScalarFieldContainer[int]
    winners: _containers.RepeatedScalarFieldContainer[int]
    rounds: int
    seed: int
    events: _containers.RepeatedCompositeFieldContainer[Event]
    faults: _containers.RepeatedCompositeFieldContainer[Fault]
    status: str
    def __init__(self, game_id: _Optional[str] = ..., totals: _Optional[_Iterable[int]] = ..., ranks: _Optional[_Iterable[int]] = ..., winners: _Optional[_Iterable[int]] = ..., rounds: _Optional[int] = ..., seed: _Optional[int] = ..., events: _Optional[_Iterable[_Union[Event, _Mapping]]] = ..., faults: _Optional[_Iterable[_Union[Fault, _Mapping]]] = ..., status: _Optional[str] = ...) -> None: ...

class Error(_message.Message):
    __slots__ = ("code", "message")
    class Code(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
        __slots__ = ()
        CODE_UNSPECIFIED: _ClassVar[Error.Code]
        BAD_TOKEN: _ClassVar[Error.Code]
        BAD_HELLO: _ClassVar[Error.Code]
        VERSION: _ClassVar[Error.Code]
        ALREADY_CONNECTED: _ClassVar[Error.Code]
        TOO_LARGE: _ClassVar[Error.Code]
        PROTOCOL: _ClassVar[Error.Code]
    CODE_UNSPECIFIED: Error.Code
    BAD_TOKEN: Error.Code
    BAD_HELLO: Error.Code
    VERSION: Error.Code
    ALREADY_CONNECTED: Error.Code
    TOO_LARGE: Error.Code
    PROTOCOL: Error.Code
    CODE_FIELD_NUMBER: _ClassVar[int]
    MESSAGE_FIELD_NUMBER: _ClassVar[int]
    code: Error.Code
    message: str
    def __init__(self, code: _Optional[_Union[Error.Code, str]] = ..., message: _Optional[str] = ...) -> None: ...

class Goodbye(_message.Message):
    __slots__ = ("reason",)
    REASON_FIELD_NUMBER: _ClassVar[int]
    reason: str
    def __init__(self, reason: _Optional[str] = ...) -> None: ...
