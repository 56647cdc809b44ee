"""A built bot folder as an archive the competition server accepts (``arena bot pack``).

What goes in is what the Docker build needs of the folder, never more than what
``arena bot submit`` would send:

* the files the folder's ``.dockerignore`` lets through, matched as Docker matches them
  (the Docker SDK's own matcher, as the arena's builds use: patterns relative to the
  folder, ``!`` exceptions, ``**``); the Dockerfile and the .dockerignore always;
* never version-control folders or caches (:data:`ALWAYS_LEFT_OUT`), nor the archive
  itself;
* when the Dockerfile says plainly what it takes — every ``COPY``/``ADD`` source is a
  literal path or glob, no ``RUN --mount`` (which could read the folder), no heredoc,
  no ``ONBUILD`` — only the files under those sources; otherwise every file that
  passed the .dockerignore (:func:`copied_sources` says which case it is);
* no symlinks: one that points to a file inside the folder is stored as that file (its
  content and mode: ``node_modules/.bin`` holds such links); any other (to a folder,
  out of the folder, dangling) is refused with its name, to be left out in the
  .dockerignore or replaced by the file.

Files keep their executable bits (as the server keeps them, arena.server.upload); the
archive is a ``.tar.gz`` with the build context at its top. It is measured against the
server's limits (arena.limits: MAX_UPLOAD_BYTES, MAX_UNPACKED_BYTES, MAX_ARCHIVE_MEMBERS,
MAX_COMPRESSION_RATIO) and refused, with what to do, when it is over one: no archive is
left behind then.
"""

from __future__ import annotations

import contextlib
import os
import tarfile
import tempfile
from dataclasses import dataclass, field
from pathlib import Path, PurePosixPath

from arena import limits
from arena.errors import ArenaError, UsageProblem
from arena.runtime.build_sandbox import format_size
from arena.runtime.dockerfile import Dockerfile, DockerfileError
from arena.server.upload import BOMB_FLOOR, file_mode

DOCKERFILE = "Dockerfile"
DOCKERIGNORE = ".dockerignore"
# folders no image needs: version control and tools' caches, wherever they are
ALWAYS_LEFT_OUT = frozenset(
    {
        ".git",
        ".hg",
        ".svn",
        "__pycache__",
        ".pytest_cache",
        ".mypy_cache",
        ".ruff_cache",
        ".cache",
    }
)


class PackRefused(ArenaError):
    """The folder cannot be packed into an archive the server accepts (nothing written)."""


@dataclass(frozen=True)
class Packed:
    out: Path
    bytes: int  # the archive's size, as uploaded
    files: int  # regular files in it
    folders: int  # empty folders in it (a folder with files is implied by them)
    unpacked: int  # bytes of its files together
    left_out: int  # files of the folder not packed
    trimmed: bool  # whether the Dockerfile's COPY/ADD sources chose the files
    resolved: list[str] = field(default_factory=list)  # symlinks stored as their files

    @property
    def members(self) -> int:
        return self.files + self.folders

    def as_dict(self) -> dict[str, object]:
        return {
            "out": str(self.out),
            "bytes": self.bytes,
            "files": self.files,
            "folders": self.folders,
            "members": self.members,
            "unpacked_bytes": self.unpacked,
            "left_out": self.left_out,
            "trimmed_by_dockerfile": self.trimmed,
            "symlinks_resolved": self.resolved,
            "limits": {
                "upload_bytes": limits.MAX_UPLOAD_BYTES,
                "unpacked_bytes": limits.MAX_UNPACKED_BYTES,
                "members": limits.MAX_ARCHIVE_MEMBERS,
            },
        }


def ignore_patterns(folder: Path) -> list[str]:
    """The folder's .dockerignore patterns (comments and blank lines dropped)."""
    try:
        text = (folder / DOCKERIGNORE).read_text(errors="replace")
    except OSError:
        return []
    return [ln.strip() for ln in text.splitlines() if ln.strip() and not ln.strip().startswith("#")]


def _words(args: str) -> list[str] | None:
    """An instruction's arguments as words (JSON form or plain words), flags first."""
    import json

    text = args.strip()
    if text.startswith("["):
        try:
            value = json.loads(text)
        except ValueError:
            return None
        return [str(v) for v in value] if isinstance(value, list) else None
    return text.split()


def copied_sources(dockerfile: str) -> list[str] | None:
    """The context paths (globs) the Dockerfile's COPY and ADD take, or None when it
    cannot be told safely from the text (then the whole context may be needed)."""
    try:
        df = Dockerfile.parse(dockerfile)
    except DockerfileError:
        return None
    sources: list[str] = []
    for ins in df.instructions:
        if ins.keyword == "ONBUILD" or ("<<" in ins.args and ins.keyword in ("COPY", "ADD")):
            return None
        if ins.keyword == "RUN" and "--mount" in ins.args:
            return None  # a bind mount reads the context without a COPY
        if ins.keyword not in ("COPY", "ADD"):
            continue
        words = _words(ins.args)
        if words is None:
            return None
        flags = [w for w in words if w.startswith("--")]
        if any(f.startswith("--from") for f in flags):
            continue  # from a stage or an image, not from the context
        paths = [w for w in words if not w.startswith("--")]
        if len(paths) < 2:
            return None
        for src in paths[:-1]:
            if ins.keyword == "ADD" and "://" in src:
                continue  # fetched, not taken from the context
            if "$" in src or "\\" in src:
                return None
            clean = str(PurePosixPath("/", src)).lstrip("/")
            if clean in ("", "."):
                return None  # the whole context
            sources.append(clean)
    return sources


def _wanted(rel: str, sources: list[str]) -> bool:
    """Whether a COPY/ADD source (a path or glob; a folder takes all below it) covers
    ``rel``, matched as Docker matches sources (``*`` within one path component)."""
    from docker.utils.fnmatch import fnmatch

    parts = rel.split("/")
    prefixes = ["/".join(parts[: i + 1]) for i in range(len(parts))]
    return any(fnmatch(p, s) for s in sources for p in prefixes)


@dataclass
class _Plan:
    files: dict[str, Path] = field(default_factory=dict)  # name in the archive -> file read
    folders: list[str] = field(default_factory=list)  # empty folders
    left_out: int = 0
    resolved: list[str] = field(default_factory=list)


def _refuse_link(rel: str, where: str) -> PackRefused:
    return PackRefused(
        f"{rel} is a symlink {where}: the server takes no symlinks; leave it out in "
        f"{DOCKERIGNORE} or put the file itself there"
    )


def _plan(folder: Path, out: Path) -> tuple[_Plan, bool]:
    from docker.utils.build import PatternMatcher

    root = folder.resolve()
    sources = copied_sources((folder / DOCKERFILE).read_text(errors="replace"))
    matcher = PatternMatcher([*ignore_patterns(folder), f"!{DOCKERFILE}"])
    passed = set(matcher.walk(str(folder)))
    plan = _Plan()
    walked_dirs: list[str] = []
    for dirpath, dirnames, filenames in os.walk(folder):
        for d in dirnames:
            if d in ALWAYS_LEFT_OUT and not os.path.islink(Path(dirpath, d)):
                plan.left_out += sum(len(f) for _, _, f in os.walk(Path(dirpath, d)))
        dirnames[:] = sorted(d for d in dirnames if d not in ALWAYS_LEFT_OUT)
        left = [f for f in filenames if f in ALWAYS_LEFT_OUT]  # a worktree's .git is a file
        plan.left_out += len(left)
        entries = sorted(set(filenames) - set(left))
        for name in entries + [d for d in dirnames if os.path.islink(Path(dirpath, d))]:
            path = Path(dirpath, name)
            rel = path.relative_to(folder).as_posix()
            keep = rel in (DOCKERFILE, DOCKERIGNORE) or (
                rel in passed and (sources is None or _wanted(rel, sources))
            )
            with contextlib.suppress(OSError):
                if path.resolve() == out:
                    continue  # the archive being written
            if not keep:
                plan.left_out += 1
                continue
            if path.is_symlink():
                target = path.resolve()
                if not target.is_relative_to(root) or not target.exists():
                    raise _refuse_link(rel, "to something outside the folder")
                if not target.is_file():
                    raise _refuse_link(rel, f"to the folder {target.relative_to(root)}")
                plan.resolved.append(rel)
                plan.files[rel] = target
            elif path.is_file():
                plan.files[rel] = path
            else:
                raise PackRefused(
                    f"{rel} is not a regular file (a socket, pipe or device): leave it out "
                    f"in {DOCKERIGNORE}"
                )
        for d in dirnames:
            if not os.path.islink(Path(dirpath, d)):
                walked_dirs.append(Path(dirpath, d).relative_to(folder).as_posix())
    # a folder with nothing packed below it goes in as an empty folder (Docker sends it)
    implied = {str(p) for rel in plan.files for p in PurePosixPath(rel).parents}
    for d in sorted(walked_dirs, key=lambda d: -d.count("/")):  # the deepest first
        if d not in implied and d in passed and (sources is None or _wanted(d, sources)):
            plan.folders.append(d)
            implied.update(str(p) for p in PurePosixPath(d).parents)
    plan.folders.sort()
    return plan, sources is not None


def _over_limits(plan: _Plan, unpacked: int) -> None:
    members = len(plan.files) + len(plan.folders)
    if members > limits.MAX_ARCHIVE_MEMBERS:
        raise PackRefused(
            f"the archive would hold {members:,} files and folders; the server takes "
            f"{limits.MAX_ARCHIVE_MEMBERS:,}: leave out what the image does not need in "
            f"{DOCKERIGNORE}"
        )
    if unpacked > limits.MAX_UNPACKED_BYTES:
        raise PackRefused(
            f"the archive would unpack to {format_size(unpacked)}; the server takes "
            f"{format_size(limits.MAX_UNPACKED_BYTES)}: leave out what the image does not "
            f"need in {DOCKERIGNORE}"
        )


def _add(tar: tarfile.TarFile, name: str, source: Path) -> None:
    st = source.stat()
    info = tarfile.TarInfo(name)
    info.size = st.st_size
    info.mode = file_mode(st.st_mode)
    info.mtime = int(st.st_mtime)
    with source.open("rb") as f:
        tar.addfile(info, f)


def pack(folder: Path, out: Path) -> Packed:
    """Pack the build context ``folder`` into the ``.tar.gz`` ``out`` (replaced if it
    exists); refuses with :class:`PackRefused` (nothing written) when the result would be
    over a server limit, or the folder holds a symlink it cannot store as a file."""
    if not folder.is_dir():
        raise UsageProblem(f"{folder} is not a folder", param="DIR")
    if not (folder / DOCKERFILE).is_file():
        raise UsageProblem(f"no {DOCKERFILE} in {folder}", param="DIR")
    out = out.resolve()
    if out.is_dir():
        raise UsageProblem(f"{out} is a folder: give the archive's file name", param="--out")
    plan, trimmed = _plan(folder, out)
    unpacked = sum(p.stat().st_size for p in plan.files.values())
    _over_limits(plan, unpacked)
    out.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp_name = tempfile.mkstemp(prefix=f".{out.name}.", dir=out.parent)
    tmp = Path(tmp_name)
    try:
        with os.fdopen(fd, "wb") as raw, tarfile.open(fileobj=raw, mode="w:gz") as tar:
            for d in plan.folders:
                info = tarfile.TarInfo(d)
                info.type = tarfile.DIRTYPE
                info.mode = 0o755
                tar.addfile(info)
            for name in sorted(plan.files):
                _add(tar, name, plan.files[name])
        size = tmp.stat().st_size
        if size > limits.MAX_UPLOAD_BYTES:
            raise PackRefused(
                f"the archive is {format_size(size)}; the server takes "
                f"{format_size(limits.MAX_UPLOAD_BYTES)}: leave out what the image does not "
                f"need in {DOCKERIGNORE}"
            )
        if unpacked > BOMB_FLOOR and unpacked > limits.MAX_COMPRESSION_RATIO * size:
            raise PackRefused(
                f"the archive unpacks to over {limits.MAX_COMPRESSION_RATIO} times its size, "
                f"which the server refuses as a zip bomb: leave out the large, repetitive "
                f"files in {DOCKERIGNORE}"
            )
        tmp.chmod(0o644)
        tmp.replace(out)
    except BaseException:
        tmp.unlink(missing_ok=True)
        raise
    return Packed(
        out,
        size,
        len(plan.files),
        len(plan.folders),
        unpacked,
        plan.left_out,
        trimmed,
        plan.resolved,
    )


def default_out(folder: Path) -> Path:
    """``NAME.tar.gz`` in the current folder, NAME the folder's own name."""
    name = folder.resolve().name or "bot"
    return Path(f"{name}.tar.gz")
