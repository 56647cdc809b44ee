"""The sandbox of a bot image build: limits, the build context's size, a process limit.

A bot's Dockerfile is untrusted code: its ``RUN`` steps run in build containers of the
local engine. :class:`BuildLimits` is what each build gets: no network (``none``) unless
the operator names one, memory with no swap, CPUs, a number of processes, a wall-clock
timeout, and caps on the build context and on the resulting image.

The classic builder takes memory, CPU and network limits per build container, but no
process limit. :class:`ProcessLimit` gives the build a parent cgroup of its own with
``pids.max`` set, under which the engine creates every build container (the build API's
``cgroupparent``): the limit counts every process and thread of the running step. That
needs the engine on this machine with the ``cgroupfs`` cgroup driver and a writable
``/sys/fs/cgroup`` (cgroup v1 or v2); elsewhere the build runs without a process limit
and :attr:`ProcessLimit.reason` says why.
"""

from __future__ import annotations

import contextlib
import errno
import os
import re
import secrets
import socket
import tempfile
import time
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import IO, Any

from arena.errors import UsageProblem
from arena.runtime.docker import parse_memory

CGROUP_ROOT = Path("/sys/fs/cgroup")
CGROUP_PREFIX = "flip7-build"
_NETWORK_RE = re.compile(r"^[a-zA-Z0-9][a-zA-Z0-9_.-]{0,127}$")


def format_size(n: int) -> str:
    for unit, size in (("GiB", 1 << 30), ("MiB", 1 << 20), ("KiB", 1 << 10)):
        if n >= size:
            return f"{n / size:.1f} {unit}"
    return f"{n} B"


@dataclass(frozen=True)
class BuildLimits:
    """What one bot image build may use. ``network`` is the network mode of the ``RUN``
    steps (``none``: only a loopback interface; anything else is the operator's risk);
    ``memory`` is RAM with no swap, per step; ``pids`` counts the processes and threads of
    a step; ``timeout`` is wall-clock seconds for the whole build; ``max_context`` caps the
    files sent as the build context (after ``.dockerignore``), ``max_image`` the built
    image (its base included)."""

    network: str = "none"
    memory: str = "1g"
    cpus: float = 1.0
    pids: int = 256
    timeout: float = 300.0
    max_context: str = "100m"
    max_image: str = "2g"

    def __post_init__(self) -> None:
        if not _NETWORK_RE.match(self.network):
            raise ValueError(f"bad network {self.network!r} (e.g. none, host, default)")
        if parse_memory(self.memory) < 8 << 20:
            raise ValueError(f"memory limit {self.memory!r} is below Docker's minimum (8m)")
        if not 0 < self.cpus <= 1024:
            raise ValueError("cpus must be positive")
        if not 8 <= self.pids <= 1 << 22:
            raise ValueError("a build needs at least 8 processes")
        if not 0 < self.timeout <= 86400:
            raise ValueError("the build timeout must be between 0 and 86400 seconds")
        if parse_memory(self.max_context) < 1 << 10 or parse_memory(self.max_image) < 1 << 20:
            raise ValueError("the context cap must be at least 1k and the image cap at least 1m")

    @property
    def offline(self) -> bool:
        return self.network == "none"

    @property
    def context_bytes(self) -> int:
        return parse_memory(self.max_context)

    @property
    def image_bytes(self) -> int:
        return parse_memory(self.max_image)

    def params(self) -> dict[str, Any]:
        """The build API's query parameters for these limits (``pids`` aside)."""
        mem = parse_memory(self.memory)
        period = 100_000
        return {
            "networkmode": self.network,
            "memory": mem,
            "memswap": mem,  # equal to memory: no swap
            "cpuperiod": period,
            "cpuquota": max(1000, int(self.cpus * period)),
        }

    def describe(self) -> str:
        net = "no network" if self.offline else f"network {self.network}"
        return (
            f"{net}, {self.memory} memory (no swap), {self.cpus:g} CPU, {self.pids} processes, "
            f"{self.timeout:g} s"
        )


# ---------------------------------------------------------------------------- context
@dataclass(frozen=True)
class BuildContext:
    root: Path
    files: list[str]  # relative paths sent (directories too), .dockerignore applied
    size: int  # bytes of the regular files among them


def _ignore_patterns(root: Path) -> list[str]:
    try:
        text = (root / ".dockerignore").read_text(errors="replace")
    except OSError:
        return []
    return [ln.strip() for ln in text.splitlines() if ln.strip() and not ln.strip().startswith("#")]


def measure_context(root: Path, dockerfile: str, cap: int) -> BuildContext:
    """The files of the build context (as the engine would get them) and their size;
    refuses, before anything is built or archived, a context larger than ``cap``."""
    from docker.utils.build import PatternMatcher

    patterns = [*_ignore_patterns(root), f"!{dockerfile}"]
    files: list[str] = []
    size = 0
    for rel in PatternMatcher(patterns).walk(str(root)):
        files.append(rel)
        with contextlib.suppress(OSError):
            st = os.lstat(root / rel)
            if not os.path.islink(root / rel) and os.path.isfile(root / rel):
                size += st.st_size
        if size > cap:
            raise UsageProblem(
                f"the build context {root} holds more than {format_size(cap)} (--max-context): "
                f"leave large files out with a .dockerignore"
            )
    return BuildContext(root, sorted(files), size)


def archive(context: BuildContext) -> IO[bytes]:
    """The context as an uncompressed tar in a temporary file, positioned at its start."""
    from docker.utils.build import create_archive

    tar = tempfile.NamedTemporaryFile()  # noqa: SIM115 (the caller closes it)
    create_archive(str(context.root), files=context.files, fileobj=tar)  # rewinds it
    return tar


# ---------------------------------------------------------------------------- processes
def _pid_alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


class ProcessLimit:
    """A parent cgroup, with ``pids.max``, for the build containers of one build.

    ``parent`` is the value of the build API's ``cgroupparent`` (``None`` when the limit
    cannot be applied here; ``reason`` says why). :meth:`close` removes the cgroup once the
    build's containers are gone (the engine creates it in every v1 hierarchy)."""

    def __init__(self, pids: int, engine_info: Mapping[str, Any], root: Path = CGROUP_ROOT):
        self.pids = pids
        self.root = root
        self.parent: str | None = None
        self.reason: str | None = None
        self._name = f"{CGROUP_PREFIX}-{os.getpid()}-{secrets.token_hex(4)}"
        self._v2 = str(engine_info.get("CgroupVersion", "1")) == "2"
        self.reason = self._unavailable(engine_info)
        if self.reason is None:
            self._sweep_stale()
            try:
                self._create()
            except OSError as e:
                self.close()
                self.reason = f"cannot set up a cgroup under {root}: {e.strerror or e}"
            else:
                self.parent = f"/{self._name}"

    def _unavailable(self, info: Mapping[str, Any]) -> str | None:
        host = os.environ.get("DOCKER_HOST", "")
        if host and not host.startswith("unix://"):
            return f"the Docker engine is remote ({host})"
        if info.get("Name") and info.get("Name") != socket.gethostname():
            return f"the Docker engine runs on another host ({info.get('Name')})"
        driver = info.get("CgroupDriver")
        if driver != "cgroupfs":
            return f"the engine's cgroup driver is {driver} (the process limit needs cgroupfs)"
        if self._v2:
            controllers = self.root / "cgroup.subtree_control"
            try:
                enabled = controllers.read_text().split()
            except OSError:
                return f"no cgroup v2 hierarchy at {self.root}"
            if "pids" not in enabled:
                return f"the pids controller is not enabled in {controllers}"
        elif not (self.root / "pids" / "cgroup.procs").exists():
            return f"no pids cgroup controller at {self.root / 'pids'}"
        if not os.access(self._limit_dir().parent, os.W_OK):
            return f"{self._limit_dir().parent} is not writable (run as root)"
        return None

    def _limit_dir(self, name: str | None = None) -> Path:
        name = name or self._name
        return self.root / name if self._v2 else self.root / "pids" / name

    def _create(self) -> None:
        d = self._limit_dir()
        d.mkdir()
        (d / "pids.max").write_text(f"{self.pids}\n")

    def _dirs(self, name: str) -> list[Path]:
        if self._v2:
            return [self.root / name]
        return [h / name for h in self.root.iterdir() if (h / name).is_dir()]

    def _remove(self, name: str, wait: float) -> bool:
        deadline = time.monotonic() + wait
        for d in self._dirs(name):
            while True:
                try:
                    d.rmdir()
                    break
                except FileNotFoundError:
                    break
                except OSError as e:
                    # busy until the engine has removed the build container's own cgroup
                    if e.errno != errno.EBUSY or time.monotonic() > deadline:
                        return False
                    time.sleep(0.05)
        return True

    def _sweep_stale(self) -> None:
        """Remove the (empty) cgroups of builds whose arena process is gone."""
        base = self._limit_dir().parent
        with contextlib.suppress(OSError):
            for d in base.glob(f"{CGROUP_PREFIX}-*-*"):
                m = re.match(rf"^{CGROUP_PREFIX}-(\d+)-[0-9a-f]+$", d.name)
                if m and not _pid_alive(int(m.group(1))):
                    self._remove(d.name, wait=0)

    def close(self, wait: float = 10.0) -> None:
        with contextlib.suppress(OSError):
            self._remove(self._name, wait)
