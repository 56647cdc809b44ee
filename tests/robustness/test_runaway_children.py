"""Attack: a process bot starts children meant to outlive its match.

Children that call setsid() and keep the bot's stdout open, that ignore SIGTERM, or that
double-fork into orphans with their pipes closed. The arena must end every one of them
with the match, and the match must return on time (stopping a bot never waits on its
pipes) — under each containment mechanism: bubblewrap's PID namespace, a cgroup killed
whole, a subreaper.
"""

from __future__ import annotations

import os
import subprocess
import sys
import time

import pytest
from robustkit import ROOT, bot, marker, match, play, player, processes_with

from arena.runtime import sandbox

pytestmark = pytest.mark.timeout(300)


def forker_match(mode: str, tmp_path) -> tuple[str, float, object]:  # type: ignore[no-untyped-def]
    mark = marker()
    log = tmp_path / "forker.jsonl"
    spec = match(bot("forker", "forker.py", mode, mark, log=log), player("player"), games=3)
    t0 = time.monotonic()
    result = play(spec)
    return mark, time.monotonic() - t0, result


@pytest.mark.parametrize("child", ["setsid", "ignore-term", "double-fork"])
def test_children_that_try_to_outlive_the_bot_end_with_its_match(
    any_mode: str, child: str, tmp_path
) -> None:  # type: ignore[no-untyped-def]
    mark, seconds, result = forker_match(child, tmp_path)
    assert [g.status for g in result.games] == ["completed"] * 3  # type: ignore[attr-defined]
    assert all(g.faults == [] for g in result.games), [g.faults for g in result.games]  # type: ignore[attr-defined]
    # the bot is told goodbye, leaves, and everything it started goes with it: no waiting
    # for a child that holds its stdout, nor for one that ignores SIGTERM
    assert seconds < 30, f"the match took {seconds:.1f} s"
    assert processes_with(mark) == [], f"{child} child outlived its match ({any_mode})"


def test_arena_match_returns_although_a_setsid_grandchild_holds_the_bots_stdout(
    tmp_path,
) -> None:  # type: ignore[no-untyped-def]
    """The reported hang: `arena match` with such a bot never returned."""
    mark = marker()
    cmd = f"python {ROOT / 'tests/robustness/bots/forker.py'} setsid {mark}"
    t0 = time.monotonic()
    r = subprocess.run(
        [
            *(sys.executable, "-m", "arena", "match", "--bot", cmd, "--bot", "builtin:ev"),
            *("--games", "4", "--json", "--db", f"sqlite:///{tmp_path / 'a.db'}"),
        ],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert r.returncode == 0, r.stderr
    assert time.monotonic() - t0 < 60
    assert processes_with(mark) == []


def test_without_bubblewrap_the_arena_says_once_that_process_bots_are_trusted(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], tmp_path
) -> None:  # type: ignore[no-untyped-def]
    monkeypatch.setenv("ARENA_SANDBOX", "reaper")
    monkeypatch.setattr(sandbox, "_warned", False)
    sandbox.current.cache_clear()
    try:
        result = play(match(player("a"), player("b"), games=1))
        play(match(player("a"), player("b"), games=1))
    finally:
        monkeypatch.delenv("ARENA_SANDBOX")
        sandbox.current.cache_clear()
    assert result.games[0].faults == []
    lines = [ln for ln in capsys.readouterr().err.splitlines() if "trusted code" in ln]
    assert len(lines) == 1, lines
    assert lines[0].startswith("warning: process bots run as trusted code with your rights")
    assert "containers" in lines[0]


def test_the_sandbox_is_chosen_once_and_reported(isolated: sandbox.Sandbox) -> None:  # type: ignore[no-untyped-def]
    r = subprocess.run(
        [sys.executable, "-m", "arena", "sandbox", "--json"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert r.returncode == 0, r.stderr
    import json

    info = json.loads(r.stdout)
    assert info["mode"] == "bwrap" and info["isolated"] is True
    assert info["own_uid"] == (os.geteuid() == 0)
    assert info["seccomp"] is True, info["seccomp_missing"]  # a filter where bubblewrap allows
    assert sandbox.current() is sandbox.current()
