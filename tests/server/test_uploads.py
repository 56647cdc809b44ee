"""Bot uploads on a real ``arena serve`` (real HTTP, a real Docker engine for the builds).

Each bad upload gets a clear message and changes nothing: no bot, no version, no image
(and, for an archive refused by its listing, not even a build record): an archive too
large, a zip bomb, a gzip bomb of a tarball, paths that escape the archive (``..`` and
absolute), symlinks and hard links, an archive without a Dockerfile, a Dockerfile that
fails, a bot that fails the compliance check. The Python example bot, uploaded as a
.tar.gz and as a single .py file, builds in the sandbox, passes the check and is
registered as its owner's bot, pinned by image id.
"""

from __future__ import annotations

import contextlib
import io
import tarfile
import time
import uuid
import zipfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from serverkit import Server, add_user, free_port

from arena import limits
from arena.participants import add_participant

ROOT = Path(__file__).resolve().parents[2]
EV = ROOT / "bots" / "examples" / "python" / "ev"


def tar_gz(files: dict[str, bytes], *, links: dict[str, tuple[bytes, str]] | None = None) -> bytes:
    buf = io.BytesIO()
    with tarfile.open(fileobj=buf, mode="w:gz") as tar:
        for name, data in files.items():
            info = tarfile.TarInfo(name)
            info.size = len(data)
            tar.addfile(info, io.BytesIO(data))
        for name, (kind, target) in (links or {}).items():
            info = tarfile.TarInfo(name)
            info.type = kind
            info.linkname = target
            tar.addfile(info)
    return buf.getvalue()


def zipped(files: dict[str, bytes]) -> bytes:
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w", zipfile.ZIP_DEFLATED) as z:
        for name, data in files.items():
            z.writestr(name, data)
    return buf.getvalue()


def zip_with_symlink() -> bytes:
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w") as z:
        z.writestr("Dockerfile", "FROM flip7/python-base:latest\n")
        info = zipfile.ZipInfo("secret")
        info.external_attr = 0o120777 << 16  # a symlink's mode
        z.writestr(info, "/etc/shadow")
    return buf.getvalue()


DOCKERFILE = b'FROM flip7/python-base:latest\nCOPY bot.py /bot.py\nCMD ["python", "/bot.py"]\n'


def kit_archive() -> bytes:
    """The Python example bot's folder as a participant would pack it."""
    buf = io.BytesIO()
    with tarfile.open(fileobj=buf, mode="w:gz") as tar:
        tar.add(EV, arcname="ev")
    return buf.getvalue()


def post(
    c: httpx.Client, token: str, name: str, filename: str, data: bytes, *, wait: bool = False
) -> httpx.Response:
    """The upload API; ``wait``: the answer comes when the queued build has ended."""
    return c.post(
        "/api/me/bots" + ("?wait=true" if wait else ""),
        data={"name": name},
        files={"file": (filename, data, "application/octet-stream")},
        headers={"authorization": f"Bearer {token}"},
    )


REFUSED = {
    "too large": ("big.py", b"#" * (limits.MAX_UPLOAD_BYTES + 10), "the limit is"),
    "zip bomb": (
        "bomb.zip",
        zipped({"Dockerfile": DOCKERFILE, "pad": b"\0" * (limits.MAX_UNPACKED_BYTES - 1024)}),
        "zip bomb",
    ),
    "zip unpacking past the cap": (
        "big.zip",
        zipped({"Dockerfile": DOCKERFILE, "pad": b"\0" * (limits.MAX_UNPACKED_BYTES + 1)}),
        "unpacks to more than",
    ),
    "gzip bomb of a tarball": (
        "bomb.tar.gz",
        tar_gz({"Dockerfile": DOCKERFILE, "pad": b"\0" * (limits.MAX_UNPACKED_BYTES + 1)}),
        "unpacks to more than",
    ),
    "path escaping with ..": (
        "escape.tar.gz",
        tar_gz({"Dockerfile": DOCKERFILE, "../../outside.txt": b"x"}),
        "points outside the archive",
    ),
    "absolute path": (
        "absolute.zip",
        zipped({"Dockerfile": DOCKERFILE, "/tmp/absolute.txt": b"x"}),
        "points outside the archive",
    ),
    "symlink in a tarball": (
        "link.tar.gz",
        tar_gz({"Dockerfile": DOCKERFILE}, links={"bot.py": (tarfile.SYMTYPE, "/etc/shadow")}),
        "symlink",
    ),
    "hard link in a tarball": (
        "hard.tar.gz",
        tar_gz({"Dockerfile": DOCKERFILE}, links={"bot.py": (tarfile.LNKTYPE, "Dockerfile")}),
        "link",
    ),
    "symlink in a zip": ("link.zip", zip_with_symlink(), "symlink"),
    "no Dockerfile": ("nodf.zip", zipped({"bot.py": b"print(1)\n"}), "no Dockerfile"),
    "not an archive": ("notes.txt", b"hello", "not a bot upload"),
    "a .py that is not Python": ("bot.py", b"def (:\n", "not a Python program"),
}


@pytest.fixture(scope="module")
def one_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Server, str]]:
    tmp = tmp_path_factory.mktemp("uploads")
    db = f"sqlite:///{tmp / 'arena.db'}"
    s = Server(db, free_port(), log=tmp / "server.log").start()
    yield s, db
    s.stop()


@pytest.mark.parametrize("case", list(REFUSED))
def test_a_bad_upload_is_refused_with_a_clear_message_and_nothing_stored(
    case: str, one_server: tuple[Server, str], tmp_path: Path
) -> None:
    filename, data, says = REFUSED[case]
    server, db = one_server
    token = add_participant(db, f"p{uuid.uuid4().hex[:8]}").token  # in-process: faster
    c = server.client()
    r = post(c, token, "mybot", filename, data)
    assert r.status_code == 400, r.text
    assert says in r.json()["detail"]
    auth = {"authorization": f"Bearer {token}"}
    assert c.get("/api/me/bots", headers=auth).json() == []
    assert c.get("/api/me/builds", headers=auth).json() == []  # not even a build record
    assert not (tmp_path.parent / "outside.txt").exists()
    assert not Path("/tmp/absolute.txt").exists()


def test_a_body_far_over_the_upload_limit_is_refused_before_it_is_read(
    one_server: tuple[Server, str],
) -> None:
    server, db = one_server
    token = add_participant(db, f"p{uuid.uuid4().hex[:8]}").token
    c = server.client()
    r = post(c, token, "huge", "huge.tar.gz", b"\0" * (3 * limits.MAX_UPLOAD_BYTES))
    assert r.status_code == 413 and "larger than" in r.json()["detail"]
    auth = {"authorization": f"Bearer {token}"}
    assert c.get("/api/me/builds", headers=auth).json() == []


def _no_image(docker_engine: Any, name: str) -> bool:
    return not [i for i in docker_engine.images.list() if any(name in t for t in i.tags)]


@pytest.mark.timeout(900)
def test_a_failing_dockerfile_or_a_bot_that_fails_the_check_registers_nothing(
    tmp_path: Path, serve: Any, docker_engine: Any
) -> None:
    db = f"sqlite:///{tmp_path / 'arena.db'}"
    token = add_user(db, "alice")
    server = serve(db)
    c = server.client()
    auth = {"authorization": f"Bearer {token}"}
    name = f"broken-{uuid.uuid4().hex[:6]}"
    failing = tar_gz({"Dockerfile": b"FROM flip7/python-base:latest\nRUN exit 3\n"})
    r = post(c, token, name, "fails.tar.gz", failing, wait=True)
    assert r.status_code == 422, r.text
    assert r.json()["status"] == "failed" and "returned a non-zero code: 3" in r.json()["detail"]
    # a bot that builds but exits at once: it fails the compliance check
    quitter = f"quitter-{uuid.uuid4().hex[:6]}"
    r = post(c, token, quitter, "quit.py", b"import sys\nsys.exit(1)\n", wait=True)
    assert r.status_code == 422, r.text
    body = r.json()
    assert body["status"] == "failed" and "compliance checks failed" in body["detail"]
    checked = c.get(f"/api/builds/{body['build']}", headers=auth).json()["log"]
    assert "\nFAIL " in checked  # each check's outcome is in the log
    assert c.get("/api/me/bots", headers=auth).json() == []
    assert _no_image(docker_engine, name) and _no_image(docker_engine, quitter)
    builds = c.get("/api/me/builds", headers=auth).json()
    assert [b["status"] for b in builds] == ["failed", "failed"]
    log = c.get(f"/api/builds/{builds[1]['id']}", headers=auth).json()["log"]
    assert "RUN exit 3" in log  # the owner sees the build log


@pytest.mark.timeout(900)
def test_the_python_example_bot_uploaded_builds_passes_the_check_and_is_registered(
    tmp_path: Path, serve: Any, docker_engine: Any
) -> None:
    db = f"sqlite:///{tmp_path / 'arena.db'}"
    token = add_user(db, "alice")
    server = serve(db)
    c = server.client()
    auth = {"authorization": f"Bearer {token}"}
    name = f"ev-{uuid.uuid4().hex[:6]}"
    t0 = time.monotonic()
    r = post(c, token, name, "ev.tar.gz", kit_archive(), wait=True)
    assert r.status_code == 200, r.text
    body = r.json()
    assert body["status"] == "passed" and body["version"] == 1
    checked = c.get(f"/api/builds/{body['build']}", headers=auth).json()["log"]
    assert "\nok  " in checked and "\nFAIL " not in checked
    print(f"upload to registered: {time.monotonic() - t0:.1f} s")
    # the single-file form of the same bot, as the second version
    r = post(c, token, name, "bot.py", (EV / "bot.py").read_bytes(), wait=True)
    assert r.status_code == 200 and r.json()["version"] == 2, r.text
    (mine,) = c.get("/api/me/bots", headers=auth).json()
    assert mine == {"name": name, "runtime": "docker", "version": 2}
    import docker.errors

    from arena.registry import latest
    from arena.store.bots import versions

    _bot, version = latest(db, name)
    assert version.digest and version.digest.startswith("sha256:")  # pinned by id
    assert _bot.owner_id is not None
    assert version.image == f"flip7-bot/bot-{_bot.id}:v2"  # tagged by its id, not its name
    for v in versions(db, _bot.id):  # by tag: an identical build's image stays
        with contextlib.suppress(docker.errors.ImageNotFound):
            docker_engine.api.remove_image(v.image, force=True)
