"""Attack: a process bot grabs far more than its share — 1.5 GB of memory, 200 MB written
into the operator's working directory or into its own /tmp, processes without end. The
limits stop it (a crash of its own, recorded as its CRASH), nothing lands in the operator's
folder, and its opponents play on unharmed."""

from __future__ import annotations

import pytest
from robustkit import bot, faults_of, marker, match, notes, open_dir, play, player, processes_with

from arena.runtime.sandbox import ProcessLimits, Sandbox

pytestmark = pytest.mark.timeout(300)


def crashed_alone(result, name: str) -> str:  # type: ignore[no-untyped-def]
    """The bot's faults are CRASHes of its own; nobody else has a fault. Returns its log."""
    mine = faults_of(result, name)
    assert mine and {str(f.kind) for f in mine} == {"CRASH"}, mine
    assert all(f.forfeit for f in mine)
    others = [f for g in result.games for f in g.faults if f.bot != name]
    assert others == [], others
    return result.logs[name]


def test_bot_holding_1_5_gb_is_stopped_by_the_memory_limit(isolated: Sandbox, tmp_path) -> None:  # type: ignore[no-untyped-def]
    log = tmp_path / "hog.jsonl"
    result = play(match(bot("hog", "hog.py", "memory", log=log), player("p")))
    assert "MemoryError" in crashed_alone(result, "hog")
    assert [n for n in notes(log) if n["event"] == "held"] == []


def test_bot_writing_200_mb_into_the_working_directory_writes_nothing_there(
    isolated: Sandbox, tmp_path
) -> None:  # type: ignore[no-untyped-def]
    work = open_dir(tmp_path / "work")
    hog = bot("hog", "hog.py", "cwd")
    hog.cwd = str(work)
    result = play(match(hog, player("p")))
    text = crashed_alone(result, "hog")
    assert "Read-only file system" in text or "Permission denied" in text, text[-2000:]
    assert list(work.iterdir()) == []


def test_bot_writing_200_mb_into_its_private_tmp_is_stopped_at_the_limit(
    isolated: Sandbox, tmp_path
) -> None:  # type: ignore[no-untyped-def]
    result = play(match(bot("hog", "hog.py", "tmp"), player("p")))
    text = crashed_alone(result, "hog")
    assert "File too large" in text or "No space left on device" in text, text[-2000:]


def test_fork_bomb_is_stopped_by_the_process_limit(isolated: Sandbox, tmp_path) -> None:  # type: ignore[no-untyped-def]
    if not isolated.own_uid:
        pytest.skip("the process limit needs a user of the bot's own (a root arena)")
    mark = marker()
    log = tmp_path / "hog.jsonl"
    limits = ProcessLimits(processes=32)
    spec = match(bot("hog", "hog.py", "processes", mark, log=log), player("p"))
    spec.process_limits = limits
    result = play(spec)
    (forked,) = [n for n in notes(log) if n["event"] == "forked"]
    assert 0 < forked["children"] < 32  # the bot's own threads count too
    assert all(g.faults == [] for g in result.games), [g.faults for g in result.games]
    assert processes_with(mark) == []
