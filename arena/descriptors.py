"""The arena's own file descriptors: raise the limit at start, tell exhaustion apart.

Every bot connection, bot process pipe and database connection costs the arena a file
descriptor. A soft limit of 1,024 (the usual default) is easy to exhaust from outside, so
the arena raises its soft limit towards the hard limit when it starts, and a failure caused
by its own exhaustion (EMFILE/ENFILE) is the arena's fault (INFRA), never a bot's.
"""

from __future__ import annotations

import errno
import logging
import os

try:
    import resource
except ImportError:  # pragma: no cover - not on POSIX
    resource = None  # type: ignore[assignment]  # the module's absence, checked before use

log = logging.getLogger("arena.descriptors")

# what the arena asks for at most: enough for thousands of bots, far below kernel maxima
WANTED = 65536
# descriptors kept free for the arena's own work (bot pipes, database, logs)
RESERVE = 256
# below this many free descriptors the arena counts as short of them
SHORT = 32

EXHAUSTED_ERRNOS = frozenset({errno.EMFILE, errno.ENFILE})
_EXHAUSTED_TEXT = ("too many open files", "file table overflow")


def limit() -> int | None:
    """The current soft limit on open descriptors (None where unknown or unlimited)."""
    if resource is None:
        return None
    soft, _ = resource.getrlimit(resource.RLIMIT_NOFILE)
    return None if soft == resource.RLIM_INFINITY else soft


def raise_limit(wanted: int = WANTED) -> int | None:
    """Raise the soft limit towards the hard limit (at most ``wanted``); never lowers it.

    Returns the soft limit in force afterwards."""
    if resource is None:
        return None
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    target = wanted if hard == resource.RLIM_INFINITY else min(wanted, hard)
    if soft != resource.RLIM_INFINITY and soft < target:
        try:
            resource.setrlimit(resource.RLIMIT_NOFILE, (target, hard))
            soft = target
        except (ValueError, OSError) as e:
            log.warning("cannot raise the open-file limit from %d to %d: %s", soft, target, e)
    return None if soft == resource.RLIM_INFINITY else soft


def open_count() -> int | None:
    """Descriptors this process has open now (None where /proc is not available)."""
    try:
        return len(os.listdir("/proc/self/fd")) - 1  # the listing's own descriptor
    except OSError as e:
        if e.errno in EXHAUSTED_ERRNOS:
            return limit()
        return None


def headroom() -> int | None:
    """Descriptors still free under the soft limit (None where unknown)."""
    lim, used = limit(), open_count()
    if lim is None or used is None:
        return None
    return lim - used


def short() -> bool:
    """Is the arena out of (or nearly out of) descriptors right now?"""
    room = headroom()
    return room is not None and room < SHORT


def is_exhaustion(exc: BaseException | None) -> bool:
    """Was ``exc`` (or anything it was raised from) the system running out of descriptors?"""
    seen = 0
    while exc is not None and seen < 16:
        if isinstance(exc, OSError) and exc.errno in EXHAUSTED_ERRNOS:
            return True
        if any(t in str(exc).lower() for t in _EXHAUSTED_TEXT):
            return True
        exc = exc.__cause__ or exc.__context__
        seen += 1
    return False


MAX_CONNECTIONS = 4096  # per listener, whatever the limit


def connection_budget(listeners: int) -> int:
    """How many connections each listener may hold so that all of them together leave the
    arena :data:`RESERVE` descriptors plus as many again for its bots' processes."""
    lim = limit()
    if lim is None:
        return MAX_CONNECTIONS
    return max(16, min(MAX_CONNECTIONS, (lim - RESERVE) // (2 * max(1, listeners))))
