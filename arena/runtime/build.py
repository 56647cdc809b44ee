"""Building bot images (``arena bot submit PATH``) and resolving image names
(``arena bot add --image``) through the local Docker engine.

The build goes through the Docker SDK's low-level API (the classic builder), streaming the
build log; a failed build raises :class:`ArenaError` with the log's last lines. Every build
gets the build argument ``BASE`` (default ``flip7/python-base:latest``, the offline base of
docker/base-image/build.sh), which the example bots' Dockerfiles use as ``FROM ${BASE}``.
Images are identified by their image id (``sha256:…``, a digest of the image's
configuration), which is what the registry records: a tag may move, the id does not.
"""

from __future__ import annotations

import re
from collections import deque
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from arena.errors import ArenaError
from arena.runtime.docker import (
    SUBMIT_HINT,
    DockerUnavailable,
    ImageMissing,
    _errors,
    _explain,
    _is_connection_error,
    _reason,
    docker_client,
)

DEFAULT_BASE = "flip7/python-base:latest"
BASE_RECIPE = "bash docker/base-image/build.sh"
TAIL_LINES = 30

# docker's reference grammar, simplified: [registry[:port]/]path[:tag]
_TAG_RE = re.compile(
    r"^(?:[a-zA-Z0-9.-]+(?::[0-9]+)?/)?"
    r"[a-z0-9]+(?:(?:[._]|__|-+)[a-z0-9]+)*(?:/[a-z0-9]+(?:(?:[._]|__|-+)[a-z0-9]+)*)*"
    r"(?::[A-Za-z0-9_][A-Za-z0-9_.-]{0,127})?$"
)


@dataclass(frozen=True)
class BuiltImage:
    id: str  # sha256:… image id
    tag: str
    log_tail: str  # the build log's last lines


def bot_image_tag(name: str, version: int | str) -> str:
    """The tag ``arena bot submit`` gives a bot's image: ``flip7-bot/<name>:v<version>``
    (Docker repository names are lower case)."""
    repo = re.sub(r"[^a-z0-9._-]+", "-", name.lower()).strip("-._") or "bot"
    return f"flip7-bot/{repo}:v{version}"


def check_tag(tag: str) -> str:
    if not _TAG_RE.match(tag) or len(tag) > 255:
        raise ArenaError(f"{tag!r} is not a valid image name (lower case, e.g. flip7-bot/ev:v1)")
    return tag


def _has_image(client: Any, name: str) -> bool:
    try:
        client.api.inspect_image(name)
    except _errors().NotFound:
        return False
    return True


def _uses_base_arg(dockerfile: Path) -> bool:
    try:
        text = dockerfile.read_text(errors="replace")
    except OSError:
        return False
    return bool(re.search(r"^\s*FROM\s+\$\{?BASE\}?", text, re.IGNORECASE | re.MULTILINE))


def build_image(
    path: str | Path,
    tag: str,
    *,
    build_args: Mapping[str, str] | None = None,
    network: str | None = None,
    dockerfile: str | None = None,
    nocache: bool = False,
    on_line: Callable[[str], None] | None = None,
    client: Any = None,
) -> BuiltImage:
    """Build the image of the bot whose build context is ``path`` (a directory with a
    Dockerfile, or the Dockerfile itself) and tag it ``tag``.

    ``build_args`` add to (or override) ``BASE``; ``network`` is the network of RUN steps
    (``None``: the engine's default; ``"none"``: offline; ``"host"``); ``on_line`` receives
    each line of the build log as it comes (e.g. to echo it on stderr)."""
    check_tag(tag)
    p = Path(path)
    if p.is_file():
        dockerfile = dockerfile or p.name
        context = p.parent
    else:
        context = p
    if not context.is_dir():
        raise ArenaError(f"{path}: no such directory (give a bot's build context)")
    df = context / (dockerfile or "Dockerfile")
    if not df.is_file():
        raise ArenaError(f"{context}: no {df.name} (a bot's build context needs one)")
    args = {"BASE": DEFAULT_BASE, **(build_args or {})}
    client = client or docker_client()
    errors = _errors()
    if _uses_base_arg(df) and not _has_image(client, args["BASE"]):
        hint = f" (build it with {BASE_RECIPE})" if args["BASE"] == DEFAULT_BASE else ""
        raise ArenaError(
            f"cannot build {context}: its base image {args['BASE']} is not here{hint}; "
            f"the arena never pulls images"
        )
    tail: deque[str] = deque(maxlen=TAIL_LINES)
    image_id: str | None = None
    error: str | None = None

    def line(text: str) -> None:
        for ln in text.splitlines():
            if ln.strip():
                tail.append(ln.rstrip())
                if on_line is not None:
                    on_line(ln.rstrip())

    try:
        stream = client.api.build(
            path=str(context),
            dockerfile=dockerfile,
            tag=tag,
            buildargs=args,
            network_mode=network,
            rm=True,
            forcerm=True,
            pull=False,
            nocache=nocache,
            decode=True,
        )
        for chunk in stream:
            if "stream" in chunk:
                line(chunk["stream"])
            elif "status" in chunk:
                line(" ".join(str(chunk[k]) for k in ("id", "status") if chunk.get(k)))
            if "error" in chunk:
                detail = chunk.get("errorDetail") or {}
                error = str(detail.get("message") or chunk["error"]).strip()
                line(error)
            aux = chunk.get("aux")
            if isinstance(aux, dict) and aux.get("ID"):
                image_id = aux["ID"]
    except errors.APIError as e:
        error = _explain(e)
        line(error)
    except (errors.DockerException, OSError) as e:
        if _is_connection_error(e) or isinstance(e, errors.DockerException):
            raise DockerUnavailable(f"Docker is not available: {_reason(e)}") from e
        raise ArenaError(f"cannot build {context}: {e}") from e
    log_tail = "\n".join(tail)
    if error is not None:
        raise ArenaError(
            f"building {context} as {tag} failed: {error}\n"
            f"--- last {len(tail)} lines of the build log ---\n{log_tail}"
        )
    if image_id is None:
        image_id = image_id_of(tag, client=client)
    return BuiltImage(image_id, tag, log_tail)


def image_id_of(name: str, *, client: Any = None) -> str:
    """The id (``sha256:…``) of a local image, by name, tag or id (never pulled)."""
    client = client or docker_client()
    errors = _errors()
    try:
        return str(client.api.inspect_image(name)["Id"])
    except errors.NotFound as e:
        raise ImageMissing(
            f"no image {name} here (build it with {SUBMIT_HINT} or docker build; "
            f"the arena never pulls images)"
        ) from e
    except errors.APIError as e:
        raise ArenaError(f"{name!r}: {_explain(e)}") from e
    except Exception as e:
        if _is_connection_error(e):
            raise DockerUnavailable(f"Docker is not available: {_reason(e)}") from e
        raise


def image_id(name: str) -> str:
    """For ``arena bot add --image NAME``: the local image's id; an error if it is missing."""
    return image_id_of(name)
