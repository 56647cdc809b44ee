"""What a bot's Dockerfile asks of the build, read before anything is sent to the engine.

Only what the arena needs to decide and refuse early: the images the build starts from
(every ``FROM`` and ``COPY --from=IMAGE``, with the global ``ARG`` defaults and the build
arguments substituted as the builder would), the stage names, which ``ARG``\\ s exist, and
``ADD`` sources that are URLs (the Docker daemon fetches those itself, outside the build
container's network sandbox). The grammar is the classic builder's: parser directives
(``# escape=``), comments, line continuations, ``$VAR`` / ``${VAR}`` / ``${VAR:-word}`` /
``${VAR:+word}``.

The parser reads lines exactly as the engine's does (split at ``\n`` only, a byte-order
mark dropped, continuation lines joined without a space, comment and blank lines inside an
instruction skipped, builder flags such as ``--from`` unquoted and unescaped as the engine
does): :func:`foreign_images`, which decides which images a build may read, must see every
instruction the engine will run. Where the two could still disagree it refuses: the escape
character (it checks the file under both ``\\`` and `````), non-ASCII or control characters
outside comments, a keyword that is not plain ASCII, a ``# syntax=`` directive (another
frontend), a variable in ``--from``.
"""

from __future__ import annotations

import csv
import json
import re
import shlex
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field

SCRATCH = "scratch"
_DIRECTIVE = re.compile(r"^#\s*([a-zA-Z][a-zA-Z0-9_-]*)\s*=\s*(.*?)\s*$")
# Go's unicode.IsSpace (the engine's), which Python's isspace exceeds by \x1c-\x1f
_SPACE = (
    "\t\n\v\f\r \x85\xa0\u1680\u2000\u2001\u2002\u2003\u2004\u2005\u2006\u2007"
    "\u2008\u2009\u200a\u2028\u2029\u202f\u205f\u3000"
)
_KEYWORD_SPLIT = re.compile(r"[\t\v\f\r ]+")
_UNSAFE_CHAR = re.compile(r"[^\t\r\x20-\x7e]")
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
        df.collect_args()
        return df

    def collect_args(self) -> None:
        seen_from = False
        for ins in self.instructions:
            if ins.keyword == "FROM":
                seen_from = True
            elif ins.keyword == "ARG":
                for name, default in _arg_pairs(ins):
                    self.declared_args.add(name)
                    if not seen_from:
                        self.global_args[name] = default
        if not seen_from:
            raise DockerfileError("no FROM instruction")

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
        values: dict[str, str] = {}
        for k, v in self.global_args.items():  # a default may use the ARGs before it
            values[k] = given[k] if k in given else substitute(v, values) if v else ""
        return values

    def external_images(self, build_args: Mapping[str, str] | None = None) -> list[str]:
        """The images the build reads from the engine: each FROM that is not ``scratch`` or
        an earlier stage, and each ``--from=`` (``COPY``, ``RUN --mount``) naming an image.
        In order, no repeats; one written with a variable is left out (:func:`foreign_images`
        refuses those)."""
        refs = image_refs(self.instructions, self.arg_values(build_args))
        return list(dict.fromkeys(r.image for r in refs if r.image and "$" not in r.image))

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


def _lines(text: str) -> list[str]:
    """The file's lines as the engine splits them: at ``\n`` only, one ``\r`` dropped
    at each line's end, a byte-order mark dropped (Python's splitlines also splits at
    ``\x0b``, ``\x85``, ``\u2028`` ..., where the engine does not)."""
    lines = text.removeprefix("\ufeff").split("\n")
    return [ln.removesuffix("\r") for ln in lines]


def _directives(lines: list[str]) -> tuple[dict[str, str], int]:
    """The parser directives at the top (lower-case keys) and the index of the first line
    after them."""
    found: dict[str, str] = {}
    i = 0
    while i < len(lines):
        m = _DIRECTIVE.match(lines[i].strip())
        if not m:
            break
        found[m.group(1).lower()] = m.group(2)
        i += 1
    return found, i


def _is_comment(line: str) -> bool:
    return line.lstrip(_SPACE).startswith("#")


def _instructions(text: str, escape: str | None = None) -> list[Instruction]:
    """The instructions, as the engine reads them with the file's escape directive (or
    ``escape``, to read it as the engine would with another)."""
    lines = _lines(text)
    directives, i = _directives(lines)
    if escape is None:
        escape = directives.get("escape", "\\")
        if escape not in ("\\", "`"):
            raise DockerfileError(f"line {i}: escape must be \\ or `")
    continued = re.compile(re.escape(escape) + r"[ \t]*$")
    out: list[Instruction] = []
    current: str | None = None
    start = 0
    for n in range(i, len(lines)):
        raw = lines[n]
        if current is None:
            body = raw.lstrip(_SPACE)
            if not body or body.startswith("#"):
                continue
            start = n + 1
            current = ""
        else:
            # inside an instruction: comment and blank lines are skipped; the others are
            # joined as they are (no space added, leading spaces kept), as the engine does
            if _is_comment(raw) or not raw.strip(_SPACE):
                continue
            body = raw
        joined = continued.sub("", body)
        current += joined
        if joined == body:  # no escape at the end: the instruction is complete
            out.append(_instruction(current, start))
            current = None
    if current is not None:
        out.append(_instruction(current, start))
    return out


def _instruction(text: str, line: int) -> Instruction:
    parts = _KEYWORD_SPLIT.split(text.strip(_SPACE), maxsplit=1)
    keyword, rest = parts[0], parts[1] if len(parts) > 1 else ""
    return Instruction(keyword.upper(), rest.strip(_SPACE), line)


def builder_flags(args: str) -> tuple[list[str], str]:
    """The ``--flag=value`` words at the start of an instruction's arguments, unquoted and
    unescaped as the engine's parser does (``--fr"om"=x`` is ``--from=x``), and the rest."""
    words: list[str] = []
    pos, n = 0, len(args)
    while True:
        while pos < n and args[pos] in _SPACE:
            pos += 1
        if pos >= n:
            return words, ""
        if not args.startswith("--", pos):
            return words, args[pos:]
        word, blank_ok, quote = "", False, ""
        while pos < n:
            ch = args[pos]
            if quote:
                if ch == quote:
                    quote = ""
                    pos += 1
                    continue
            elif ch in _SPACE:
                break
            elif ch in "'\"":
                quote, blank_ok = ch, True
                pos += 1
                continue
            if ch == "\\":
                pos += 1
                if pos >= n:
                    break
                ch = args[pos]
            word += ch
            pos += 1
        if word == "--":
            return words, args[pos:].lstrip(_SPACE)
        if blank_ok or word:
            words.append(word)


@dataclass(frozen=True)
class ImageRef:
    """An image an instruction reads (not ``scratch``, not an earlier stage)."""

    image: str  # as the engine would resolve it (variables substituted where they can be)
    how: str  # FROM, COPY --from, RUN --mount from, ONBUILD COPY --from, ...
    written: str  # as the Dockerfile writes it
    line: int


def image_refs(
    instructions: list[Instruction],
    global_args: Mapping[str, str],
) -> list[ImageRef]:
    """Every image the instructions read: each FROM (with the global ARGs substituted),
    each ``--from=`` flag of any instruction, each ``from=`` of a ``--mount``, in an
    ``ONBUILD`` too, that does not name ``scratch`` or an earlier stage (by name or by
    index). A ``--from`` with a variable is returned as written: it is never trusted."""
    refs: list[ImageRef] = []
    stages: list[str | None] = []

    def reading(value: str, how: str, written: str, line: int, local: bool) -> None:
        if local:
            if value.isdigit() and int(value) < len(stages):
                return
            if value.lower() in {n for n in stages if n}:
                return
        refs.append(ImageRef(value, how, written, line))

    def flags(ins: Instruction, how: str, local: bool) -> None:
        found, _rest = builder_flags(ins.args)
        for word in found:
            key, _eq, value = word[2:].partition("=")
            if key.lower() == "from":
                reading(value, f"{how} --from", word, ins.line, local)
            elif key.lower() == "mount":
                for item in _csv_fields(value):
                    k, _e, v = item.partition("=")
                    if k.strip().lower() == "from":
                        reading(v.strip(), f"{how} --mount from", word, ins.line, local)

    for ins in instructions:
        if ins.keyword == "FROM":
            _flags, rest = builder_flags(ins.args)
            words = rest.split()
            if not words:
                raise DockerfileError(f"line {ins.line}: FROM names no image")
            image = substitute(words[0], global_args)
            if image.lower() != SCRATCH:
                reading(image, "FROM", words[0], ins.line, local=True)
            stages.append(
                words[2].lower() if len(words) >= 3 and words[1].lower() == "as" else None
            )
        elif ins.keyword == "ONBUILD":
            inner = _instruction(ins.args, ins.line)
            flags(inner, f"ONBUILD {inner.keyword}", local=False)
        else:
            flags(ins, ins.keyword, local=True)
    return refs


def _csv_fields(value: str) -> list[str]:
    try:
        return next(csv.reader([value]), [])
    except csv.Error:
        return value.split(",")


def foreign_images(
    text: str, allowed: Callable[[str], bool], build_args: Mapping[str, str] | None = None
) -> list[ImageRef]:
    """The images a Dockerfile reads that ``allowed`` does not accept, in order; raises
    :class:`DockerfileError` for what the arena will not try to read the way the engine
    would (see the module's docstring). The file is read with each escape character: the
    engine runs one of the two readings, and neither may name another image."""
    lines = _lines(text)
    directives, first = _directives(lines)
    if "syntax" in directives:
        raise DockerfileError(
            f"the parser directive '# syntax={directives['syntax']}' asks for another "
            f"Dockerfile frontend (an image of its own): remove it"
        )
    for n, line in enumerate(lines[first:], start=first + 1):
        if _is_comment(line):
            continue
        if _UNSAFE_CHAR.search(line):
            raise DockerfileError(
                f"line {n}: non-ASCII or control characters outside a comment "
                f"(write the instruction in plain ASCII)"
            )
    found: list[ImageRef] = []
    for escape in ("\\", "`"):
        try:
            df = Dockerfile(_instructions(text, escape))
            df.collect_args()
        except DockerfileError:
            if escape == directives.get("escape", "\\"):
                raise
            continue  # the engine would not get past this reading either
        found += [
            r
            for r in image_refs(df.instructions, df.arg_values(build_args))
            if not allowed(r.image)
        ]
    return list({(r.image, r.how, r.line): r for r in found}.values())
