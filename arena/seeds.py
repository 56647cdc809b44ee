"""Deterministic seed derivation: one master seed gives every game its own seed."""

from __future__ import annotations

import hashlib

MAX_SEED = 2**63 - 1


def derive_seed(master: int, *path: int | str) -> int:
    """A 63-bit seed for the game at ``path`` under ``master``; stable across processes."""
    key = ":".join(str(x) for x in (master, *path)).encode()
    return int.from_bytes(hashlib.blake2b(key, digest_size=8).digest(), "big") & MAX_SEED
