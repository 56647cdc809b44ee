"""Attack: a process bot goes after other processes — reads their tokens and secrets from
/proc/<pid>/environ, SIGKILLs whatever it can see (its opponents, a process of the
operator's it was told the pid of). Under bubblewrap it sees only its own PID namespace:
nothing is read, nothing is killed, and its opponents play on with no fault."""

from __future__ import annotations

import secrets
import subprocess

import pytest
from robustkit import bot, marker, match, notes, play, player

from arena.runtime.sandbox import Sandbox

pytestmark = pytest.mark.timeout(300)


def test_bot_can_neither_read_nor_kill_other_processes(isolated: Sandbox, tmp_path) -> None:  # type: ignore[no-untyped-def]
    secret = "s3cret-" + secrets.token_hex(8)
    victim = subprocess.Popen(["sleep", marker()], env={"VICTIM_SECRET": secret})
    try:
        log = tmp_path / "snoop.jsonl"
        snoop = bot("snoop", "snoop.py", log=log, VICTIM_PID=str(victim.pid), VICTIM_SECRET=secret)
        result = play(match(player("left"), snoop, player("right"), games=4))
        assert victim.poll() is None, "the snoop killed a process outside its sandbox"
    finally:
        victim.kill()
        victim.wait()
    (attack,) = [n for n in notes(log) if n["event"] == "attack"]
    assert attack["tokens"] == [], "it read another bot's ARENA_TOKEN"
    assert attack["secrets"] == [], "it read the environment of a process outside"
    assert [k for k in attack["kills"] if k[1] == "killed"] == [], attack["kills"]
    # all it can see is its own namespace: its launcher (PID 1) and itself
    assert len(set(attack["visible"]) - {attack["victim"]}) <= 3, attack["visible"]
    assert [g.status for g in result.games] == ["completed"] * 4
    assert all(g.faults == [] for g in result.games), [g.faults for g in result.games]
    assert result.decisions > 0
