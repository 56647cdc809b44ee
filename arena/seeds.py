"""Where every game's deal comes from, so that no participant can predict one.

Each event (a tournament, an ``arena match``) has a **deal key**: 32 random bytes from
:mod:`secrets`, stored with the event, never sent to a bot and revealed only once the event
is over. Every seed of the event is derived from that key with HMAC-SHA256:

* a match's seed: ``key.seed("round", r, "table", t)``;
* a game's deal: :func:`game_seed` (HMAC keyed by the match seed, over the game's index);
* a bot's own randomness: :func:`bot_seed` (same key, a different message).

Knowing the code, the command line, the game ids and every message received does not help:
without the key the seeds are unpredictable, and a revealed game seed (sent in ``GameEnd``
once the game is over) tells nothing about any other game, because HMAC outputs under one
key are independent of each other.

A **reproducible run** (``--seed SEED``) derives the key from the seed by a public function, so the
same S gives the same games — and anyone who knows or guesses S can predict every card.
That is the operator's explicit choice, for tests and trusted bots, and the CLI and the
report say so.
"""

from __future__ import annotations

import hashlib
import hmac
import secrets

MAX_SEED = 2**63 - 1
KEY_BYTES = 32
_SEED_DOMAIN = b"flip7-arena/reproducible-seed/"


def derive_seed(master: int, *path: int | str) -> int:
    """A 63-bit seed for ``path`` under ``master`` by a *public* function (no secret).

    For in-process statistics (``arena simulate``), where there is nobody to cheat. Events
    with bots use :class:`DealKey`.
    """
    key = ":".join(str(x) for x in (master, *path)).encode()
    return int.from_bytes(hashlib.blake2b(key, digest_size=8).digest(), "big") & MAX_SEED


def _mac_seed(key: bytes, path: tuple[int | str, ...]) -> int:
    msg = "/".join(str(x) for x in path).encode()
    digest = hmac.new(key, msg, hashlib.sha256).digest()
    return int.from_bytes(digest[:8], "big") & MAX_SEED


class DealKey:
    """The secret an event's seeds derive from (see the module docstring)."""

    __slots__ = ("_key", "reproducible")

    def __init__(self, key: bytes, *, reproducible: bool = False) -> None:
        if len(key) < 16:
            raise ValueError("a deal key needs at least 16 bytes")
        self._key = bytes(key)
        self.reproducible = reproducible

    @classmethod
    def fresh(cls) -> DealKey:
        """A new secret key: nobody can predict its deals."""
        return cls(secrets.token_bytes(KEY_BYTES))

    @classmethod
    def from_seed(cls, seed: int) -> DealKey:
        """The public key of a reproducible run: same seed, same deals (guessable)."""
        if not 0 <= seed <= MAX_SEED:
            raise ValueError(f"seed must be between 0 and 2^63-1, got {seed}")
        return cls(hashlib.sha256(_SEED_DOMAIN + str(seed).encode()).digest(), reproducible=True)

    @classmethod
    def from_hex(cls, text: str) -> DealKey:
        return cls(bytes.fromhex(text))

    def hex(self) -> str:
        return self._key.hex()

    def seed(self, *path: int | str) -> int:
        """A 63-bit seed for ``path`` (e.g. ``"round", 2, "table", 0``) under this key."""
        return _mac_seed(self._key, path)

    def __repr__(self) -> str:  # never print the key by accident
        return f"DealKey({'reproducible' if self.reproducible else 'secret'})"


def fresh_match_seed() -> int:
    """A secret 63-bit match seed (an ``arena match`` without ``--seed``)."""
    return secrets.randbits(63)


def _seed_key(match_seed: int) -> bytes:
    return b"flip7-arena/match/" + match_seed.to_bytes(8, "big")


def game_seed(match_seed: int, index: int) -> int:
    """The deal of game ``index`` of a match: HMAC keyed by the match seed."""
    return _mac_seed(_seed_key(match_seed), ("game", index))


def bot_seed(match_seed: int, index: int, seat: int) -> int:
    """The seed a bot gets in GameStart for its own randomness (independent of the deal)."""
    return _mac_seed(_seed_key(match_seed), ("bot", index, seat))
