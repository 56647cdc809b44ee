"""An uploaded bot, checked before anything is unpacked, then unpacked into a build context.

An upload is a ``.tar.gz``/``.tgz``, a ``.zip`` (each with a Dockerfile at its top, or in
its one top-level folder) or a single ``.py`` file, which is wrapped in the Python base
image (:data:`arena.runtime.bases.SINGLE_FILE_DOCKERFILE`). Every member of an archive is
looked at first: only regular files and folders (no symlinks, hard links or devices), no
absolute path and no ``..``, at most :data:`~arena.limits.MAX_ARCHIVE_MEMBERS` members
and :data:`~arena.limits.MAX_UNPACKED_BYTES` unpacked, at most
:data:`~arena.limits.MAX_COMPRESSION_RATIO` times the upload's size (a zip bomb). The
gzip stream is read through a counter, so even a bomb of tar headers stops at the cap; a
zip's count of entries is read from its end records (and its central directory's
signatures counted) before :mod:`zipfile` parses a single entry.

A ``.py`` file is at most :data:`~arena.limits.MAX_SINGLE_FILE_BYTES`, and its syntax is
checked in a child process (``python -I``, with a memory limit and a CPU and wall-clock
timeout): :func:`compile` holds the interpreter lock for the whole parse and can take
hundreds of times the source's size in memory, so in the server process one upload would
stall every request, and a deeply nested expression would crash the check.

Files keep their executable bits (a kit's prebuilt binary or start script runs as it did
on the author's machine), from the tar header or from a zip made on Unix; every other bit
is the arena's: files are ``rw-r--r--`` plus those ``x`` bits, folders ``rwxr-xr-x`` —
never setuid, setgid, sticky or writable by others.
"""

from __future__ import annotations

import gzip
import io
import math
import signal
import stat
import struct
import subprocess
import sys
import tarfile
import threading
import zipfile
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path, PurePosixPath
from typing import IO

from arena import limits
from arena.errors import UsageProblem
from arena.runtime.bases import SINGLE_FILE_DOCKERFILE, SINGLE_FILE_NAME
from arena.runtime.build_sandbox import format_size

BOMB_FLOOR = 1 << 20  # archives unpacking to less than this are never called bombs
FILE_MODE = 0o644  # every unpacked file: readable by the bot's user in the image...
EXEC_BITS = 0o111  # ...plus the executable bits the archive gave it
DIR_MODE = 0o755
ZIP_UNIX = 3  # ZipInfo.create_system of a zip made on Unix (its external_attr holds a mode)
CHECKS_AT_ONCE = 2  # .py syntax checks run side by side (each may take the memory limit)
_checks = threading.BoundedSemaphore(CHECKS_AT_ONCE)

# What the child process runs (``python -I -c``): it limits itself before it reads the
# source, then says on one line why the source is not Python (exit 1), or nothing (exit 0).
_CHECKER = """
import resource, sys
mem, cpu = int(sys.argv[2]), int(sys.argv[3])
resource.setrlimit(resource.RLIMIT_AS, (mem, mem))
resource.setrlimit(resource.RLIMIT_CPU, (cpu, cpu + 1))
try:
    compile(sys.stdin.buffer.read().decode("utf-8"), sys.argv[1], "exec", dont_inherit=True)
except MemoryError:
    why = "parsing it takes too much memory"
except RecursionError:
    why = "it is nested too deeply"
except (SyntaxError, ValueError, UnicodeDecodeError) as e:
    why = str(e)
except Exception as e:
    why = f"{type(e).__name__}: {e}"
else:
    sys.exit(0)
print(" ".join(why.split())[:300], flush=True)
sys.exit(1)
"""


class UploadRejected(UsageProblem):
    """The upload is refused (nothing of it was built or stored)."""


@dataclass(frozen=True)
class Member:
    path: PurePosixPath
    is_dir: bool
    size: int
    mode: int = FILE_MODE  # what the unpacked file gets (see :func:`file_mode`)


def file_mode(archived: int) -> int:
    """The mode an unpacked file gets from the mode its archive gave it: the executable
    bits kept, nothing else (no setuid, setgid or sticky bit, not writable by others)."""
    return FILE_MODE | (archived & EXEC_BITS)


def kind_of(filename: str, data: bytes) -> str:
    """``py``, ``zip`` or ``tar.gz``, from the name and the first bytes."""
    lower = filename.lower()
    if data[:4] == b"PK\x03\x04" or lower.endswith(".zip"):
        return "zip"
    if data[:2] == b"\x1f\x8b" or lower.endswith((".tar.gz", ".tgz")):
        return "tar.gz"
    if lower.endswith(".py"):
        return "py"
    raise UploadRejected(
        f"{filename!r} is not a bot upload: give a .tar.gz or .zip with a Dockerfile, "
        f"or a single .py file"
    )


def _safe_path(raw: str) -> PurePosixPath:
    if "\\" in raw or "\x00" in raw:
        raise UploadRejected(f"the archive holds a bad file name {raw!r}")
    p = PurePosixPath(raw)
    if p.is_absolute() or ".." in p.parts:
        raise UploadRejected(f"the archive's path {raw!r} points outside the archive")
    parts = [x for x in p.parts if x not in ("", ".")]
    return PurePosixPath(*parts) if parts else PurePosixPath(".")


def _check(members: list[Member], packed: int) -> None:
    if len(members) > limits.MAX_ARCHIVE_MEMBERS:
        raise UploadRejected(
            f"the archive holds more than {limits.MAX_ARCHIVE_MEMBERS:,} files and folders"
        )
    total = sum(m.size for m in members)
    if total > limits.MAX_UNPACKED_BYTES:
        raise UploadRejected(
            f"the archive unpacks to more than {format_size(limits.MAX_UNPACKED_BYTES)}"
        )
    if total > BOMB_FLOOR and total > limits.MAX_COMPRESSION_RATIO * max(1, packed):
        raise UploadRejected(
            f"the archive unpacks to {format_size(total)}, over {limits.MAX_COMPRESSION_RATIO} "
            f"times its size: refused as a zip bomb"
        )


class _Counted(io.RawIOBase):
    """A gzip stream read through a counter: past ``cap`` bytes it refuses to go on."""

    def __init__(self, inner: IO[bytes] | gzip.GzipFile, cap: int) -> None:
        self.inner, self.cap, self.read_bytes = inner, cap, 0

    def readable(self) -> bool:
        return True

    def readinto(self, buffer: memoryview) -> int:  # type: ignore[override]
        chunk = self.inner.read(len(buffer))
        self.read_bytes += len(chunk)
        if self.read_bytes > self.cap:
            raise UploadRejected(
                f"the archive unpacks to more than {format_size(self.cap)}: refused"
            )
        buffer[: len(chunk)] = chunk
        return len(chunk)


def _tar_stream(data: bytes) -> tarfile.TarFile:
    # the tar headers count against the cap too (512 bytes each, and their padding)
    cap = limits.MAX_UNPACKED_BYTES + 1024 * (limits.MAX_ARCHIVE_MEMBERS + 4)
    raw = _Counted(gzip.GzipFile(fileobj=io.BytesIO(data)), cap)
    return tarfile.open(fileobj=io.BufferedReader(raw), mode="r|")


def _tar_members(data: bytes) -> list[Member]:
    members: list[Member] = []
    try:
        with _tar_stream(data) as tar:
            for info in tar:
                if not (info.isfile() or info.isdir()):
                    what = "symlink" if info.issym() else "link" if info.islnk() else "special file"
                    raise UploadRejected(
                        f"the archive holds a {what} ({info.name!r}): only files and folders"
                    )
                path = _safe_path(info.name)
                members.append(Member(path, info.isdir(), info.size, file_mode(info.mode)))
                if len(members) > limits.MAX_ARCHIVE_MEMBERS:
                    _check(members, len(data))
    except (tarfile.TarError, OSError, EOFError, gzip.BadGzipFile) as e:
        raise UploadRejected(f"the upload is not a readable .tar.gz: {e}") from None
    return members


_EOCD = struct.Struct("<4s4H2LH")  # a zip's end of central directory record
_EOCD64_LOCATOR = struct.Struct("<4sLQL")  # zip64's locator, just before it
_EOCD64 = struct.Struct("<4sQ2H2L4Q")  # zip64's end record, just before the locator
_CENTRAL_ENTRY = b"PK\x01\x02"  # the signature every central directory entry starts with


def zip_entries(data: bytes) -> int:
    """How many entries :mod:`zipfile` would read from the zip ``data``, at least: the
    counts its end records declare, or the entry signatures in the central directory they
    locate (a declared count may lie; zipfile reads the directory by its size). Found in
    microseconds, where zipfile takes seconds to list 100,000 entries. 0 if there is no
    end record (zipfile then refuses the archive itself)."""
    at = data.rfind(b"PK\x05\x06", max(0, len(data) - _EOCD.size - 0xFFFF))
    if at < 0 or at + _EOCD.size > len(data):
        return 0
    _sig, _d, _dcd, on_disk, total, cd_size, _off, _comment = _EOCD.unpack_from(data, at)
    declared, end = max(on_disk, total), at
    locator = at - _EOCD64_LOCATOR.size
    if locator >= 0 and data[locator : locator + 4] == b"PK\x06\x07":
        record = locator - _EOCD64.size
        if record >= 0 and data[record : record + 4] == b"PK\x06\x06":
            fields = _EOCD64.unpack_from(data, record)
            declared = max(declared, fields[6], fields[7])
            cd_size, end = fields[8], record
    start = max(0, end - cd_size)
    return max(declared, data.count(_CENTRAL_ENTRY, start, end))


def _zip_members(z: zipfile.ZipFile) -> list[Member]:
    members = []
    for info in z.infolist():
        kind = stat.S_IFMT(info.external_attr >> 16)  # 0: a zip made without Unix modes
        if kind not in (0, stat.S_IFREG, stat.S_IFDIR):
            raise UploadRejected(
                f"the archive holds a symlink or special file ({info.filename!r}): only "
                f"files and folders"
            )
        unix = info.create_system == ZIP_UNIX and kind != 0
        mode = file_mode(info.external_attr >> 16) if unix else FILE_MODE
        members.append(Member(_safe_path(info.filename), info.is_dir(), info.file_size, mode))
    return members


def _write(dest: Path, member: Member, source: IO[bytes]) -> None:
    target = dest / member.path
    target.parent.mkdir(parents=True, exist_ok=True)
    left = member.size
    with target.open("wb") as out:
        while left > 0:
            chunk = source.read(min(left, 1 << 16))
            if not chunk:
                break
            out.write(chunk)
            left -= len(chunk)
        if source.read(1):  # more than the archive declared: refuse
            raise UploadRejected(f"{member.path} is longer than the archive says")
    target.chmod(member.mode)  # not the umask's: the bits the archive gave, made safe


def _open_folders(dest: Path) -> None:
    """Every unpacked folder ``rwxr-xr-x``, whatever the server's umask (the image's user
    must read what COPY takes from them); ``dest`` itself stays as it was made."""
    for folder in dest.rglob("*"):
        if folder.is_dir() and not folder.is_symlink():
            folder.chmod(DIR_MODE)


def _unpack(kind: str, data: bytes, dest: Path) -> None:
    _unpack_members(kind, data, dest)
    _open_folders(dest)


def _unpack_members(kind: str, data: bytes, dest: Path) -> None:
    if kind == "zip":
        if zip_entries(data) > limits.MAX_ARCHIVE_MEMBERS:  # before zipfile lists them
            raise UploadRejected(
                f"the archive holds more than {limits.MAX_ARCHIVE_MEMBERS:,} files and folders"
            )
        try:
            with zipfile.ZipFile(io.BytesIO(data)) as z:
                members = _zip_members(z)
                _check(members, len(data))
                for zinfo, m in zip(z.infolist(), members, strict=True):
                    with _placing(m):
                        if m.is_dir:
                            (dest / m.path).mkdir(parents=True, exist_ok=True)
                        else:
                            with z.open(zinfo) as zsrc:
                                _write(dest, m, zsrc)
        except (zipfile.BadZipFile, zipfile.LargeZipFile, OSError, EOFError) as e:
            raise UploadRejected(f"the upload is not a readable .zip: {e}") from None
        return
    members = _tar_members(data)  # every member is seen before one is written
    _check(members, len(data))
    try:
        with _tar_stream(data) as tar:
            for info, m in zip(_iter(tar), members, strict=True):
                with _placing(m):
                    if m.is_dir:
                        (dest / m.path).mkdir(parents=True, exist_ok=True)
                    else:
                        tsrc = tar.extractfile(info)
                        assert tsrc is not None  # a regular file, checked above
                        _write(dest, m, tsrc)
    except (tarfile.TarError, OSError, EOFError) as e:
        raise UploadRejected(f"the upload is not a readable .tar.gz: {e}") from None


@contextmanager
def _placing(member: Member) -> Iterator[None]:
    """An OS error while ``member`` is written (a file and a folder of the same name, say)
    refused, naming the member by its place in the archive, not the server's path."""
    try:
        yield
    except OSError as e:
        if e.filename is None:  # not the file system's: the archive's stream
            raise
        raise UploadRejected(
            f"{str(member.path)!r} cannot be unpacked ({e.strerror}): the archive holds "
            f"a file and a folder of the same name"
        ) from None


def _iter(tar: tarfile.TarFile) -> Iterator[tarfile.TarInfo]:
    yield from tar


def context_of(root: Path) -> Path:
    """The build context in an unpacked archive: its top, or its one top-level folder."""
    if (root / "Dockerfile").is_file():
        return root
    entries = list(root.iterdir())
    if len(entries) == 1 and entries[0].is_dir() and (entries[0] / "Dockerfile").is_file():
        return entries[0]
    raise UploadRejected(
        "the archive has no Dockerfile at its top (or in its one top-level folder)"
    )


def unpack_upload(filename: str, data: bytes, dest: Path) -> Path:
    """Check the upload and unpack it under ``dest`` (an empty folder); returns the build
    context. Raises :class:`UploadRejected` with the reason, having written nothing
    outside ``dest`` (and, for an archive refused by its listing, nothing at all)."""
    if len(data) > limits.MAX_UPLOAD_BYTES:
        raise UploadRejected(
            f"the upload is {format_size(len(data))}; the limit is "
            f"{format_size(limits.MAX_UPLOAD_BYTES)}"
        )
    if not data:
        raise UploadRejected("the upload is empty")
    kind = kind_of(filename, data)
    if kind == "py":
        if len(data) > limits.MAX_SINGLE_FILE_BYTES:
            raise UploadRejected(
                f"{filename!r} is {format_size(len(data))}; a single .py file is at most "
                f"{format_size(limits.MAX_SINGLE_FILE_BYTES)} (upload an archive for more)"
            )
        why = python_syntax_problem(filename, data)
        if why is not None:
            raise UploadRejected(f"{filename!r} is not a Python program: {why}")
        (dest / SINGLE_FILE_NAME).write_bytes(data)
        (dest / "Dockerfile").write_text(SINGLE_FILE_DOCKERFILE)
        return dest
    try:
        _unpack(kind, data, dest)
        return context_of(dest)
    except UploadRejected as e:  # an OS error may name the file by the server's path
        raise UploadRejected(hide_folder(str(e), dest)) from None


def hide_folder(text: str, folder: Path, name: str = "the upload") -> str:
    """``text`` with ``folder`` (a path of the server) left out: its files named by their
    place in it, the folder itself as ``name``."""
    return text.replace(f"{folder}/", "").replace(str(folder), name)


def python_syntax_problem(filename: str, data: bytes) -> str | None:
    """Why ``data`` is not a Python program (one line), or None. Parsed in a child
    process (see the module's docstring), at most :data:`CHECKS_AT_ONCE` at a time; a
    parse that runs out of memory or time is a reason too."""
    limit = limits.SYNTAX_CHECK_SECONDS
    args = [str(limits.SYNTAX_CHECK_MEMORY), str(max(1, math.ceil(limit)))]
    shown = "".join(ch for ch in filename if ch.isprintable())[:100] or "bot.py"  # an argument
    cmd = [sys.executable, "-I", "-S", "-c", _CHECKER, shown, *args]
    with _checks:
        try:
            done = subprocess.run(cmd, input=data, capture_output=True, timeout=limit)
        except subprocess.TimeoutExpired:
            return f"parsing it took more than {limit:g} s"
    if done.returncode == 0:
        return None
    said = done.stdout.decode("utf-8", "replace").strip()
    if done.returncode == 1 and said:
        return said
    if done.returncode in (-signal.SIGXCPU, -signal.SIGKILL):
        return f"parsing it took more than {limit:g} s"
    return "parsing it failed past the check's limits (memory or time)"
