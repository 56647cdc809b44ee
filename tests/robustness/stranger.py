"""A stranger that opens many idle connections to the arena and holds them.

    python stranger.py TARGET --count 1100 [--seconds 30]

TARGET is ``host:port`` (TCP) or the path of a Unix socket. It opens COUNT connections,
sends nothing, prints ``{"opened": n}``, then watches for the arena closing them and
prints ``{"opened": n, "closed": k, "last_close": seconds}`` once all are closed or after
SECONDS, whichever is first. It never reconnects and stops by itself.
"""

from __future__ import annotations

import argparse
import json
import resource
import selectors
import socket
import time


def connect(target: str) -> socket.socket:
    if ":" in target and not target.startswith("/"):
        host, port = target.rsplit(":", 1)
        s = socket.create_connection((host, int(port)), timeout=10)
    else:
        s = socket.socket(socket.AF_UNIX)
        s.settimeout(10)
        s.connect(target)
    s.setblocking(False)
    return s


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("target")
    parser.add_argument("--count", type=int, default=1100)
    parser.add_argument("--seconds", type=float, default=30.0)
    args = parser.parse_args()
    _, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    resource.setrlimit(resource.RLIMIT_NOFILE, (hard, hard))
    sel = selectors.DefaultSelector()
    socks = [connect(args.target) for _ in range(args.count)]
    t0 = time.monotonic()
    for s in socks:
        sel.register(s, selectors.EVENT_READ)
    print(json.dumps({"opened": len(socks)}), flush=True)
    open_now = len(socks)
    last = 0.0
    while open_now and time.monotonic() - t0 < args.seconds:
        for key, _ in sel.select(timeout=0.2):
            s = key.fileobj
            try:
                data = s.recv(4096)  # type: ignore[union-attr]
            except (ConnectionResetError, BrokenPipeError):
                data = b""
            except BlockingIOError:
                continue
            if not data:  # closed by the arena (anything it sent first is ignored)
                sel.unregister(s)
                s.close()  # type: ignore[union-attr]
                open_now -= 1
                last = time.monotonic() - t0
    closed = len(socks) - open_now
    print(json.dumps({"opened": len(socks), "closed": closed, "last_close": last}), flush=True)


if __name__ == "__main__":
    main()
