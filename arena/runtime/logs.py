"""A bot's captured output, size-capped: the head and the tail are kept.

The first ``cap/2`` bytes (start-up messages) and the last ``cap/2`` (the traceback of a
crash) survive however much a bot writes; what lies between is counted and replaced by a
marker. Process and container bots both use it; it may be written from another thread.
"""

from __future__ import annotations

import threading

DEFAULT_LOG_CAP = 256 * 1024


class HeadTailLog:
    """Keeps the head and the tail of a byte stream (see the module docstring)."""

    def __init__(self, cap: int = DEFAULT_LOG_CAP) -> None:
        self.cap = cap
        self._half = max(1, cap // 2)
        self._head = bytearray()
        self._tail = bytearray()
        self.size = 0  # bytes written in all
        self._lock = threading.Lock()

    def write(self, data: bytes) -> None:
        with self._lock:
            self.size += len(data)
            room = self._half - len(self._head)
            if room > 0:
                self._head += data[:room]
                data = data[room:]
            if data:
                self._tail += data
                if len(self._tail) > 2 * self._half:  # trim in batches: amortised O(1)
                    del self._tail[: len(self._tail) - self._half]

    @property
    def dropped(self) -> int:
        with self._lock:
            return self.size - len(self._head) - min(len(self._tail), self._half)

    def text(self) -> str:
        with self._lock:
            tail = bytes(self._tail[-self._half :]) if self._tail else b""
            dropped = self.size - len(self._head) - len(tail)
            out = bytes(self._head).decode(errors="replace")
            if dropped > 0:
                out += f"\n[... {dropped} bytes not kept ...]\n"
            return out + tail.decode(errors="replace")
