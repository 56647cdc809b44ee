"""``arena serve`` (the competition server) and ``arena user add`` (its participants)."""

from __future__ import annotations

from typing import Annotated

import typer

from arena import limits
from arena.cli.app import app, emit_json, err, out, user_app
from arena.cli.options import DbOpt, JsonOpt
from arena.errors import UsageProblem
from arena.runtime.build_sandbox import format_size
from arena.server.settings import (
    SESSION_IDLE,
    SESSION_MAX,
    STREAMS_PER_ADDRESS,
    STREAMS_TOTAL,
)

_SERVE_HELP = f"""Serve the competition site: the report's pages, live (leaderboards, events
with their progress, bots, replays), participants' sign-in, bot uploads (built offline in
the sandbox, checked with the compliance suite, registered when they pass) and a JSON API
(documented at /openapi.json and /docs). Events created on the site run in this process,
one at a time, and unfinished ones are resumed when it starts.

Uploads: at most {format_size(limits.MAX_UPLOAD_BYTES)} (a single .py file: at most
{format_size(limits.MAX_SINGLE_FILE_BYTES)}), unpacking to at most
{format_size(limits.MAX_UNPACKED_BYTES)} in {limits.MAX_ARCHIVE_MEMBERS:,} files (and at
most {limits.MAX_COMPRESSION_RATIO} times the upload's size); {limits.UPLOADS_PER_HOUR}
uploads an hour per participant, and {limits.REFUSED_UPLOADS_PER_HOUR} refused ones (beyond:
429); each build {limits.UPLOAD_BUILD_TIMEOUT:g} s. An upload is answered at once with its
build page, which follows the queued build live.

Sign-ins are kept on the server: signing out ends one at once; each ends after
--session-idle unused or --session-max after signing in. Live-update streams are capped
per client address and in all (--streams-per-address, --streams-total; beyond: 429). Set
ARENA_SECRET to keep the forms' CSRF tokens valid across restarts (otherwise a fresh key
signs their cookie)."""


@app.command("serve", help=_SERVE_HELP)
def serve(
    listen: Annotated[
        str,
        typer.Option("--listen", metavar="HOST:PORT", help="Address of the web site."),
    ] = "127.0.0.1:8077",
    grpc: Annotated[
        str | None,
        typer.Option(
            "--grpc",
            metavar="HOST:PORT",
            help="TCP address of the gRPC gateway that remote bots connect to, in the events "
            "this server runs (one at a time). Default: none (no remote bots).",
        ),
    ] = None,
    read_only: Annotated[
        bool,
        typer.Option(
            "--read-only",
            help="Let the public (anyone not signed in) read the site; without it only "
            "signed-in participants see it. Nobody uploads without signing in.",
        ),
    ] = False,
    session_idle: Annotated[
        float,
        typer.Option(
            "--session-idle",
            metavar="HOURS",
            min=0.001,
            help="A sign-in unused this long ends (the participant signs in again).",
        ),
    ] = SESSION_IDLE.total_seconds() / 3600,
    session_max: Annotated[
        float,
        typer.Option(
            "--session-max",
            metavar="HOURS",
            min=0.001,
            help="Every sign-in ends this long after it began, used or not.",
        ),
    ] = SESSION_MAX.total_seconds() / 3600,
    streams_per_address: Annotated[
        int,
        typer.Option(
            "--streams-per-address",
            metavar="N",
            min=1,
            max=100_000,
            help="Open live-update streams (the pages' server-sent events) from one client "
            "address at most (behind a proxy, every client has the proxy's address).",
        ),
    ] = STREAMS_PER_ADDRESS,
    streams_total: Annotated[
        int,
        typer.Option(
            "--streams-total",
            metavar="N",
            min=1,
            max=100_000,
            help="Open live-update streams in all at most.",
        ),
    ] = STREAMS_TOTAL,
    builders: Annotated[
        int | None,
        typer.Option(
            "--builds",
            metavar="N",
            min=1,
            max=64,
            help="Uploads built side by side (each participant's one at a time, in turn "
            "with everyone else's). Default: half the machine's cores, at least 1 (a "
            "build and its compliance check use about two cores).",
        ),
    ] = None,
    db: DbOpt = None,
) -> None:
    """The competition server (its help, _SERVE_HELP, states the limits of arena.limits)."""
    import os
    from datetime import timedelta

    import uvicorn

    from arena.gateway.address import check_listen, parse_listen
    from arena.server.app import ServerConfig, create_app

    host, port = parse_listen(check_listen(listen), "--listen")
    if grpc:
        check_listen(grpc, "--grpc")
    config = ServerConfig(
        db=db,
        read_only=read_only,
        grpc=grpc,
        session_idle=timedelta(hours=session_idle),
        session_max=timedelta(hours=session_max),
        streams_per_address=streams_per_address,
        streams_total=streams_total,
        builds=builders,
    )
    if os.environ.get("ARENA_SECRET"):
        config.secret = os.environ["ARENA_SECRET"]
    application = create_app(config)
    err.print(
        f"serving on http://{host}:{port}/"
        + (f"; remote bots connect to {grpc}" if grpc else "")
        + (" (read-only for the public)" if read_only else ""),
        markup=False,
    )
    uvicorn.run(application, host=host, port=port, log_level="warning", access_log=False)


@user_app.command("add")
def user_add(
    name: Annotated[
        str, typer.Argument(metavar="NAME", help="The participant's name (letters, digits, . _ -).")
    ],
    organiser: Annotated[
        bool, typer.Option("--organiser", help="May see every bot's logs and start events.")
    ] = False,
    as_json: JsonOpt = False,
    db: DbOpt = None,
) -> None:
    """Add a participant of the competition server; their login token is shown once (and
    stored only as its hash)."""
    from arena.participants import add_participant
    from arena.status import Role

    if not name.strip():
        raise UsageProblem("give a name", param="NAME")
    made = add_participant(db, name, Role.ORGANISER if organiser else Role.PARTICIPANT)
    if as_json:
        emit_json(
            {"name": made.participant.name, "role": made.participant.role, "token": made.token}
        )
        return
    out.print(f"added {made.participant.name} ({made.participant.role})")
    out.print(f"login token (shown once, store it now): {made.token}", soft_wrap=True)
