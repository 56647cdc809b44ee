"""An uploaded bot, checked before anything is unpacked, then unpacked into a build context.

An upload is a ``.tar.gz``/``.tgz``, a ``.zip`` (each with a Dockerfile at its top, or in
its one top-level folder) or a single ``.py`` file, which is wrapped in the Python base
image (:data:`arena.runtime.bases.SINGLE_FILE_DOCKERFILE`). Every member of an archive is
looked at first: only regular files and folders (no symlinks, hard links or devices), no
absolute path and no ``..``, at most :data:`~arena.limits.MAX_ARCHIVE_MEMBERS` members
and :data:`~arena.limits.MAX_UNPACKED_BYTES` unpacked, at most
:data:`~arena.limits.MAX_COMPRESSION_RATIO` times the upload's size (a zip bomb). The
gzip stream is read through a counter, so even a bomb of tar headers stops at the cap.

Files keep their executable bits (a kit's prebuilt binary or start script runs as it did
on the author's machine), from the tar header or from a zip made on Unix; every other bit
is the arena's: files are ``rw-r--r--`` plus those ``x`` bits, folders ``rwxr-xr-x`` —
never setuid, setgid, sticky or writable by others.
"""

from __future__ import annotations

import gzip
import io
import stat
import tarfile
import zipfile
from collections.abc import Iterator
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
        try:
            with zipfile.ZipFile(io.BytesIO(data)) as z:
                members = _zip_members(z)
                _check(members, len(data))
                for zinfo, m in zip(z.infolist(), members, strict=True):
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
                if m.is_dir:
                    (dest / m.path).mkdir(parents=True, exist_ok=True)
                else:
                    tsrc = tar.extractfile(info)
                    assert tsrc is not None  # a regular file, checked above
                    _write(dest, m, tsrc)
    except (tarfile.TarError, OSError, EOFError) as e:
        raise UploadRejected(f"the upload is not a readable .tar.gz: {e}") from None


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
        try:
            source = data.decode("utf-8")
            compile(source, filename, "exec", dont_inherit=True)
        except (UnicodeDecodeError, SyntaxError, ValueError) as e:
            raise UploadRejected(f"{filename!r} is not a Python program: {e}") from None
        (dest / SINGLE_FILE_NAME).write_bytes(data)
        (dest / "Dockerfile").write_text(SINGLE_FILE_DOCKERFILE)
        return dest
    _unpack(kind, data, dest)
    return context_of(dest)
