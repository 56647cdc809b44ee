"""What a bot's Dockerfile asks of the build, read before anything is sent to the engine.

Only what the arena needs to decide and refuse early: the images the build starts from
(every ``FROM`` and ``COPY --from=IMAGE``, with the global ``ARG`` defaults and the build
arguments substituted as the builder would), the stage names, which ``ARG``\\ s exist, and
``ADD`` sources that are URLs (the Docker daemon fetches those itself, outside the build
container's network sandbox). The grammar is the classic builder's: parser directives
(``# escape=``), comments, line continuations, ``$VAR`` / ``${VAR}`` / ``${VAR:-word}`` /
``${VAR:+word}``.
"""

from __future__ import annotations

import json
import re
import shlex
from collections.abc import Mapping
from dataclasses import dataclass, field

SCRATCH = "scratch"
_DIRECTIVE = re.compile(r"^#\s*([a-zA-Z][a-zA-Z0-9_-]*)\s*=\s*(.*?)\s*$")
_VAR = re.compile(r"\$(?:\{([A-Za-z_][A-Za-z0-9_]*)(?::([-+])([^}]*))?\}|([A-Za-z_][A-Za-z0-9_]*))")


class DockerfileError(ValueError):
    """The Dockerfile cannot be read the way the builder would read it."""


@dataclass(frozen=True)
class Instruction:
    keyword: str  # upper case: FROM, ARG, COPY, ...
    args: str  # the rest of the instruction, continuation lines joined
    line: int  # 1-based line where it starts


@dataclass(frozen=True)
class Stage:
    image: str  # what FROM names, variables substituted ("" when a variable is empty)
    written: str  # as written in the Dockerfile
    name: str | None  # FROM ... AS name
    line: int


@dataclass
class Dockerfile:
    instructions: list[Instruction]
    global_args: dict[str, str | None] = field(default_factory=dict)  # ARG before FROM
    declared_args: set[str] = field(default_factory=set)  # every ARG anywhere

    @classmethod
    def parse(cls, text: str) -> Dockerfile:
        df = cls(_instructions(text))
        seen_from = False
        for ins in df.instructions:
            if ins.keyword == "FROM":
                seen_from = True
            elif ins.keyword == "ARG":
                for name, default in _arg_pairs(ins):
                    df.declared_args.add(name)
                    if not seen_from:
                        df.global_args[name] = default
        if not seen_from:
            raise DockerfileError("no FROM instruction")
        return df

    def stages(self, build_args: Mapping[str, str] | None = None) -> list[Stage]:
        """Every FROM, with the global ARGs (overridden by ``build_args``) substituted."""
        env = self.arg_values(build_args)
        out: list[Stage] = []
        for ins in self.instructions:
            if ins.keyword != "FROM":
                continue
            words = [w for w in ins.args.split() if not w.startswith("--")]
            if not words:
                raise DockerfileError(f"line {ins.line}: FROM names no image")
            name = words[2].lower() if len(words) >= 3 and words[1].lower() == "as" else None
            out.append(Stage(substitute(words[0], env), words[0], name, ins.line))
        return out

    def arg_values(self, build_args: Mapping[str, str] | None = None) -> dict[str, str]:
        """The global ARGs' values: a build argument wins over the default, as in the builder
        (an ARG with neither is empty)."""
        given = dict(build_args or {})
        return {k: given.get(k, v if v is not None else "") for k, v in self.global_args.items()}

    def external_images(self, build_args: Mapping[str, str] | None = None) -> list[str]:
        """The images the build reads from the engine: each FROM that is not ``scratch`` or an
        earlier stage, and each ``COPY --from=`` naming an image. In order, no repeats."""
        stages = self.stages(build_args)
        names = {s.name for s in stages if s.name}
        images: list[str] = []
        for s in stages:
            if s.image and s.image.lower() != SCRATCH and s.image.lower() not in names:
                images.append(s.image)
        for ins in self.instructions:
            if ins.keyword != "COPY":
                continue
            for word in ins.args.split():
                if not word.startswith("--from="):
                    if not word.startswith("--"):
                        break
                    continue
                ref = word.split("=", 1)[1]
                if ref.isdigit() or ref.lower() in names or "$" in ref:
                    continue
                images.append(ref)
        return list(dict.fromkeys(images))

    def uses_arg_in_from(self, name: str) -> bool:
        """Whether some FROM substitutes the global ARG ``name``."""
        for ins in self.instructions:
            if ins.keyword == "FROM" and any(
                (m.group(1) or m.group(4)) == name for m in _VAR.finditer(ins.args)
            ):
                return True
        return False

    def remote_sources(self) -> list[str]:
        """ADD sources that are URLs (fetched by the Docker daemon, not in a build container)."""
        urls: list[str] = []
        for ins in self.instructions:
            if ins.keyword != "ADD":
                continue
            words = _json_list(ins.args)
            if words is None:
                words = [w for w in ins.args.split() if not w.startswith("--")]
            urls += [w for w in words[:-1] if re.match(r"^[a-zA-Z][a-zA-Z0-9+.-]*://", w)]
        return urls


def substitute(word: str, env: Mapping[str, str]) -> str:
    """The builder's variable substitution in one word (``\\$`` stays a literal ``$``)."""

    def value(m: re.Match[str]) -> str:
        name = m.group(1) or m.group(4)
        current = env.get(name, "")
        if m.group(2) == "-":
            return current or m.group(3)
        if m.group(2) == "+":
            return m.group(3) if current else ""
        return current

    parts = word.split("\\$")
    return "$".join(_VAR.sub(value, p) for p in parts)


def _json_list(args: str) -> list[str] | None:
    text = args.strip()
    if not text.startswith("["):
        return None
    try:
        value = json.loads(text)
    except ValueError:
        return None
    return [str(v) for v in value] if isinstance(value, list) else None


def _arg_pairs(ins: Instruction) -> list[tuple[str, str | None]]:
    try:
        words = shlex.split(ins.args, posix=True)
    except ValueError as e:
        raise DockerfileError(f"line {ins.line}: ARG {ins.args!r}: {e}") from None
    pairs: list[tuple[str, str | None]] = []
    for w in words:
        name, eq, default = w.partition("=")
        if not re.match(r"^[A-Za-z_][A-Za-z0-9_]*$", name):
            raise DockerfileError(f"line {ins.line}: bad ARG name {name!r}")
        pairs.append((name, default if eq else None))
    return pairs


def _instructions(text: str) -> list[Instruction]:
    lines = text.splitlines()
    escape = "\\"
    i = 0
    # parser directives: only at the very top, before any comment, blank line or instruction
    while i < len(lines):
        m = _DIRECTIVE.match(lines[i].strip())
        if not m:
            break
        if m.group(1).lower() == "escape":
            if m.group(2) not in ("\\", "`"):
                raise DockerfileError(f"line {i + 1}: escape must be \\ or `")
            escape = m.group(2)
        i += 1
    out: list[Instruction] = []
    current: list[str] = []
    start = 0
    for n in range(i, len(lines)):
        stripped = lines[n].strip()
        if not stripped or stripped.startswith("#"):
            continue  # comments and empty lines never end an instruction
        body = lines[n].rstrip()
        if not current:
            start = n + 1
        if body.endswith(escape):
            current.append(body[: -len(escape)])
            continue
        current.append(body)
        out.append(_instruction(" ".join(c.strip() for c in current), start))
        current = []
    if current:
        out.append(_instruction(" ".join(c.strip() for c in current), start))
    return out


def _instruction(text: str, line: int) -> Instruction:
    keyword, _, rest = text.partition(" ")
    return Instruction(keyword.upper(), rest.strip(), line)
