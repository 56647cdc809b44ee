"""Starter kits work when copied: each kit, copied (as a bot author would, without its
build output) to a folder outside the repository, builds there with its own build.sh from
its own copy of the protocol; the copied Node bot plays, and `arena bot submit` of the
copied Node kit builds it on the Node base its Dockerfile names and registers it.

A missing toolchain skips locally and fails under CI (tests/polyglot/kit.py); so does a
missing Docker engine, or an offline Node base that cannot be built.
"""

from __future__ import annotations

import json
import os
import shlex
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from hostkit import docker_client
from kit import (
    LANGUAGES,
    ROOT,
    UNDER_CI,
    build_copy,
    build_output,
    copy_kit,
    play_python_bots,
)

PROTO_MISSING = 4  # every build.sh exits 4 when it finds no protocol file
NODE_BASE = "flip7/node-base:latest"


@pytest.fixture(scope="module")
def outside(tmp_path_factory: pytest.TempPathFactory) -> Path:
    where = tmp_path_factory.mktemp("copied-kits").resolve()
    assert ROOT not in where.parents, "the copies must live outside the repository"
    return where


@pytest.fixture(scope="module")
def copied(outside: Path) -> dict[str, Path]:
    """language -> its copied and built kit (filled in by the build test)."""
    return {}


@pytest.mark.timeout(900)
@pytest.mark.parametrize("lang", ["node", "cpp", "go", "java", "ruby"])
def test_a_kit_copied_out_of_the_repository_builds_there(
    lang: str, outside: Path, copied: dict[str, Path]
) -> None:
    folder = copy_kit(lang, outside)
    proc = build_copy(lang, folder)
    assert proc.returncode == 0, f"{folder}/build.sh failed:\n{build_output(proc)}"
    command = folder / LANGUAGES[lang].command.relative_to(LANGUAGES[lang].folder)
    assert os.access(command, os.X_OK), f"build.sh did not make {command}"
    # nothing of the repository took part: not its proto, not its build trees
    assert str(ROOT) not in proc.stdout + proc.stderr, build_output(proc)
    copied[lang] = folder


@pytest.mark.timeout(600)
def test_the_copied_node_bot_plays_a_match(outside: Path, copied: dict[str, Path]) -> None:
    folder = copied.get("node") or copy_kit("node", outside / "again")
    if "node" not in copied:
        assert build_copy("node", folder).returncode == 0
    run = shlex.quote(str(folder / "run.sh"))
    result = play_python_bots("node-copy", run, variant="vengeance", seed=11, concurrency=3)
    assert all("node-copy" in g.seating for g in result.games)
    assert result.decisions > 0


@pytest.mark.timeout(300)
@pytest.mark.parametrize("lang", ["node", "cpp", "go", "java", "ruby"])
def test_a_kit_without_its_proto_says_where_it_looked(lang: str, outside: Path) -> None:
    folder = copy_kit(lang, outside / "no-proto", with_proto=False)
    proc = build_copy(lang, folder)
    assert proc.returncode == PROTO_MISSING, build_output(proc)
    assert f"no protocol file at {folder}/proto/arena/v1/arena.proto" in proc.stderr, proc.stderr


@pytest.mark.timeout(300)
def test_a_kit_without_its_proto_builds_from_one_named_explicitly(outside: Path) -> None:
    folder = copy_kit("node", outside / "named-proto", with_proto=False)
    proto = ROOT / "protos" / "arena" / "v1" / "arena.proto"
    proc = build_copy("node", folder, ARENA_PROTO=str(proto))
    assert proc.returncode == 0, build_output(proc)
    assert f"proto: {proto}" in proc.stdout


def _docker() -> Any:
    return docker_client("test bot submit of a copied kit")


def _node_base(client: Any) -> None:
    """The offline Node base (docker/base-image/build.sh with EXTRA_PACKAGES=nodejs),
    built once when the engine lacks it."""
    try:
        client.images.get(NODE_BASE)
        return
    except Exception:
        pass
    script = ROOT / "docker" / "base-image" / "build.sh"
    r = subprocess.run(
        ["bash", str(script), NODE_BASE],
        capture_output=True,
        text=True,
        timeout=1800,
        check=False,
        env={**os.environ, "EXTRA_PACKAGES": "nodejs"},
    )
    if r.returncode != 0:
        message = f"cannot build {NODE_BASE} with {script}:\n{r.stderr[-3000:]}"
        if UNDER_CI:
            pytest.fail(message)
        pytest.skip(message)


@pytest.mark.timeout(2400)
def test_the_copied_node_kit_is_submitted_on_the_node_base(
    outside: Path, copied: dict[str, Path]
) -> None:
    client = _docker()
    folder = copied.get("node") or copy_kit("node", outside / "submit")
    if "node" not in copied:
        assert build_copy("node", folder).returncode == 0
    _node_base(client)
    db = outside / "submit.db"
    submit = ["bot", "submit", str(folder), "--name", "node-copy", "--json"]
    r = subprocess.run(
        [sys.executable, "-m", "arena", *submit, "--db", f"sqlite:///{db}"],
        capture_output=True,
        text=True,
        timeout=900,
        cwd=outside,
        check=False,
    )
    assert r.returncode == 0, r.stderr
    data = json.loads(r.stdout)
    try:
        assert data["base"] == [NODE_BASE]
        assert data["registered"] and all(c["ok"] for c in data["checks"])
        assert client.api.inspect_image(data["image"])["Id"] == data["digest"]
    finally:
        client.api.remove_image(data["image"])
