"""Uploads keep file modes: a kit folder holding an executable (the Go kit's prebuilt
binary, a Java kit's run.sh), packed as a .tar.gz or as a Unix .zip, unpacks with its
executable bits, so the image's ENTRYPOINT can run it; no other bit of the archive's
survives (setuid, setgid, sticky, writable by others), and every file and folder is
readable by the image's user. A zip made without Unix modes unpacks to plain files.

The repro of the issue: a build context with an executable, archived and unpacked as the
server does (arena.server.upload.unpack_upload), lost its ``x`` bits, and the Go kit failed
its checks with ``exec: "/flip7-bot": permission denied``.
"""

from __future__ import annotations

import io
import stat
import tarfile
import zipfile
from collections.abc import Callable
from pathlib import Path

import pytest

from arena.server.upload import unpack_upload

MODES = {
    "Dockerfile": 0o644,
    "build/flip7-bot": 0o755,  # a prebuilt binary
    "run.sh": 0o700,  # only its owner may run it on the author's machine
    "tools/setuid": 0o4755,  # setuid: dropped
    "tools/shared": 0o6777,  # setuid, setgid, writable by all: dropped
    "notes/private.txt": 0o600,  # readable by the image's user after all
    "notes/sticky": 0o1666,
}
EXPECTED = {
    "Dockerfile": 0o644,
    "build/flip7-bot": 0o755,
    "run.sh": 0o744,
    "tools/setuid": 0o755,
    "tools/shared": 0o755,
    "notes/private.txt": 0o644,
    "notes/sticky": 0o644,
}


def kit_folder(root: Path) -> Path:
    """A built kit: a Dockerfile and files of every mode above."""
    kit = root / "my-bot"
    for rel, mode in MODES.items():
        path = kit / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(b"FROM scratch\n" if rel == "Dockerfile" else b"#!/bin/sh\nexit 0\n")
        path.chmod(mode)
    (kit / "notes").chmod(0o700)
    return kit


def tar_of(kit: Path) -> bytes:
    buf = io.BytesIO()
    with tarfile.open(fileobj=buf, mode="w:gz") as tar:
        tar.add(kit, arcname=kit.name)
    return buf.getvalue()


def zip_of(kit: Path) -> bytes:
    """As `zip -r` on Unix makes it: each member's mode in external_attr."""
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w", zipfile.ZIP_DEFLATED) as z:
        for path in sorted(kit.rglob("*")):
            z.write(path, f"{kit.name}/{path.relative_to(kit)}")
    data = buf.getvalue()
    with zipfile.ZipFile(io.BytesIO(data)) as z:  # the repro really carries the modes
        assert all(i.create_system == 3 for i in z.infolist())
        bot = z.getinfo(f"{kit.name}/build/flip7-bot")
        assert stat.S_IMODE(bot.external_attr >> 16) == 0o755
    return data


def modes_of(context: Path) -> dict[str, int]:
    return {
        str(p.relative_to(context)): stat.S_IMODE(p.stat().st_mode)
        for p in context.rglob("*")
        if p.is_file()
    }


@pytest.mark.parametrize(("filename", "pack"), [("bot.tar.gz", tar_of), ("bot.zip", zip_of)])
def test_an_uploaded_kit_keeps_its_executable_bits_and_nothing_dangerous(
    tmp_path: Path, filename: str, pack: Callable[[Path], bytes]
) -> None:
    kit = kit_folder(tmp_path / "author")
    data = pack(kit)
    dest = tmp_path / "unpacked"
    dest.mkdir()
    context = unpack_upload(filename, data, dest)
    assert context == dest / "my-bot"
    assert modes_of(context) == EXPECTED
    for folder in (context / "build", context / "notes", context / "tools"):
        assert stat.S_IMODE(folder.stat().st_mode) == 0o755, folder


def test_a_zip_made_without_unix_modes_unpacks_to_plain_files(tmp_path: Path) -> None:
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w") as z:
        for name in ("Dockerfile", "bot.exe"):
            info = zipfile.ZipInfo(name)
            info.create_system = 0  # MS-DOS: external_attr holds DOS attributes only
            info.external_attr = 0x20  # "archive"
            z.writestr(info, b"x")
    dest = tmp_path / "unpacked"
    dest.mkdir()
    context = unpack_upload("bot.zip", buf.getvalue(), dest)
    assert modes_of(context) == {"Dockerfile": 0o644, "bot.exe": 0o644}
