"""The docker runtime: a bot is a Docker image, run sandboxed in a container per match.

:class:`ContainerBot` has the interface of :class:`arena.runtime.process.ProcessBot`
(``start(address, token, on_exit)``, ``stop()``, ``running``, ``returncode``, ``log``,
``describe_exit()``), so the match runner treats both alike. The container gets:

* no network at all (``network_mode="none"``): the only way out is the arena's Unix socket,
  whose directory is bind-mounted read-only at ``/run/arena`` (``ARENA_ADDRESS`` points
  there, ``ARENA_TOKEN`` is in its environment; nothing else of the host's environment);
* a read-only root filesystem with a small ``tmpfs`` on ``/tmp``; user 10001:10001; no
  capabilities; ``no-new-privileges``;
* memory (no swap: ``memswap == mem``), CPU and pids limits (:class:`ContainerLimits`);
* labels ``flip7-arena=1`` and ``flip7-arena.owner=<hostname>:<arena pid>`` (plus the
  caller's), so that :func:`reap_stale_containers` can remove what a killed arena left.

A daemon thread per container follows its log (kept size-capped: head and tail) until the
container exits, then reads its exit code and whether the kernel's OOM killer ended it, and
reports the exit to the event loop. Every other Docker call is short and runs in a small
thread pool. ``stop()`` lets the bot leave by itself, then stops (TERM, then KILL) and
force-removes the container — also when ``start()`` failed half-way. Containers this
process created and has not removed yet are also removed at interpreter exit (``atexit``),
and SIGTERM is turned into a normal unwinding exit so that path runs too; SIGKILL leaves
them to the next run's :func:`reap_stale_containers`.
"""

from __future__ import annotations

import asyncio
import atexit
import concurrent.futures
import contextlib
import functools
import logging
import os
import re
import secrets
import signal
import socket
import threading
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import PurePosixPath
from typing import Any, TypeVar

from arena.bots import Image
from arena.errors import ArenaError
from arena.runtime.base import RuntimeContext, signal_name
from arena.runtime.logs import DEFAULT_LOG_CAP
from arena.runtime.logs import HeadTailLog as ContainerLog

log = logging.getLogger("arena.runtime.docker")

LABEL = "flip7-arena"  # every container the arena starts carries it ("1")
OWNER_LABEL = "flip7-arena.owner"  # "<hostname>:<pid>" of the arena process that started it
OWNER_START_LABEL = "flip7-arena.owner-start"  # that process's start time (pid reuse check)
BOT_LABEL = "flip7-arena.bot"  # the bot's name in the match
SOCKET_DIR = "/run/arena"  # where the gateway socket's directory appears in the container
BOT_USER = "10001:10001"
SUBMIT_HINT = "arena bot submit PATH --name NAME"

T = TypeVar("T")


class DockerUnavailable(ArenaError):
    """No Docker engine to talk to (not installed, not running, no permission)."""


class ImageMissing(ArenaError):
    """The bot's image is not in the local Docker engine (the arena never pulls)."""


_MEM_RE = re.compile(r"^\d+(\.\d+)?[bkmg]?$", re.IGNORECASE)
_MEM_UNITS = {"b": 1, "k": 1 << 10, "m": 1 << 20, "g": 1 << 30}


def parse_memory(value: str) -> int:
    """Docker's memory notation (``256m``, ``1g``, ``512000``) in bytes."""
    v = value.strip().lower()
    if not _MEM_RE.match(v):
        raise ValueError(f"bad memory size {value!r} (e.g. 256m, 1g)")
    unit = v[-1] if v[-1] in _MEM_UNITS else "b"
    number = v[:-1] if v[-1] in _MEM_UNITS else v
    return int(float(number) * _MEM_UNITS[unit])


@dataclass(frozen=True)
class ContainerLimits:
    """What one bot container may use. ``memory`` is RAM with no swap; ``cpus`` may be
    fractional; ``pids`` counts processes and threads; ``tmpfs`` sizes the writable /tmp
    (counted against ``memory``); ``start_timeout`` bounds creating and starting the
    container (connecting afterwards is the fault policy's ``start_timeout``)."""

    memory: str = "256m"
    cpus: float = 1.0
    pids: int = 64
    tmpfs: str = "16m"
    start_timeout: float = 30.0
    stop_timeout: float = 2.0  # docker stop: seconds between TERM and KILL
    log_cap: int = DEFAULT_LOG_CAP  # bytes of output kept (half head, half tail)

    def __post_init__(self) -> None:
        if parse_memory(self.memory) < 8 << 20:
            raise ValueError(f"memory limit {self.memory!r} is below Docker's minimum (8m)")
        parse_memory(self.tmpfs)
        if not self.cpus > 0:
            raise ValueError("cpus must be positive")
        if self.pids < 1:
            raise ValueError("pids must be at least 1")
        if self.start_timeout <= 0 or self.stop_timeout < 0:
            raise ValueError("timeouts must be positive")


# ---------------------------------------------------------------------------- the engine
_clients: dict[int, Any] = {}
_clients_lock = threading.RLock()  # re-entrant: the SIGTERM handler may need it
_pool: concurrent.futures.ThreadPoolExecutor | None = None
_pool_pid = 0


def _reason(e: BaseException) -> str:
    text = str(e)
    host = os.environ.get("DOCKER_HOST") or "unix:///var/run/docker.sock"
    if "FileNotFoundError" in text or "No such file or directory" in text:
        return f"no Docker engine at {host} (is Docker installed and dockerd running?)"
    if "PermissionError" in text or "Permission denied" in text:
        return f"permission denied on {host} (run as root or as a member of the docker group)"
    if "Connection refused" in text or "ConnectionRefusedError" in text:
        return f"nothing answers at {host} (is dockerd running?)"
    return text or type(e).__name__


def docker_client() -> Any:
    """This process's shared Docker client (``docker.from_env()``; DOCKER_HOST etc. apply).
    Raises :class:`DockerUnavailable` with the reason when there is no engine to talk to."""
    pid = os.getpid()
    with _clients_lock:
        client = _clients.get(pid)
        if client is not None:
            return client
        try:
            import docker
        except ImportError as e:
            raise DockerUnavailable(
                "Docker is not available: the 'docker' Python package is not installed"
            ) from e
        try:
            # one connection per concurrent call: many containers' waits and logs at once
            client = docker.from_env(max_pool_size=128)
            client.ping()
        except Exception as e:
            raise DockerUnavailable(f"Docker is not available: {_reason(e)}") from e
        _clients[pid] = client
        return client


def _errors() -> Any:
    import docker.errors

    return docker.errors


def _executor() -> concurrent.futures.ThreadPoolExecutor:
    """Threads for short blocking Docker calls (create, start, stop, remove). A pool of our
    own: a table of 18 containers would otherwise queue behind asyncio's small default
    executor (and every other user of it)."""
    global _pool, _pool_pid
    with _clients_lock:
        if _pool is None or _pool_pid != os.getpid():
            _pool = concurrent.futures.ThreadPoolExecutor(32, thread_name_prefix="arena-docker")
            _pool_pid = os.getpid()
        return _pool


async def _call(fn: Callable[..., T], *args: Any, **kw: Any) -> T:
    loop = asyncio.get_running_loop()
    return await loop.run_in_executor(_executor(), functools.partial(fn, *args, **kw))


def _is_connection_error(e: BaseException) -> bool:
    try:
        import requests
    except ImportError:  # pragma: no cover - docker depends on requests
        return False
    return isinstance(e, requests.exceptions.ConnectionError)


def _explain(e: BaseException) -> str:
    explanation = getattr(e, "explanation", None)
    return str(explanation or e)


# ---------------------------------------------------------------------------- ownership
def _proc_start_time(pid: int) -> str | None:
    """The process's start time (clock ticks since boot), to tell a reused pid apart."""
    try:
        with open(f"/proc/{pid}/stat", encoding="ascii", errors="replace") as f:
            stat = f.read()
    except OSError:
        return None
    fields = stat.rpartition(")")[2].split()
    return fields[19] if len(fields) > 19 else None


def owner_labels() -> dict[str, str]:
    """The labels naming this process as a container's owner."""
    pid = os.getpid()
    labels = {LABEL: "1", OWNER_LABEL: f"{socket.gethostname()}:{pid}"}
    start = _proc_start_time(pid)
    if start is not None:
        labels[OWNER_START_LABEL] = start
    return labels


def _owner_alive(pid: int, start: str | None) -> bool:
    if pid <= 0:
        return False
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        pass  # exists, someone else's
    if start:
        actual = _proc_start_time(pid)
        if actual is not None and actual != start:
            return False  # the pid was reused by another process
    return True


def reap_stale_containers(client: Any = None, *, strict: bool = False) -> list[str]:
    """Remove (force) every container labelled ``flip7-arena`` whose owning arena process
    ran on this host and is gone (e.g. SIGKILLed mid-match). Containers of live arena
    processes and of other hosts are left alone. Returns the removed containers' names.

    Without a Docker engine this returns ``[]`` (a match of process bots needs none),
    unless ``strict``, when it raises :class:`DockerUnavailable`."""
    try:
        client = client or docker_client()
    except DockerUnavailable:
        if strict:
            raise
        return []
    errors = _errors()
    host = socket.gethostname()
    removed: list[str] = []
    try:
        found = client.api.containers(all=True, filters={"label": LABEL})
    except Exception as e:
        if strict:
            raise DockerUnavailable(f"Docker is not available: {_reason(e)}") from e
        log.warning("cannot list containers to reap: %s", e)
        return []
    for c in found:
        labels = c.get("Labels") or {}
        owner_host, _, pid = labels.get(OWNER_LABEL, "").rpartition(":")
        if owner_host != host or not pid.isdigit():
            continue
        if _owner_alive(int(pid), labels.get(OWNER_START_LABEL)):
            continue
        name = ((c.get("Names") or ["?"])[0]).lstrip("/")
        try:
            client.api.remove_container(c["Id"], force=True)
        except errors.NotFound:
            pass
        except errors.APIError as e:
            if e.status_code != 409:  # 409: removal already in progress
                log.warning("cannot remove stale container %s: %s", name, _explain(e))
                continue
        log.info("removed stale bot container %s (owner %s gone)", name, labels[OWNER_LABEL])
        removed.append(name)
    return removed


async def reap_stale_containers_async(*, strict: bool = False) -> list[str]:
    """:func:`reap_stale_containers` off the event loop."""
    return await _call(reap_stale_containers, strict=strict)


# ---------------------------------------------------------------------------- exit safety
_live: dict[str, str] = {}  # container name -> bot name: created here, not removed yet
_live_lock = threading.RLock()
_cleanup_installed = False


def _track(name: str, bot: str) -> None:
    with _live_lock:
        _live[name] = bot


def _untrack(name: str) -> None:
    with _live_lock:
        _live.pop(name, None)


def live_containers() -> list[str]:
    """Names of the containers this process created and has not removed yet."""
    with _live_lock:
        return list(_live)


def remove_live_containers() -> None:
    """Force-remove every container this process still owns (blocking). Runs at exit."""
    with _live_lock:
        names = list(_live)
        _live.clear()
    if not names:
        return
    try:
        client = docker_client()
    except DockerUnavailable:
        return
    errors = _errors()
    for name in names:
        with contextlib.suppress(errors.NotFound, errors.APIError, Exception):
            client.api.remove_container(name, force=True)


def _on_sigterm(signum: int, frame: Any) -> None:
    # A second TERM kills at once, leaving the containers to reap_stale_containers.
    signal.signal(signal.SIGTERM, signal.SIG_DFL)
    handler = signal.getsignal(signal.SIGINT)
    if callable(handler) and handler is not signal.default_int_handler:
        # asyncio.run's SIGINT handler: it cancels the main task, so the match's finally
        # blocks stop the bots and the gateway in order; atexit sweeps what is left
        handler(signal.SIGINT, frame)
        return
    # no event loop to unwind in order: remove the containers now (raising alone could
    # end the process in grpc's teardown before atexit runs), then exit like Ctrl-C
    remove_live_containers()
    raise KeyboardInterrupt


def install_exit_cleanup() -> None:
    """Make sure this process's containers go when it exits: an ``atexit`` sweep, and — in
    the main thread, if SIGTERM still has its default action — a SIGTERM handler: under
    ``asyncio.run`` it unwinds exactly like Ctrl-C (the main task is cancelled, so every
    ``stop()`` runs); otherwise it removes the containers at once and raises
    KeyboardInterrupt. Called by the first container start; the CLI may call it earlier.
    Idempotent."""
    global _cleanup_installed
    if _cleanup_installed:
        return
    _cleanup_installed = True
    atexit.register(remove_live_containers)
    if threading.current_thread() is threading.main_thread():
        with contextlib.suppress(ValueError, OSError):
            if signal.getsignal(signal.SIGTERM) in (signal.SIG_DFL, None):
                signal.signal(signal.SIGTERM, _on_sigterm)


# ---------------------------------------------------------------------------- the bot
def socket_path(address: str) -> PurePosixPath:
    """The filesystem path of a ``unix://`` gateway address."""
    if address.startswith("unix://"):
        path = address[len("unix://") :]
    elif address.startswith("unix:"):
        path = address[len("unix:") :]
    else:
        raise ArenaError(
            f"container bots reach the arena only through its Unix socket, "
            f"but the gateway address is {address!r}"
        )
    return PurePosixPath(os.path.abspath(path))


def _slug(name: str) -> str:
    s = re.sub(r"[^a-zA-Z0-9_.-]+", "-", name).strip("-.") or "bot"
    return s[:40]


class ContainerBot:
    """A bot container for the length of a match (see the module docstring)."""

    def __init__(
        self,
        name: str,
        image: str,
        *,
        limits: ContainerLimits | None = None,
        labels: Mapping[str, str] | None = None,
        command: Sequence[str] | None = None,
        env: Mapping[str, str] | None = None,
        log_cap: int | None = None,
    ) -> None:
        if not image:
            raise ValueError(f"bot {name!r}: empty image name")
        self.name = name
        self.image = image
        self.limits = limits or ContainerLimits()
        self.labels = dict(labels or {})
        self.command = list(command) if command else None  # None: the image's CMD
        self.extra_env = dict(env or {})
        self.log = ContainerLog(log_cap or self.limits.log_cap)
        self.container_name = f"flip7-{_slug(name)}-{secrets.token_hex(4)}"
        self.container_id: str | None = None
        self.returncode: int | None = None
        self.oom_killed = False
        self.stopping = False
        self._on_exit: Callable[[ContainerBot, int], None] | None = None
        self._loop: asyncio.AbstractEventLoop | None = None
        self._exited: asyncio.Future[int] | None = None
        self._starting: asyncio.Future[None] | None = None
        self._watch_done = threading.Event()
        self._watch_error: str | None = None  # the engine could not tell how it ended
        self._removed = False

    # ------------------------------------------------------------ start
    async def start(
        self,
        address: str,
        token: str,
        on_exit: Callable[[ContainerBot, int], None] | None = None,
    ) -> None:
        """Create and start the container; ``on_exit(bot, code)`` is called if it exits by
        itself. Raises :class:`DockerUnavailable` or :class:`ImageMissing` (the arena's or
        the operator's problem) or ``OSError`` (the bot's: it could not be started)."""
        if self._starting is not None:
            raise RuntimeError(f"bot {self.name!r} was already started")
        sock = socket_path(address)
        loop = asyncio.get_running_loop()
        self._loop = loop
        self._exited = loop.create_future()
        self._on_exit = on_exit
        install_exit_cleanup()
        config = self._config(sock, token)
        self._starting = loop.run_in_executor(_executor(), self._create_and_start, config)
        try:
            await asyncio.wait_for(asyncio.shield(self._starting), self.limits.start_timeout)
        except TimeoutError:
            raise OSError(
                f"the container of bot {self.name!r} did not start within "
                f"{self.limits.start_timeout:g} s"
            ) from None

    def _config(self, sock: PurePosixPath, token: str) -> dict[str, Any]:
        from docker.types import LogConfig, Mount

        lim = self.limits
        env = {
            "ARENA_ADDRESS": f"unix://{SOCKET_DIR}/{sock.name}",
            "ARENA_TOKEN": token,
            "PYTHONUNBUFFERED": "1",
            **self.extra_env,
        }
        labels = {**self.labels, **owner_labels(), BOT_LABEL: self.name}
        log_size = max(1 << 20, lim.log_cap)
        return dict(
            image=self.image,
            command=self.command,
            name=self.container_name,
            environment=env,
            labels=labels,
            user=BOT_USER,
            network_mode="none",
            mounts=[Mount(SOCKET_DIR, str(sock.parent), type="bind", read_only=True)],
            read_only=True,
            tmpfs={"/tmp": f"rw,nosuid,nodev,size={lim.tmpfs},mode=1777"},
            security_opt=["no-new-privileges"],
            cap_drop=["ALL"],
            mem_limit=lim.memory,
            memswap_limit=lim.memory,
            nano_cpus=int(lim.cpus * 1e9),
            pids_limit=lim.pids,
            # the engine's copy of the log is bounded too (we keep our own capped copy)
            log_config=LogConfig(
                type="json-file", config={"max-size": str(log_size), "max-file": "2"}
            ),
        )

    def _create_and_start(self, config: dict[str, Any]) -> None:
        """In a worker thread: create, start, and begin watching the container."""
        client = docker_client()
        errors = _errors()
        _track(self.container_name, self.name)  # before create: an interrupted create is swept
        try:
            container = client.containers.create(**config)
        except errors.ImageNotFound as e:
            _untrack(self.container_name)
            raise ImageMissing(
                f"no image {self.image} for bot {self.name!r} (build it with "
                f"{SUBMIT_HINT}, or docker build; images are never pulled)"
            ) from e
        except errors.APIError as e:
            _untrack(self.container_name)
            if "bind source path does not exist" in _explain(e):
                raise ArenaError(
                    f"the Docker engine cannot see the arena's socket directory "
                    f"{config['mounts'][0]['Source']}: it must be on the engine's host (if "
                    f"the arena runs in a container, make TMPDIR a host directory mounted "
                    f"at the same path)"
                ) from e
            raise OSError(
                f"cannot create a container for bot {self.name!r} from {self.image}: {_explain(e)}"
            ) from e
        except Exception as e:
            if _is_connection_error(e) or isinstance(e, errors.DockerException):
                raise DockerUnavailable(f"Docker is not available: {_reason(e)}") from e
            raise
        self.container_id = container.id
        try:
            container.start()
        except Exception as e:
            with contextlib.suppress(Exception):
                container.remove(force=True)
            self._removed = True
            _untrack(self.container_name)
            self._watch_done.set()
            if _is_connection_error(e):
                raise DockerUnavailable(f"Docker is not available: {_reason(e)}") from e
            raise OSError(f"cannot start bot {self.name!r} ({self.image}): {_explain(e)}") from e
        threading.Thread(
            target=self._watch,
            args=(container.id,),
            name=f"watch-{self.container_name}",
            daemon=True,  # a blocked wait must never hold up interpreter exit
        ).start()

    # ------------------------------------------------------------ exit detection
    def _watch(self, cid: str) -> None:
        """Follow the log until the container stops, then read how it ended."""
        code = -1
        oom = False
        try:
            client = docker_client()
            try:
                for chunk in client.api.logs(cid, stream=True, follow=True):
                    self.log.write(chunk)
            except Exception as e:  # log stream broken: still wait for the exit
                log.debug("log stream of %s ended: %s", self.container_name, e)
            result = client.api.wait(cid)
            code = int(result.get("StatusCode", -1))
            oom = self._oom_killed(client, cid, code)
        except Exception as e:
            log.debug("watching %s failed: %s", self.container_name, e)
            self._watch_error = _explain(e)
        finally:
            self._watch_done.set()
            loop = self._loop
            if loop is not None:
                with contextlib.suppress(RuntimeError):  # the loop is closed: nobody listens
                    loop.call_soon_threadsafe(self._exit_seen, code, oom)

    def _oom_killed(self, client: Any, cid: str, code: int) -> bool:
        """Whether the kernel's OOM killer ended the container. The engine learns of the
        OOM event separately from the exit; for a SIGKILL we did not send, give that event
        a moment to land before concluding it was something else."""
        deadline = time.monotonic() + (1.0 if code == 137 and not self.stopping else 0.0)
        while True:
            state = client.api.inspect_container(cid).get("State") or {}
            if state.get("OOMKilled") or time.monotonic() >= deadline:
                return bool(state.get("OOMKilled"))
            time.sleep(0.05)

    def _exit_seen(self, code: int, oom: bool) -> None:
        if self.returncode is not None:
            return
        self.returncode = code
        self.oom_killed = oom
        if self._exited is not None and not self._exited.done():
            self._exited.set_result(code)
        if self._on_exit is not None and not self.stopping:
            self._on_exit(self, code)

    @property
    def running(self) -> bool:
        return self.container_id is not None and self.returncode is None and not self._removed

    # ------------------------------------------------------------ stop
    async def stop(self, timeout: float | None = None, exit_grace: float = 1.0) -> int | None:
        """Let the bot exit by itself for ``exit_grace`` seconds (it has been told goodbye),
        then stop the container (TERM, KILL after ``timeout`` seconds), then remove it.
        Safe to call at any point, also when ``start`` failed or is still under way."""
        self.stopping = True
        timeout = self.limits.stop_timeout if timeout is None else timeout
        if self._starting is None:
            return None  # never started: nothing to remove
        with contextlib.suppress(Exception):
            await asyncio.shield(self._starting)
        if self._removed:
            return self.returncode
        if self.container_id is None:
            # never created, or created without our hearing of it: remove by name
            await _call(self._remove, self.container_name)
            return self.returncode
        exited = self._exited
        assert exited is not None
        if not exited.done() and exit_grace > 0:
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(asyncio.shield(exited), exit_grace)
        if not exited.done():
            await _call(self._halt, timeout)
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(asyncio.shield(exited), timeout + 5.0)
        # the watcher has the log up to the exit once it is done
        await _call(self._watch_done.wait, 5.0)
        await _call(self._remove, self.container_id)
        return self.returncode

    def _halt(self, timeout: float) -> None:
        client = docker_client()
        errors = _errors()
        cid = self.container_id
        try:
            client.api.stop(cid, timeout=max(0, round(timeout)))
        except errors.NotFound:
            return
        except Exception as e:
            log.debug("stopping %s: %s; killing it", self.container_name, e)
            with contextlib.suppress(Exception):
                client.api.kill(cid)

    def _remove(self, ref: str | None) -> None:
        if ref is None:
            return
        errors = _errors()
        try:
            docker_client().api.remove_container(ref, force=True)
        except errors.NotFound:
            pass
        except DockerUnavailable as e:
            log.warning("cannot remove container %s: %s", self.container_name, e)
            return  # stays tracked: the exit sweep or the next run's reaping gets it
        except Exception as e:
            if not (isinstance(e, errors.APIError) and e.status_code == 409):
                log.warning("cannot remove container %s: %s", self.container_name, e)
                return
        self._removed = True
        _untrack(self.container_name)

    def describe_exit(self) -> str:
        code = self.returncode
        if code is None:
            return "running" if self.container_id is not None else "not started"
        if self.oom_killed:
            return f"out of memory (limit {self.limits.memory})"
        if self._watch_error is not None:
            return f"ended; the Docker engine could not say how ({self._watch_error})"
        killer = signal_name(code)
        return f"exit code {code} (killed by {killer})" if killer else f"exit code {code}"


def make(name: str, source: Image, ctx: RuntimeContext) -> ContainerBot:
    """The container runtime of the registry (arena.runtime)."""
    return ContainerBot(
        name,
        source.image,
        limits=ctx.container_limits,
        labels={"flip7-arena.match": ctx.match_id},
    )


async def prepare() -> None:
    """Before a match's containers start: reap those of an arena that was killed."""
    await reap_stale_containers_async()
