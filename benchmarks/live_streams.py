"""Live-update streams of ``arena serve``: the server's CPU with many open streams.

    .venv/bin/python benchmarks/live_streams.py [--streams 300] [--seconds 20]
        [--source DIR] [--serve-arg=--streams-total=1000 ...]

Starts a real ``arena serve --read-only`` (from ``--source``, default this tree) over a
fresh SQLite database, opens ``--streams`` anonymous ``/api/stream`` connections from
this process (raw sockets: the client's own cost stays out of the server's figure), and
reads the server process's CPU time (/proc) over ``--seconds``: first with no stream
open, then with the streams open. Prints how many streams were answered 200 and 429 and
the server's CPU in % of one core. The server's caps refuse most of 300 streams from one
address unless raised, e.g. ``--serve-arg=--streams-per-address=1000
--serve-arg=--streams-total=1000``.

Measured on a 2-core machine shared with other work, 300 streams, caps raised: each
stream polling the database itself (every 0.5 s), 100 % of a core; one poller shared by
every stream, 1.2 % (0.2 % with no stream open). With the default caps, 8 of the 300
streams from one address are answered 200 and 292 are refused (429).
"""

from __future__ import annotations

import argparse
import asyncio
import os
import socket
import subprocess
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
TICKS = os.sysconf("SC_CLK_TCK")


def cpu_seconds(pid: int) -> float:
    """User and system CPU time of a process (and its reaped children's) so far."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return sum(int(f) for f in fields[11:15]) / TICKS


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def wait_up(port: int, proc: subprocess.Popen[bytes], timeout: float = 60) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            raise SystemExit("the server exited")
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=1):
                return
        except OSError:
            time.sleep(0.2)
    raise SystemExit("the server did not start")


async def open_stream(port: int) -> tuple[int, asyncio.StreamWriter | None]:
    """One stream: its status, and the open connection if it was accepted."""
    reader, writer = await asyncio.open_connection("127.0.0.1", port)
    writer.write(b"GET /api/stream HTTP/1.1\r\nHost: bench\r\nAccept: text/event-stream\r\n\r\n")
    await writer.drain()
    status = int((await reader.readline()).split()[1])
    if status != 200:
        writer.close()
        return status, None

    async def drain() -> None:
        while await reader.read(4096):
            pass

    asyncio.get_running_loop().create_task(drain())
    return status, writer


async def measure(port: int, pid: int, streams: int, seconds: float) -> None:
    before = cpu_seconds(pid)
    await asyncio.sleep(seconds)
    idle = (cpu_seconds(pid) - before) / seconds
    print(f"no stream open: {100 * idle:.1f} % of a core")
    statuses: Counter[int] = Counter()
    writers = []
    for _ in range(streams):  # one at a time: the caps see them in order
        status, writer = await open_stream(port)
        statuses[status] += 1
        if writer is not None:
            writers.append(writer)
    await asyncio.sleep(2)  # let the opening settle before measuring
    before = cpu_seconds(pid)
    await asyncio.sleep(seconds)
    busy = (cpu_seconds(pid) - before) / seconds
    answered = ", ".join(f"{n} answered {s}" for s, n in sorted(statuses.items()))
    print(f"{streams} streams ({answered}): {100 * busy:.1f} % of a core")
    for w in writers:
        w.close()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--streams", type=int, default=300)
    parser.add_argument("--seconds", type=float, default=20.0)
    parser.add_argument("--source", type=Path, default=ROOT, help="the arena's source tree")
    parser.add_argument("--serve-arg", action="append", default=[], help="passed to serve")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        port = free_port()
        db = f"sqlite:///{tmp}/arena.db"
        cmd = [sys.executable, "-m", "arena", "serve", "--read-only"]
        cmd += ["--listen", f"127.0.0.1:{port}", "--db", db, *args.serve_arg]
        proc = subprocess.Popen(cmd, cwd=args.source, env={**os.environ, "PYTHONPATH": "."})
        try:
            wait_up(port, proc)
            asyncio.run(measure(port, proc.pid, args.streams, args.seconds))
        finally:
            proc.terminate()
            proc.wait(30)


if __name__ == "__main__":
    main()
