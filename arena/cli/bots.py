"""``arena bot add|submit|pack|list|remove|check`` and how a bot is given on the command line
(a registered name, a command, NAME=COMMAND, docker:IMAGE or builtin:POLICY)."""

from __future__ import annotations

import os
import shlex
import shutil
import sys
from pathlib import Path
from typing import Annotated, Any, Literal

import typer

from arena import interrupt, limits
from arena.bots import Command, Image
from arena.cli.app import bot_app, emit_json, err, make_table, out
from arena.cli.options import (
    DbOpt,
    DeadlineOpt,
    JsonOpt,
)
from arena.errors import ArenaError, UsageProblem
from arena.names import (
    check_bot_name,
    check_entry_name,
    is_bot_name,
    made_up_name,
    numbered,
)
from arena.runtime.build_sandbox import format_size


def check_command(command: str, param: str = "--bot") -> None:
    """A bot command can run: it parses, its executable is found, and its script — the
    first argument, when it is clearly a file (arena.bots.script_argument) — exists,
    relative paths from the current folder (where the arena starts its bots)."""
    from arena.bots import script_argument

    try:
        argv = shlex.split(command)
    except ValueError as e:
        raise UsageProblem(f"cannot parse bot command {command!r}: {e}", param=param) from None
    if not argv:
        raise UsageProblem("empty bot command", param=param)
    exe = argv[0]
    path = os.pathsep.join([str(Path(sys.executable).parent), os.environ.get("PATH", "")])
    if shutil.which(exe, path=path) is None and not (
        Path(exe).is_file() and os.access(exe, os.X_OK)
    ):
        raise UsageProblem(f"cannot run bot command {command!r}: {exe!r} not found", param=param)
    script = script_argument(command)
    if script is not None and not Path(script).expanduser().exists():
        where = "" if Path(script).expanduser().is_absolute() else f" (from {Path.cwd()})"
        raise UsageProblem(
            f"cannot run bot command {command!r}: its script {script!r} does not exist{where}",
            param=param,
        )


def registered(value: str, db: str | None, param: str = "--bot") -> tuple[Any, Any, Any] | None:
    """(bot, version, source) of the registered bot ``value`` names — ``NAME`` (its latest
    version), ``NAME@vN`` or ``NAME@latest`` —, or None if ``value`` is no registered name.
    A version that does not exist is a usage error. Only reads: a database that does not
    exist is not created."""
    from sqlalchemy.exc import SQLAlchemyError

    from arena.names import version_ref
    from arena.registry import find, latest, source_of
    from arena.store.db import read_engine

    ref = version_ref(value)
    if ref is not None:
        try:
            bot, version = find(read_engine(db), *ref)
        except UsageProblem as e:
            raise UsageProblem(str(e), param=param) from None
        return bot, version, source_of(bot, version)
    if not is_bot_name(value):
        return None
    try:
        found = latest(read_engine(db), value)
    except (ArenaError, SQLAlchemyError):  # no usable database: not a registered name
        return None
    if found is None:
        return None
    bot, version = found
    return bot, version, source_of(bot, version)


def parse_source(value: str, db: str | Literal[False] | None, param: str) -> tuple[str, Any, Any]:
    """One bot given on the command line → (its name, its source, its registered version
    or None). Forms: a registered NAME (its latest version), NAME@vN or NAME@latest
    (looked up unless ``db`` is False), COMMAND, NAME=COMMAND, docker:IMAGE,
    builtin:POLICY. A registered version is named by its label (``ev@v2``,
    arena.names.version_label): every version is rated on its own."""
    from arena import bots
    from arena.registry import label

    value = value.strip()
    found = None if db is False else registered(value, db, param)
    if found is not None:
        bot, version, source = found
        return label(bot, version), source, version
    try:
        name, source = bots.parse_source(value)
    except bots.SourceError as e:
        raise UsageProblem(str(e), param=param) from None
    if isinstance(source, bots.Command):
        if name is not None:
            check_bot_name(name, "name in NAME=COMMAND", param=param)
        elif db is not False and is_bot_name(value) and shutil.which(value) is None:
            raise UsageProblem(
                f"no bot named {value!r} is registered (see 'arena bot list'), and it "
                "is not a command either",
                param=param,
            )
        check_command(source.command, param)
    return name or made_up_name(bots.suggested_name(source)), source, None


def parse_bots(
    values: list[str], db: str | Literal[False] | None = False, *, param: str = "--bot"
) -> list[Any]:
    """--bot values → BotEntry list (see :func:`parse_source`); repeated names are told
    apart (``ev``, ``ev#2``). Every name passes the one name check (arena.names); made-up
    names are made to pass it. Remote bots cannot be started here."""
    from arena.bots import Remote, unique_names
    from arena.match import BotEntry

    parsed = [parse_source(v, db, param) for v in values]
    entries = []
    for name, (given, source, _version) in zip(
        unique_names([p[0] for p in parsed], numbered), parsed, strict=True
    ):
        if isinstance(source, Remote):
            raise UsageProblem(
                f"bot {given!r} is a remote bot: it joins tournaments started with --listen",
                param=param,
            )
        check_entry_name(name, param=param)
        entries.append(BotEntry(name, source))
    return entries


def check_images(entries: list[Any], param: str = "--bot") -> None:
    """Every container entry's image is in the local Docker engine (a usage error if not:
    the arena never pulls)."""
    from arena.bots import Image

    images = [e.source.image for e in entries if isinstance(e.source, Image)]
    if not images:
        return
    from arena.runtime.build import image_id_of
    from arena.runtime.docker import ImageMissing

    for image in images:
        try:
            image_id_of(image)
        except ImageMissing as e:
            raise UsageProblem(str(e), param=param) from None


# ------------------------------------------------------------------ bots
def previous_version(added: Any) -> int | None:
    """The version the bot had before this one (None: a new bot)."""
    return added.version.version - 1 if added.version.version > 1 else None


def added_line(added: Any) -> str:
    """What ``bot add`` and ``bot submit`` say they registered: a new bot, or a new version
    of an existing one (and which), by the label its results carry."""
    name, runtime, before = added.bot.name, added.bot.runtime, previous_version(added)
    if before is None:
        return f"added {name}, a new {runtime} bot: it plays as {added.label}"
    return (
        f"{name} exists: added a new version, {added.version.version}, which plays as "
        f"{added.label} and is rated apart from the earlier ones; '{name}' now selects it "
        f"({name}@v{before} the one before)"
    )


@bot_app.command("add")
def bot_add(
    name: Annotated[
        str, typer.Argument(metavar="NAME", help="A unique name (letters, digits, . _ -).")
    ],
    cmd: Annotated[
        str | None, typer.Option("--cmd", metavar="CMD", help="A local command that runs the bot.")
    ] = None,
    image: Annotated[
        str | None, typer.Option("--image", metavar="IMAGE", help="A Docker image name.")
    ] = None,
    remote: Annotated[
        bool, typer.Option("--remote", help="A bot that connects from elsewhere with a token.")
    ] = False,
    as_json: JsonOpt = False,
    db: DbOpt = None,
) -> None:
    """Register a bot (or a new version of it). A remote bot's token is shown once."""
    from arena.registry import add_bot, check_name

    check_name(name)
    if (cmd is not None) + (image is not None) + remote != 1:
        raise UsageProblem("give exactly one of --cmd, --image or --remote")
    if cmd is not None:
        parse_bots([cmd], param="--cmd")  # the command must be runnable
    digest = None
    if image is not None:
        from arena.runtime.build import image_id
        from arena.runtime.docker import ImageMissing

        try:
            digest = image_id(image)  # must exist locally; containers run by id, tags move
        except ImageMissing as e:
            raise UsageProblem(str(e), param="--image") from None
    added = add_bot(db, name, command=cmd, image=image, digest=digest, remote=remote)
    data = {
        "name": added.bot.name,
        "runtime": added.bot.runtime,
        "version": added.version.version,
        "version_id": added.version.id,
        "label": added.label,
        "previous_version": previous_version(added),
        "created": added.bot.created.isoformat(timespec="seconds"),
    }
    if added.token:
        data["token"] = added.token
    if as_json:
        emit_json(data)
        return
    out.print(added_line(added), markup=False, soft_wrap=True)
    if added.token:
        out.print(f"token (shown once, store it now): {added.token}")


@bot_app.command("submit")
def bot_submit(
    path: Annotated[
        Path, typer.Argument(metavar="DIR", help="A folder with a Dockerfile (the build context).")
    ],
    name: Annotated[
        str, typer.Option("--name", metavar="NAME", help="The bot's name in the registry.")
    ],
    base: Annotated[
        str | None,
        typer.Option(
            "--base",
            metavar="IMAGE",
            help="The build argument BASE. Default: the Dockerfile's own ARG BASE default; "
            "for a FROM ${BASE} without one, the offline base of the kit's language "
            "(flip7/python-base, node-base, cpp-base, java-base; Go: scratch).",
        ),
    ] = None,
    build_arg: Annotated[
        list[str] | None,
        typer.Option("--build-arg", metavar="KEY=VALUE", help="A build argument (repeatable)."),
    ] = None,
    network: Annotated[
        str,
        typer.Option(
            "--build-network",
            metavar="MODE",
            help="Network of the RUN steps. Any mode but none (host, default, "
            "a network name) is a RISK: the bot's build steps can then reach what the "
            "engine's host reaches.",
        ),
    ] = "none",
    memory: Annotated[
        str,
        typer.Option("--build-memory", metavar="SIZE", help="Memory of a build step, no swap."),
    ] = "1g",
    cpus: Annotated[
        float, typer.Option("--build-cpus", metavar="N", min=0.01, help="CPUs of a build step.")
    ] = 1.0,
    pids: Annotated[
        int,
        typer.Option(
            "--build-pids",
            metavar="N",
            min=8,
            help="Processes and threads of a build step.",
        ),
    ] = 256,
    timeout: Annotated[
        float,
        typer.Option(
            "--build-timeout",
            metavar="SEC",
            min=1,
            help="Wall-clock seconds for the whole build.",
        ),
    ] = 300.0,
    max_context: Annotated[
        str,
        typer.Option(
            "--max-context",
            metavar="SIZE",
            help="Cap on the files sent to the build, after .dockerignore.",
        ),
    ] = "100m",
    max_image: Annotated[
        str,
        typer.Option(
            "--max-image",
            metavar="SIZE",
            help="Cap on the built image, its base included.",
        ),
    ] = "2g",
    skip_check: Annotated[
        bool,
        typer.Option(
            "--skip-check",
            help="Register the image without running the compliance suite on it first "
            "(a broken bot then fails in events instead).",
        ),
    ] = False,
    allow_any_base: Annotated[
        bool,
        typer.Option(
            "--allow-any-base",
            help="Let the Dockerfile read any local image (FROM, COPY --from), not only "
            "the arena's bases. Only for a Dockerfile you trust: it can copy any image "
            "here, other bots' included.",
        ),
    ] = False,
    as_json: JsonOpt = False,
    db: DbOpt = None,
) -> None:
    """Build a bot's Docker image, run the compliance suite (arena bot check) on it, and
    register it as the bot's next version, pinned by image id (later tags with the same
    name do not change what plays). A bot that fails a check is not registered (exit 1).

    The build is sandboxed: its RUN steps have no network, 1g of memory without swap, 1 CPU
    and 256 processes each, the whole build 300 s; the context may hold 100m, the image 2g
    (options below). A build that fails, runs out of time or grows too big leaves no
    container and no image behind. Steps run as the Dockerfile's USER (root unless it says
    otherwise) with Docker's default capabilities. The process limit needs the engine on
    this machine with the cgroupfs driver; elsewhere a warning says it is not enforced.
    The Dockerfile may read only the arena's own bases, as an upload to the site may:
    flip7/python-base, flip7/node-base, flip7/cpp-base, flip7/java-base (each :latest),
    scratch, and earlier stages of the same Dockerfile; any other image named by FROM,
    COPY --from, RUN --mount=...,from= or through a build argument is refused before the
    build (exit 2) unless --allow-any-base is given. Every image it starts FROM must
    already be in the engine (never pulled): a missing one is named with its offline
    recipe (exit 2).
    """
    from arena.registry import check_name
    from arena.runtime.build import parse_build_args
    from arena.runtime.build_sandbox import BuildLimits
    from arena.submit import submit_bot

    check_name(name)
    if not path.is_dir():
        raise UsageProblem(f"{path} is not a folder", param="DIR")
    if not (path / "Dockerfile").is_file():
        raise UsageProblem(f"no Dockerfile in {path}", param="DIR")
    args = parse_build_args(build_arg or [])
    try:
        build_limits = BuildLimits(
            network=network,
            memory=memory,
            cpus=cpus,
            pids=pids,
            timeout=timeout,
            max_context=max_context,
            max_image=max_image,
        )
    except ValueError as e:
        raise UsageProblem(str(e)) from None

    def echo(line: str) -> None:
        if err.is_terminal:
            err.print(line.rstrip(), markup=False, highlight=False)

    def say(msg: str) -> None:
        if err.is_terminal:
            err.print(f"check: {msg}", markup=False, style="dim")

    def run(coro: Any) -> Any:
        return interrupt.run(coro, "bot submit interrupted: the bot was stopped and not registered")

    submitted = submit_bot(
        db,
        path,
        name,
        base=base,
        build_args=args,
        limits=build_limits,
        on_line=echo,
        progress=say,
        skip_check=skip_check,
        any_base=allow_any_base,
        run=run,
    )
    built, checks, failed = submitted.built, submitted.checks, submitted.failed
    for warning in built.warnings:
        err.print(f"warning: {warning}", markup=False, soft_wrap=True)
    data: dict[str, Any] = {
        "name": name,
        "runtime": "docker",
        "image": built.tag,
        "digest": built.id,
        "size": built.size,
        "base": list(built.bases),
        "checked": checks is not None,
        "registered": not failed,
    }
    if checks is not None:
        data["checks"] = [c.as_dict() for c in checks]
    if failed:
        for c in failed:
            err.print(f"FAIL {c.name}: {c.detail}", markup=False, soft_wrap=True)
        if as_json:
            emit_json(data)
        raise ArenaError(
            f"{name} was not registered: {len(failed)} of {len(checks or [])} compliance "
            f"checks failed (the image stays as {built.tag}: 'arena bot check "
            f"docker:{built.tag}' shows them all; --skip-check registers it anyway)"
        )
    added = submitted.added
    assert added is not None  # registered: no check failed
    data["version"] = added.version.version
    data["version_id"] = added.version.id
    data["label"] = added.label
    data["previous_version"] = previous_version(added)
    if as_json:
        emit_json(data)
        return
    passed = f"passed {len(checks)} compliance checks; " if checks is not None else ""
    out.print(
        f"built {built.tag} ({built.id[:19]}); {passed}{added_line(added)}",
        markup=False,
        soft_wrap=True,
    )


@bot_app.command(
    "pack",
    help=f"""Pack a built bot folder (a starter kit after its build.sh) into a .tar.gz that
the competition site's upload accepts (the form on My bots, or POST /api/me/bots).

It holds what the Docker build needs: the files the folder's .dockerignore lets through
(Docker's rules: patterns from the folder, ! exceptions, **), and of those only the ones
the Dockerfile COPYs or ADDs when it names them plainly; never version-control folders
or caches. A symlink to a file inside the folder is stored as that file; any other
symlink is refused (leave it out in .dockerignore). Executable bits are kept.

It says the archive's size and file count against the server's limits: at most
{format_size(limits.MAX_UPLOAD_BYTES)} uploaded, {format_size(limits.MAX_UNPACKED_BYTES)}
unpacked, {limits.MAX_ARCHIVE_MEMBERS:,} files and folders; over one, it refuses (exit 1)
and writes nothing. --json prints out, bytes, files, folders, members, unpacked_bytes,
left_out, trimmed_by_dockerfile, symlinks_resolved and limits.""",
)
def bot_pack(
    path: Annotated[
        Path,
        typer.Argument(metavar="DIR", help="A built bot folder with a Dockerfile."),
    ],
    out_file: Annotated[
        Path | None,
        typer.Option(
            "--out",
            metavar="FILE",
            help="The archive to write (replaced if it exists). Default: DIR's name "
            "with .tar.gz, in the current folder.",
        ),
    ] = None,
    as_json: JsonOpt = False,
) -> None:
    from arena.pack import default_out, pack

    packed = pack(path, out_file or default_out(path))
    if as_json:
        emit_json(packed.as_dict())
        return
    where = _shown(packed.out)
    out.print(
        f"packed {path} into {where}: {packed.files:,} files, "
        f"{format_size(packed.bytes)} ({format_size(packed.unpacked)} unpacked)",
        markup=False,
        soft_wrap=True,
    )
    out.print(
        f"  limits: {format_size(packed.bytes)} of {format_size(limits.MAX_UPLOAD_BYTES)} "
        f"uploaded, {format_size(packed.unpacked)} of "
        f"{format_size(limits.MAX_UNPACKED_BYTES)} unpacked, {packed.members:,} of "
        f"{limits.MAX_ARCHIVE_MEMBERS:,} files and folders",
        markup=False,
        soft_wrap=True,
    )
    why = ".dockerignore, version control, caches" + (
        ", not copied by the Dockerfile" if packed.trimmed else ""
    )
    out.print(f"  left out {packed.left_out:,} files ({why})", markup=False, soft_wrap=True)
    if packed.resolved:
        out.print(
            f"  stored {len(packed.resolved)} symlinks as their files: "
            + ", ".join(packed.resolved[:5])
            + (" ..." if len(packed.resolved) > 5 else ""),
            markup=False,
            soft_wrap=True,
        )
    out.print(
        f'upload it on the site\'s My bots page, or: curl -H "Authorization: Bearer $TOKEN" '
        f"-F name=NAME -F file=@{where} SITE/api/me/bots",
        markup=False,
        soft_wrap=True,
    )


def _shown(path: Path) -> str:
    """``path`` relative to the current folder when it is below it."""
    try:
        return str(path.relative_to(Path.cwd()))
    except ValueError:
        return str(path)


@bot_app.command("list")
def bot_list(as_json: JsonOpt = False, db: DbOpt = None) -> None:
    """The registered bots, each with its latest version (NAME@vN selects another).

    --json prints one object per bot with the keys name, runtime, version (the latest's
    number), version_id, label (NAME@vN, as results name it), created (the bot's),
    version_created, command, image and digest (null where they do not apply)."""
    from arena.registry import list_bots
    from arena.store.db import read_engine

    rows = list_bots(read_engine(db))
    if as_json:
        emit_json(rows)
        return
    if not rows:
        out.print("no bots yet: add one with 'arena bot add NAME --cmd CMD'")
        return
    columns = ("name", "runtime", "latest", "created", "runs")
    table = make_table(*columns, left=columns)
    for r in rows:
        image = f"{r['image']} ({r['digest'][:19]})" if r["digest"] else r["image"]
        table.add_row(
            r["name"],
            r["runtime"],
            r["label"] or "",
            r["version_created"] or r["created"],
            r["command"] or image or ("(token)" if r["runtime"] == "remote" else ""),
        )
    out.print(table)


@bot_app.command("remove")
def bot_remove(
    name: Annotated[str, typer.Argument(metavar="NAME", help="The bot's name.")],
    as_json: JsonOpt = False,
    db: DbOpt = None,
) -> None:
    """Remove a bot from the registry (its games and ratings stay)."""
    from arena.registry import remove_bot
    from arena.store.db import read_engine

    remove_bot(read_engine(db), name)  # a database that does not exist has no such bot
    if as_json:
        emit_json({"removed": name})
    else:
        out.print(f"removed {name}")


@bot_app.command("check")
def bot_check(
    bot: Annotated[
        str,
        typer.Argument(
            metavar="BOT",
            help="A registered name (its latest version; NAME@vN for another), the bot's "
            "command line, or docker:IMAGE.",
        ),
    ],
    deadline: DeadlineOpt = limits.DEFAULT_DEADLINE,
    as_json: JsonOpt = False,
    db: DbOpt = None,
) -> None:
    """Run the protocol compliance suite against a bot.

    Scripted games (stacked decks) put every decision kind of both variants in front of the
    bot; then 16 games at once; then the arena drops the bot's stream with requests pending
    and refuses its first two returns with ALREADY_CONNECTED: it must come back within 5 s
    and answer what is sent again (docs/protocol.md, "Reconnecting"). A failed check names
    the rule it checks. Exit code 0 when every check passes, 1 otherwise.
    """
    from arena.check import run_checks

    limits.check_deadline(deadline)
    (entry,) = parse_bots([bot], db, param="BOT")
    if not isinstance(entry.source, Command | Image):
        raise UsageProblem("bot check needs a bot command or docker:IMAGE, not a built-in policy")
    check_images([entry], param="BOT")

    def say(msg: str) -> None:
        if err.is_terminal:
            err.print(msg, markup=False, style="dim")

    checks = interrupt.run(
        run_checks(entry.source, deadline=deadline, progress=say),
        "bot check interrupted: the bot was stopped",
    )
    passed = all(c.ok for c in checks)
    if as_json:
        emit_json({"passed": passed, "checks": [c.as_dict() for c in checks]})
    else:
        table = make_table(
            "check",
            "ok",
            "detail",
            title=f"bot check: {entry.name}",
            left=["check", "ok", "detail"],
        )
        for c in checks:
            table.add_row(c.name, "yes" if c.ok else "NO", c.detail)
        out.print(table)
        out.print("passed" if passed else "FAILED")
    if not passed:
        raise typer.Exit(1)
