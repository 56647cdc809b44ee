"""Attack: a process bot reaches past its own folder — for the running event's database
under another name (a hard link, a copy: its deal key gives away every card), for
/etc/shadow, Docker's storage and another bot's files, for root (its folder closed to
other users), and for the system calls a sandbox escape starts with.

Under bubblewrap it sees its own folder, the system's read-only directories and a private
/tmp, nothing else of the arena's working directory and no database file under any name;
it never runs as root; a seccomp filter answers EPERM to ptrace, unshare, mount, bpf,
keyctl and the like, and kills a system call of another architecture.
"""

from __future__ import annotations

import errno
import gzip
import json
import os
import platform
import shutil
import signal
import sqlite3
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from robustkit import BOTS, assert_clean, bot, marker, match, notes, open_dir, play, player

from arena.bots import Command, Policy
from arena.match import BotEntry, MatchResult
from arena.runtime import sandbox
from arena.runtime.sandbox import Sandbox
from arena.store.db import dispose_all
from arena.tournament import EntrySpec, TournamentConfig, create_tournament

pytestmark = pytest.mark.timeout(300)
SQLITE = b"SQLite format 3\x00".hex()


def shared_file(path: Path) -> Path:
    """A host file the bot may write (it may run as a user of its own)."""
    path.touch()
    path.chmod(0o666)
    return path


def copy_bot(folder: Path, *scripts: str) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    for name in ("hostile.py", *scripts):
        shutil.copy(BOTS / name, folder / name)
    return folder


def reach(found: list[dict[str, Any]]) -> dict[str, Any]:
    (note,) = [n for n in found if n["event"] == "reach"]
    return note


@pytest.fixture(params=["tmp", "opt"])
def arena_home(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[Path]:
    """The arena's working directory: in a temporary folder, or in /opt, a system
    directory every bot sees (minus the arena's folder)."""
    if request.param == "tmp":
        yield open_dir(tmp_path / "work")
        return
    if not os.access("/opt", os.W_OK):
        pytest.skip("needs to write to /opt (root)")
    base = open_dir(Path("/opt") / f"flip7-arena-test-{marker()}")
    try:
        yield open_dir(base / "work")
    finally:
        shutil.rmtree(base, ignore_errors=True)


def test_a_bot_finds_the_database_under_no_other_name(
    isolated: Sandbox, tmp_path: Path, busy_port: str, arena_home: Path
) -> None:
    work = arena_home
    db = work / "arena.db"
    url = f"sqlite:///{db}"
    entries = [EntrySpec(p, Policy(p)) for p in ("ev", "random")]
    create_tournament(TournamentConfig(format="swiss", entries=entries, rounds=1), url)
    assert db.read_bytes()[:16].hex() == SQLITE  # the arena has it open: its deal key is in it
    os.link(db, work / "link.db")
    shutil.copyfile(db, work / "backup.db")
    mine = copy_bot(open_dir(work / "mybot"), "reach.py")
    shutil.copyfile(db, mine / "backup.db")
    os.link(db, mine / "link")  # no name to tell it by
    (mine / "arena.db.gz").write_bytes(gzip.compress(db.read_bytes()))  # copies by name
    (mine / "events.sql.gz").write_bytes(gzip.compress(b"INSERT INTO events VALUES ('key');"))
    (mine / "data.bin").write_bytes(b"the bot's own data")
    other = copy_bot(open_dir(work / "other"), "player.py")
    (other / "secret.txt").write_text("another participant's strategy")
    names = ["arena.db", "link.db", "backup.db", "mybot/backup.db", "mybot/link"]
    names += ["mybot/arena.db.gz", "mybot/events.sql.gz"]
    names += [str(db), str(work / "backup.db"), "other/secret.txt", "other/player.py"]
    names += ["/etc/shadow", "mybot/data.bin"]
    log = shared_file(tmp_path / "reach.jsonl")
    env = {
        "BOT_LOG": str(log),
        "REACH_READ": json.dumps(names),
        "REACH_LIST": json.dumps([".", str(work), "other", "/var/lib/docker", "/root", "/home"]),
        "REACH_CONNECT": busy_port,  # a listener of the host's
    }
    cmd = f"{sys.executable} mybot/reach.py"
    snoop = BotEntry("reach", Command(cmd, cwd=str(work), env=env, share=(str(log),)))
    theirs = BotEntry("other", Command(f"{sys.executable} other/player.py", cwd=str(work)))
    result = play(match(snoop, theirs, games=2))
    found = reach(notes(log))
    reads = {r["path"]: r for r in found["reads"]}
    assert reads["mybot/data.bin"]["head"] == b"the bot's own data"[:16].hex()  # it does read
    for name in names[:-1]:
        r = reads[name]
        assert not r["ok"] or r["head"] == "", (name, r)  # missing, or empty (hidden)
    lists = {x["path"]: x for x in found["lists"]}
    assert lists["."]["names"] == ["mybot"] and lists[str(work)]["names"] == ["mybot"]
    for name in ("other", "/var/lib/docker", "/root", "/home"):
        # nothing, but the way to the interpreter (which may be installed in /root)
        assert not lists[name]["ok"] or set(lists[name]["names"]) <= on_the_way(name), lists[name]
    assert found["cwd"] == str(work)  # relative paths still work
    assert found["connect"]["ok"] is False, found["connect"]  # no network but the arena's socket
    assert_clean(result)
    dispose_all()


def on_the_way(folder: str) -> set[str]:
    """The entries of ``folder`` that lead to what every bot sees (the interpreter)."""
    out = set()
    for p in sandbox.runtime_paths():
        if p.startswith(folder.rstrip("/") + "/"):
            out.add(Path(p).relative_to(folder).parts[0])
    return out


def _bot_process(script: Path, mark: str) -> int | None:
    for name in os.listdir("/proc"):
        if not name.isdigit():
            continue
        try:
            with open(f"/proc/{name}/cmdline", "rb") as f:
                args = f.read().decode(errors="replace").split("\0")
        except OSError:
            continue
        if args[1:3] == [str(script), mark]:
            return int(name)
    return None


def _status(pid: int) -> dict[str, str]:
    with open(f"/proc/{pid}/status") as f:
        return dict(ln.rstrip("\n").split(":\t", 1) for ln in f if ":\t" in ln)


def _wait_for(what: str, check: Any, seconds: float = 60.0) -> Any:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        value = check()
        if value:
            return value
        time.sleep(0.02)
    raise AssertionError(f"gave up waiting for {what}")


def test_a_bot_in_a_folder_closed_to_others_never_runs_as_root(
    isolated: Sandbox, tmp_path: Path
) -> None:
    folder = copy_bot(tmp_path / "closed", "reach.py")
    (folder / "notes.txt").write_text("mine")
    (folder / "notes.txt").chmod(0o600)
    with sqlite3.connect(folder / "backup.db") as con:  # a database is left out of its copy
        con.execute("CREATE TABLE secret (key TEXT)")
        con.execute("INSERT INTO secret VALUES ('deal key')")
    con.close()
    folder.chmod(0o700)
    log, hold = shared_file(tmp_path / "reach.jsonl"), shared_file(tmp_path / "hold")
    mark = marker()
    script = folder / "reach.py"
    reads = json.dumps(["/etc/shadow", str(folder / "backup.db"), str(folder / "notes.txt")])
    env = {"BOT_LOG": str(log), "REACH_HOLD": str(hold), "REACH_READ": reads}
    entry = BotEntry(
        "reach", Command(f"{sys.executable} {script} {mark}", env=env, share=(str(log), str(hold)))
    )
    outcome: list[MatchResult] = []
    game = threading.Thread(target=lambda: outcome.append(play(match(entry, player("p")))))
    game.start()
    try:
        _wait_for("the bot to note who it is", lambda: hold.read_text() == "held")
        pid = _wait_for("the bot's process", lambda: _bot_process(script, mark))
        outside = _status(pid)
    finally:
        hold.write_text("go")
        game.join(timeout=240)
    assert all(int(u) != 0 for u in outside["Uid"].split()), outside["Uid"]
    assert all(int(g) != 0 for g in outside["Gid"].split()), outside["Gid"]
    assert int(outside["CapEff"], 16) == 0 and outside["Groups"].strip() == ""
    found = reach(notes(log))
    assert 0 not in found["uid"] and found["groups"] in ([], [found["uid"][2]])
    shadow, database, own = found["reads"]
    assert not shadow["ok"] and not database["ok"], found["reads"]
    assert own["head"] == b"mine".hex()  # its own file, although closed to others
    (result,) = outcome
    assert_clean(result)


def test_a_bot_in_the_arenas_working_directory_sees_a_snapshot_without_the_database(
    isolated: Sandbox, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """``cd work; arena match --bot "python reach.py"``: the bot's own folder is the arena's
    working directory, where the database lives. It sees a copy of its folder as it was at
    its start, without the database or its copies by name; a hard link and a copy of the
    database made while it runs never reach it."""
    work = open_dir(tmp_path / "work")
    monkeypatch.chdir(work)
    db = work / "arena.db"
    entries = [EntrySpec(p, Policy(p)) for p in ("ev", "random")]
    create_tournament(
        TournamentConfig(format="swiss", entries=entries, rounds=1), "sqlite:///arena.db"
    )
    assert db.read_bytes()[:16].hex() == SQLITE
    copy_bot(work, "reach.py")
    (work / "arena.db.gz").write_bytes(gzip.compress(db.read_bytes()))
    shutil.copyfile(db, work / "arena.db.bak")
    (work / "arena.dump").write_text("INSERT INTO events VALUES ('the deal key');\n")
    (work / "data.bin").write_bytes(b"the bot's own data")
    log, hold = shared_file(tmp_path / "reach.jsonl"), shared_file(tmp_path / "hold")
    mark = marker()
    early = ["arena.db", "arena.db.gz", "arena.db.bak", "arena.dump", "data.bin"]
    late = ["late_hl.db", "late.db", "late.txt", "arena.db"]
    env = {
        "BOT_LOG": str(log),
        "REACH_HOLD": str(hold),
        "REACH_READ": json.dumps(early),
        "REACH_LIST": json.dumps([".", str(work)]),
        "REACH_LATE_READ": json.dumps(late),
        "REACH_LATE_LIST": json.dumps(["."]),
    }
    cmd = f"{sys.executable} reach.py {mark}"
    entry = BotEntry("reach", Command(cmd, cwd=str(work), env=env, share=(str(log), str(hold))))
    outcome: list[MatchResult] = []
    game = threading.Thread(target=lambda: outcome.append(play(match(entry, player("p")))))
    game.start()
    try:
        _wait_for("the bot to look around", lambda: hold.read_text() or not game.is_alive())
        assert hold.read_text() == "held", notes(log)
        os.link(db, work / "late_hl.db")  # made while the bot runs
        shutil.copyfile(db, work / "late.db")
        (work / "late.txt").write_text("made after the bot started")
    finally:
        hold.write_text("go")
        game.join(timeout=240)
    found = reach(notes(log))
    reads = {r["path"]: r for r in found["reads"]}
    assert reads["data.bin"]["head"] == b"the bot's own data"[:16].hex()  # its own files
    for name in early[:-1]:
        assert not reads[name]["ok"] or reads[name]["head"] == "", (name, reads[name])
    mine = ["data.bin", "hostile.py", "reach.py"]
    lists = {x["path"]: x for x in found["lists"]}
    assert lists["."]["names"] == mine and lists[str(work)]["names"] == mine
    (after,) = [n for n in notes(log) if n["event"] == "late"]
    for r in after["reads"]:
        assert not r["ok"] or r["head"] == "", r
    assert after["lists"][0]["names"] == mine
    (result,) = outcome
    assert_clean(result)
    dispose_all()


def test_a_bot_with_a_folder_of_its_own_sees_it_live_and_a_large_snapshot_is_refused(
    isolated: Sandbox, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The common case (``python bots/mine/bot.py`` from the arena's working directory)
    costs no copy; a folder holding the arena's working directory is copied for the bot
    only up to a bound, and refused above it with what to do."""
    work = open_dir(tmp_path / "work")
    monkeypatch.chdir(work)
    mine = open_dir(work / "bots" / "mine")
    (mine / "bot.py").write_text("print('hello')\n")
    jail = sandbox.jail([sys.executable, "bots/mine/bot.py"], cwd=str(work), env={})
    try:
        assert jail.stage_dir is None  # shown live, not copied
    finally:
        jail.close()
    (work / "bot.py").write_text("print('hello')\n")
    (work / "big.bin").write_bytes(b"x" * (2 << 20))
    monkeypatch.setattr(sandbox, "STAGE_LIMIT", 1 << 20)
    with pytest.raises(OSError, match="give the bot a folder of its own") as refused:
        sandbox.jail([sys.executable, "bot.py"], cwd=str(work), env={})
    assert str(refused.value).startswith(f"{work} is the bot's own folder")
    assert "\n" not in str(refused.value)


X86_64 = platform.machine() == "x86_64"


@pytest.mark.skipif(not X86_64, reason="the bot calls x86_64 system call numbers")
def test_the_seccomp_filter_denies_what_a_sandbox_escape_starts_with(
    isolated: Sandbox, tmp_path: Path
) -> None:
    log = tmp_path / "reach.jsonl"
    result = play(match(bot("reach", "reach.py", log=log, REACH_SYSCALLS="1"), player("p")))
    found = reach(notes(log))
    assert found["status"]["Seccomp"] == "2"  # filtered
    for name, (value, err) in found["syscalls"].items():
        assert (value, err) == (-1, errno.EPERM), (name, value, os.strerror(err))
    assert isolated.seccomp and sandbox.current().as_dict()["seccomp"] is True
    assert_clean(result)


@pytest.mark.skipif(not X86_64, reason="the x32 system call ABI is x86_64's")
def test_a_system_call_of_another_architecture_kills_the_bot(
    isolated: Sandbox, tmp_path: Path
) -> None:
    code = "import ctypes; ctypes.CDLL(None).syscall(0x40000000 | 39); print('alive')"
    jail = sandbox.jail([sys.executable, "-c", code], cwd=str(tmp_path), env={"PATH": "/usr/bin"})
    try:
        ran = subprocess.run(
            jail.argv,
            env=jail.env,
            cwd=jail.cwd,
            pass_fds=jail.pass_fds,
            capture_output=True,
            text=True,
            timeout=60,
            check=False,
        )
    finally:
        jail.close()
    assert "alive" not in ran.stdout
    assert ran.returncode == 128 + signal.SIGSYS, (ran.returncode, ran.stderr)


def test_a_bot_folder_too_large_to_search_is_refused(isolated: Sandbox, tmp_path: Path) -> None:
    folder = open_dir(tmp_path / "huge")
    (folder / "bot.py").write_text("print('never runs')\n")
    for i in range(sandbox.SCAN_LIMIT + 1):
        (folder / f"f{i}").touch()
    with pytest.raises(OSError, match="too many to search for database files"):
        sandbox.jail([sys.executable, str(folder / "bot.py")], cwd=str(tmp_path), env={})


def test_without_a_seccomp_filter_the_arena_says_so(
    isolated: Sandbox, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """Where the filter cannot be made (libseccomp missing), the sandbox still works, and
    ``arena sandbox`` and the warning say there is no filter, not silently."""
    from arena.runtime import seccomp

    monkeypatch.setattr(seccomp, "program", lambda: (None, "no seccomp filter: no libseccomp"))
    box = sandbox.detect("bwrap")
    assert box.mode == "bwrap" and box.seccomp is False
    assert "NO seccomp filter: no libseccomp" in box.as_dict()["guarantees"]  # type: ignore[operator]
    assert "but no seccomp filter" in box.describe()
    monkeypatch.setattr(sandbox, "current", lambda: box)
    monkeypatch.setattr(sandbox, "_warned", False)
    sandbox.warn_once()
    sandbox.warn_once()
    (line,) = capsys.readouterr().err.splitlines()
    assert line.startswith("warning: process bots are sandboxed with no seccomp filter")
