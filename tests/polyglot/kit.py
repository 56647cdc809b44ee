"""What the tests of the example bots in other languages share: build a bot once (or a copy
of its kit elsewhere), run the compliance suite on it, check how it answers a scripted
arena, and play it against the Python example bots.

A missing toolchain skips locally and fails under CI (CI=true): CI must build and test
every language. A build that fails for any other reason always fails.
"""

from __future__ import annotations

import asyncio
import os
import re
import shlex
import shutil
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

import pytest
from hostkit import UNDER_CI
from scripted_arena import Transcript, converse

from arena.bots import Command
from arena.check import Check, run_checks
from arena.match import BotEntry, MatchResult, MatchSpec, run_match

ROOT = Path(__file__).resolve().parents[2]
EXAMPLES = ROOT / "bots" / "examples"
TOOLCHAIN_MISSING = 3  # every build.sh exits 3 when a tool or a Debian package is absent


@dataclass(frozen=True)
class Language:
    label: str
    folder: Path
    command: Path  # what the arena runs once the bot is built
    tools: tuple[str, ...]  # checked before building
    shell: str = "bash"  # build.sh's interpreter
    concurrency: int = 16  # games at once in its 6-game matches against the Python bots


LANGUAGES = {
    "cpp": Language(
        "C++",
        EXAMPLES / "cpp",
        EXAMPLES / "cpp" / "build" / "flip7-bot",
        ("g++", "cmake", "make", "pkg-config", "protoc", "grpc_cpp_plugin"),
    ),
    "go": Language(
        "Go",
        EXAMPLES / "go",
        EXAMPLES / "go" / "build" / "flip7-bot",
        ("go", "protoc", "protoc-gen-go", "protoc-gen-go-grpc"),
        shell="sh",
    ),
    "java": Language(
        "Java",
        EXAMPLES / "java",
        EXAMPLES / "java" / "run.sh",
        ("java", "javac", "jar", "protoc", "grpc_java_plugin"),
        concurrency=6,
    ),
    "node": Language(
        "Node", EXAMPLES / "node", EXAMPLES / "node" / "run.sh", ("node", "npm"), concurrency=3
    ),
    "ruby": Language(
        "Ruby",
        EXAMPLES / "ruby",
        EXAMPLES / "ruby" / "run.sh",
        ("ruby", "grpc_tools_ruby_protoc"),
        concurrency=3,
    ),
}


def unavailable(lang: str, why: str) -> None:
    message = f"{LANGUAGES[lang].label} bot: {why}"
    if UNDER_CI:
        pytest.fail(f"{message} (CI must build and test it)")
    pytest.skip(message)


def run_build(lang: str, *args: str) -> subprocess.CompletedProcess[str]:
    language = LANGUAGES[lang]
    return subprocess.run(
        [language.shell, str(language.folder / "build.sh"), *args],
        capture_output=True,
        text=True,
        timeout=900,
        cwd=ROOT,
    )


def build_output(proc: subprocess.CompletedProcess[str]) -> str:
    return f"--- stdout ---\n{proc.stdout[-6000:]}\n--- stderr ---\n{proc.stderr[-6000:]}"


def build(lang: str) -> str:
    """Build the bot (build.sh is idempotent) and return the command that runs it."""
    language = LANGUAGES[lang]
    missing = [tool for tool in language.tools if shutil.which(tool) is None]
    if missing:
        unavailable(lang, f"{', '.join(missing)} not found (scripts/services installs them)")
    proc = run_build(lang)
    if proc.returncode == TOOLCHAIN_MISSING:
        unavailable(lang, f"the toolchain is incomplete:\n{build_output(proc)}")
    if proc.returncode != 0:
        pytest.fail(
            f"{language.folder}/build.sh failed (exit {proc.returncode}):\n" + build_output(proc)
        )
    assert os.access(language.command, os.X_OK), f"build.sh did not make {language.command}"
    return shlex.quote(str(language.command))


def copy_kit(lang: str, dest: Path, *, with_proto: bool = True) -> Path:
    """Copy a kit as a bot author would (without its build output) to ``dest/my-LANG-bot``."""
    skip = ["build", "node_modules"] + ([] if with_proto else ["proto"])
    folder = dest / f"my-{lang}-bot"
    shutil.copytree(LANGUAGES[lang].folder, folder, ignore=shutil.ignore_patterns(*skip))
    return folder


def build_copy(lang: str, folder: Path, **env: str) -> subprocess.CompletedProcess[str]:
    """Run a copied kit's own build.sh there (skips or fails, as ``build``, when the
    toolchain is missing)."""
    language = LANGUAGES[lang]
    missing = [tool for tool in language.tools if shutil.which(tool) is None]
    if missing:
        unavailable(lang, f"{', '.join(missing)} not found (scripts/services installs them)")
    proc = subprocess.run(
        [language.shell, str(folder / "build.sh")],
        capture_output=True,
        text=True,
        timeout=900,
        cwd=folder.parent,
        env={**os.environ, **env},
    )
    if proc.returncode == TOOLCHAIN_MISSING:
        unavailable(lang, f"the toolchain is incomplete:\n{build_output(proc)}")
    return proc


def python_bot(name: str, *args: str) -> str:
    """The command of a Python example bot."""
    script = EXAMPLES / "python" / name / "bot.py"
    return shlex.join([sys.executable, str(script), *args])


def passes_checks(command: str) -> dict[str, Check]:
    """Run the compliance suite; fail on any failed check; return the checks by name."""
    checks = asyncio.run(run_checks(Command(command)))
    for c in checks:
        print(f"{'ok  ' if c.ok else 'FAIL'} {c.name}: {c.detail}")
    failed = [c for c in checks if not c.ok]
    assert not failed, "failed checks:\n" + "\n".join(f"{c.name}: {c.detail}" for c in failed)
    return {c.name: c for c in checks}


# the detail of a passed "takes batches" check of a bot that asked for batches
TOOK_BATCHES = re.compile(r"(\d+) requests in (\d+) batches \(up to (\d+) at once\)")


def largest_batch(checks: dict[str, Check]) -> int:
    """The most requests one batch carried in the suite's concurrent games (the bot asked
    for batches, and answered every one in time and legally)."""
    detail = checks["takes batches"].detail
    m = TOOK_BATCHES.search(detail)
    assert m, f"the bot did not take batches: {detail}"
    return int(m[3])


def assert_batch_answered_in_one_message(t: Transcript) -> None:
    """The bot asked for batches, answered the batch of the scripted arena with one
    BotMessage{answers} (each request once, legally, no error), the lone request after it
    with one BotMessage{answer}, and left after the goodbye."""
    assert t.hello.batches and t.batched, t.hello
    assert t.hello.protocol_version == 1
    kinds = [m.WhichOneof("msg") for m in t.replies]
    assert kinds == ["answers", "answer"], f"{kinds}\n{t.output[-2000:]}"
    batch, lone = t.replies
    ids = sorted(a.request_id for a in batch.answers.answers)
    assert ids == [r.request_id for r in t.requests[:-1]], ids
    for a in [*batch.answers.answers, lone.answer]:
        assert a.error == "", a
        assert 0 <= a.option_index < t.options(a.request_id), a
    assert lone.answer.request_id == t.requests[-1].request_id
    assert t.exit_code == 0, t.output[-2000:]


def assert_one_answer_per_request(t: Transcript) -> None:
    """Batches off (ARENA_BATCHES=0): the hello did not ask for them, and each request,
    sent alone, got one BotMessage{answer} to it, legal and without error."""
    assert not t.hello.batches and not t.batched
    assert [m.WhichOneof("msg") for m in t.replies] == ["answer"] * len(t.requests)
    for m, r in zip(t.replies, t.requests, strict=True):
        assert m.answer.request_id == r.request_id and m.answer.error == ""
        assert 0 <= m.answer.option_index < len(r.options)
    assert t.exit_code == 0, t.output[-2000:]


def scripted(command: str, *, batches: bool) -> Transcript:
    """The scripted arena's conversation with the bot, with batches on (its default) or off."""
    return converse(command) if batches else converse(command, ARENA_BATCHES="0")


def play_python_bots(
    name: str,
    command: str,
    *,
    variant: str,
    seed: int,
    brutal: bool = False,
    concurrency: int = 16,
    games: int = 6,
) -> MatchResult:
    """``games`` games of the bot against the ev and threshold Python bots, ``concurrency``
    at once: no fault, all complete."""
    spec = MatchSpec(
        bots=[
            BotEntry(name, Command(command, cwd=str(ROOT))),
            BotEntry("ev", Command(python_bot("ev"), cwd=str(ROOT))),
            BotEntry("threshold", Command(python_bot("threshold"), cwd=str(ROOT))),
        ],
        games=games,
        seed=seed,
        variant=variant,
        brutal=brutal,
        concurrency=concurrency,
    )
    result = asyncio.run(run_match(spec))
    faults = [
        f"{g.game_id} seat {f.seat}: {f.kind} {f.detail}" for g in result.games for f in g.faults
    ]
    log = str(result.logs.get(name, ""))[-3000:]
    assert not faults, "faults:\n" + "\n".join(faults) + f"\n--- {name} bot log ---\n{log}"
    assert len(result.games) == games
    assert all(g.status == "completed" for g in result.games), [g.status for g in result.games]
    return result


def plays_16_games_at_once(name: str, command: str, *, seed: int) -> MatchResult:
    """16 Vengeance games at once against the Python bots, without a fault; every request to
    the bot went out in a batch message."""
    result = play_python_bots(name, command, variant="vengeance", seed=seed, games=16)
    stats = result.link_stats[name]
    assert stats["takes_batches"], stats
    assert stats["batched_requests"] == stats["requests"] > 0, stats
    assert stats["answers"] == stats["requests"], stats
    assert all(name in g.seating for g in result.games)
    return result
