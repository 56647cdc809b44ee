"""`arena bot submit` as a bot author runs it (the CLI in a subprocess, a real Docker engine):
it builds on the Dockerfile's own base, says in one line which base is missing and how to
build it, passes --base and --build-arg to the build, runs the compliance suite and
registers only a bot that passes it, pinned by image id."""

from __future__ import annotations

import inspect
import json
import re
import shutil
import subprocess
import uuid
from pathlib import Path
from typing import Any

import pytest
from arenacli import run_arena

from arena.runtime.build_sandbox import BuildLimits

ROOT = Path(__file__).resolve().parents[2]
EXAMPLES = ROOT / "bots" / "examples"
PYTHON_BASE = "flip7/python-base:latest"
TINY_BOT = "from arena.sdk import run\n\nrun(lambda req: 0, name='first-option')\n"


def arena(*args: str, db: Path, timeout: float = 600) -> subprocess.CompletedProcess[str]:
    return run_arena(*args, "--db", f"sqlite:///{db}", timeout=timeout)


def registered(db: Path) -> dict[str, Any]:
    r = arena("bot", "list", "--json", db=db)
    assert r.returncode == 0, r.stderr
    return {b["name"]: b for b in json.loads(r.stdout)}


def _one_error_line(stderr: str) -> str:
    lines = [ln for ln in stderr.splitlines() if ln.strip()]
    assert len(lines) == 1 and lines[0].startswith("error: "), stderr
    assert "Traceback" not in stderr
    return lines[0]


def _remove(client: Any, *tags: str) -> None:
    for tag in tags:
        try:
            client.api.remove_image(tag)
        except Exception:
            pass


@pytest.mark.timeout(600)
def test_the_python_kit_copied_elsewhere_builds_on_the_python_base_and_is_pinned_by_id(
    images: dict[str, str], docker_engine: Any, tmp_path: Path
) -> None:
    kit = tmp_path / "my-ev"
    shutil.copytree(EXAMPLES / "python" / "ev", kit)
    name = f"ev-{uuid.uuid4().hex[:6]}"
    r = arena("bot", "submit", str(kit), "--name", name, "--json", db=tmp_path / "a.db")
    assert r.returncode == 0, r.stderr
    data = json.loads(r.stdout)
    try:
        assert data["base"] == [PYTHON_BASE]
        assert data["checked"] and data["registered"] and data["version"] == 1
        assert all(c["ok"] for c in data["checks"]) and len(data["checks"]) >= 10
        image = docker_engine.api.inspect_image(data["image"])
        assert image["Id"] == data["digest"]  # registered by the id the tag points at now
        base_layers = docker_engine.api.inspect_image(PYTHON_BASE)["RootFS"]["Layers"]
        assert image["RootFS"]["Layers"][: len(base_layers)] == base_layers
        bots = registered(tmp_path / "a.db")
        assert bots[name]["runtime"] == "docker" and bots[name]["version"] == 1
    finally:
        _remove(docker_engine, data["image"])


@pytest.mark.timeout(300)
def test_a_kit_whose_base_is_missing_gets_one_line_naming_it(
    images: dict[str, str], tmp_path: Path
) -> None:
    absent = f"flip7/absent-{uuid.uuid4().hex[:8]}:latest"
    kit = tmp_path / "kit"
    kit.mkdir()
    (kit / "Dockerfile").write_text(f"ARG BASE={absent}\nFROM ${{BASE}}\nCOPY bot.py /bot/\n")
    (kit / "bot.py").write_text(TINY_BOT)
    args = ("bot", "submit", str(kit), "--name", "needs-base", "--allow-any-base")
    r = arena(*args, db=tmp_path / "a.db")
    assert r.returncode == 2
    line = _one_error_line(r.stderr)
    assert f"its base image {absent} is not here" in line and "never pulls" in line
    assert registered(tmp_path / "a.db") == {}


@pytest.mark.timeout(300)
def test_base_and_build_args_reach_the_build(
    images: dict[str, str], docker_engine: Any, tmp_path: Path
) -> None:
    kit = tmp_path / "kit"
    kit.mkdir()
    (kit / "Dockerfile").write_text(
        "ARG BASE=flip7/absent-base:latest\nFROM ${BASE}\nARG GREETING=unset\n"
        "LABEL greeting=${GREETING}\nCOPY bot.py /bot/bot.py\n"
        'ENTRYPOINT ["python", "/bot/bot.py"]\n'
    )
    (kit / "bot.py").write_text(TINY_BOT)
    greeting = f"hello-{uuid.uuid4().hex[:8]}"
    db = tmp_path / "a.db"
    args = ("bot", "submit", str(kit), "--name", "greeter", "--skip-check", "--json")
    r = arena(*args, "--base", PYTHON_BASE, "--build-arg", f"GREETING={greeting}", db=db)
    assert r.returncode == 0, r.stderr
    data = json.loads(r.stdout)
    try:
        assert data["base"] == [PYTHON_BASE] and not data["checked"] and data["registered"]
        labels = docker_engine.api.inspect_image(data["digest"])["Config"]["Labels"]
        assert labels["greeting"] == greeting
    finally:
        _remove(docker_engine, data["image"])
    bad = arena(*args, "--build-arg", "NOVALUE", db=db)
    assert bad.returncode == 2 and "KEY=VALUE" in _one_error_line(bad.stderr)
    go = arena("bot", "submit", str(EXAMPLES / "go"), "--name", "go", "--base", "x:1", db=db)
    assert go.returncode == 2 and "takes no BASE build argument" in _one_error_line(go.stderr)
    assert set(registered(db)) == {"greeter"}


@pytest.mark.timeout(600)
def test_a_bot_that_fails_the_compliance_check_is_not_registered(
    images: dict[str, str], docker_engine: Any, tmp_path: Path
) -> None:
    kit = tmp_path / "quitter"
    kit.mkdir()
    (kit / "Dockerfile").write_text(
        f"FROM {PYTHON_BASE}\nUSER 10001:10001\n"
        'ENTRYPOINT ["python", "-c", "import sys; sys.exit(3)"]\n'
    )
    db = tmp_path / "a.db"
    r = arena("bot", "submit", str(kit), "--name", "quitter", db=db)
    try:
        assert r.returncode == 1
        assert "FAIL connects:" in r.stderr and "bot exit code 3" in r.stderr
        last = r.stderr.strip().splitlines()[-1]
        assert last.startswith("error: quitter was not registered: ") and "--skip-check" in last
        kept = re.search(r"the image stays as (flip7-bot/build-[0-9a-f]+:latest)", last)
        assert kept is not None, last  # a random tag, never the bot's name
        _remove(docker_engine, kept.group(1))
        assert "quitter" not in registered(db)
        # documented escape hatch: registered anyway, unchecked
        forced = arena("bot", "submit", str(kit), "--name", "quitter", "--skip-check", db=db)
        assert forced.returncode == 0, forced.stderr
        assert registered(db)["quitter"]["version"] == 1
    finally:
        for bot in registered(db).values():
            _remove(docker_engine, bot["digest"])


@pytest.mark.timeout(300)
def test_a_build_past_its_timeout_ends_in_one_line(
    images: dict[str, str], docker_engine: Any, tmp_path: Path
) -> None:
    kit = tmp_path / "sleeper"
    kit.mkdir()
    (kit / "Dockerfile").write_text(f"FROM {PYTHON_BASE}\nRUN sleep 300 # {uuid.uuid4().hex}\n")
    db = tmp_path / "a.db"
    r = arena("bot", "submit", str(kit), "--name", "sleeper", "--build-timeout", "3", db=db)
    assert r.returncode == 1
    line = _one_error_line(r.stderr)
    assert "timeout of 3 s (--build-timeout)" in line and "nothing of it was kept" in line
    assert registered(db) == {}


def test_submit_states_the_sandbox_defaults_it_uses() -> None:
    """The CLI's defaults are the sandbox's (one set of numbers in --help and the code)."""
    from arena.cli.bots import bot_submit

    defaults = {p.name: p.default for p in inspect.signature(bot_submit).parameters.values()}
    limits = BuildLimits()
    assert defaults["network"] == limits.network == "none"
    assert defaults["memory"] == limits.memory
    assert defaults["cpus"] == limits.cpus
    assert defaults["pids"] == limits.pids
    assert defaults["timeout"] == limits.timeout
    assert defaults["max_context"] == limits.max_context
    assert defaults["max_image"] == limits.max_image
    doc = " ".join((bot_submit.__doc__ or "").split())
    assert f"{limits.memory} of memory without swap" in doc and "no network" in doc
    assert f"{limits.pids} processes" in doc and f"{limits.timeout:g} s" in doc


@pytest.mark.timeout(600)
def test_the_operator_builds_from_another_local_image_only_with_allow_any_base(
    images: dict[str, str], docker_engine: Any, tmp_path: Path
) -> None:
    """Like an upload, ``bot submit`` reads only the arena's bases by default; the operator
    may allow any local image explicitly. A registered image is tagged by the bot's id."""
    other = images["ev"]  # a local image that is not one of the bases
    kit = tmp_path / "on-ev"
    kit.mkdir()
    (kit / "Dockerfile").write_text(f"FROM {other}\nLABEL derived=yes\n")
    db = tmp_path / "a.db"
    args = ("bot", "submit", str(kit), "--name", "derived", "--skip-check", "--json")
    refused = arena(*args, db=db)
    assert refused.returncode == 2
    line = _one_error_line(refused.stderr)
    assert f"FROM {other!r} reads an image that is not one of the arena's bases" in line
    assert PYTHON_BASE in line and "scratch" in line
    assert registered(db) == {}
    allowed = arena(*args, "--allow-any-base", db=db)
    assert allowed.returncode == 0, allowed.stderr
    data = json.loads(allowed.stdout)
    try:
        bot = registered(db)["derived"]
        assert data["image"] == bot["image"] and re.fullmatch(r"flip7-bot/bot-\d+:v1", bot["image"])
        assert docker_engine.api.inspect_image(bot["image"])["Id"] == bot["digest"]
        assert data["base"] == [other]
    finally:
        _remove(docker_engine, data["digest"])


def test_submit_help_states_the_allowed_bases_and_the_flag() -> None:
    r = run_arena("bot", "submit", "--help", timeout=60)
    assert r.returncode == 0
    text = " ".join(r.stdout.split())
    assert "--allow-any-base" in text
    for base in ("flip7/python-base", "flip7/node-base", "flip7/cpp-base", "flip7/java-base"):
        assert base in text
