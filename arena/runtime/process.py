"""The process runtime: a bot is a local command.

The arena starts it contained (and, where the machine allows, isolated: see
``arena.runtime.sandbox``) with a minimal environment — ``PATH`` (this interpreter's bin
directory first), ``HOME`` and ``TMPDIR`` (private), ``LANG``, ``ARENA_ADDRESS``,
``ARENA_TOKEN``, ``PYTHONUNBUFFERED`` and the bot's own entries, never the operator's
whole environment. It keeps the head and the tail of the bot's output, notices when it
exits (through a pidfd, not through its pipes: a grandchild may hold those open), and
stops it when the match ends: the bot may leave by itself, then its first process sends
SIGTERM to everything the bot started and SIGKILL after a grace; whatever is left then is
killed from here. Stopping never waits on the bot's pipes for more than a moment.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import shlex
import subprocess
import sys
import threading
import weakref
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path

from arena.bots import Command
from arena.runtime import sandbox
from arena.runtime.base import RuntimeContext, read_ready, signal_name
from arena.runtime.logs import DEFAULT_LOG_CAP, HeadTailLog
from arena.runtime.sandbox import ProcessLimits

CappedLog = HeadTailLog  # the former name
_running: weakref.WeakSet[ProcessBot] = weakref.WeakSet()


def kill_all_now() -> None:
    """Kill every process bot of this process that is still running, with all it started
    (for an arena that must stop at once; safe to call from a signal handler)."""
    for bot in list(_running):
        bot.kill_now()


DRAIN_SECONDS = 0.5  # after the exit, how long the output may still be read


def bot_environment(
    address: str, token: str, extra: Mapping[str, str] | None = None
) -> dict[str, str]:
    """The whole environment of a process bot (HOME and TMPDIR are added by its sandbox)."""
    # a bot command saying "python" gets this interpreter (and its installed SDK)
    bindir = str(Path(sys.executable).parent)
    env = {
        "PATH": bindir + os.pathsep + os.environ.get("PATH", os.defpath),
        "LANG": os.environ.get("LANG", "C.UTF-8"),
        "ARENA_ADDRESS": address,
        "ARENA_TOKEN": token,
        "PYTHONUNBUFFERED": "1",
    }
    if extra:
        env.update(extra)
    return env


def _socket_path(address: str) -> str | None:
    for prefix in ("unix://", "unix:"):
        if address.startswith(prefix):
            return os.path.abspath(address[len(prefix) :])
    return None


class ProcessBot:
    """A bot process for the length of a match."""

    def __init__(
        self,
        name: str,
        command: str | Sequence[str],
        *,
        cwd: str | Path | None = None,
        env: Mapping[str, str] | None = None,
        log_cap: int = DEFAULT_LOG_CAP,
        limits: ProcessLimits | None = None,
        share: Sequence[str | Path] = (),
        stop_grace: float = 2.0,
    ) -> None:
        self.name = name
        self.argv = shlex.split(command) if isinstance(command, str) else list(command)
        if not self.argv:
            raise ValueError(f"bot {name!r}: empty command")
        self.cwd = cwd
        self.extra_env = dict(env or {})
        self.limits = limits
        self.share = [str(p) for p in share]
        self.stop_grace = stop_grace
        self.log = HeadTailLog(log_cap)
        self.popen: subprocess.Popen[bytes] | None = None
        self.jail: sandbox.Jail | None = None
        self.returncode: int | None = None
        self.stopping = False
        self._loop: asyncio.AbstractEventLoop | None = None
        self._exited: asyncio.Future[int] | None = None
        self._eof: asyncio.Event | None = None
        self._on_exit: Callable[[ProcessBot, int], None] | None = None
        self._out_fd: int | None = None
        self._pidfd: int | None = None

    async def start(
        self, address: str, token: str, on_exit: Callable[[ProcessBot, int], None] | None = None
    ) -> None:
        """Start the command; ``on_exit(bot, code)`` is called if it exits by itself."""
        loop = asyncio.get_running_loop()
        self._loop = loop
        self._exited = loop.create_future()
        self._eof = asyncio.Event()
        self._on_exit = on_exit
        sandbox.warn_once()
        try:
            self.jail = sandbox.jail(
                self.argv,
                cwd=str(self.cwd) if self.cwd is not None else None,
                env=bot_environment(address, token, self.extra_env),
                limits=self.limits,
                share=self.share,
                socket_path=_socket_path(address),
                grace=self.stop_grace,
            )
            self.popen = subprocess.Popen(
                self.jail.argv,
                stdin=subprocess.DEVNULL,
                stdout=subprocess.PIPE,
                stderr=subprocess.STDOUT,
                cwd=self.jail.cwd,
                env=self.jail.env,
                pass_fds=self.jail.pass_fds,
                start_new_session=True,
            )
        except OSError as e:
            if self.jail is not None:
                self.jail.close()
            raise OSError(f"cannot start bot {self.name!r} ({shlex.join(self.argv)}): {e}") from e
        self.jail.after_start(loop)
        _running.add(self)
        assert self.popen.stdout is not None
        self._out_fd = self.popen.stdout.fileno()
        os.set_blocking(self._out_fd, False)
        loop.add_reader(self._out_fd, self._read_output)
        self._watch_exit()

    # ------------------------------------------------------------ output and exit
    def _read_output(self) -> None:
        fd = self._out_fd
        if fd is None:
            return
        chunk = read_ready(fd)
        if chunk is None:
            return
        if chunk:
            self.log.write(chunk)
            return
        self._close_output()

    def _close_output(self) -> None:
        if self._out_fd is not None and self._loop is not None:
            self._loop.remove_reader(self._out_fd)
            self._out_fd = None
            assert self.popen is not None and self.popen.stdout is not None
            with contextlib.suppress(OSError):
                self.popen.stdout.close()
        if self._eof is not None:
            self._eof.set()

    def _watch_exit(self) -> None:
        assert self.popen is not None and self._loop is not None
        try:
            self._pidfd = os.pidfd_open(self.popen.pid)
        except (AttributeError, OSError):
            self._pidfd = None
        if self._pidfd is not None:
            self._loop.add_reader(self._pidfd, self._poll_exit)
            return
        popen, loop = self.popen, self._loop

        def wait() -> None:  # no pidfds here: a thread waits instead
            code = popen.wait()
            with contextlib.suppress(RuntimeError):
                loop.call_soon_threadsafe(self._exit_seen, code)

        threading.Thread(target=wait, name=f"wait-{self.name}", daemon=True).start()

    def _poll_exit(self) -> None:
        assert self.popen is not None
        code = self.popen.poll()
        if code is None:
            return
        if self._pidfd is not None and self._loop is not None:
            self._loop.remove_reader(self._pidfd)
            os.close(self._pidfd)
            self._pidfd = None
        self._exit_seen(code)

    def _exit_seen(self, code: int) -> None:
        if self.returncode is not None:
            return
        self.returncode = code
        _running.discard(self)
        if self._exited is not None and not self._exited.done():
            self._exited.set_result(code)
        if self._on_exit is not None and not self.stopping:
            self._on_exit(self, code)

    @property
    def running(self) -> bool:
        return self.popen is not None and self.returncode is None

    @property
    def pid(self) -> int | None:
        return self.popen.pid if self.popen is not None else None

    # ------------------------------------------------------------ stop
    async def _wait_exit(self, seconds: float) -> bool:
        if self._exited is None:
            return True
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(asyncio.shield(self._exited), seconds)
        return self._exited.done()

    async def stop(self, timeout: float | None = None, exit_grace: float = 1.0) -> int | None:
        """Let the bot exit by itself for ``exit_grace`` seconds (it has been told goodbye),
        then have its first process TERM everything the bot started and KILL it after
        ``timeout`` seconds (default: the bot's stop grace), then kill what is left."""
        self.stopping = True
        if self.popen is None or self.jail is None:
            return None
        grace = self.stop_grace if timeout is None else timeout
        if self.returncode is None and exit_grace > 0:
            await self._wait_exit(exit_grace)
        if self.returncode is None:
            self.jail.terminate(self.popen.pid)
            await self._wait_exit(grace + 1.0)
        if self.returncode is None:
            self.jail.kill(self.popen.pid)
            await self._wait_exit(5.0)
        self.jail.close()  # and its cgroup, if it has one, goes whole
        if self._eof is not None and not self._eof.is_set():
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self._eof.wait(), DRAIN_SECONDS)
        self._close_output()
        if self._pidfd is not None and self._loop is not None:
            self._loop.remove_reader(self._pidfd)
            os.close(self._pidfd)
            self._pidfd = None
        return self.returncode

    def kill_now(self) -> None:
        """Kill the bot and everything it started, without waiting for anything."""
        self.stopping = True
        if self.popen is not None and self.jail is not None and self.returncode is None:
            self.jail.kill(self.popen.pid)

    def describe_exit(self) -> str:
        code = self.returncode
        if code is None:
            return "running"
        if code < 0:
            code = 128 - code
        killer = signal_name(code)
        return f"killed by {killer} (exit code {code})" if killer else f"exited with code {code}"


def make(name: str, source: Command, ctx: RuntimeContext) -> ProcessBot:
    """The process runtime of the registry (arena.runtime)."""
    return ProcessBot(
        name,
        source.command,
        cwd=source.cwd,
        env=dict(source.env) or None,
        limits=ctx.process_limits,
        share=source.share,
    )
