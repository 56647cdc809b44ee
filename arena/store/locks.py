"""One running process per event: a lock held for as long as a tournament or a test runs.

A second ``arena tournament resume`` (or ``arena test resume``) of an event that is still
running (or a second run started by mistake) is refused at once instead of playing the
same matches twice. Tournaments and A/B tests are numbered apart, so each kind of event
has locks of its own (:data:`KINDS`).

* PostgreSQL: a session advisory lock (key: the arena's class for the kind, the event's
  id) on a connection kept for the run; the server releases it when that process dies.
* SQLite: a POSIX record lock on byte ``offset + id`` of the file ``<database>.lock``
  next to the database (tournaments from 0, tests from 2^40); the kernel releases it when
  the process dies. The lock file is created on the
  first run and left in place (removing it would race with other processes).
* Other databases (in-memory SQLite, other servers): a lock within this process only.
"""

from __future__ import annotations

import fcntl
import os
import threading
from pathlib import Path

from sqlalchemy import Connection, Engine, text

from arena.errors import ArenaError
from arena.store.db import describe, sqlite_file

EVENT_LOCK_CLASS = 0x46374154  # first key of the PostgreSQL advisory lock (fits int4)
TEST_LOCK_CLASS = 0x46374155  # the same for A/B tests
# kind of event -> (PostgreSQL lock class, first byte of its range in the SQLite lock file)
KINDS = {"tournament": (EVENT_LOCK_CLASS, 0), "test": (TEST_LOCK_CLASS, 1 << 40)}

_guard = threading.Lock()
_held: set[tuple[str, str, int]] = set()  # (database, kind, event id) locked here
_files: dict[Path, tuple[int, int]] = {}  # lock file -> (fd, locks held through it)


class EventRunning(ArenaError):
    """Another process is running this event."""


def _refuse(kind: str, tid: int) -> EventRunning:
    return EventRunning(
        f"{kind} {tid} is already running in another process; wait for it to finish "
        "(or stop it) before resuming"
    )


class EventLock:
    def __init__(self, eng: Engine, tid: int, kind: str = "tournament") -> None:
        if kind not in KINDS:
            raise ValueError(f"unknown kind of event {kind!r}")
        self.eng = eng
        self.tid = tid
        self.kind = kind
        self.lock_class, offset = KINDS[kind]
        self.byte = offset + tid
        self.key = (describe(eng.url), kind, tid)
        self._conn: Connection | None = None
        self._file: Path | None = None

    def __enter__(self) -> EventLock:
        self.acquire()
        return self

    def __exit__(self, *exc: object) -> None:
        self.release()

    def acquire(self) -> None:
        with _guard:
            if self.key in _held:
                raise _refuse(self.kind, self.tid)
            if self.eng.dialect.name == "postgresql":
                self._lock_server()
            else:
                path = sqlite_file(self.eng.url)
                if path is not None:
                    self._lock_file(path.parent / (path.name + ".lock"))
            _held.add(self.key)

    def _lock_server(self) -> None:
        conn = self.eng.connect()
        try:
            got = conn.execute(
                text("SELECT pg_try_advisory_lock(:c, :t)"), {"c": self.lock_class, "t": self.tid}
            ).scalar_one()
            conn.commit()
        except BaseException:
            conn.close()
            raise
        if not got:
            conn.close()
            raise _refuse(self.kind, self.tid)
        self._conn = conn

    def _lock_file(self, path: Path) -> None:
        entry = _files.get(path)
        if entry is None:
            try:
                fd = os.open(path, os.O_RDWR | os.O_CREAT | os.O_CLOEXEC, 0o644)
            except OSError as e:
                raise ArenaError(f"cannot lock the event: {path}: {e.strerror}") from None
            entry = (fd, 0)
        fd, count = entry
        try:
            fcntl.lockf(fd, fcntl.LOCK_EX | fcntl.LOCK_NB, 1, self.byte, os.SEEK_SET)
        except OSError:
            if count == 0:
                os.close(fd)
            raise _refuse(self.kind, self.tid) from None
        _files[path] = (fd, count + 1)
        self._file = path

    def refresh(self) -> None:
        """After a database outage: a server lock dies with its connection; take it again
        (refused if another process took the event meanwhile)."""
        if self._conn is None:
            return
        with _guard:
            try:
                self._conn.execute(text("SELECT 1")).scalar_one()
                self._conn.commit()
                return
            except Exception:
                self._drop_connection()
            try:
                self._lock_server()
            except EventRunning:
                _held.discard(self.key)
                raise EventRunning(
                    f"{self.kind} {self.tid} was taken over by another process while the "
                    "database was unreachable; this run stops"
                ) from None

    def _drop_connection(self) -> None:
        """Close the lock's connection for good: closing the session releases its advisory
        locks, also when the server cannot be told; a locked session never goes back to
        the pool."""
        conn, self._conn = self._conn, None
        if conn is None:
            return
        try:
            conn.invalidate()
            conn.close()
        except Exception:
            pass

    def release(self) -> None:
        with _guard:
            if self.key not in _held:
                return
            _held.discard(self.key)
            self._drop_connection()
            if self._file is not None:
                fd, count = _files[self._file]
                try:
                    fcntl.lockf(fd, fcntl.LOCK_UN, 1, self.byte, os.SEEK_SET)
                finally:
                    if count <= 1:
                        os.close(fd)
                        del _files[self._file]
                    else:
                        _files[self._file] = (fd, count - 1)
                self._file = None
