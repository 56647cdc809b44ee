"""What a bot build starts from, decided before anything is sent to the engine: the
Dockerfile's own FROM / ARG BASE default, the kit's language when BASE has no default,
``--base`` / ``--build-arg``, and a one-line error naming a missing base with its offline
recipe (arena.runtime.dockerfile, arena.runtime.bases, arena.runtime.build.plan_build)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from arena.errors import UsageProblem
from arena.runtime.bases import BASES, how_to_get, kit_language
from arena.runtime.build import BaseImageMissing, plan_build
from arena.runtime.dockerfile import Dockerfile, DockerfileError

ROOT = Path(__file__).resolve().parents[2]
EXAMPLES = ROOT / "bots" / "examples"


# ---------------------------------------------------------------------------- parsing
def test_from_takes_the_global_arg_default_unless_a_build_argument_overrides_it() -> None:
    df = Dockerfile.parse("ARG BASE=flip7/node-base:latest\nFROM ${BASE}\nARG LATER=x\n")
    assert df.external_images() == ["flip7/node-base:latest"]
    assert df.external_images({"BASE": "node:20-slim"}) == ["node:20-slim"]
    assert df.global_args == {"BASE": "flip7/node-base:latest"}
    assert df.declared_args == {"BASE", "LATER"}
    assert df.uses_arg_in_from("BASE") and not df.uses_arg_in_from("LATER")


def test_the_builder_grammar_continuations_comments_escape_and_default_forms() -> None:
    text = (
        "# escape=`\n"
        "# a comment\n"
        "ARG REG=\n"
        "ARG NAME=bot-base\n"
        "FROM ${REG:-local}/$NAME:v1 `\n"
        "  # a comment inside the instruction\n"
        "  AS build\n"
        "FROM build\n"
        "COPY --from=build /a /a\n"
        "COPY --chown=1:1 --from=tools/linter:2 /lint /lint\n"
        "FROM scratch\n"
    )
    df = Dockerfile.parse(text)
    stages = df.stages()
    assert [s.image for s in stages] == ["local/bot-base:v1", "build", "scratch"]
    assert stages[0].name == "build" and stages[0].line == 5
    # earlier stages and scratch are not images; COPY --from=IMAGE is
    assert df.external_images() == ["local/bot-base:v1", "tools/linter:2"]
    assert df.external_images({"REG": "reg.example:5000"}) == [
        "reg.example:5000/bot-base:v1",
        "tools/linter:2",
    ]


def test_remote_add_sources_are_found_in_both_forms() -> None:
    df = Dockerfile.parse(
        'FROM a\nADD --chown=1 https://x.example/a.tgz /a\nADD ["http://y.example/b", "/b"]\n'
        "ADD local.tgz /c\nCOPY https-not-a-url /d\n"
    )
    assert df.remote_sources() == ["https://x.example/a.tgz", "http://y.example/b"]


def test_a_dockerfile_without_from_or_with_a_bad_arg_is_an_error() -> None:
    with pytest.raises(DockerfileError, match="no FROM"):
        Dockerfile.parse("# nothing\nRUN true\n")
    with pytest.raises(DockerfileError, match="bad ARG name"):
        Dockerfile.parse("ARG 9lives=1\nFROM a\n")


def test_every_example_kit_names_its_base_the_way_submit_will_read_it() -> None:
    wanted = {
        "python/ev": ["flip7/python-base:latest"],
        "python/threshold": ["flip7/python-base:latest"],
        "python/random": ["flip7/python-base:latest"],
        "node": ["flip7/node-base:latest"],
        "cpp": ["flip7/cpp-base:latest"],
        "java": ["flip7/java-base:latest"],
        "go": [],  # FROM scratch: nothing to have
    }
    for kit, images in wanted.items():
        df = Dockerfile.parse((EXAMPLES / kit / "Dockerfile").read_text())
        assert df.external_images() == images, kit


# ---------------------------------------------------------------------------- bases
def test_each_kit_language_is_told_from_its_files() -> None:
    assert kit_language(EXAMPLES / "node") == "node"
    assert kit_language(EXAMPLES / "cpp") == "cpp"
    assert kit_language(EXAMPLES / "go") == "go"
    assert kit_language(EXAMPLES / "java") == "java"
    assert kit_language(EXAMPLES / "python" / "ev") == "python"


def test_a_missing_offline_base_is_explained_with_its_recipe() -> None:
    node = how_to_get("flip7/node-base")  # :latest implied
    assert "EXTRA_PACKAGES=nodejs bash " in node and "docker/base-image/build.sh" in node
    assert node.endswith("build.sh flip7/node-base:latest")
    java = how_to_get("flip7/java-base:latest")
    assert f"EXTRA_PACKAGES={BASES['java'].extra_packages} " in java
    python = how_to_get("flip7/python-base:latest")
    assert "EXTRA_PACKAGES" not in python and python.endswith("build.sh")
    assert "docker load" in how_to_get("someone/else:1")


# ---------------------------------------------------------------------------- planning
def _kit(tmp: Path, dockerfile: str, *files: str) -> Path:
    tmp.mkdir(parents=True, exist_ok=True)
    (tmp / "Dockerfile").write_text(dockerfile)
    for f in files:
        (tmp / f).write_text("")
    return tmp


def test_plan_keeps_the_dockerfiles_default_and_lets_base_override_it(
    images: dict[str, str], tmp_path: Path
) -> None:
    plan = plan_build(EXAMPLES / "python" / "ev")
    assert plan.build_args == {} and plan.bases == ("flip7/python-base:latest",)
    kit = _kit(tmp_path / "k", "ARG BASE=flip7/absent-base:latest\nFROM ${BASE}\n", "bot.py")
    with pytest.raises(BaseImageMissing) as err:
        plan_build(kit)
    assert "flip7/absent-base:latest is not here" in str(err.value)
    assert "\n" not in str(err.value)
    plan = plan_build(kit, base="flip7/python-base:latest")
    assert plan.build_args == {"BASE": "flip7/python-base:latest"}
    with pytest.raises(UsageProblem, match="name different images"):
        plan_build(kit, base="a:1", build_args={"BASE": "b:2"})


def test_a_base_without_default_is_the_offline_base_of_the_kits_language(
    images: dict[str, str], tmp_path: Path
) -> None:
    py = _kit(tmp_path / "py", "ARG BASE\nFROM ${BASE}\n", "bot.py")
    plan = plan_build(py)
    assert plan.build_args == {"BASE": "flip7/python-base:latest"}
    assert plan.note is not None and "python kit" in plan.note
    node = _kit(tmp_path / "node", "ARG BASE\nFROM ${BASE}\n", "package.json", "bot.js")
    try:
        plan = plan_build(node)
    except BaseImageMissing as e:  # not built here: named, with its recipe
        assert "flip7/node-base:latest" in str(e) and "EXTRA_PACKAGES=nodejs" in str(e)
    else:
        assert plan.build_args == {"BASE": "flip7/node-base:latest"}
    unknown = _kit(
        tmp_path / "unknown", "ARG BASE\nFROM ${BASE}\n", "bot.pl"
    )  # a language without a kit
    with pytest.raises(UsageProblem, match="give --base IMAGE"):
        plan_build(unknown)


def test_base_for_a_dockerfile_that_takes_none_is_refused(docker_engine: Any) -> None:
    with pytest.raises(
        UsageProblem, match=r"takes no BASE build argument \(it starts FROM scratch"
    ):
        plan_build(EXAMPLES / "go", base="flip7/python-base:latest")
