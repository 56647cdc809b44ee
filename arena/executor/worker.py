"""One worker process of :class:`~arena.executor.workers.WorkerPool`: it plays the
matches the driver sends it on a local executor of its own, and sends their results back.

It ignores Ctrl-C (the driver stops it: the terminal's SIGINT reaches the whole process
group) and dies with the driver (``PR_SET_PDEATHSIG``), taking its bots with it.
"""

from __future__ import annotations

import asyncio
import contextlib
import ctypes
import os
import resource
import signal
import threading
from multiprocessing.connection import Connection
from typing import Any

PR_SET_PDEATHSIG = 1


def _die_with_parent() -> None:
    with contextlib.suppress(OSError, AttributeError):
        libc = ctypes.CDLL(None, use_errno=True)
        libc.prctl(PR_SET_PDEATHSIG, signal.SIGTERM, 0, 0, 0)


def main(fd: int) -> None:
    """Serve the driver on the connection at descriptor ``fd``; its first message is the
    worker's configuration."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    _die_with_parent()
    conn = Connection(fd)
    config = conn.recv()
    asyncio.run(_serve(conn, config))


async def _serve(conn: Connection, config: Any) -> None:
    from arena.executor.local import LocalExecutor

    loop = asyncio.get_running_loop()
    inbox: asyncio.Queue[Any] = asyncio.Queue()
    stopping = asyncio.Event()
    loop.add_signal_handler(signal.SIGTERM, stopping.set)

    def read() -> None:
        while True:
            try:
                msg = conn.recv()
            except (EOFError, OSError):
                msg = ("stop",)
            loop.call_soon_threadsafe(inbox.put_nowait, msg)
            if msg[0] == "stop":
                return

    threading.Thread(target=read, daemon=True).start()
    send_lock = threading.Lock()

    def send(msg: Any) -> None:
        with send_lock, contextlib.suppress(BrokenPipeError, OSError):
            conn.send(msg)

    executor = LocalExecutor(
        faults=config.faults,
        concurrency=config.concurrency,
        isolation=config.isolation,
        event_id=f"{config.event_id}-w{os.getpid()}",
        process_limits=config.process_limits,
        container_limits=config.container_limits,
    )
    tasks: set[asyncio.Task[None]] = set()

    async def job(job_id: int, spec: Any) -> None:
        try:
            result = await executor.run(spec, on_game=lambda: send(("game", job_id)))
        except Exception as e:  # the match itself failed: the driver says so
            send(("error", job_id, f"{type(e).__name__}: {e}"))
        else:
            send(("done", job_id, result))

    async with executor:
        stop = asyncio.ensure_future(stopping.wait())
        while True:
            get = asyncio.ensure_future(inbox.get())
            done, _ = await asyncio.wait({get, stop}, return_when=asyncio.FIRST_COMPLETED)
            if stop in done:
                get.cancel()
                break
            msg = get.result()
            if msg[0] == "stop":
                break
            if msg[0] == "run":
                t = asyncio.ensure_future(job(msg[1], msg[2]))
                tasks.add(t)
                t.add_done_callback(tasks.discard)
        stop.cancel()
        for t in tasks:
            t.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)
    usage = resource.getrusage(resource.RUSAGE_SELF)
    send(("usage", usage.ru_utime + usage.ru_stime))  # this process's own CPU (benchmarks)


if __name__ == "__main__":
    import sys

    main(int(sys.argv[1]))
