"""How process bots are contained and isolated: the best mechanism this machine offers.

Chosen once per arena process (:func:`current`, shown by :func:`describe`), best first:

``bwrap``
    bubblewrap (Debian package ``bubblewrap``). Each bot gets its own PID, network, IPC,
    UTS and mount namespaces; the bot's first process (``launch.py``) is PID 1 there, so
    when it ends, the kernel kills everything in the namespace, and ``--die-with-parent``
    ends the sandbox with the arena. The bot sees an allow-list, read-only: the system's
    directories (``SYSTEM_DIRS``), the arena's interpreter and its own packages (the
    Python SDK), the bot's own folders (those of its program and script arguments), the
    arena's Unix socket; fresh ``/proc`` and ``/dev`` and a private size-limited ``/tmp``
    (its ``HOME`` and ``TMPDIR``). Its working directory keeps its path but shows only the
    bot's own folders inside it. Database files in its folders (SQLite by header, other
    names of the databases this process opened, names marking a copy) are hidden; an own
    folder where a database is or may appear (the arena's working directory, a protected
    database's folder, or a folder holding one) is shown as a copy made at the bot's
    start, so that nothing made there while the bot runs reaches it. No network but the Unix
    socket. A seccomp filter (``arena.runtime.seccomp``) denies the system calls a bot has
    no use for. When the arena runs as root, each bot runs as a user of its own (a uid
    from a high range, held by a lock while the bot runs), with no capabilities and no new
    privileges, never as root (a folder of its own closed to that user is copied for it);
    otherwise as the operator's user inside a user namespace.
``cgroup``
    no usable bubblewrap, but a writable cgroup v2: each bot's processes are put in a
    cgroup of their own that is killed as a whole. No isolation.
``reaper``
    neither: the bot's first process is a child subreaper that kills every process left
    below it (found in /proc) and gets SIGTERM when the arena dies. No isolation.

Every mode applies the resource limits of :class:`ProcessLimits` and gives the bot a
minimal environment (see ``arena.runtime.process``). Without ``bwrap``, process bots run
as trusted code with the operator's rights: :func:`warn_once` says so. ``ARENA_SANDBOX``
(``bwrap``, ``cgroup`` or ``reaper``) forces a mode, e.g. to compare them.
"""

from __future__ import annotations

import asyncio
import contextlib
import fcntl
import functools
import itertools
import json
import logging
import os
import re
import shutil
import signal
import stat
import subprocess
import sys
import tempfile
import threading
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from arena import descriptors
from arena.errors import ArenaError
from arena.runtime import launch, seccomp
from arena.runtime.base import read_ready

log = logging.getLogger("arena.runtime.sandbox")

MODES = ("bwrap", "cgroup", "reaper")
LAUNCHER = Path(launch.__file__).resolve()
PROJECT_ROOT = LAUNCHER.parents[2]  # the source tree (the SDK's editable install points here)
UID_BASE = 1_800_000_000  # bots of a root arena run as UID_BASE + n (and that gid)
UID_COUNT = 100_000
SANDBOX_TMP = "/tmp"  # the private area (its HOME is home/ in it)
# what every bot sees of the machine, read-only (where present; symbolic links as such)
SYSTEM_DIRS = ("/usr", "/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32", "/etc", "/opt")
PACKAGES = ("arena", "engine")  # the arena's own packages (the Python SDK imports them)
SCAN_LIMIT = 20_000  # files and folders searched for databases in a bot's own folders
STAGE_LIMIT = 256 << 20  # bytes of a closed folder copied for a bot of its own user

_SIZE_RE = re.compile(r"^(\d+(?:\.\d+)?)([kmg]?)b?$", re.IGNORECASE)
_SIZE_UNITS = {"": 1, "k": 1 << 10, "m": 1 << 20, "g": 1 << 30}


def parse_size(value: str | int) -> int:
    """``64m``, ``1g``, ``512k`` or a number of bytes, in bytes."""
    if isinstance(value, int):
        return value
    m = _SIZE_RE.match(value.strip())
    if not m:
        raise ValueError(f"bad size {value!r} (e.g. 64m, 1g)")
    return int(float(m.group(1)) * _SIZE_UNITS[m.group(2).lower()])


@dataclass(frozen=True)
class ProcessLimits:
    """What one process bot may use. ``memory`` bounds each process's data (heap, stacks,
    anonymous mappings; RLIMIT_DATA); ``processes`` counts the processes and threads of the
    bot's own user (only where it has one: a root arena under bubblewrap); ``file_size``
    bounds any file it writes; ``open_files`` its descriptors; ``scratch`` its private
    ``/tmp`` (bubblewrap only)."""

    memory: str = "1g"
    processes: int = 128
    file_size: str = "64m"
    open_files: int = 1024
    scratch: str = "64m"

    KEYS = ("memory", "processes", "file-size", "open-files", "scratch")

    def __post_init__(self) -> None:
        if parse_size(self.memory) < 64 << 20:
            raise ValueError(f"memory limit {self.memory!r} is below 64m")
        if parse_size(self.file_size) < 1 << 20:
            raise ValueError(f"file-size limit {self.file_size!r} is below 1m")
        if parse_size(self.scratch) < 1 << 20:
            raise ValueError(f"scratch limit {self.scratch!r} is below 1m")
        if self.processes < 8:
            raise ValueError("processes must be at least 8")
        if self.open_files < 32:
            raise ValueError("open-files must be at least 32")

    @classmethod
    def parse(cls, items: Iterable[str]) -> ProcessLimits:
        """From ``KEY=VALUE`` strings (keys: memory, processes, file-size, open-files,
        scratch)."""
        kw: dict[str, object] = {}
        for item in items:
            key, sep, value = item.partition("=")
            key = key.strip().lower()
            if not sep or key not in cls.KEYS:
                raise ValueError(
                    f"bad process limit {item!r}: give KEY=VALUE with KEY one of "
                    f"{', '.join(cls.KEYS)}"
                )
            name = key.replace("-", "_")
            if name in ("processes", "open_files"):
                try:
                    kw[name] = int(value)
                except ValueError:
                    raise ValueError(f"bad process limit {item!r}: give a whole number") from None
            else:
                parse_size(value)
                kw[name] = value.strip()
        return cls(**kw)  # type: ignore[arg-type]  # int or str by key, as parsed above

    def as_options(self) -> dict[str, object]:
        return {
            "memory": self.memory,
            "processes": self.processes,
            "file_size": self.file_size,
            "open_files": self.open_files,
            "scratch": self.scratch,
        }

    def rlimits(self, own_uid: bool) -> dict[str, int]:
        out = {
            "data": parse_size(self.memory),
            "fsize": parse_size(self.file_size),
            "nofile": self.open_files,
            "core": 0,
        }
        if own_uid:
            out["nproc"] = self.processes
        return out


# ---------------------------------------------------------------------------- the mode
@dataclass(frozen=True)
class Sandbox:
    mode: str  # one of MODES
    isolated: bool  # namespaces, read-only filesystem, no network
    own_uid: bool  # each bot runs as a user of its own
    bwrap: str | None = None
    cgroup_root: Path | None = None  # where the bots' cgroups are made (cgroup mode)
    missing: str = ""  # why a better mode is not available
    seccomp: bool = False  # a seccomp filter denies the dangerous system calls (bwrap)
    seccomp_missing: str = ""  # why there is none, under bubblewrap

    def guarantees(self) -> list[str]:
        """What holds for every process bot on this machine, one sentence each."""
        if self.mode != "bwrap":
            return ["everything a process bot starts ends with it"]
        out = [
            "everything a process bot starts ends with it (its own PID namespace)",
            "it sees no other process and has no network but the arena's socket",
            "it sees its own folder (read-only), the system's read-only directories "
            f"({', '.join(d for d in SYSTEM_DIRS if os.path.lexists(d))}), the interpreter "
            "and the arena's packages, and a private /tmp: never the rest of the arena's "
            "working directory, /home, /root or /var",
            "if its own folder is, or holds, the arena's working directory or the folder "
            "of a database the arena opened, it sees a copy of that folder made at its "
            f"start (up to {STAGE_LIMIT >> 20} MiB, else it is refused): nothing made there "
            "later reaches it",
            "no SQLite database file (found by its header at its start, and every other "
            "name of a database the arena opened) is visible in its folder, nor a file "
            "named as a copy of one (arena.db.gz, arena.db.bak: the database's name with "
            "any ending; *.sql, *.dump, also compressed)",
        ]
        if self.own_uid:
            out.append(
                "it never runs as root: each bot is a user of its own, without capabilities "
                "or supplementary groups, and may not gain privileges"
            )
        else:
            out.append(
                "it runs as your (non-root) user in a user namespace of its own, without "
                "capabilities, and may not make further user namespaces"
            )
        if self.seccomp:
            out.append(
                "a seccomp filter denies ptrace, mount, unshare/setns and new namespaces, "
                "bpf, perf_event_open, the kernel keyring, kexec and modules, io_uring and "
                "other system calls a bot has no use for"
            )
        else:
            out.append(self.seccomp_missing.replace("no seccomp", "NO seccomp", 1))
        return out

    def describe(self) -> str:
        if self.mode == "bwrap":
            who = (
                "each as a user of its own with no capabilities"
                if self.own_uid
                else "as your user in a user namespace of its own"
            )
            text = (
                f"bubblewrap ({self.bwrap}): process bots run {who}, in their own PID, "
                "network and mount namespaces, seeing only their own folder, the system's "
                "read-only directories and a private /tmp, no database files and no network "
                "but the arena's socket; everything a bot starts ends with it"
            )
            text += (
                "; a seccomp filter denies ptrace, mount, bpf, keyctl and the like"
                if self.seccomp
                else f"; but {self.seccomp_missing}"
            )
            return text + "\nguarantees:" + "".join(f"\n  - {g}" for g in self.guarantees())
        how = (
            f"a cgroup of its own under {self.cgroup_root}"
            if self.mode == "cgroup"
            else "a subreaper that kills every process left below it"
        )
        return (
            f"{self.mode}: everything a process bot starts ends with it ({how}), but process "
            f"bots are NOT isolated: they run as trusted code with your rights ({self.missing})"
        )

    def as_dict(self) -> dict[str, object]:
        return {
            "mode": self.mode,
            "isolated": self.isolated,
            "own_uid": self.own_uid,
            "seccomp": self.seccomp,
            "bwrap": self.bwrap,
            "cgroup_root": str(self.cgroup_root) if self.cgroup_root else None,
            "missing": self.missing,
            "seccomp_missing": self.seccomp_missing,
            "guarantees": self.guarantees(),
            "description": self.describe(),
        }


def _bwrap_base(bwrap: str, root: bool) -> list[str]:
    argv = [bwrap, "--die-with-parent", "--unshare-pid", "--unshare-ipc", "--unshare-uts"]
    argv += ["--unshare-cgroup-try"]
    if not root:
        argv += ["--unshare-user", "--disable-userns"]
    return argv


def _run_probe(argv: list[str], pass_fds: tuple[int, ...] = ()) -> str:
    """'' if the bwrap command line works here, else why not."""
    try:
        r = subprocess.run(
            argv, capture_output=True, text=True, timeout=20, check=False, pass_fds=pass_fds
        )
    except OSError as e:
        if descriptors.is_exhaustion(e):
            raise  # the arena's own shortage says nothing about bubblewrap: decide later
        return str(e)
    except subprocess.TimeoutExpired as e:
        return str(e)
    if r.returncode != 0:
        return (r.stderr.strip().splitlines() or [f"exit code {r.returncode}"])[-1]
    return ""


def _probe_bwrap() -> tuple[str | None, str]:
    bwrap = shutil.which("bwrap")
    if bwrap is None:
        return None, "bubblewrap (bwrap) is not installed"
    root = os.geteuid() == 0
    argv = [*_bwrap_base(bwrap, root), "--unshare-net", "--ro-bind", "/", "/"]
    argv += ["--proc", "/proc", "--dev", "/dev", "--tmpfs", "/tmp", "--", "true"]
    why = _run_probe(argv)
    if why:
        return None, f"bubblewrap does not work here ({why})"
    return bwrap, ""


def _probe_seccomp(bwrap: str) -> str:
    """'' if bubblewrap installs the seccomp filter here, else why there is none."""
    _, why = seccomp.program()
    if why:
        return why
    fd = seccomp.program_fd()
    assert fd is not None
    try:
        argv = [*_bwrap_base(bwrap, os.geteuid() == 0), "--ro-bind", "/", "/"]
        argv += ["--seccomp", str(fd), "--", "true"]
        why = _run_probe(argv, (fd,))
    finally:
        os.close(fd)
    return f"no seccomp filter: bubblewrap cannot install it ({why})" if why else ""


def _cgroup2_root() -> tuple[Path | None, str]:
    """This process's own cgroup v2 directory, if we may make cgroups below it."""
    mount = None
    try:
        with open("/proc/self/mountinfo", encoding="utf-8") as f:
            for line in f:
                left, _, right = line.partition(" - ")
                if right.split(" ", 1)[0] == "cgroup2":
                    mount = left.split()[4]
                    break
        with open("/proc/self/cgroup", encoding="utf-8") as f:
            own = next((ln.split(":", 2)[2].strip() for ln in f if ln.startswith("0::")), None)
    except (OSError, IndexError):
        return None, "no cgroup v2"
    if mount is None or own is None:
        return None, "no cgroup v2"
    base = Path(mount) / own.lstrip("/")
    probe = base / f"flip7-arena-probe-{os.getpid()}"
    try:
        probe.mkdir()
        ok = os.access(probe / "cgroup.procs", os.W_OK)
        probe.rmdir()
    except OSError as e:
        return None, f"cgroup v2 at {base} is not writable ({e.strerror})"
    if not ok:
        return None, f"cgroup v2 at {base} is not writable"
    return base, ""


def detect(forced: str | None = None) -> Sandbox:
    """Find the best mode (or check the ``forced`` one is available)."""
    if forced is not None and forced not in MODES:
        raise ArenaError(f"ARENA_SANDBOX={forced!r}: choose from {', '.join(MODES)}")
    root = os.geteuid() == 0
    missing: list[str] = []
    if forced in (None, "bwrap"):
        bwrap, why = _probe_bwrap()
        if bwrap is not None:
            no_filter = _probe_seccomp(bwrap)
            return Sandbox(
                "bwrap", True, root, bwrap=bwrap, seccomp=not no_filter, seccomp_missing=no_filter
            )
        if forced == "bwrap":
            raise ArenaError(f"ARENA_SANDBOX=bwrap, but {why}")
        missing.append(why)
    else:
        missing.append(f"ARENA_SANDBOX={forced}")
    if forced in (None, "cgroup"):
        cg, why = _cgroup2_root()
        if cg is not None:
            return Sandbox("cgroup", False, False, cgroup_root=cg, missing="; ".join(missing))
        if forced == "cgroup":
            raise ArenaError(f"ARENA_SANDBOX=cgroup, but {why}")
        missing.append(why)
    return Sandbox("reaper", False, False, missing="; ".join(missing))


@functools.cache
def current() -> Sandbox:
    """This process's sandbox mode, chosen on first use."""
    forced = os.environ.get("ARENA_SANDBOX", "").strip().lower() or None
    return detect(forced)


def describe() -> str:
    return current().describe()


_warned = False
_warn_lock = threading.Lock()


def warn_once() -> None:
    """Say once per process, on stderr, that process bots are not isolated, or are
    isolated without a seccomp filter (if so)."""
    global _warned
    box = current()
    with _warn_lock:
        if (box.isolated and box.seccomp) or _warned:
            return
        _warned = True
    if box.isolated:
        sys.stderr.write(
            f"warning: process bots are sandboxed with {box.seccomp_missing} (every system "
            "call is open to them); install libseccomp2 and the arena's dependencies\n"
        )
        sys.stderr.flush()
        return
    sys.stderr.write(
        "warning: process bots run as trusted code with your rights "
        f"({box.missing}); run untrusted bots as containers (arena bot submit)\n"
    )
    sys.stderr.flush()


# ---------------------------------------------------------------------------- protection
_protected: set[str] = set()


def protect(path: str | Path) -> None:
    """Hide this file (a database) and its SQLite companions from every bot started later."""
    _protected.add(os.path.realpath(path))


def protected_files() -> list[str]:
    out = []
    for p in sorted(_protected):
        for suffix in ("", "-wal", "-shm", "-journal", ".lock"):
            if os.path.isfile(p + suffix):
                out.append(p + suffix)
    return out


# ---------------------------------------------------------------------------- uids
def _uid_lock_dir() -> Path:
    for base in (Path("/run/flip7-arena"), Path(tempfile.gettempdir()) / "flip7-arena-uids"):
        try:
            base.mkdir(mode=0o700, parents=True, exist_ok=True)
            if os.access(base, os.W_OK):
                return base
        except OSError:
            continue
    raise OSError("no place for the bot uid locks (/run or the temp directory)")


def allocate_uid() -> tuple[int, int]:
    """A uid no other running bot (of any arena on this machine) holds: (uid, lock fd)."""
    base = _uid_lock_dir()
    for n in range(UID_COUNT):
        fd = os.open(base / f"uid-{UID_BASE + n}.lock", os.O_RDWR | os.O_CREAT, 0o600)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            os.close(fd)
            continue
        return UID_BASE + n, fd
    raise OSError("every bot uid is in use")


# ---------------------------------------------------------------------------- paths
def _under(path: str, root: str) -> bool:
    return path == root or path.startswith(root.rstrip("/") + "/")


def _minimal(paths: Iterable[str]) -> list[str]:
    """The paths that are not below another one of them, shallow first."""
    out: list[str] = []
    for p in sorted(set(paths), key=lambda s: (s.count("/"), s)):
        if not any(_under(p, q) for q in out):
            out.append(p)
    return out


def _system(path: str) -> bool:
    """Whether ``path`` is in a system directory every bot sees anyway."""
    return any(_under(path, d) for d in SYSTEM_DIRS)


def _argv_files(argv: Sequence[str], cwd: str, path_env: str) -> list[str]:
    """The command's own files (its program, its script arguments), as real paths."""
    out = []
    candidates = list(argv)
    exe = shutil.which(argv[0], path=path_env) if "/" not in argv[0] else None
    if exe:
        candidates.append(exe)
    for arg in candidates:
        if not arg or arg.startswith("-"):
            continue
        p = os.path.join(cwd, arg)
        if os.path.exists(p):
            out.append(os.path.realpath(p))
    return out


def _argv_paths(argv: Sequence[str], cwd: str, path_env: str) -> list[str]:
    """The directories a command's own files are in (its program, its script arguments)."""
    out = []
    for real in _argv_files(argv, cwd, path_env):
        d = real if os.path.isdir(real) else os.path.dirname(real)
        if os.path.basename(d) == "bin":  # a venv's or a prefix's interpreter: its prefix
            d = os.path.dirname(d)
        out.append(d)
    return out


def runtime_paths() -> list[str]:
    """What every process bot sees besides the system directories: this interpreter (its
    prefixes: a Python bot runs with it) and the arena's own packages (the Python SDK) —
    not the folder they are in, which is often the arena's working directory."""
    paths = [sys.prefix, sys.base_prefix, sys.exec_prefix]
    paths.append(os.path.dirname(os.path.dirname(os.path.realpath(sys.executable))))
    paths += [str(PROJECT_ROOT / pkg) for pkg in PACKAGES]
    return [os.path.realpath(p) for p in paths if os.path.exists(p)]


def own_paths(argv: Sequence[str], cwd: str, path_env: str) -> list[str]:
    """The bot's own folders: where its program and its script arguments are, less what
    it sees anyway (the system directories, the interpreter, the arena's packages)."""
    runtime = runtime_paths()
    out = []
    for d in _argv_paths(argv, cwd, path_env):
        if _system(d) or any(_under(d, r) for r in runtime):
            continue
        if d.count("/") < 2 or d == "/":
            raise OSError(
                f"{d} would be the bot's own folder, and a top-level folder is never shown "
                "to a bot: put the bot's files in a folder of their own"
            )
        out.append(d)
    return _minimal(out)


def database_homes() -> list[str]:
    """Where a database of the arena is, or may appear while a bot runs: the arena's
    working directory (a relative database URL, ``arena.db`` by default) and the folder
    of every database it protects."""
    homes = [os.path.realpath(os.getcwd())]
    homes += [os.path.dirname(p) for p in _protected]
    return sorted(set(homes))


def snapshot_folders(own: Iterable[str]) -> list[str]:
    """The bot's own folders it is shown a copy of, made at its start, rather than the
    live folder: those that are, or hold, a folder of :func:`database_homes`."""
    homes = database_homes()
    return [o for o in own if any(_under(h, o) for h in homes)]


def needed_paths(
    argv: Sequence[str], cwd: str, path_env: str, socket_path: str | None
) -> list[str]:
    """Everything a bot is shown beside the system directories: the interpreter, the
    arena's packages, its own folders and the arena's socket."""
    paths = runtime_paths() + own_paths(argv, cwd, path_env)
    if socket_path and os.path.exists(socket_path):
        paths.append(os.path.realpath(socket_path))  # the socket itself, not its folder
    return paths


def _open_to_others(path: str) -> bool:
    """Whether a user of no group may read ``path`` (list and enter it, if a folder)."""
    try:
        st = os.stat(path)
    except OSError:
        return True  # nothing there to read
    want = 0o005 if os.path.isdir(path) else 0o004
    return st.st_mode & want == want


def _closed(paths: Iterable[str]) -> str | None:
    """The first of ``paths`` that a user of its own could not read."""
    return next((p for p in paths if not _open_to_others(p)), None)


_DB_MAGIC = (
    b"SQLite format 3\x00",  # a database
    b"\x37\x7f\x06\x82",  # its write-ahead log
    b"\x37\x7f\x06\x83",
    b"\xd9\xd5\x05\xf9\x20\xa1\x63\xd7",  # its rollback journal
)
_DB_COMPANIONS = ("-wal", "-shm", "-journal")


# a dump of a database, plain or compressed: hidden in a bot's folders whatever its name
_DUMP_SUFFIXES = (".sql", ".dump")
_PACKED_SUFFIXES = (".gz", ".bz2", ".xz", ".zst", ".zip", ".lz4", ".7z")


def _copy_names() -> list[str]:
    """The file names of the databases the arena protects (``arena.db``): a file whose
    name begins with one (``arena.db.gz``, ``arena.db.bak``, ``arena.db-old``) is taken
    for a copy of it."""
    return sorted({os.path.basename(p) for p in _protected})


def named_copy(name: str, copy_names: Iterable[str]) -> bool:
    """Whether a file's name marks it as a copy of a database: it begins with the file
    name of a database the arena protects, or it is a dump (``*.sql``, ``*.dump``, also
    compressed: ``*.sql.gz``)."""
    if any(name.startswith(c) for c in copy_names):
        return True
    stem = name.lower()
    for packed in _PACKED_SUFFIXES:
        if stem.endswith(packed):
            stem = stem[: -len(packed)]
            break
    return stem.endswith(_DUMP_SUFFIXES)


_DB_MIN_SIZE = 512  # the smallest page: a database, log or journal with anything in it
_heads: dict[tuple[int, int, int, int], bool] = {}  # (dev, inode, size, mtime) -> a database?
_HEADS_KEPT = 200_000


def _is_database(path: str, st: os.stat_result) -> bool:
    """Whether the file at ``path`` is a SQLite database, log or journal (by its header;
    remembered for an unchanged file, as a bot's folder is searched at each start)."""
    if st.st_size < _DB_MIN_SIZE:
        return False
    key = (st.st_dev, st.st_ino, st.st_size, st.st_mtime_ns)
    known = _heads.get(key)
    if known is not None:
        return known
    try:
        with open(path, "rb", buffering=0) as f:
            head = f.read(16)
    except OSError:
        return False  # unreadable to the arena: a bot running as another user fares no better
    found = any(head.startswith(m) for m in _DB_MAGIC)
    if len(_heads) >= _HEADS_KEPT:
        _heads.clear()
    _heads[key] = found
    return found


@dataclass
class Survey:
    """What a search of a bot's own folders found."""

    databases: list[str] = field(default_factory=list)  # to hide
    closed: list[str] = field(default_factory=list)  # folders with entries others cannot read
    size: int = 0  # bytes of regular files in all
    entries: int = 0


def survey(folders: Iterable[str], limit: int = SCAN_LIMIT, skip: Iterable[str] = ()) -> Survey:
    """Search ``folders`` (and below, but for the folders in ``skip``) for database files
    — SQLite files, their logs and companions (by their header or name), and every other
    name (a hard link) of a file :func:`protect` was given, and files whose name marks
    them as a copy (:func:`named_copy`) — and for entries other users cannot read. More
    than ``limit`` entries in all is refused: a bot's own folders are searched at each
    start."""
    skipped = set(skip)
    protected = set()
    for f in protected_files():
        with contextlib.suppress(OSError):
            st = os.stat(f)
            protected.add((st.st_dev, st.st_ino))
    copy_names = _copy_names()
    out = Survey()
    for top in folders:
        if not _open_to_others(top):
            out.closed.append(top)
        todo = [top]
        while todo:
            folder = todo.pop()
            try:
                entries = list(os.scandir(folder))
            except OSError:
                continue
            out.entries += len(entries)
            if out.entries > limit:
                raise OSError(
                    f"the bot's folders hold more than {limit:,} files and folders, too many "
                    f"to search for database files at each start ({folder}): give the bot a "
                    "folder with only its own files"
                )
            names = {e.name for e in entries}
            for e in entries:
                try:
                    st = e.stat(follow_symlinks=False)
                except OSError:
                    continue
                if stat.S_ISLNK(st.st_mode):
                    continue
                want = 0o005 if stat.S_ISDIR(st.st_mode) else 0o004
                if st.st_mode & want != want and top not in out.closed:
                    out.closed.append(top)
                if stat.S_ISDIR(st.st_mode):
                    if e.path not in skipped:
                        todo.append(e.path)
                elif stat.S_ISREG(st.st_mode):
                    out.size += st.st_size
                    if (
                        (st.st_dev, st.st_ino) in protected
                        or named_copy(e.name, copy_names)
                        or _is_database(e.path, st)
                    ):
                        out.databases.append(e.path)
                        out.databases += [
                            os.path.join(folder, e.name + s)
                            for s in _DB_COMPANIONS
                            if e.name + s in names
                        ]
    out.databases = sorted(set(out.databases))
    return out


class _TooLarge(Exception):
    """A copy went over its bound (stops :func:`stage`'s copy at once)."""


def _closed_refusal(folder: str, limit: int) -> str:
    return (
        f"{folder} is not readable by other users, and a process bot runs as a user "
        f"of its own: it is copied for the bot only up to {limit >> 20} MiB; make it "
        f"readable (chmod -R o+rX {folder}), or submit the bot as a container "
        "(arena bot submit)"
    )


def _snapshot_refusal(folder: str, limit: int) -> str:
    return (
        f"{folder} is the bot's own folder and holds the arena's working directory or "
        f"database, so the bot is shown a copy of it, made at each start, only up to "
        f"{limit >> 20} MiB: give the bot a folder of its own (e.g. bots/NAME) that "
        "holds only its files"
    )


def stage(
    folder: str,
    skip: Iterable[str],
    into: str,
    limit: int = STAGE_LIMIT,
    *,
    mounts: Iterable[str] = (),
    refusal: str = "",
) -> str:
    """A copy of ``folder`` under ``into`` that any user may read, shown to a bot at the
    folder's path instead of the folder itself: a folder closed to others (a bot of its
    own user), or a snapshot of a folder where the arena's databases live (nothing made
    there later reaches the bot). Left out: the files in ``skip``, and whatever is a
    database when copied (SQLite by header, another name of a protected database, a
    name marking a copy); sockets and devices. ``mounts`` (paths inside ``folder``
    bound over the copy: the interpreter, the socket, shared files) are not copied, only
    made empty, for the binds to land on. Refused above ``limit`` bytes, with
    ``refusal`` (by default: why a closed folder is copied)."""
    skipped = set(skip)
    over = {m for m in mounts if _under(m, folder) and m != folder}
    protected = set()
    for f in protected_files():
        with contextlib.suppress(OSError):
            st = os.stat(f)
            protected.add((st.st_dev, st.st_ino))
    copy_names = _copy_names()
    dest = os.path.join(into, str(len(os.listdir(into))))
    total = 0

    def left_out(path: str, name: str) -> bool:
        if path in skipped or path in over:
            return True
        try:
            st = os.lstat(path)
        except OSError:
            return True  # gone meanwhile
        if stat.S_ISDIR(st.st_mode) or stat.S_ISLNK(st.st_mode):
            return False
        if not stat.S_ISREG(st.st_mode):
            return True  # a socket, a pipe, a device
        return (
            (st.st_dev, st.st_ino) in protected
            or named_copy(name, copy_names)
            or _is_database(path, st)
        )

    def ignore(where: str, names: list[str]) -> set[str]:
        return {n for n in names if left_out(os.path.join(where, n), n)}

    def copy(src: str, dst: str) -> None:
        nonlocal total
        total += os.path.getsize(src)
        if total > limit:
            raise _TooLarge  # not an OSError: copytree would note it and copy on
        shutil.copy2(src, dst)

    try:
        shutil.copytree(folder, dest, symlinks=True, ignore=ignore, copy_function=copy)
    except _TooLarge:
        raise OSError(refusal or _closed_refusal(folder, limit)) from None
    for where, _dirs, files in os.walk(dest):
        os.chmod(where, 0o755)
        for name in files:
            p = os.path.join(where, name)
            if not os.path.islink(p):
                os.chmod(p, 0o755 if os.stat(p).st_mode & 0o100 else 0o644)
    for m in sorted(over):
        target = os.path.join(dest, os.path.relpath(m, folder))
        if os.path.isdir(m):
            os.makedirs(target, mode=0o755, exist_ok=True)
        else:
            os.makedirs(os.path.dirname(target), mode=0o755, exist_ok=True)
            with open(target, "a"):
                pass
            os.chmod(target, 0o644)
    return dest


_staged_warned: set[str] = set()


def _warn_staged(path: str) -> None:
    with _warn_lock:
        if path in _staged_warned:
            return
        _staged_warned.add(path)
    sys.stderr.write(
        f"warning: {path} is not readable by other users, so it is copied for each start of "
        "a process bot that runs from it (as a user of its own); make it readable "
        f"(chmod -R o+rX {path}) to spare the copy\n"
    )
    sys.stderr.flush()


# ---------------------------------------------------------------------------- a bot's jail
_cgroup_ids = itertools.count(1)


@dataclass
class Jail:
    """One bot's sandbox for the length of its run: what to execute, and how to end it."""

    box: Sandbox
    argv: list[str]  # what to run (bwrap ... launch.py ... -- the command)
    env: dict[str, str]
    cwd: str
    pass_fds: tuple[int, ...] = ()
    uid: int | None = None
    scratch_dir: str | None = None  # host directory (HOME, TMPDIR) without bwrap
    stage_dir: str | None = None  # copies of the bot's folders closed to its own user
    cgroup: Path | None = None
    _info_r: int | None = None  # read end of bwrap's --info-fd
    _info: bytes = b""
    _inner: int | None = None  # pidfd of the launcher inside bwrap
    _inner_pid: int | None = None  # its pid, while no pidfd could be opened for it
    _loop: asyncio.AbstractEventLoop | None = None
    _uid_fd: int | None = None
    _closed: bool = field(default=False, repr=False)

    def after_start(self, loop: asyncio.AbstractEventLoop | None = None) -> None:
        """Called once the process exists: the parent's copies of passed fds go, and (with
        bubblewrap) the launcher's pid is read as soon as bwrap reports it."""
        for fd in self.pass_fds:
            with contextlib.suppress(OSError):
                os.close(fd)
        self.pass_fds = ()
        if loop is not None and self._info_r is not None:
            self._loop = loop
            loop.add_reader(self._info_r, self._read_info)

    def _read_info(self) -> None:
        fd = self._info_r
        if fd is None:
            return
        data = read_ready(fd)
        if data is None:
            return
        self._info += data
        if data:
            with contextlib.suppress(ValueError, TypeError, AttributeError):
                self._inner_pid = int(json.loads(self._info.decode()).get("child-pid"))
            self._open_inner()
            if self._inner is None and self._inner_pid is None:
                return  # not all of it yet
        self._stop_info()

    def _open_inner(self) -> None:
        """The launcher's pidfd, from the pid bwrap reported. With the arena out of
        descriptors it cannot be opened yet: tried again when the bot is signalled."""
        if self._inner is not None or self._inner_pid is None:
            return
        try:
            self._inner = os.pidfd_open(self._inner_pid)
            self._inner_pid = None
        except ProcessLookupError:
            self._inner_pid = None  # gone already: nothing inside is left to signal
        except OSError as e:
            log.warning("cannot watch a bot's sandboxed launcher yet: %s", e.strerror or e)

    def _stop_info(self) -> None:
        if self._info_r is not None:
            if self._loop is not None:
                self._loop.remove_reader(self._info_r)
            with contextlib.suppress(OSError):
                os.close(self._info_r)
            self._info_r = None

    def _signal_inner(self, sig: int) -> bool:
        """Signal the launcher inside bubblewrap's PID namespace (through a pidfd: its pid
        cannot have been reused). False if bwrap has not reported it."""
        if self._inner is None:
            self._read_info()
            self._open_inner()
        if self._inner is None:
            return False
        with contextlib.suppress(ProcessLookupError, PermissionError, OSError):
            signal.pidfd_send_signal(self._inner, sig)
        return True

    def terminate(self, pid: int) -> None:
        """Ask the bot's first process to stop everything (it kills after its grace).
        ``pid`` is the process started (bwrap or the launcher), not yet reaped."""
        if self.box.mode == "bwrap" and self._signal_inner(signal.SIGTERM):
            return
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.kill(pid, signal.SIGTERM)

    def kill(self, pid: int) -> None:
        """End the bot and everything it started, now (``pid`` as for :meth:`terminate`)."""
        if self.box.mode == "bwrap":
            # PID 1 of the namespace: when it dies, the kernel kills everything in it
            self._signal_inner(signal.SIGKILL)
        else:
            launch.kill_tree(pid, signal.SIGKILL)
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.kill(pid, signal.SIGKILL)
        self._kill_cgroup()

    def _kill_cgroup(self) -> None:
        cg = self.cgroup
        if cg is None or not cg.exists():
            return
        kill_file = cg / "cgroup.kill"
        try:
            if kill_file.exists():
                kill_file.write_text("1")
                return
            for _ in range(50):
                pids = [int(p) for p in (cg / "cgroup.procs").read_text().split()]
                if not pids:
                    return
                for p in pids:
                    with contextlib.suppress(ProcessLookupError, PermissionError):
                        os.kill(p, signal.SIGKILL)
        except OSError as e:
            log.warning("cannot kill cgroup %s: %s", cg, e)

    def close(self) -> None:
        """After the bot's first process is gone: kill what is left, release everything."""
        if self._closed:
            return
        self._closed = True
        self.after_start()
        self._stop_info()
        if self._inner is not None:
            os.close(self._inner)
            self._inner = None
        if self.cgroup is not None:
            self._kill_cgroup()
            for _ in range(200):
                try:
                    self.cgroup.rmdir()
                    break
                except FileNotFoundError:
                    break
                except OSError:
                    threading.Event().wait(0.01)  # the killed processes are being reaped
            else:
                log.warning("cannot remove cgroup %s", self.cgroup)
        for d in (self.scratch_dir, self.stage_dir):
            if d is not None:
                shutil.rmtree(d, ignore_errors=True)
        if self._uid_fd is not None:
            os.close(self._uid_fd)
            self._uid_fd = None


def jail(
    argv: Sequence[str],
    *,
    cwd: str | None,
    env: Mapping[str, str],
    limits: ProcessLimits | None = None,
    share: Sequence[str] = (),
    socket_path: str | None = None,
    grace: float = 2.0,
    box: Sandbox | None = None,
) -> Jail:
    """How to run ``argv`` contained (and, with bubblewrap, isolated). ``env`` is the bot's
    whole environment, less HOME and TMPDIR (set here); ``share`` lists host paths the bot
    may write (everything else is read-only); ``socket_path`` is the arena's Unix socket."""
    box = box or current()
    limits = limits or ProcessLimits()
    workdir = os.path.realpath(cwd or os.getcwd())
    env = dict(env)
    launcher = [sys.executable, "-I", "-S", str(LAUNCHER), "--grace", f"{grace:g}"]
    j = Jail(box, [], env, workdir)
    try:
        if box.mode == "bwrap":
            _bwrap_jail(j, argv, launcher, limits, share, socket_path)
        else:
            _plain_jail(j, argv, launcher, limits)
    except BaseException:
        j.close()
        raise
    return j


def _plain_jail(j: Jail, argv: Sequence[str], launcher: list[str], limits: ProcessLimits) -> None:
    j.scratch_dir = tempfile.mkdtemp(prefix="arena-bot-")
    home = os.path.join(j.scratch_dir, "home")
    j.env.update(HOME=home, TMPDIR=j.scratch_dir)
    opts = ["--home", home, "--subreaper", "--pdeathsig"]
    for name, value in limits.rlimits(own_uid=False).items():
        opts += ["--rlimit", f"{name}={value}"]
    if j.box.mode == "cgroup":
        assert j.box.cgroup_root is not None
        j.cgroup = j.box.cgroup_root / f"flip7-arena-{os.getpid()}-{next(_cgroup_ids)}"
        j.cgroup.mkdir()
        opts += ["--cgroup", str(j.cgroup)]
    j.argv = [*launcher, *opts, "--", *argv]


def _system_view(scratch: str) -> list[str]:
    """bwrap options for what every bot sees of the machine: the system's read-only
    directories, fresh /proc and /dev, and a private, size-limited /tmp."""
    b: list[str] = []
    for d in SYSTEM_DIRS:
        if os.path.islink(d):  # /bin -> usr/bin on a merged /usr
            b += ["--symlink", os.readlink(d), d]
        elif os.path.isdir(d):
            b += ["--ro-bind", d, d]
    b += ["--proc", "/proc", "--dev", "/dev"]
    b += ["--perms", "1777", "--size", scratch, "--tmpfs", "/dev/shm", "--remount-ro", "/dev"]
    b += ["--perms", "1777", "--size", scratch, "--tmpfs", SANDBOX_TMP]
    b += ["--dir", "/var", "--symlink", "../tmp", "/var/tmp"]
    return b


def _bwrap_jail(
    j: Jail,
    argv: Sequence[str],
    launcher: list[str],
    limits: ProcessLimits,
    share: Sequence[str],
    socket_path: str | None,
) -> None:
    box = j.box
    assert box.bwrap is not None
    root = os.geteuid() == 0
    opts = []
    path_env = j.env.get("PATH", "")
    own = own_paths(argv, j.cwd, path_env)
    need = needed_paths(argv, j.cwd, path_env, socket_path)
    shared = _minimal(os.path.realpath(p) for p in share if os.path.exists(p))
    # an arena working in a system directory (/opt/arena): its folder, and the folders of
    # its databases, are emptied there; the bot's own folders inside come back
    homes = [j.cwd, os.path.realpath(os.getcwd())]
    homes += [os.path.dirname(f) for f in protected_files()]
    emptied = _minimal(d for d in homes if _system(d) and d not in SYSTEM_DIRS)
    runtime = runtime_paths()
    inside = [
        d
        for d in _argv_paths(argv, j.cwd, path_env)
        if any(_under(d, e) for e in emptied) and not any(_under(d, r) for r in runtime)
    ]
    if inside:
        own = _minimal([*own, *inside])
        need += inside
    found = survey(own, skip=runtime)  # the interpreter (a venv in the folder) is the arena's
    staged: dict[str, str] = {}  # an own folder -> the copy the bot sees there
    # an own folder where a database of the arena is, or may appear while the bot runs
    # (the arena's working directory, where a relative database URL puts it; a protected
    # database's folder) is shown as a copy made now: nothing made there later reaches it
    snapshots = snapshot_folders(own)
    mounts = [*need, *shared]
    if snapshots:
        j.stage_dir = tempfile.mkdtemp(prefix="arena-stage-")
        for folder in snapshots:
            staged[folder] = stage(
                folder,
                found.databases,
                j.stage_dir,
                STAGE_LIMIT,
                mounts=mounts,
                refusal=_snapshot_refusal(folder, STAGE_LIMIT),
            )
    if box.own_uid:  # never root: what its own user could not read is copied or refused
        closed = _closed(p for p in need if p not in own)
        if closed is not None:
            raise OSError(
                f"{closed} is not readable by other users, and a process bot runs as a user "
                f"of its own: make it readable (chmod o+rX {closed}), or submit the bot as a "
                "container (arena bot submit)"
            )
        if any(f not in staged for f in found.closed):
            j.stage_dir = j.stage_dir or tempfile.mkdtemp(prefix="arena-stage-")
            for folder in found.closed:
                if folder not in staged:
                    staged[folder] = stage(folder, found.databases, j.stage_dir, mounts=mounts)
                    _warn_staged(folder)
        j.uid, j._uid_fd = allocate_uid()
        opts += ["--uid", str(j.uid), "--gid", str(j.uid)]
    else:  # the operator's own (non-root) user, in a user namespace of its own
        opts += ["--drop-caps"]
    for name, value in limits.rlimits(own_uid=box.own_uid).items():
        opts += ["--rlimit", f"{name}={value}"]
    scratch = str(parse_size(limits.scratch))

    b = _bwrap_base(box.bwrap, root)
    if socket_path is not None:
        b.append("--unshare-net")  # the Unix socket is all the bot needs
    b += _system_view(scratch)
    for d in emptied:
        b += ["--perms", "0755", "--size", scratch, "--tmpfs", d]
    shown = _minimal(p for p in need if not _system(p) or any(_under(p, e) for e in emptied))
    # the private area is /tmp, unless the bot's own files are that very folder
    tmp = "/dev/shm" if SANDBOX_TMP in [*shown, *shared] else SANDBOX_TMP
    home = f"{tmp}/home"
    opts += ["--home", home]
    j.env.update(HOME=home, TMPDIR=tmp)
    made = {"/", "/var", SANDBOX_TMP, *(d for d in SYSTEM_DIRS if os.path.lexists(d))}

    def parents(p: str) -> list[str]:
        """--dir for each folder above ``p`` not made yet (0755, so a bot of its own user
        may pass), unless it is inside something shown."""
        out = []
        for parent in reversed(Path(p).parents):
            d = str(parent)
            if d not in made and not any(_under(d, q) for q in [*shown, *shared]):
                out += ["--perms", "0755", "--dir", d]
                made.add(d)
        return out

    for p, how in [*((p, "--ro-bind") for p in shown), *((p, "--bind") for p in shared)]:
        b += parents(p)
        b += [how, staged.get(p, p), p]
        made.add(p)
        if p in staged:  # what is shown inside a copy (the interpreter, the socket) is live
            for q in _minimal(q for q in need if _under(q, p) and q != p):
                b += ["--ro-bind", q, q]
    # the working directory keeps its path (relative paths work), but shows only the
    # bot's own folders (those inside it), never the rest of it
    if not any(_under(j.cwd, q) for q in [*shown, *shared]):
        b += parents(j.cwd)
        if j.cwd not in made:
            b += ["--perms", "0755", "--dir", j.cwd]
    visible = [*shown, *shared]
    hidden = set(found.databases)
    for f in protected_files():
        if any(_under(f, p) for p in visible) or (
            _system(f) and not any(_under(f, d) for d in emptied)
        ):
            hidden.add(f)
    for f in sorted(hidden):
        if any(_under(f, s) for s in staged):
            continue  # left out of the copy
        b += ["--ro-bind", "/dev/null", f]
    info_r, info_w = os.pipe()
    os.set_blocking(info_r, False)
    j._info_r = info_r
    j.pass_fds = (info_w,)
    if box.seccomp:
        filter_fd = seccomp.program_fd()
        if filter_fd is not None:
            j.pass_fds += (filter_fd,)
            b += ["--seccomp", str(filter_fd)]
    b += ["--remount-ro", "/"]  # the folders made above are not a place to write either
    b += ["--chdir", j.cwd, "--as-pid-1", "--info-fd", str(info_w), "--"]
    j.argv = [*b, *launcher, *opts, "--", *argv]
