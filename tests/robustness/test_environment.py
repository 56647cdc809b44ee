"""Attack: a process bot reads its environment, hoping for the operator's (a database URL
with its password, an API token). It gets only PATH, HOME, TMPDIR, LANG, ARENA_ADDRESS,
ARENA_TOKEN, PYTHONUNBUFFERED and its own entries — in every sandbox mode."""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path

import pytest
from robustkit import bot, match, play

pytestmark = pytest.mark.timeout(300)

ALLOWED = {"PATH", "HOME", "TMPDIR", "LANG", "ARENA_ADDRESS", "ARENA_TOKEN", "PYTHONUNBUFFERED"}
ALLOWED.add("PWD")  # the working directory, set by the sandbox when it changes into it


def test_operator_environment_does_not_reach_the_bot(
    any_mode: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("ARENA_DB", "postgresql://u:secret@h/db")
    monkeypatch.setenv("SECRET_TOKEN", "hunter2-secret")
    result = play(match(bot("env", "env_dump.py", BOT_FLAVOUR="plain"), bot("b", "player.py")))
    (line,) = [ln for ln in result.logs["env"].splitlines() if ln.startswith("ENV ")]
    env = json.loads(line[4:])
    assert set(env) <= ALLOWED | {"BOT_FLAVOUR"}, sorted(set(env) - ALLOWED)
    assert "secret" not in line
    assert env["BOT_FLAVOUR"] == "plain"
    assert env["PATH"].split(os.pathsep)[0] == str(Path(sys.executable).parent)
    assert env["HOME"] != os.environ.get("HOME") and env["TMPDIR"]
    assert all(g.faults == [] for g in result.games)
