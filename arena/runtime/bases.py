"""The bots' offline base images, one per starter-kit language, and how to build each.

Every base is made by ``docker/base-image/build.sh`` (debootstrap + ``docker import``, no
registry) with the Debian packages of its language runtime in ``EXTRA_PACKAGES``; the Go
kit needs none (its static binary runs ``FROM scratch``). :func:`kit_language` tells a
kit's language from its files, for Dockerfiles whose ``ARG BASE`` has no default.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

import arena

BUILD_SCRIPT = "docker/base-image/build.sh"
PYTHON_BASE = "flip7/python-base:latest"


@dataclass(frozen=True)
class OfflineBase:
    language: str
    image: str  # "scratch" when the kit needs no base at all
    extra_packages: str = ""  # Debian packages added to the Python base

    def recipe(self) -> str:
        """The command that builds this base without a registry."""
        env = f"EXTRA_PACKAGES={self.extra_packages} " if self.extra_packages else ""
        tag = "" if self.image == PYTHON_BASE else f" {self.image}"
        return f"{env}bash {_script()}{tag}"


BASES = {
    "python": OfflineBase("python", PYTHON_BASE),
    "node": OfflineBase("node", "flip7/node-base:latest", "nodejs"),
    "cpp": OfflineBase("cpp", "flip7/cpp-base:latest", "libgrpc++1.51,libprotobuf32"),
    "java": OfflineBase(
        "java",
        "flip7/java-base:latest",
        "default-jre-headless,libgrpc-java,libprotobuf-java,libnetty-java,"
        "libperfmark-java,libguava-java",
    ),
    "go": OfflineBase("go", "scratch"),
    "ruby": OfflineBase("ruby", "flip7/ruby-base:latest", "ruby,ruby-grpc"),
}

# what marks a kit's language, most specific first (a Node or C++ kit may carry a helper
# Python script; a Python kit has nothing but .py files)
_MARKERS: tuple[tuple[str, tuple[str, ...]], ...] = (
    ("node", ("package.json",)),
    ("cpp", ("CMakeLists.txt", "*.cpp", "*.cc", "*.cxx")),
    ("go", ("go.mod", "*.go")),
    ("java", ("*.java", "src/**/*.java", "build/*.jar", "*.jar")),
    ("ruby", ("Gemfile", "*.rb")),
    ("node", ("*.js", "*.mjs")),
    ("python", ("*.py", "requirements.txt", "pyproject.toml")),
)


def _script() -> str:
    """docker/base-image/build.sh of the arena's source tree, as the user can type it."""
    repo = Path(arena.__file__).resolve().parents[1]
    script = repo / BUILD_SCRIPT
    if not script.is_file():
        return BUILD_SCRIPT  # an installed arena: the path in its source repository
    try:
        rel = os.path.relpath(script)
    except ValueError:
        return str(script)
    return rel if not rel.startswith("..") else str(script)


def _same_image(a: str, b: str) -> bool:
    def norm(name: str) -> str:
        last = name.rsplit("/", 1)[-1]
        return name if ":" in last or "@" in last else f"{name}:latest"

    return norm(a) == norm(b)


def uploadable_bases() -> tuple[str, ...]:
    """The images a participant's build may start from (``FROM``, ``COPY --from``): the
    offline bases the server offers for its kits, and ``scratch``."""
    return tuple(dict.fromkeys(base.image for base in BASES.values()))


def canonical_image(name: str) -> str:
    """``name`` as the engine resolves it locally: Docker Hub's implied prefixes dropped
    (``docker.io/``, ``index.docker.io/``, ``library/``) and ``:latest`` implied."""
    for prefix in ("docker.io/", "index.docker.io/"):
        if name.startswith(prefix):
            name = name[len(prefix) :]
            break
    name = name.removeprefix("library/")
    last = name.rsplit("/", 1)[-1]
    return name if ":" in last or "@" in last else f"{name}:latest"


def is_uploadable_base(image: str) -> bool:
    """Whether a build may read ``image``: one of :func:`uploadable_bases`, by name (a
    digest or an image id is not a name the arena gave, and is refused)."""
    if image == "scratch":
        return True
    if "@" in image or "$" in image:
        return False
    wanted = canonical_image(image)
    return any(b != "scratch" and canonical_image(b) == wanted for b in uploadable_bases())


def known_base(image: str) -> OfflineBase | None:
    """The offline base called ``image`` (``:latest`` implied), if it is one of ours."""
    for base in BASES.values():
        if _same_image(base.image, image):
            return base
    return None


def kit_language(context: Path) -> str | None:
    """The language of the kit in ``context``, from its files (``None``: not recognised)."""
    for language, patterns in _MARKERS:
        for pattern in patterns:
            if next(context.glob(pattern), None) is not None:
                return language
    return None


def how_to_get(image: str) -> str:
    """How to make a missing base image, in a few words for a one-line error."""
    base = known_base(image)
    if base is not None and base.image != "scratch":
        return f"build it offline with: {base.recipe()}"
    return "build it (docker build) or load it (docker load) first"


# what a bot uploaded as one Python file is wrapped in (as the Python starter kit's)
SINGLE_FILE_NAME = "bot.py"
SINGLE_FILE_DOCKERFILE = f"""\
ARG BASE={PYTHON_BASE}
FROM ${{BASE}}
WORKDIR /bot
COPY {SINGLE_FILE_NAME} /bot/{SINGLE_FILE_NAME}
USER 10001:10001
ENTRYPOINT ["python", "/bot/{SINGLE_FILE_NAME}"]
"""
