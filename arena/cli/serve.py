"""``arena serve`` (the competition server) and ``arena user add|list|disable|enable|token``
(its participants)."""

from __future__ import annotations

from typing import Annotated

import typer

from arena import limits
from arena.cli.app import app, emit_json, err, make_table, out, user_app
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

Participants are made and managed with 'arena user' (add, list, disable, enable,
token). Sign-ins are kept on the server: signing out ends one at once, disabling a
participant or giving them a new token ends all of theirs; each ends after
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
    trusted_proxy: Annotated[
        list[str] | None,
        typer.Option(
            "--trusted-proxy",
            metavar="ADDRESS",
            help="The address of a reverse proxy in front of the site, whose "
            "X-Forwarded-For header names the client (repeat for several). Without it the "
            "header is ignored: a client could otherwise claim any address and pass the "
            "per-address caps.",
        ),
    ] = None,
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
    proxies = [check_address(a) for a in trusted_proxy or []]
    uvicorn.run(
        application,
        host=host,
        port=port,
        log_level="warning",
        access_log=False,
        # X-Forwarded-For is believed only from the proxies named (uvicorn's default
        # believes any local client, which could then pose as as many addresses as it likes)
        proxy_headers=bool(proxies),
        forwarded_allow_ips=proxies or None,
    )


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


UserName = Annotated[str, typer.Argument(metavar="NAME", help="The participant's name.")]


@user_app.command("list")
def user_list(as_json: JsonOpt = False, db: DbOpt = None) -> None:
    """The participants of the competition server: name, role, when they were added,
    whether they are disabled, and how many registered bots they own.

    --json prints one object per participant with the keys name, role, created, disabled
    (true or false) and bots (a count)."""
    from arena.participants import listing
    from arena.store.db import read_engine

    rows = listing(read_engine(db))
    if as_json:
        emit_json(rows)
        return
    if not rows:
        out.print("no participants yet: add one with 'arena user add NAME'")
        return
    table = make_table(
        "name", "role", "created", "status", "bots", left=("name", "role", "created", "status")
    )
    for r in rows:
        status = "disabled" if r["disabled"] else "enabled"
        table.add_row(str(r["name"]), str(r["role"]), str(r["created"]), status, str(r["bots"]))
    out.print(table)


@user_app.command("disable")
def user_disable(name: UserName, as_json: JsonOpt = False, db: DbOpt = None) -> None:
    """Disable a participant: every session of theirs ends at once (a copied cookie stops
    working too), their login token is refused (sign-in and API), and their bots sit out
    of new events and the ladder. 'arena user enable' undoes it."""
    from arena.participants import set_disabled
    from arena.store.db import read_engine

    p, ended = set_disabled(read_engine(db), name, True)
    if as_json:
        emit_json({"name": p.name, "disabled": True, "sessions_ended": ended})
        return
    out.print(f"disabled {p.name}: {ended} session{'s' if ended != 1 else ''} ended")


@user_app.command("enable")
def user_enable(name: UserName, as_json: JsonOpt = False, db: DbOpt = None) -> None:
    """Enable a disabled participant again: their login token signs in as before (the
    sessions that ended stay ended) and their bots may enter events again."""
    from arena.participants import set_disabled
    from arena.store.db import read_engine

    p, _ = set_disabled(read_engine(db), name, False)
    if as_json:
        emit_json({"name": p.name, "disabled": False})
        return
    out.print(f"enabled {p.name}")


@user_app.command("token")
def user_token(name: UserName, as_json: JsonOpt = False, db: DbOpt = None) -> None:
    """Give a participant a new login token (for a lost or leaked one): shown once and
    stored only as its hash; the old token stops working and every session of theirs
    ends."""
    from arena.participants import new_login_token
    from arena.store.db import read_engine

    made = new_login_token(read_engine(db), name)
    if as_json:
        emit_json({"name": made.participant.name, "token": made.token})
        return
    out.print(f"new login token for {made.participant.name}; the old one no longer works")
    out.print(f"login token (shown once, store it now): {made.token}", soft_wrap=True)


def check_address(value: str) -> str:
    """An IP address (or network) as --trusted-proxy takes it; a usage error otherwise."""
    import ipaddress

    try:
        return str(ipaddress.ip_network(value.strip(), strict=False))
    except ValueError:
        raise UsageProblem(
            f"bad proxy address {value!r}: give an IP address such as 127.0.0.1",
            param="--trusted-proxy",
        ) from None
