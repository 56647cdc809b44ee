"""What a bot build starts from, decided before anything is sent to the engine: the
Dockerfile's own FROM / ARG BASE default, the kit's language when BASE has no default,
``--base`` / ``--build-arg``, a one-line error naming a missing base with its offline
recipe, and the refusal of every image but the arena's bases, however the Dockerfile
names it (arena.runtime.dockerfile, arena.runtime.bases, arena.runtime.build.plan_build)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from arena.errors import UsageProblem
from arena.runtime.bases import BASES, how_to_get, kit_language
from arena.runtime.build import BaseImageMissing, ForeignImage, plan_build
from arena.runtime.dockerfile import Dockerfile, DockerfileError, builder_flags, foreign_images

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
        plan_build(kit, any_base=True)
    assert "flip7/absent-base:latest is not here" in str(err.value)
    assert "\n" not in str(err.value)
    plan = plan_build(kit, base="flip7/python-base:latest")
    assert plan.build_args == {"BASE": "flip7/python-base:latest"}
    with pytest.raises(UsageProblem, match="name different images"):
        plan_build(kit, base="a:1", build_args={"BASE": "b:2"}, any_base=True)


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


# ---------------------------------------------------------------------------- foreign images
VICTIM = "flip7-bot/victim:v1"
BASE = "flip7/python-base:latest"

# every way a Dockerfile can name another image: each must be refused before the build
FOREIGN = {
    "FROM": f"FROM {VICTIM}\n",
    "COPY --from": f"FROM {BASE}\nCOPY --from={VICTIM} /bot/bot.py .\nRUN cat bot.py\n",
    "ARG default in FROM": f"ARG X={VICTIM}\nFROM $X\n",
    "ARG built from ARGs": "ARG R=flip7-bot\nARG X=${R}/victim:v1\nFROM ${X}\n",
    "ARG in COPY --from": f"FROM {BASE}\nARG X={VICTIM}\nCOPY --from=$X /a /b\n",
    "global ARG in COPY --from": f"ARG X={VICTIM}\nFROM {BASE}\nCOPY --from=${{X}} /a /b\n",
    "RUN --mount from": (
        f"FROM {BASE}\nRUN --mount=type=bind,from={VICTIM},target=/v cat /v/bot/bot.py\n"
    ),
    "RUN --mount from, quoted": f'FROM {BASE}\nRUN --mount="type=cache,from={VICTIM}" true\n',
    "ONBUILD COPY --from": f"FROM {BASE}\nONBUILD COPY --from={VICTIM} /a /b\n",
    "a digest": f"FROM {BASE.split(':')[0]}@sha256:{'a' * 64}\n",
    "an image id": f"FROM {BASE}\nCOPY --from=sha256:{'b' * 64} /a /b\n",
    "docker.io/ prefix": f"FROM docker.io/{VICTIM}\n",
    "upper case": "FROM FLIP7-BOT/VICTIM:V1\n",
    "a stage named like the image's name": f"FROM {VICTIM} AS victim\nFROM victim\n",
    "a stage defined later": f"FROM {BASE}\nCOPY --from=later /a /b\nFROM {BASE} AS later\n",
    "a stage index not yet built": f"FROM {BASE}\nCOPY --from=1 /a /b\nFROM {BASE}\n",
    "a flag split by a continuation": f"FROM {BASE}\nCOPY --fr\\\nom={VICTIM} /a /b\n",
    "a quoted flag name": f'FROM {BASE}\nCOPY --fr"om"={VICTIM} /a /b\n',
    "an escaped flag name": f"FROM {BASE}\nCOPY --fr\\om={VICTIM} /a /b\n",
    "a tab after the keyword": f"FROM {BASE}\nFROM\t{VICTIM}\n",
    "lower-case keyword": f"from {BASE}\ncopy --from={VICTIM} /a /b\n",
    "hidden by the other escape": f"# escape=`\nFROM {BASE}\nRUN echo \\\nFROM {VICTIM}\n",
    "hidden by a byte-order mark": f"\ufeff# escape=`\nFROM {BASE}\nRUN echo `\nFROM {VICTIM}\n",
}
NOT_READ = {  # what the arena will not try to read as the engine would
    "a syntax directive": (f"# syntax=docker/dockerfile:1\nFROM {BASE}\n", "syntax="),
    "another frontend": (f"#syntax={VICTIM}\nFROM {BASE}\n", "another Dockerfile frontend"),
    "a control character": (f"FROM {BASE}\nRUN echo \\\n\x1c# x\nFROM {VICTIM}\n", "ASCII"),
    "non-ASCII": (f"FROM {BASE}\nRUN echo \u2028FROM {VICTIM}\n", "ASCII"),
}


@pytest.mark.parametrize("form", list(FOREIGN))
def test_each_way_of_naming_another_image_is_found(form: str) -> None:
    refs = foreign_images(FOREIGN[form], lambda image: image in (BASE, "scratch"))
    assert refs, form
    assert all(r.image != BASE for r in refs)


@pytest.mark.parametrize("form", list(FOREIGN))
def test_plan_refuses_each_in_one_line_naming_the_image_and_the_bases(
    form: str, tmp_path: Path
) -> None:
    kit = _kit(tmp_path / "k", FOREIGN[form], "bot.py")
    with pytest.raises(ForeignImage) as err:
        plan_build(kit, client=object())  # refused before the engine is asked anything
    line = str(err.value)
    assert "\n" not in line and "not one of the arena's bases" in line, line
    for base in ("flip7/python-base:latest", "flip7/node-base:latest", "scratch"):
        assert base in line
    if form in ("FROM", "COPY --from", "ARG default in FROM", "RUN --mount from"):
        assert VICTIM in line


@pytest.mark.parametrize("form", list(NOT_READ))
def test_what_the_engine_might_read_otherwise_is_refused(form: str, tmp_path: Path) -> None:
    text, says = NOT_READ[form]
    kit = _kit(tmp_path / "k", text, "bot.py")
    with pytest.raises(ForeignImage, match=says) as err:
        plan_build(kit, client=object())
    assert "\n" not in str(err.value)


def test_a_build_argument_naming_another_image_is_refused(tmp_path: Path) -> None:
    kit = _kit(tmp_path / "k", f"ARG BASE={BASE}\nFROM ${{BASE}}\n", "bot.py")
    with pytest.raises(ForeignImage, match=VICTIM):
        plan_build(kit, base=VICTIM, client=object())
    with pytest.raises(ForeignImage, match=VICTIM):
        plan_build(kit, build_args={"BASE": VICTIM}, client=object())


def test_a_dockerfile_that_is_a_symlink_is_refused(tmp_path: Path) -> None:
    (tmp_path / "elsewhere").write_text(f"FROM {BASE}\n")
    kit = tmp_path / "k"
    kit.mkdir()
    (kit / "Dockerfile").symlink_to(tmp_path / "elsewhere")
    with pytest.raises(UsageProblem, match="symbolic link"):
        plan_build(kit, client=object())


def test_the_arenas_bases_stages_and_scratch_are_read_freely() -> None:
    text = (
        "ARG REG=flip7\nARG BASE=${REG}/python-base:latest\nFROM ${BASE} AS build\n"
        "RUN --mount=type=cache,target=/c true\n"
        "FROM docker.io/flip7/node-base AS node\n"
        "FROM scratch\nCOPY --from=build /a /a\nCOPY --from=BUILD /a /a\nCOPY --from=0 /b /b\n"
        "COPY --from=flip7/java-base:latest /c /c\n"
    )
    assert foreign_images(text, lambda i: i in (BASE, "scratch")) != []  # node, java
    from arena.runtime.bases import is_uploadable_base

    assert foreign_images(text, is_uploadable_base) == []
    for kit in ("python/ev", "python/threshold", "python/random", "node", "cpp", "java", "go"):
        text = (EXAMPLES / kit / "Dockerfile").read_text()
        assert foreign_images(text, is_uploadable_base) == [], kit


def test_builder_flags_are_read_as_the_engine_reads_them() -> None:
    assert builder_flags('--chown=1:1 --fr"om"=a\\ b /x /y') == (
        ["--chown=1:1", "--from=a b"],
        "/x /y",
    )
    assert builder_flags("-- --from=x /a") == ([], "--from=x /a")
    assert builder_flags("/a /b") == ([], "/a /b")
