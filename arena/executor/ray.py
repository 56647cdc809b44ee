"""The Ray executor: each match is a Ray task on some node of a Ray cluster.

The task plays the whole match on its node, as the local executor plays a match in its
own fleet: a private gateway on a Unix socket, the match's bots started there (process
bots from their commands, container bots from the node's Docker engine), the games, and
the plain :class:`~arena.match.MatchResult` back to the driver. The driver (the process
that runs the event) alone touches the database, so it stores each result exactly as it
stores a local one: the match's games and its completion in one transaction. Matches with
remote bots never come here: they run in the driver, whose TCP listener the bots reach
(:class:`~arena.executor.Split`).

Placement and faults are Ray's: a match asks for ``num_cpus`` CPUs, plus one unit of the
custom resource ``docker`` when it has container bots (start the nodes that run containers
with ``--resources='{"docker": N}'``: at most N container matches at once there). A task
whose worker or node dies is run again by Ray from its start on another node
(``max_retries``); a match is deterministic given its spec (the same seeds), so its
result equals an undisturbed run's and no bot is blamed. A match that itself fails (no
Docker engine on the node, a missing command) is not retried: the driver says why.

Images reach the nodes without a registry: the driver pins each container bot's image by
its id, saves it (``docker save``) into Ray's object store once per event, and a node whose
engine lacks that id fetches the object and loads it (``docker load``) before the match.

Progress comes per game: the tasks tell a small actor on the driver's node (``Tally``),
which the driver reads a few times a second; a match that is run again is not counted
twice.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import os
import signal
import socket
import threading
import time
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field, replace
from typing import Any

from arena import limits
from arena.bots import Image
from arena.errors import ArenaError
from arena.faults import Absence, FaultPolicy
from arena.match import BotEntry, MatchResult, MatchSpec

log = logging.getLogger("arena.executor.ray")

EXTRA_HINT = "pip install 'flip7-arena[ray]'"
DOCKER_RESOURCE = "docker"  # the custom resource of nodes that run container bots


def import_ray() -> Any:
    """The ``ray`` package, or an error saying how to install it."""
    try:
        import ray
    except ImportError:
        raise ArenaError(
            f"the ray executor needs Ray, which is not installed: {EXTRA_HINT}"
        ) from None
    return ray


def check_address(address: str, timeout: float = limits.RAY_CONNECT_TIMEOUT) -> None:
    """A Ray cluster's address (``HOST:PORT`` of its head) answers on TCP within
    ``timeout`` seconds; an error says why not (``ray.init`` itself would wait minutes)."""
    from arena.gateway.address import parse_listen

    host, port = parse_listen(address, "--ray-address")
    try:
        with socket.create_connection((host, port), timeout=timeout):
            pass
    except OSError as e:
        why = "timed out" if isinstance(e, TimeoutError) else (e.strerror or str(e))
        raise ArenaError(
            f"cannot reach the Ray cluster at {address}: {why} (is 'ray start --head' "
            "running there, and is its port open to this machine?)"
        ) from None


# ---------------------------------------------------------------------------- on the nodes
def ensure_images(images: dict[str, list[Any]]) -> list[str]:
    """On a node: load each image (by id) that the node's Docker engine lacks from its
    object (``images``: id -> [the object's ref], a list so that Ray does not fetch it
    unless needed). Returns the ids that were loaded."""
    if not images:
        return []
    import docker.errors

    from arena.runtime.docker import docker_client

    ray = import_ray()
    client = docker_client()
    loaded = []
    for image_id, (ref,) in images.items():
        try:
            client.api.inspect_image(image_id)
            continue
        except docker.errors.ImageNotFound:
            pass
        data = ray.get(ref)
        client.images.load(data)
        try:
            client.api.inspect_image(image_id)
        except docker.errors.ImageNotFound:
            raise ArenaError(f"docker load did not give image {image_id} on this node") from None
        log.info("loaded image %s from the driver (%d bytes)", image_id, len(data))
        loaded.append(image_id)
    return loaded


def play_match(
    key: str, spec: MatchSpec, images: dict[str, list[Any]], tally: Any
) -> tuple[MatchResult, dict[str, Any]]:
    """The body of a match's Ray task (``key``: the driver's name for this job): its
    images, then the match on this node. Returns the result and where it was played
    (node id, images loaded here)."""
    from arena.match import run_match

    ray = import_ray()
    node = ray.get_runtime_context().get_node_id()
    tally.started.remote(key, node)
    loaded = ensure_images(images)

    def progress(done: int, total: int) -> None:
        tally.game.remote(key)

    result = asyncio.run(run_match(spec, progress=progress))
    return result, {"node": node, "loaded": loaded}


class Tally:
    """A Ray actor on the driver's node: which node started which match, and the games
    each match's current attempt has played (the driver drains it)."""

    def __init__(self) -> None:
        self.events: list[tuple[str, str, str]] = []

    def started(self, key: str, node: str) -> None:
        self.events.append(("start", key, node))

    def game(self, key: str) -> None:
        self.events.append(("game", key, ""))

    def drain(self) -> list[tuple[str, str, str]]:
        events, self.events = self.events, []
        return events


# ---------------------------------------------------------------------------- the driver
@dataclass
class _Job:
    spec: MatchSpec
    on_game: Callable[[], None] | None
    counted: int = 0  # games reported to on_game (over every attempt)
    seen: int = 0  # games of the current attempt
    nodes: list[str] = field(default_factory=list)  # where each attempt started


@contextlib.contextmanager
def _signal_handlers_kept() -> Iterator[None]:
    """Within: whatever signal handlers are installed are put back afterwards. A local Ray
    instance (``ray.init()`` without an address) installs a SIGTERM handler of its own in
    this process that drains the node and exits with status 1, so a SIGTERM would no
    longer interrupt the event in order (stop the bots, keep it resumable, exit 143) —
    and a process forked later would inherit a handler that waits on Ray's threads.
    ``close`` ends the local instance (``ray.shutdown``) either way."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    kept = {sig: signal.getsignal(sig) for sig in (signal.SIGTERM, signal.SIGINT, signal.SIGHUP)}
    try:
        yield
    finally:
        for sig, handler in kept.items():
            if handler is not None:
                signal.signal(sig, handler)


class RayExecutor:
    """Matches as Ray tasks (see the module docstring). Use as an async context.

    ``address``: the cluster's head (``HOST:PORT``); None: ``RAY_ADDRESS``, else a Ray
    instance started on this machine for the run. ``concurrency`` is each match's own
    bound on games at once (the tournament bounds the matches in flight); bots start and
    stop with each match whatever ``isolation`` says (a task owns nothing after it ends).
    """

    def __init__(
        self,
        *,
        faults: FaultPolicy,
        concurrency: int,
        address: str | None = None,
        isolation: str = "match",
        event_id: str = "event",
        process_limits: Any = None,
        container_limits: Any = None,
        max_retries: int = limits.RAY_TASK_RETRIES,
        num_cpus: float = limits.RAY_MATCH_CPUS,
    ) -> None:
        self.address = address
        self.faults = faults
        self.concurrency = max(1, concurrency)
        self.event_id = event_id
        self.process_limits = process_limits
        self.container_limits = container_limits
        self.max_retries = max_retries
        self.num_cpus = num_cpus
        self.ray: Any = None
        self._ours = False  # this executor connected Ray (and disconnects it)
        self._task: Any = None
        self._tally: Any = None
        self._poller: asyncio.Task[None] | None = None
        self._jobs: dict[str, _Job] = {}
        self._refs: dict[str, Any] = {}  # match id -> its task's ref, while it runs
        self._images: dict[str, list[Any]] = {}  # image id -> [ref of its saved form]
        self._pinned: dict[str, str] = {}  # image as named -> its id
        self._ship_lock = asyncio.Lock()
        # per match played: its id, the node that played it, the images loaded there, and
        # the node where each attempt started (more than one: the cluster lost a node)
        self.placements: list[dict[str, Any]] = []
        self._serial = 0

    @property
    def tcp_address(self) -> str | None:
        return None

    async def start(self) -> None:
        ray = self.ray = import_ray()
        address = self.address or os.environ.get("RAY_ADDRESS")
        if address and "://" not in address and address not in ("auto", "local"):
            check_address(address)
        if not ray.is_initialized():
            options: dict[str, Any] = {"log_to_driver": False, "logging_level": logging.WARNING}
            if not address:
                options["include_dashboard"] = False  # a Ray instance of this run only
            try:
                with _signal_handlers_kept():
                    ray.init(address=self.address, **options)
            except Exception as e:  # e.g. a wrong token, another Ray version
                first = (str(e).strip().splitlines() or [type(e).__name__])[0]
                where = f"the Ray cluster at {address}" if address else "a local Ray instance"
                raise ArenaError(f"cannot connect to {where}: {first}") from None
            self._ours = True
        here = ray.get_runtime_context().get_node_id()
        from ray.util.scheduling_strategies import NodeAffinitySchedulingStrategy

        self._tally = (
            ray.remote(Tally)
            .options(num_cpus=0, scheduling_strategy=NodeAffinitySchedulingStrategy(here, False))
            .remote()
        )
        self._task = ray.remote(play_match)
        self._poller = asyncio.ensure_future(self._poll())

    async def _poll(self) -> None:
        """Read the tally a few times a second: per-game progress, attempts per match."""
        while True:
            await asyncio.sleep(limits.RAY_PROGRESS_INTERVAL)  # a display's refresh, not a wait
            with contextlib.suppress(Exception):
                self._apply(await self._tally.drain.remote())

    def _apply(self, events: list[tuple[str, str, str]]) -> None:
        for kind, key, node in events:
            job = self._jobs.get(key)
            if job is None:
                continue
            if kind == "start":
                job.nodes.append(node)
                job.seen = 0  # a new attempt plays the match from its start
                continue
            job.seen += 1
            if job.seen > job.counted:
                job.counted += 1
                if job.on_game is not None:
                    job.on_game()

    async def ship_images(self, spec: MatchSpec) -> MatchSpec:
        """Pin the spec's container images by id and put each one's saved form into the
        object store (once per image and event). Returns the spec as the nodes get it."""
        bots = []
        for b in spec.bots:
            if isinstance(b.source, Image):
                image_id = await self._ship(b.source.image)
                b = replace(b, source=Image(image_id))
            bots.append(b)
        return replace(spec, bots=bots)

    async def _ship(self, image: str) -> str:
        from arena.runtime.build import image_id_of
        from arena.runtime.docker import docker_client

        async with self._ship_lock:
            image_id = self._pinned.get(image)
            if image_id is None:
                image_id = self._pinned[image] = await asyncio.to_thread(image_id_of, image)
            if image_id not in self._images:

                def save() -> bytes:
                    return b"".join(docker_client().api.get_image(image_id))

                t0 = time.perf_counter()
                data = await asyncio.to_thread(save)
                self._images[image_id] = [await asyncio.to_thread(self.ray.put, data)]
                log.info(
                    "image %s saved into the object store: %d bytes in %.1f s",
                    image_id,
                    len(data),
                    time.perf_counter() - t0,
                )
            return image_id

    async def preflight(self, bots: Sequence[BotEntry]) -> list[Absence]:
        """Start each of ``bots`` once on this machine (the driver's) and wait for its
        hello; the ones that failed. A bot that starts here is taken to start on the nodes,
        which run the same commands and images (docs/cluster.md says what a node needs);
        needs no cluster: it may run before :meth:`start`."""
        from arena.executor.local import LocalExecutor

        trial = LocalExecutor(
            faults=self.faults,
            concurrency=1,
            isolation="match",  # nothing kept: every bot is stopped after its hello
            event_id=self.event_id,
            process_limits=self.process_limits,
            container_limits=self.container_limits,
        )
        async with trial:
            return await trial.preflight(bots)

    async def run(self, spec: MatchSpec, on_game: Callable[[], None] | None = None) -> MatchResult:
        assert self._task is not None, "start the executor first"
        original = spec
        self._serial += 1
        if not spec.match_id:
            spec = replace(spec, match_id=f"{self.event_id}-{self._serial}")
        key = f"{spec.match_id}#{self._serial}"  # the parts of a split match share an id
        sent = await self.ship_images(spec)
        needs = {img.source.image for img in sent.bots if isinstance(img.source, Image)}
        images = {i: self._images[i] for i in needs}
        options: dict[str, Any] = {"num_cpus": self.num_cpus, "max_retries": self.max_retries}
        if needs:
            options["resources"] = {DOCKER_RESOURCE: 1}
        job = self._jobs[key] = _Job(spec, on_game)
        ref = self._task.options(**options).remote(key, sent, images, self._tally)
        self._refs[key] = ref
        try:
            result, where = await ref
        except asyncio.CancelledError:
            self._jobs.pop(key, None)
            with contextlib.suppress(Exception):
                self.ray.cancel(ref, force=True)
            raise
        except Exception as e:
            self._jobs.pop(key, None)
            raise ArenaError(self._explain(spec.match_id, e)) from None
        finally:
            self._refs.pop(key, None)
        with contextlib.suppress(Exception):  # the last games' progress, if not read yet
            self._apply(await self._tally.drain.remote())
        while job.counted < len(result.games):
            job.counted += 1
            if on_game is not None:
                on_game()
        self._jobs.pop(key, None)
        attempts = job.nodes or [where["node"]]
        self.placements.append({"match": spec.match_id, **where, "attempts": attempts})
        return replace(result, spec=original)

    def running(self) -> dict[str, str]:
        """The matches in flight that a node has started: match id -> that node's id."""
        return {job.spec.match_id: job.nodes[-1] for job in self._jobs.values() if job.nodes}

    def slots(self) -> int:
        """Matches the cluster can play at once (its CPUs over each match's share)."""
        cpus = float(self.ray.cluster_resources().get("CPU", 1))
        return max(1, int(cpus // self.num_cpus))

    def _explain(self, key: str, e: BaseException) -> str:
        exc = self.ray.exceptions
        if isinstance(e, exc.RayTaskError):  # the match itself failed on its node
            cause = e.cause if getattr(e, "cause", None) is not None else e
            return f"match {key} failed on its Ray node: {type(cause).__name__}: {cause}"
        if isinstance(e, exc.RayError):  # the cluster lost it more often than it retries
            first = str(e).strip().splitlines()[0] if str(e).strip() else type(e).__name__
            return (
                f"the Ray cluster could not play match {key} ({self.max_retries} retries): "
                f"{type(e).__name__}: {first}"
            )
        return f"match {key}: {type(e).__name__}: {e}"

    async def close(self) -> None:
        if self._poller is not None:
            self._poller.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._poller
            self._poller = None
        ray = self.ray
        if ray is None:
            return
        for ref in list(self._refs.values()):  # stopped mid-event: the nodes stop its bots
            with contextlib.suppress(Exception):
                ray.cancel(ref, force=True)
        self._refs.clear()
        if self._tally is not None:
            with contextlib.suppress(Exception):
                ray.kill(self._tally)
            self._tally = None
        self._images.clear()
        self._task = None
        if self._ours:
            await asyncio.to_thread(ray.shutdown)
            self._ours = False

    async def __aenter__(self) -> RayExecutor:
        await self.start()
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.close()
