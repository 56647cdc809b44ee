"""What the tests of the example bots in other languages share: build a bot once, run the
compliance suite on it, and play it against the Python example bots.

A missing toolchain skips locally and fails under CI (CI=true): CI must build and test
every language. A build that fails for any other reason always fails.
"""

from __future__ import annotations

import asyncio
import os
import shlex
import shutil
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

import pytest
from hostkit import UNDER_CI

from arena.bots import Command
from arena.check import run_checks
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
    ),
    "node": Language("Node", EXAMPLES / "node", EXAMPLES / "node" / "run.sh", ("node", "npm")),
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


def python_bot(name: str, *args: str) -> str:
    """The command of a Python example bot."""
    script = EXAMPLES / "python" / name / "bot.py"
    return shlex.join([sys.executable, str(script), *args])


def check_names(command: str) -> set[str]:
    """Run the compliance suite; fail on any failed check; return the checks' names."""
    checks = asyncio.run(run_checks(Command(command)))
    for c in checks:
        print(f"{'ok  ' if c.ok else 'FAIL'} {c.name}: {c.detail}")
    failed = [c for c in checks if not c.ok]
    assert not failed, "failed checks:\n" + "\n".join(f"{c.name}: {c.detail}" for c in failed)
    return {c.name for c in checks}


def play_python_bots(
    name: str,
    command: str,
    *,
    variant: str,
    seed: int,
    brutal: bool = False,
    concurrency: int = 16,
) -> MatchResult:
    """Six games of the bot against the ev and threshold Python bots: no fault, all complete."""
    spec = MatchSpec(
        bots=[
            BotEntry(name, Command(command, cwd=str(ROOT))),
            BotEntry("ev", Command(python_bot("ev"), cwd=str(ROOT))),
            BotEntry("threshold", Command(python_bot("threshold"), cwd=str(ROOT))),
        ],
        games=6,
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
    assert len(result.games) == 6
    assert all(g.status == "completed" for g in result.games), [g.status for g in result.games]
    return result
