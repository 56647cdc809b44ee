"""The process runtime: a bot is a local command.

The arena starts it with ``ARENA_ADDRESS`` and ``ARENA_TOKEN`` in its environment, keeps a
size-capped log of its stderr (and stdout), notices when it exits, and stops it when the
match ends (TERM to its process group, then KILL).
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import shlex
import signal
import sys
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path

DEFAULT_LOG_CAP = 256 * 1024


class CappedLog:
    """Keeps the first ``cap`` bytes of a stream and counts what was dropped."""

    def __init__(self, cap: int = DEFAULT_LOG_CAP) -> None:
        self.cap = cap
        self.parts: list[bytes] = []
        self.size = 0
        self.dropped = 0

    def write(self, data: bytes) -> None:
        room = self.cap - self.size
        if room > 0:
            self.parts.append(data[:room])
            self.size += min(room, len(data))
        self.dropped += max(0, len(data) - max(room, 0))

    def text(self) -> str:
        out = b"".join(self.parts).decode(errors="replace")
        if self.dropped:
            out += f"\n[... {self.dropped} more bytes not kept]\n"
        return out


def bot_environment(
    address: str, token: str, extra: Mapping[str, str] | None = None
) -> dict[str, str]:
    env = dict(os.environ)
    # a bot command saying "python" gets this interpreter (and its installed SDK)
    bindir = str(Path(sys.executable).parent)
    env["PATH"] = bindir + os.pathsep + env.get("PATH", "")
    env["ARENA_ADDRESS"] = address
    env["ARENA_TOKEN"] = token
    env.setdefault("PYTHONUNBUFFERED", "1")
    if extra:
        env.update(extra)
    return env


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
    ) -> None:
        self.name = name
        self.argv = shlex.split(command) if isinstance(command, str) else list(command)
        if not self.argv:
            raise ValueError(f"bot {name!r}: empty command")
        self.cwd = cwd
        self.extra_env = dict(env or {})
        self.log = CappedLog(log_cap)
        self.proc: asyncio.subprocess.Process | None = None
        self.returncode: int | None = None
        self._reader: asyncio.Task[None] | None = None
        self._waiter: asyncio.Task[int] | None = None
        self.stopping = False

    async def start(
        self, address: str, token: str, on_exit: Callable[[ProcessBot, int], None] | None = None
    ) -> None:
        """Start the command; ``on_exit(bot, code)`` is called if it exits by itself."""
        try:
            self.proc = await asyncio.create_subprocess_exec(
                *self.argv,
                stdin=asyncio.subprocess.DEVNULL,
                stdout=asyncio.subprocess.PIPE,
                stderr=asyncio.subprocess.STDOUT,
                cwd=self.cwd,
                env=bot_environment(address, token, self.extra_env),
                start_new_session=True,  # its own process group, so stop() gets children too
            )
        except OSError as e:
            raise OSError(f"cannot start bot {self.name!r} ({shlex.join(self.argv)}): {e}") from e
        self._reader = asyncio.create_task(self._read_output())
        self._waiter = asyncio.create_task(self._wait(on_exit))

    async def _read_output(self) -> None:
        assert self.proc is not None and self.proc.stdout is not None
        while True:
            chunk = await self.proc.stdout.read(65536)
            if not chunk:
                return
            self.log.write(chunk)

    async def _wait(self, on_exit: Callable[[ProcessBot, int], None] | None) -> int:
        assert self.proc is not None
        code = await self.proc.wait()
        self.returncode = code
        if on_exit is not None and not self.stopping:
            on_exit(self, code)
        return code

    @property
    def running(self) -> bool:
        return self.proc is not None and self.returncode is None

    @property
    def pid(self) -> int | None:
        return self.proc.pid if self.proc is not None else None

    async def stop(self, timeout: float = 2.0, exit_grace: float = 1.0) -> int | None:
        """Let the bot exit by itself for ``exit_grace`` seconds (it has been told goodbye),
        then TERM its process group, then KILL it after ``timeout`` more seconds."""
        self.stopping = True
        if self.proc is None:
            return None
        if self.returncode is None and exit_grace > 0:
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(asyncio.shield(self._waiter), exit_grace)  # type: ignore[arg-type]
        if self.returncode is None:
            self._signal(signal.SIGTERM)
            try:
                await asyncio.wait_for(asyncio.shield(self._waiter), timeout)  # type: ignore[arg-type]
            except TimeoutError:
                self._signal(signal.SIGKILL)
                await self._waiter  # type: ignore[misc]
        # children that ignored TERM must not outlive the match either
        self._signal(signal.SIGKILL)
        if self._reader is not None:
            with contextlib.suppress(asyncio.CancelledError):
                await asyncio.wait_for(self._reader, 1.0)
        return self.returncode

    def _signal(self, sig: int) -> None:
        assert self.proc is not None
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.killpg(self.proc.pid, sig)

    def describe_exit(self) -> str:
        code = self.returncode
        if code is None:
            return "running"
        if code < 0:
            try:
                return f"killed by {signal.Signals(-code).name}"
            except ValueError:
                return f"killed by signal {-code}"
        return f"exited with code {code}"
