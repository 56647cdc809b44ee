"""``arena bot pack DIR``: a bot folder as the archive the site's upload accepts.

What goes in: the .dockerignore's verdict with Docker's rules (patterns from the folder's
top, ``!`` exceptions, ``**``); never version control or caches; only what the Dockerfile
COPYs when it names its sources plainly (everything, when it copies ``.`` or may read the
folder otherwise); symlinks to files inside stored as those files, any other symlink
refused; executable bits kept. The archive unpacks on the server (arena.server.upload) to
the very files ``arena bot submit`` would send. Over a server limit it is refused with
one line and nothing written.
"""

from __future__ import annotations

import json
import os
import stat
import tarfile
from pathlib import Path

import pytest
from arenacli import run_arena

from arena import limits
from arena.pack import PackRefused, copied_sources, pack
from arena.runtime.build_sandbox import measure_context
from arena.server.upload import unpack_upload


def make(folder: Path, files: dict[str, str], modes: dict[str, int] | None = None) -> Path:
    for rel, body in files.items():
        path = folder / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(body)
    for rel, mode in (modes or {}).items():
        (folder / rel).chmod(mode)
    return folder


def names(archive: Path) -> list[str]:
    with tarfile.open(archive) as tar:
        return sorted(m.name for m in tar.getmembers())


def test_dockerignore_is_read_with_dockers_rules_and_vcs_and_caches_stay_out(
    tmp_path: Path,
) -> None:
    kit = make(
        tmp_path / "kit",
        {
            "Dockerfile": "FROM scratch\nCOPY . /app\n",
            ".dockerignore": "# comment\n*.log\ndocs\n!docs/keep.md\n**/secret.txt\nbuild/*\n"
            "!build/bot\n",
            "bot.py": "",
            "run.log": "",
            "sub/deep.log": "",  # *.log matches at the top only, as in Docker
            "docs/a.md": "",
            "docs/keep.md": "",
            "secret.txt": "",
            "sub/x/secret.txt": "",
            "build/bot": "",
            "build/cache/obj.o": "",
            ".git/config": "",
            "sub/.git": "gitdir: elsewhere",  # a worktree's .git is a file
            "sub/__pycache__/m.pyc": "",
            ".pytest_cache/v": "",
        },
    )
    done = pack(kit, tmp_path / "kit.tar.gz")
    assert names(done.out) == [
        ".dockerignore",
        "Dockerfile",
        "bot.py",
        "build/bot",
        "docs/keep.md",
        "sub/deep.log",
        "sub/x",  # its one file is ignored: an empty folder, as Docker sends it
    ]
    assert not done.trimmed  # COPY . takes the whole context
    assert done.files == 6 and done.folders == 1 and done.left_out == 9


def test_only_what_the_dockerfile_copies_goes_in_when_it_says_so_plainly(
    tmp_path: Path,
) -> None:
    kit = make(
        tmp_path / "kit",
        {
            "Dockerfile": "ARG BASE=flip7/python-base:latest\nFROM ${BASE}\n"
            'COPY bot.py lib/ /bot/\nCOPY ["conf/*.json", "/bot/conf/"]\n'
            "COPY --from=flip7/python-base:latest /etc/hostname /x\nUSER 10001\n",
            "bot.py": "",
            "lib/a.py": "",
            "lib/sub/b.py": "",
            "conf/a.json": "",
            "conf/deep/b.json": "",  # conf/*.json: one level, as Docker matches sources
            "README.md": "",
            "tests/test_bot.py": "",
        },
    )
    done = pack(kit, tmp_path / "kit.tar.gz")
    assert names(done.out) == [
        "Dockerfile",
        "bot.py",
        "conf/a.json",
        "lib/a.py",
        "lib/sub/b.py",
    ]
    assert done.trimmed and done.left_out == 3


@pytest.mark.parametrize(
    "dockerfile",
    [
        "FROM scratch\nCOPY . /app\n",
        "FROM scratch\nCOPY ./ /app\n",
        "FROM scratch\nRUN --mount=type=bind,target=/src cat /src/x\n",
        "FROM scratch\nARG WHAT=bot.py\nCOPY $WHAT /app/\n",
        "FROM scratch\nCOPY <<EOF /app/x\nhi\nEOF\n",
        "FROM scratch\nONBUILD COPY x /x\n",
        "no FROM at all\n",
    ],
)
def test_a_dockerfile_that_may_read_any_file_keeps_them_all(dockerfile: str) -> None:
    assert copied_sources(dockerfile) is None


def test_add_of_a_url_takes_nothing_from_the_folder() -> None:
    df = "FROM scratch\nADD https://example.invalid/x.tgz bot.py /app/\n"
    assert copied_sources(df) == ["bot.py"]


def test_symlinks_to_files_inside_are_stored_as_the_files_and_modes_are_kept(
    tmp_path: Path,
) -> None:
    kit = make(
        tmp_path / "kit",
        {
            "Dockerfile": "FROM scratch\nCOPY . /app\n",
            "node_modules/pkg/bin/cli.js": "#!/usr/bin/env node\n",
            "bot": "\x7fELF",
            "private.txt": "p",
        },
        {"node_modules/pkg/bin/cli.js": 0o755, "bot": 0o4750, "private.txt": 0o600},
    )
    (kit / "node_modules" / ".bin").mkdir()
    (kit / "node_modules" / ".bin" / "cli").symlink_to("../pkg/bin/cli.js")
    done = pack(kit, tmp_path / "kit.tar.gz")
    assert done.resolved == ["node_modules/.bin/cli"]
    with tarfile.open(done.out) as tar:
        members = {m.name: m for m in tar.getmembers()}
        assert all(m.isfile() for m in members.values())
        link = tar.extractfile("node_modules/.bin/cli")
        assert link is not None and link.read() == b"#!/usr/bin/env node\n"
    assert members["node_modules/.bin/cli"].mode == 0o755
    assert members["bot"].mode == 0o754  # no setuid; readable by the image's user
    assert members["private.txt"].mode == 0o644


@pytest.mark.parametrize(
    ("target", "says"),
    [
        ("/etc/hostname", "to something outside the folder"),
        ("../../outside", "to something outside the folder"),
        ("missing-file", "to something outside the folder"),
        ("lib", "to the folder lib"),
    ],
)
def test_any_other_symlink_is_refused_with_its_name_and_nothing_written(
    tmp_path: Path, target: str, says: str
) -> None:
    kit = make(tmp_path / "kit", {"Dockerfile": "FROM scratch\nCOPY . /app\n", "lib/x": ""})
    (kit / "link").symlink_to(target)
    out = tmp_path / "kit.tar.gz"
    with pytest.raises(PackRefused) as e:
        pack(kit, out)
    assert str(e.value).startswith(f"link is a symlink {says}")
    assert ".dockerignore" in str(e.value)
    assert not out.exists() and list(tmp_path.glob(".kit.tar.gz.*")) == []
    (kit / ".dockerignore").write_text("link\n")  # what the message says to do
    assert names(pack(kit, out).out) == [".dockerignore", "Dockerfile", "lib/x"]


def test_the_archive_unpacks_on_the_server_to_what_bot_submit_would_send(
    tmp_path: Path,
) -> None:
    kit = make(
        tmp_path / "kit",
        {
            "Dockerfile": "FROM scratch\nCOPY . /app\n",
            ".dockerignore": "*.tmp\n",
            "bin/start.sh": "#!/bin/sh\n",
            "data/table.json": "{}",
            "junk.tmp": "",
        },
        {"bin/start.sh": 0o755},
    )
    (kit / "empty" / "inner").mkdir(parents=True)
    done = pack(kit, tmp_path / "kit.tar.gz")
    dest = tmp_path / "server"
    dest.mkdir()
    context = unpack_upload("kit.tar.gz", done.out.read_bytes(), dest)
    unpacked = sorted(
        p.relative_to(context).as_posix()
        for p in context.rglob("*")
        if p.is_file() or not any(p.iterdir())
    )
    sent = measure_context(kit, "Dockerfile", 1 << 30)
    submitted = sorted(f for f in sent.files if (kit / f).is_file() or not any((kit / f).iterdir()))
    assert (
        unpacked
        == submitted
        == [".dockerignore", "Dockerfile", "bin/start.sh", "data/table.json", "empty/inner"]
    )
    assert done.folders == 1  # empty/inner alone: its parent is implied
    assert os.access(context / "bin" / "start.sh", os.X_OK)
    assert stat.S_IMODE((context / "data" / "table.json").stat().st_mode) == 0o644


def test_over_a_server_limit_it_refuses_with_what_to_do(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    kit = make(
        tmp_path / "kit",
        {"Dockerfile": "FROM scratch\nCOPY . /app\n", **{f"f{i}": "x" * 100 for i in range(5)}},
    )
    out = tmp_path / "kit.tar.gz"
    monkeypatch.setattr(limits, "MAX_ARCHIVE_MEMBERS", 5)
    with pytest.raises(PackRefused, match="would hold 6 files and folders; the server takes 5"):
        pack(kit, out)
    monkeypatch.setattr(limits, "MAX_ARCHIVE_MEMBERS", 5000)
    monkeypatch.setattr(limits, "MAX_UNPACKED_BYTES", 400)
    with pytest.raises(PackRefused, match="would unpack to 525 B; the server takes 400 B"):
        pack(kit, out)
    monkeypatch.setattr(limits, "MAX_UNPACKED_BYTES", 50 << 20)
    (kit / "noise").write_bytes(os.urandom(4096))
    monkeypatch.setattr(limits, "MAX_UPLOAD_BYTES", 2048)
    with pytest.raises(PackRefused, match=r"the archive is 4\.\d KiB; the server takes 2\.0 KiB"):
        pack(kit, out)
    assert not out.exists() and list(tmp_path.glob(".kit.tar.gz.*")) == []


def test_the_command_says_size_and_count_against_the_limits(tmp_path: Path) -> None:
    kit = make(
        tmp_path / "my-bot",
        {"Dockerfile": "FROM scratch\nCOPY bot /bot\n", "bot": "#!/bin/sh\n", "notes.txt": ""},
        {"bot": 0o755},
    )
    r = run_arena("bot", "pack", str(kit), cwd=tmp_path)
    assert r.returncode == 0, r.stderr
    assert (tmp_path / "my-bot.tar.gz").is_file()  # NAME.tar.gz in the current folder
    assert "packed" in r.stdout and "my-bot.tar.gz: 2 files" in r.stdout
    assert f"2 of {limits.MAX_ARCHIVE_MEMBERS:,} files and folders" in r.stdout
    assert "left out 1 files" in r.stdout and "arena bot pack" not in r.stderr
    r = run_arena("bot", "pack", str(kit), "--out", str(tmp_path / "o" / "b.tgz"), "--json")
    assert r.returncode == 0, r.stderr
    data = json.loads(r.stdout)
    assert data["out"] == str(tmp_path / "o" / "b.tgz") and data["files"] == 2
    assert data["bytes"] == (tmp_path / "o" / "b.tgz").stat().st_size
    assert data["limits"]["members"] == limits.MAX_ARCHIVE_MEMBERS
    assert {"unpacked_bytes", "left_out", "members", "symlinks_resolved"} <= data.keys()


def test_the_command_refuses_a_folder_over_the_member_limit_in_one_line(tmp_path: Path) -> None:
    kit = tmp_path / "big"
    (kit / "many").mkdir(parents=True)
    (kit / "Dockerfile").write_text("FROM scratch\nCOPY many /many\n")
    for i in range(limits.MAX_ARCHIVE_MEMBERS):
        (kit / "many" / str(i)).touch()
    r = run_arena("bot", "pack", str(kit), "--out", str(tmp_path / "big.tar.gz"))
    assert r.returncode == 1, r.stdout
    assert r.stderr.count("\n") == 1, r.stderr
    assert f"the server takes {limits.MAX_ARCHIVE_MEMBERS:,}" in r.stderr
    assert ".dockerignore" in r.stderr
    assert not (tmp_path / "big.tar.gz").exists()


@pytest.mark.parametrize(
    ("args", "says"), [(["nowhere"], "is not a folder"), (["."], "no Dockerfile")]
)
def test_the_command_refuses_a_folder_that_is_no_bot(
    tmp_path: Path, args: list[str], says: str
) -> None:
    r = run_arena("bot", "pack", *args, cwd=tmp_path)
    assert r.returncode == 2 and says in r.stderr, r.stderr
