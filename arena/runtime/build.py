"""Building bot images (``arena bot submit PATH``) and resolving image names
(``arena bot add --image``) through the local Docker engine.

A build is planned before anything is sent: the Dockerfile's own ``FROM`` / ``ARG BASE=``
default is respected (``base`` overrides it; a ``FROM ${BASE}`` without a default gets the
offline base of the kit's language, :mod:`arena.runtime.bases`), every image it reads
(``FROM``, ``COPY --from``, ``RUN --mount=from=``, in an ``ONBUILD`` too, build arguments
substituted) must be one of the arena's own bases (``uploadable_bases``: the kits' offline
bases and ``scratch``) or an earlier stage — another participant's bot image is refused
before anything is sent, unless the operator allows any image (``any_base``) — and must
already be in the engine (the error names it and its offline recipe; the arena never
pulls), and ``ADD`` of a URL is refused while the build is offline (the daemon would fetch
it outside the sandbox).

The build itself goes through the engine's classic builder (``POST /build``), sandboxed by
:class:`~arena.runtime.build_sandbox.BuildLimits`: no network, memory without swap, CPUs,
a process limit (a parent cgroup), a wall-clock timeout, caps on the context and on the
image. The build log is streamed; a watchdog thread stops a build that runs past its
timeout or whose running step writes more than the image cap, by closing the connection
(the engine then cancels the build and removes its container). A failed, stopped or
oversized build leaves nothing behind: its containers are gone and the images it created
(intermediate layers, the tag) are removed. Images are identified by their id
(``sha256:…``), which is what the registry records: a tag may move, the id does not.

The log names the build's containers and images, but a step's own output is in the log
too and can print the same lines: what the log names is only a candidate, checked against
the engine (:class:`_Owned`) before the build removes or measures it. Whatever existed when
the build started is never touched; an image is removed only if the engine says it was
committed from one of the build's containers and it has no tag; a container only if it was
created after the build started, in the build's cgroup. The built image's id is the one the
engine reports at the end of the stream (``aux``), never a line of the log.
"""

from __future__ import annotations

import contextlib
import json
import re
import secrets
import socket
import threading
import time
from collections import deque
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from urllib.parse import quote

from arena.errors import ArenaError, UsageProblem
from arena.runtime.bases import (
    BASES,
    PYTHON_BASE,
    how_to_get,
    is_uploadable_base,
    kit_language,
    uploadable_bases,
)
from arena.runtime.build_sandbox import (
    BuildLimits,
    ProcessLimit,
    archive,
    format_size,
    measure_context,
)
from arena.runtime.docker import (
    SUBMIT_HINT,
    DockerUnavailable,
    ImageMissing,
    _errors,
    _explain,
    _is_connection_error,
    _reason,
    docker_client,
    install_exit_cleanup,
)
from arena.runtime.dockerfile import Dockerfile, DockerfileError, foreign_images

DEFAULT_BASE = PYTHON_BASE
TAIL_LINES = 30
POLL = 0.25  # seconds between the watchdog's looks at the clock
SIZE_POLL = 2.0  # seconds between its looks at the running step's disk use

# docker's reference grammar, simplified: [registry[:port]/]path[:tag]
_TAG_RE = re.compile(
    r"^(?:[a-zA-Z0-9.-]+(?::[0-9]+)?/)?"
    r"[a-z0-9]+(?:(?:[._]|__|-+)[a-z0-9]+)*(?:/[a-z0-9]+(?:(?:[._]|__|-+)[a-z0-9]+)*)*"
    r"(?::[A-Za-z0-9_][A-Za-z0-9_.-]{0,127})?$"
)
_ARG_KEY_RE = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")
_STEP_RE = re.compile(r"^Step \d+/\d+ : (\S+)", re.IGNORECASE)
_RUNNING_RE = re.compile(r"^ ---> Running in ([0-9a-f]{12,64})$")
_IMAGE_RE = re.compile(r"^ ---> ([0-9a-f]{12,64})$")
_ANSI_RE = re.compile(r"\x1b\[[0-9;]*[A-Za-z]")  # the engine colours the steps' stderr


class BaseImageMissing(UsageProblem):
    """An image the Dockerfile starts from is not in the engine (exit 2: build it first)."""


class ForeignImage(UsageProblem):
    """The Dockerfile reads an image that is not one of the arena's bases (exit 2 / 400)."""


class BuildStopped(ArenaError):
    """The sandbox stopped the build (timeout, image cap)."""


@dataclass(frozen=True)
class BuiltImage:
    id: str  # sha256:… image id
    tag: str
    log_tail: str  # the build log's last lines
    size: int = 0  # bytes, its base included
    bases: tuple[str, ...] = ()  # the images it was built from
    warnings: tuple[str, ...] = ()  # what the sandbox could not enforce here


@dataclass(frozen=True)
class BuildPlan:
    context: Path
    dockerfile: str  # its name inside the context
    build_args: dict[str, str]  # what the build gets
    bases: tuple[str, ...]  # the images it starts from (all present)
    note: str | None = None  # how BASE was chosen, when the Dockerfile did not say


def bot_image_tag(bot_id: int, version: int) -> str:
    """The tag of a registered bot's image: ``flip7-bot/bot-<id>:v<version>``. It derives
    from the bot's id, never from its name: a name is public and chosen by a participant,
    and ``Victim`` must not be able to move the tag of ``victim``'s image."""
    return f"flip7-bot/bot-{int(bot_id)}:v{int(version)}"


def build_tag() -> str:
    """A fresh tag for an image being built, before it is registered (and given
    :func:`bot_image_tag`): random, so no one can name it or make a build move it."""
    return f"flip7-bot/build-{secrets.token_hex(8)}:latest"


def check_tag(tag: str) -> str:
    if not _TAG_RE.match(tag) or len(tag) > 255:
        raise ArenaError(f"{tag!r} is not a valid image name (lower case, e.g. flip7-bot/ev:v1)")
    return tag


def parse_build_args(values: list[str]) -> dict[str, str]:
    """``KEY=VALUE`` strings (``--build-arg``) as a mapping; bad ones are a UsageProblem."""
    out: dict[str, str] = {}
    for v in values:
        key, eq, value = v.partition("=")
        if not eq or not _ARG_KEY_RE.match(key):
            raise UsageProblem(f"bad build argument {v!r}: give KEY=VALUE", param="--build-arg")
        out[key] = value
    return out


def _has_image(client: Any, name: str) -> bool:
    try:
        image_id_of(name, client=client)
    except ImageMissing:
        return False
    return True


def _locate(path: str | Path, dockerfile: str | None) -> tuple[Path, str]:
    p = Path(path)
    if p.is_file():
        return p.parent, dockerfile or p.name
    if not p.is_dir():
        raise ArenaError(f"{path}: no such directory (give a bot's build context)")
    name = dockerfile or "Dockerfile"
    if not (p / name).is_file():
        raise ArenaError(f"{p}: no {name} (a bot's build context needs one)")
    if (p / name).is_symlink():
        # the engine would resolve the link inside the context, not where it points here:
        # the file checked would not be the file built
        raise UsageProblem(f"{p / name} is a symbolic link: put the Dockerfile itself there")
    return p, name


def plan_build(
    path: str | Path,
    *,
    base: str | None = None,
    build_args: Mapping[str, str] | None = None,
    dockerfile: str | None = None,
    offline: bool = True,
    any_base: bool = False,
    client: Any = None,
) -> BuildPlan:
    """Decide what the build starts from and check that it is all here (see the module's
    docstring). Raises :class:`ForeignImage` for an image other than the arena's bases
    (unless ``any_base``), :class:`BaseImageMissing` naming the first missing image."""
    context, name = _locate(path, dockerfile)
    try:
        text = (context / name).read_text(errors="replace")
        df = Dockerfile.parse(text)
    except (OSError, DockerfileError) as e:
        raise UsageProblem(f"{context / name}: {e}") from None
    args = dict(build_args or {})
    if base is not None:
        if args.get("BASE", base) != base:
            raise UsageProblem("--base and --build-arg BASE=… name different images")
        args["BASE"] = base
    note = None
    if "BASE" in args and "BASE" not in df.declared_args:
        first = df.stages()[0].written
        raise UsageProblem(
            f"{context / name} takes no BASE build argument (it starts FROM {first}): "
            f"--base would change nothing"
        )
    if "BASE" not in args and df.uses_arg_in_from("BASE") and not df.global_args.get("BASE"):
        language = kit_language(context)
        if language is None:
            raise UsageProblem(
                f"{context / name} starts FROM ${{BASE}} with no default, and the kit's "
                f"language is not recognised: give --base IMAGE"
            )
        args["BASE"] = BASES[language].image
        note = f"BASE={args['BASE']} (the offline base of the {language} kit)"
    if offline and (urls := df.remote_sources()):
        raise UsageProblem(
            f"{context / name} ADDs {urls[0]}: the Docker daemon would fetch it outside the "
            f"build's network sandbox; put the file in the build context instead (or allow "
            f"a network with --build-network MODE, at a risk)"
        )
    stages = df.stages(args)
    blank = [s for s in stages if not s.image]
    if blank:
        raise UsageProblem(
            f"{context / name} line {blank[0].line}: FROM {blank[0].written} is empty "
            f"(give --base IMAGE or --build-arg)"
        )
    if not any_base:
        _only_our_bases(context / name, text, args)
    client = client or docker_client()
    bases = df.external_images(args)
    for image in bases:
        if not _has_image(client, image):
            raise BaseImageMissing(
                f"cannot build {context}: its base image {image} is not here; "
                f"{how_to_get(image)} (the arena never pulls images)"
            )
    return BuildPlan(context, name, args, tuple(bases), note)


def _only_our_bases(path: Path, text: str, args: Mapping[str, str]) -> None:
    """Refuse a Dockerfile that reads any image but the arena's bases: another
    participant's bot image is as easy to name as to guess (FROM it, COPY --from it, and
    the build log prints its files)."""
    allowed = ", ".join(uploadable_bases())
    try:
        foreign = foreign_images(text, is_uploadable_base, args)
    except DockerfileError as e:
        raise ForeignImage(f"{path}: {e}") from None
    if foreign:
        ref = foreign[0]
        raise ForeignImage(
            f"{path} line {ref.line}: {ref.how} {ref.image or ref.written!r} reads an image "
            f"that is not one of the arena's bases; a bot builds only from {allowed} "
            f"or an earlier stage of its Dockerfile"
        )


# ---------------------------------------------------------------------------- ownership
@dataclass
class _Owned:
    """What the engine held when the build started, to tell the build's own containers
    and images from those its log merely names (a step can print ``---> Running in <id>``
    or ``---> <id>`` for anything it has learnt the id of)."""

    containers: frozenset[str]  # full ids of every container at the start
    images: frozenset[str]  # full ids (sha256:…) of every image at the start
    cgroup_parent: str | None  # the build containers' parent cgroup, when there is one
    _checked: dict[str, str | None] = field(default_factory=dict)

    @classmethod
    def snapshot(cls, api: Any, cgroup_parent: str | None) -> _Owned:
        containers = frozenset(str(c["Id"]) for c in api.containers(all=True, quiet=True))
        images = frozenset(str(i) for i in api.images(all=True, quiet=True))
        return cls(containers, images, cgroup_parent)

    def container(self, api: Any, cid: str) -> str | None:
        """The full id of the build container the log calls ``cid``, or ``None`` when it
        is not one (it existed before the build, is not in the build's cgroup, or does
        not exist) or cannot be inspected now. A verdict is kept: a container's answers do
        not change, and one the engine does not know by now never will be the build's (the
        engine creates a step's container before the log names it); a failed look is not
        kept (the next one may succeed)."""
        if cid in self._checked:
            return self._checked[cid]
        try:
            info = api.inspect_container(cid)
        except _errors().NotFound:
            self._checked[cid] = None
            return None
        except Exception:
            return None
        self._checked[cid] = self._verdict(cid, info)
        return self._checked[cid]

    def _verdict(self, cid: str, info: Mapping[str, Any]) -> str | None:
        full = str(info.get("Id") or "")
        if not full.startswith(cid) or full in self.containers:
            return None
        parent = str((info.get("HostConfig") or {}).get("CgroupParent") or "")
        if self.cgroup_parent is not None and parent != self.cgroup_parent:
            return None
        return full

    def image(self, api: Any, iid: str, containers: list[str]) -> str | None:
        """The full id of the image ``iid`` if this build committed it (the engine records
        the container it was committed from, one the build's log named and that did not
        exist before) and nothing else uses its name (no tag); ``None`` otherwise."""
        try:
            info = _image_with_source(api, iid)
        except Exception:
            return None
        full = str(info.get("Id") or "")
        if not full.removeprefix("sha256:").startswith(iid.removeprefix("sha256:")):
            return None
        if full in self.images or info.get("RepoTags"):
            return None
        source = str(info.get("Container") or "")
        if not source or source in self.containers:
            return None
        return full if any(source.startswith(c) for c in containers) else None


_SOURCE_API = (1, 44)  # the last API version whose image inspect names the source container


def _image_with_source(api: Any, iid: str) -> Mapping[str, Any]:
    """The engine's inspect of an image with its ``Container`` (the container it was
    committed from): engines speaking API 1.45 or later leave the field out unless asked
    through an older version, so they are asked through 1.44."""
    try:
        major, minor = (int(x) for x in str(api.api_version).split(".")[:2])
    except ValueError:
        major, minor = _SOURCE_API
    if (major, minor) <= _SOURCE_API:
        return dict(api.inspect_image(iid))
    version = ".".join(str(x) for x in _SOURCE_API)
    resp = api.get(f"{api.base_url}/v{version}/images/{quote(iid, safe=':')}/json")
    resp.raise_for_status()
    return dict(resp.json())


# ---------------------------------------------------------------------------- the log
@dataclass
class _Build:
    """What the build's log has told so far (read by the watchdog thread too)."""

    on_line: Callable[[str], None] | None
    tail: deque[str] = field(default_factory=lambda: deque(maxlen=TAIL_LINES))
    containers: list[str] = field(default_factory=list)  # every build container started
    created: list[str] = field(default_factory=list)  # images this build committed
    running: str | None = None  # the container of the step running now
    last_image: str | None = None  # the image the running step started from
    image_id: str | None = None
    error: str | None = None
    stopped: str | None = None  # why the watchdog stopped the build
    owned: _Owned | None = None  # what the engine held at the start (see _Owned)
    _step: str = ""
    _cached: bool = False
    _pending: str = ""

    def text(self, text: str) -> None:
        """Take a piece of the log; a line is complete at its newline (the engine sends a
        step's output in pieces as they come)."""
        lines = (self._pending + _ANSI_RE.sub("", text)).split("\n")
        self._pending = lines.pop()
        for ln in lines:
            self._line(ln)

    def flush(self) -> None:
        pending, self._pending = self._pending, ""
        self._line(pending)

    def _line(self, ln: str) -> None:
        ln = ln.rstrip()
        if not ln.strip():
            return
        self.tail.append(ln)
        self._track(ln)
        if self.on_line is not None:
            self.on_line(ln)

    def _track(self, ln: str) -> None:
        if m := _STEP_RE.match(ln):
            self._step, self._cached = m.group(1).upper(), False
        elif m := _RUNNING_RE.match(ln):
            self.containers.append(m.group(1))
            self.running = m.group(1)
        elif ln == " ---> Using cache":
            self._cached = True
        elif m := _IMAGE_RE.match(ln):
            if self._step != "FROM" and not self._cached:
                self.created.append(m.group(1))
            self.last_image, self.running, self._step = m.group(1), None, ""

    def chunk(self, chunk: Mapping[str, Any]) -> None:
        if "stream" in chunk:
            self.text(str(chunk["stream"]))
        elif "status" in chunk:
            self.text(" ".join(str(chunk[k]) for k in ("id", "status") if chunk.get(k)) + "\n")
        if "error" in chunk:
            detail = chunk.get("errorDetail") or {}
            self.error = str(detail.get("message") or chunk["error"]).strip()
            self.flush()
            self.text(self.error + "\n")
        aux = chunk.get("aux")
        if isinstance(aux, dict) and aux.get("ID"):
            self.image_id = str(aux["ID"])


def _response_socket(resp: Any) -> socket.socket | None:
    conn = getattr(resp.raw, "connection", None) or getattr(resp.raw, "_connection", None)
    sock = getattr(conn, "sock", None)
    if sock is None:  # what docker-py itself reads for attached streams
        with contextlib.suppress(AttributeError):
            sock = resp.raw._fp.fp.raw._sock
    return sock if isinstance(sock, socket.socket) else None


class _Watchdog(threading.Thread):
    """Stops the build (closes its connection) at the deadline, when the running step
    has written more than the image cap allows, or when ``cancel`` is set."""

    def __init__(
        self,
        api: Any,
        sock: socket.socket | None,
        build: _Build,
        deadline: float,
        limits: BuildLimits,
        cancel: threading.Event | None = None,
    ) -> None:
        super().__init__(name="build-watchdog", daemon=True)
        self.api = api
        self.sock = sock
        self.build = build
        self.deadline = deadline
        self.limits = limits
        self.cancel = cancel
        self.done = threading.Event()
        self._sizes: dict[str, int] = {}

    def run(self) -> None:
        next_size = time.monotonic() + SIZE_POLL
        while not self.done.wait(POLL):
            if self.cancel is not None and self.cancel.is_set():
                self.stop("it was cancelled")
                return
            now = time.monotonic()
            if now >= self.deadline:
                self.stop(f"it ran past its timeout of {self.limits.timeout:g} s (--build-timeout)")
                return
            if now >= next_size:
                next_size = now + SIZE_POLL
                written = self._step_size()
                if written is not None and written > self.limits.image_bytes:
                    self.stop(
                        f"its image grew past {self.limits.max_image} (--max-image) "
                        f"while a step ran"
                    )
                    return

    def _step_size(self) -> int | None:
        """What the build's running step has written plus the image it runs on. The log
        names the step's container, but a step can print other names after it: every
        container the log named that the engine confirms is the build's
        (:meth:`_Owned.container`) and that still exists is measured, and the largest
        counts; a forged name never gets another container measured, nor hides the step's
        own."""
        owned = self.build.owned
        if owned is None:
            return None
        new = _listed(self.api.containers, owned.containers)
        if new is None:
            return None
        ids = []
        for cid in _among(list(self.build.containers), new):
            full = owned.container(self.api, cid)
            if full is not None:
                ids.append(full)
        if not ids:
            return None
        try:
            listed = self.api.containers(all=True, size=True, filters={"id": ids})
            sizes = []
            for c in listed:
                parent = str(c.get("ImageID") or "")
                if parent and parent not in self._sizes:
                    self._sizes[parent] = int(self.api.inspect_image(parent).get("Size") or 0)
                sizes.append(int(c.get("SizeRw") or 0) + self._sizes.get(parent, 0))
        except Exception:
            return None  # the step ended meanwhile
        return max(sizes, default=None)

    def stop(self, why: str) -> None:
        self.build.stopped = why
        if self.sock is not None:
            with contextlib.suppress(OSError):
                self.sock.shutdown(socket.SHUT_RDWR)


# ---------------------------------------------------------------------------- building
def build_image(
    path: str | Path,
    tag: str,
    *,
    base: str | None = None,
    build_args: Mapping[str, str] | None = None,
    limits: BuildLimits | None = None,
    dockerfile: str | None = None,
    nocache: bool = False,
    on_line: Callable[[str], None] | None = None,
    any_base: bool = False,
    client: Any = None,
    cancel: threading.Event | None = None,
) -> BuiltImage:
    """Build the image of the bot whose build context is ``path`` (a directory with a
    Dockerfile, or the Dockerfile itself) in the sandbox ``limits`` and tag it ``tag``.

    ``base`` sets the build argument ``BASE``; ``build_args`` add others; ``on_line``
    receives each line of the build log as it comes (e.g. to echo it on stderr); setting
    ``cancel`` stops the build as its timeout would (:class:`BuildStopped`, nothing kept).
    The Dockerfile may read only the arena's bases (:func:`plan_build`) unless ``any_base``
    (the operator's choice, never a participant's)."""
    check_tag(tag)
    limits = limits or BuildLimits()
    client = client or docker_client()
    install_exit_cleanup()  # SIGTERM unwinds like Ctrl-C: the build is cleaned up below
    plan = plan_build(
        path,
        base=base,
        build_args=build_args,
        dockerfile=dockerfile,
        offline=limits.offline,
        any_base=any_base,
        client=client,
    )
    context = measure_context(plan.context, plan.dockerfile, limits.context_bytes)
    api = client.api
    errors = _errors()
    build = _Build(on_line)
    if plan.note:
        build.text(f"arena: {plan.note}\n")
    warnings: list[str] = []
    try:
        info = api.info()
    except Exception as e:
        raise DockerUnavailable(f"Docker is not available: {_reason(e)}") from e
    pids = ProcessLimit(limits.pids, info)
    if pids.reason:
        warnings.append(f"the build's process limit is not enforced here: {pids.reason}")
    params: dict[str, Any] = {
        "t": tag,
        "dockerfile": plan.dockerfile,
        "rm": 1,
        "forcerm": 1,
        "pull": 0,
        "nocache": int(nocache),
        "buildargs": json.dumps(plan.build_args),
        **limits.params(),
    }
    if pids.parent:
        params["cgroupparent"] = pids.parent
    deadline = time.monotonic() + limits.timeout
    watchdog: _Watchdog | None = None
    if cancel is not None and cancel.is_set():
        raise BuildStopped(f"building {plan.context} as {tag} was stopped: it was cancelled")
    try:
        try:
            build.owned = _Owned.snapshot(api, pids.parent)
        except Exception as e:
            raise DockerUnavailable(f"Docker is not available: {_reason(e)}") from e
        with archive(context) as tar:
            try:
                resp = api.post(
                    f"{api.base_url}/v{api.api_version}/build",
                    params=params,
                    data=tar,
                    headers={"Content-Type": "application/tar"},
                    stream=True,
                    timeout=(60, limits.timeout + 5),
                )
            except Exception as e:
                if _is_connection_error(e):
                    raise DockerUnavailable(f"Docker is not available: {_reason(e)}") from e
                raise ArenaError(f"cannot build {plan.context}: {e}") from e
        with resp:
            if resp.status_code != 200:
                try:
                    build.error = str(resp.json().get("message") or resp.text).strip()
                except ValueError:
                    build.error = resp.text.strip() or f"HTTP {resp.status_code}"
            else:
                watchdog = _Watchdog(api, _response_socket(resp), build, deadline, limits, cancel)
                watchdog.start()
                _read(resp, build)
    except BaseException:
        # Ctrl-C, SIGTERM, a lost engine: the connection is closed by now, so the engine
        # cancels the build; what it committed goes too
        build.stopped = build.stopped or "interrupted"
        raise
    finally:
        if watchdog is not None:
            watchdog.done.set()
            watchdog.join()
        if build.stopped is not None or build.error is not None:
            _clean_up(api, build, tag=None)
        pids.close()
    log_tail = "\n".join(build.tail)
    if build.stopped is not None:
        raise BuildStopped(
            f"building {plan.context} as {tag} was stopped: {build.stopped}; nothing of it was kept"
        )
    if build.error is not None:
        why = _explain_step(build.error, build, limits)
        raise ArenaError(
            f"building {plan.context} as {tag} failed: {why}\n"
            f"--- last {len(build.tail)} lines of the build log ---\n{log_tail}"
        )
    # the engine's own word (the stream's aux message), never a line of the log; without
    # it, the random tag only this build could have set
    image = build.image_id or image_id_of(tag, client=client)
    try:
        size = int(api.inspect_image(image).get("Size") or 0)
    except errors.APIError as e:
        raise ArenaError(f"built {tag}, but cannot inspect it: {_explain(e)}") from e
    if size > limits.image_bytes:
        _clean_up(api, build, tag=tag)
        raise BuildStopped(
            f"building {plan.context} as {tag} was stopped: the image is {format_size(size)}, "
            f"over the cap of {limits.max_image} (--max-image); it was removed"
        )
    return BuiltImage(image, tag, log_tail, size, plan.bases, tuple(warnings))


def _read(resp: Any, build: _Build) -> None:
    import requests
    import urllib3

    try:
        for raw in resp.iter_lines(chunk_size=65536):
            if not raw:
                continue
            try:
                chunk = json.loads(raw)
            except ValueError:
                build.text(raw.decode(errors="replace") + "\n")
                continue
            if isinstance(chunk, dict):
                build.chunk(chunk)
    except (requests.RequestException, urllib3.exceptions.HTTPError, OSError) as e:
        if build.stopped is None:
            build.error = f"the connection to the Docker engine broke: {e}"
    finally:
        build.flush()


_OFFLINE_SIGNS = (
    "Network is unreachable",
    "Temporary failure in name resolution",
    "Could not resolve host",
    "getaddrinfo",
)


def _explain_step(error: str, build: _Build, limits: BuildLimits) -> str:
    if re.search(r"returned a non-zero code: 137\b", error):
        return f"{error} (killed: most likely over the build's memory limit of {limits.memory})"
    if limits.offline and any(sign in ln for ln in build.tail for sign in _OFFLINE_SIGNS):
        return (
            f"{error} (the build has no network: put what it downloads in the build context, "
            f"or allow a network with --build-network MODE, at a risk)"
        )
    return error


def _clean_up(api: Any, build: _Build, tag: str | None, wait: float = 20.0) -> None:
    """Remove what a failed or stopped build left: its containers (the engine removes them
    on cancellation; those still there at the deadline are forced), then the images it
    committed, newest first, and its tag. Only what the engine confirms is the build's own
    (:class:`_Owned`): the log's lines are a step's to print."""
    errors = _errors()
    owned = build.owned
    if owned is None:  # nothing was sent
        return
    deadline = time.monotonic() + wait
    for cid in _among(build.containers, _listed(api.containers, owned.containers)):
        while True:
            full = owned.container(api, cid)
            if full is None:
                break
            try:
                api.inspect_container(full)
            except errors.NotFound:
                break
            except Exception:
                break
            if time.monotonic() > deadline:
                with contextlib.suppress(Exception):
                    api.remove_container(full, force=True)
                break
            time.sleep(0.1)
    if tag is not None:
        with contextlib.suppress(Exception):
            api.remove_image(tag, noprune=True)
    created = list(build.created)
    if build.stopped is not None:
        created += _orphans(api, build.containers, created, owned)
    for image in reversed(_among(created, _listed(api.images, owned.images))):
        full = owned.image(api, image, build.containers)
        if full is None:
            continue
        with contextlib.suppress(errors.NotFound, errors.APIError):
            api.remove_image(full, noprune=True)


def _listed(list_them: Callable[..., Any], before: frozenset[str]) -> set[str] | None:
    """The ids the engine lists now that it did not when the build started (``None`` if
    it cannot list them: then every name is looked at)."""
    try:
        found = list_them(all=True, quiet=True)
    except Exception:
        return None
    return {str(x["Id"] if isinstance(x, Mapping) else x) for x in found} - before


def _among(names: list[str], new: set[str] | None) -> list[str]:
    """The names the log gave (ids or their prefixes), once each and in order, of those
    that may be among the ``new`` ids: a step that prints a flood of made-up names costs
    a set lookup each, not a call to the engine each."""
    unique = list(dict.fromkeys(names))
    if new is None:
        return unique
    short = {i.removeprefix("sha256:")[:12] for i in new}
    return [n for n in unique if n.removeprefix("sha256:")[:12] in short]


def _orphans(api: Any, containers: list[str], known: list[str], owned: _Owned) -> list[str]:
    """Images committed from this build's containers that the log did not get to report
    (a step that finished just as the build was cut off)."""
    if not containers:
        return []
    ours = set(containers)
    found: list[str] = []
    with contextlib.suppress(Exception):
        for img in api.images(all=True, filters={"dangling": True}):
            iid = str(img.get("Id", ""))
            if iid in owned.images:
                continue
            if any(iid.removeprefix("sha256:").startswith(k) for k in known):
                continue
            cid = str(_image_with_source(api, iid).get("Container") or "")
            if any(cid.startswith(c) for c in ours):
                found.append(iid)
    return found


def image_id_of(name: str, *, client: Any = None) -> str:
    """The id (``sha256:…``) of a local image, by name, tag or id (never pulled)."""
    client = client or docker_client()
    errors = _errors()
    try:
        return str(client.api.inspect_image(name)["Id"])
    except errors.NotFound as e:
        raise ImageMissing(
            f"no image {name} here (build it with {SUBMIT_HINT} or docker build; "
            f"the arena never pulls images)"
        ) from e
    except errors.APIError as e:
        raise ArenaError(f"{name!r}: {_explain(e)}") from e
    except Exception as e:
        if _is_connection_error(e):
            raise DockerUnavailable(f"Docker is not available: {_reason(e)}") from e
        raise


def image_id(name: str) -> str:
    """For ``arena bot add --image NAME``: the local image's id; an error if it is missing."""
    return image_id_of(name)
