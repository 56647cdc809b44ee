"""The competition server's ASGI app (FastAPI): the report's pages rendered live for each
reader, the participants' pages and forms, and the JSON API (documented at ``/docs``,
``/openapi.json``).

Who sees what: with ``read_only`` the public (anyone not signed in) reads every page and
GET of the API; without it the site is the participants' only and an anonymous visitor is
sent to the sign-in page. Nobody uploads without signing in. A bot's faults, stderr and
build logs are shown to its owner and the organiser only. Forms carry the session's CSRF
token; the API takes it as the X-CSRF-Token header, or a bearer login token instead.
"""

from __future__ import annotations

import asyncio
import contextlib
import secrets
import threading
from collections.abc import AsyncIterator
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from typing import Annotated, Any

from fastapi import FastAPI, File, Form, HTTPException, Request, UploadFile
from fastapi.responses import (
    FileResponse,
    HTMLResponse,
    JSONResponse,
    PlainTextResponse,
    RedirectResponse,
    Response,
    StreamingResponse,
)
from pydantic import BaseModel, ConfigDict
from starlette.concurrency import run_in_threadpool
from starlette.middleware.sessions import SessionMiddleware

from arena import leaderboard, limits
from arena.errors import ArenaError, UsageProblem
from arena.report.site import TEMPLATES, LiveShown, LiveSite, make_env, slug
from arena.runtime.build_sandbox import format_size
from arena.server import live
from arena.server.auth import (
    CSRF_COOKIE,
    Reader,
    check_csrf,
    csrf_token,
    end_session,
    reader,
    require,
    require_organiser,
    start_session,
    visibility,
)
from arena.server.body_limit import BodyLimit
from arena.server.events import EventRunner
from arena.server.headers import Secured
from arena.server.settings import SESSION_IDLE, SESSION_MAX, STREAMS_PER_ADDRESS, STREAMS_TOTAL
from arena.server.uploads import TooMany, Uploads
from arena.status import BuildStatus
from arena.store import bots as store_bots
from arena.store import builds, changes
from arena.store.db import get_engine
from arena.store.models import Build

BODY_OVERHEAD = 1 << 20  # bytes a multipart form may add to an upload
ASSETS = {
    "style.css": "text/css",
    "replay.js": "text/javascript",
    "live.js": "text/javascript",
    "build.js": "text/javascript",
}
WAIT_POLL = 0.5  # seconds between looks at a build an API client waits for


@dataclass
class ServerConfig:
    db: str | None = None
    read_only: bool = False  # the public may read the site (never upload)
    grpc: str | None = None  # HOST:PORT for remote bots in the events the server runs
    secret: str = field(default_factory=lambda: secrets.token_urlsafe(32))  # signs cookies
    run_events: bool = True  # run (and resume) events in this process
    session_idle: timedelta = SESSION_IDLE  # a sign-in unused this long ends
    session_max: timedelta = SESSION_MAX  # every sign-in ends this long after it began
    streams_per_address: int = STREAMS_PER_ADDRESS  # open live streams per client
    streams_total: int = STREAMS_TOTAL  # and in all
    builds: int | None = None  # builds side by side (None: sized to the machine)


class NewEvent(BaseModel):
    """An event the organiser starts: the settings of ``arena tournament``, checked as it
    checks them (arena.tournament.check_config) before anything is stored. ``bots``:
    registered bots (NAME: its latest version, NAME@vN) or builtin:POLICY; a field this
    model does not know is refused rather than ignored."""

    model_config = ConfigDict(extra="forbid", strict=True)

    bots: list[str]
    format: str = "swiss"
    seats: int = 4
    rounds: int | None = None
    games: int = 4
    variant: str = "base"
    brutal: bool = False
    name: str = ""
    concurrency: int = 16
    challengers: list[str] = []
    deadline: float = limits.DEFAULT_DEADLINE
    time_bank: float = limits.DEFAULT_TIME_BANK
    max_strikes: int = limits.DEFAULT_MAX_STRIKES
    start_timeout: float = limits.DEFAULT_START_TIMEOUT
    duplicate: bool = False


class RemoteBot(BaseModel):
    name: str


def create_app(config: ServerConfig) -> FastAPI:
    eng = get_engine(config.db)  # the schema is created or migrated once, here
    uploads = Uploads(eng, config.builds)
    runner = EventRunner(eng, config.grpc)
    env = make_env()
    sites = Sites(eng)

    @contextlib.asynccontextmanager
    async def lifespan(_app: FastAPI) -> AsyncIterator[None]:
        builds.interrupted(eng)  # uploads a stopped server queued or built: failed, nothing kept
        uploads.start()
        if config.run_events:
            runner.start()
        try:
            yield
        finally:
            await run_in_threadpool(uploads.stop)
            if config.run_events:
                await run_in_threadpool(runner.stop)

    app = Secured(  # FastAPI with the security headers on every answer (headers.py)
        title="Flip 7 Arena",
        summary="The competition server: leaderboards, events, bots, uploads.",
        lifespan=lifespan,
    )
    # the signed cookie holds the CSRF token only; who is signed in is kept on the
    # server, under the key of the arena_session cookie (auth.py)
    app.add_middleware(
        SessionMiddleware,
        secret_key=config.secret,
        session_cookie=CSRF_COOKIE,
        same_site="lax",
        max_age=int(config.session_max.total_seconds()),
    )
    # no body beyond an upload and its form's overhead is even read
    app.add_middleware(BodyLimit, cap=limits.MAX_UPLOAD_BYTES + BODY_OVERHEAD)
    app.state.db = eng
    app.state.config = config
    app.state.runner = runner
    app.state.streams = live.Slots(config.streams_per_address, config.streams_total)
    app.state.changes = live.Changes(eng)

    # ------------------------------------------------------------ helpers
    def context(request: Request, who: Reader, rel: str, refresh: bool) -> dict[str, Any]:
        tournament = None
        if rel.startswith("tournament/"):
            tournament = rel.removeprefix("tournament/").removesuffix(".html")
        root = "../" * rel.count("/")
        query = f"since={changes.version(eng)}"
        if tournament:
            query += f"&tournament={tournament}"
        return {
            "live": {
                "user": who.name,
                "organiser": who.organiser,
                "csrf": csrf_token(request),
                # the stream is for those who may read the site (the sign-in page of a
                # private site has none)
                "stream": f"{root}api/stream?{query}" if config.read_only or who.signed_in else "",
                "refresh": refresh,
                "grpc": config.grpc,
                "read_only_uploads": False,
            }
        }

    def may_read(who: Reader) -> None:
        if not (config.read_only or who.signed_in):
            raise HTTPException(401, "sign in first")

    def page(request: Request, rel: str) -> Response:
        who = reader(request)
        if not (config.read_only or who.signed_in):
            return RedirectResponse("/signin.html", 303)
        html = sites.get(who).render(
            rel, context(request, who, rel, refresh=not rel.startswith("game/"))
        )
        if html is None:
            raise HTTPException(404, f"no page {rel}")
        if rel.endswith(".jsonl"):
            return PlainTextResponse(html, media_type="application/x-ndjson")
        return HTMLResponse(html)

    def own_page(
        request: Request, who: Reader, rel: str, template: str, status: int = 200, **ctx: Any
    ) -> HTMLResponse:
        root = "../" * rel.count("/")
        html = env.get_template(template).render(
            root=root,
            generated=datetime.now(UTC).strftime("%Y-%m-%d %H:%M UTC"),
            private=False,  # the live site's own pages: never the organiser's private copy
            shown=LiveShown(),
            database=None,
            **context(request, who, rel, refresh=False),
            **ctx,
        )
        return HTMLResponse(html, status)

    def me_page(request: Request, who: Reader, status: int = 200, **ctx: Any) -> HTMLResponse:
        assert who.id is not None
        rows = []
        for bot, v in store_bots.owned(eng, who.id):
            rows.append(
                {
                    "name": bot.name,
                    "runtime": bot.runtime,
                    "version": v.version if v else 0,
                    "created": bot.created.strftime("%Y-%m-%d %H:%M"),
                    "token": bool(v and v.token_hash),
                }
            )
        values = {
            "bots": rows,
            "builds": builds.of(eng, who.id),
            "message": None,
            "ok": False,
            "token": None,
            "token_bot": None,
            "max_upload": format_size(limits.MAX_UPLOAD_BYTES),
            "max_single_file": format_size(limits.MAX_SINGLE_FILE_BYTES),
            "max_unpacked": format_size(limits.MAX_UNPACKED_BYTES),
            "max_members": f"{limits.MAX_ARCHIVE_MEMBERS:,}",
            "max_ratio": limits.MAX_COMPRESSION_RATIO,
            "build_seconds": f"{limits.UPLOAD_BUILD_TIMEOUT:g}",
            "per_hour": limits.UPLOADS_PER_HOUR,
            "refused_per_hour": limits.REFUSED_UPLOADS_PER_HOUR,
        }
        values.update(ctx)
        return own_page(request, who, "me.html", "me.html", status, **values)

    def my_build(who: Reader, build_id: int) -> Build:
        b = builds.get(eng, build_id)
        if b is None or not (who.organiser or (who.signed_in and b.participant_id == who.id)):
            raise HTTPException(404, f"no upload {build_id} of yours")
        return b

    async def do_upload(who: Reader, name: str, file: UploadFile) -> Build:
        data = await file.read(limits.MAX_UPLOAD_BYTES + 1)  # one byte over tells it is too big
        assert who.id is not None
        return await run_in_threadpool(
            uploads.submit, who.id, name.strip(), file.filename or "", data
        )

    def cancel_build(who: Reader, build_id: int) -> Build:
        """Cancel one of the reader's queued or running builds (the organiser: anyone's)."""
        b = my_build(who, build_id)
        if BuildStatus(b.status).done or not uploads.cancel(build_id):
            raise ArenaError(f"upload {build_id} has ended ({b.status}): nothing to cancel")
        return builds.get(eng, build_id) or b

    def fresh(b: Build) -> Build:
        assert b.id is not None
        return builds.get(eng, b.id) or b

    def build_dict(b: Build, *, log: bool, after: int | None = None) -> dict[str, Any]:
        out = _build_dict(b, log=log and after is None)
        assert b.id is not None
        out["position"] = uploads.position(b.id) if b.status == BuildStatus.QUEUED else None
        out["page"] = f"/build/{b.id}.html"
        if after is not None:
            lines = b.log.split("\n") if b.log else []
            out["lines"] = lines[after:]
            out["next"] = len(lines)
        return out

    def make_remote(who: Reader, name: str) -> str:
        from arena.registry import add_bot, hash_token, new_token

        assert who.id is not None
        name = name.strip()
        found = store_bots.latest(eng, name)
        if found is None:
            from arena.submit import check_owner

            check_owner(eng, name, who.id)
            added = add_bot(eng, name, remote=True, owner_id=who.id)
            assert added.token is not None
            return added.token
        bot, version = found
        if bot.owner_id != who.id:
            raise HTTPException(404, f"no bot {name!r} of yours")
        if bot.runtime != "remote":
            raise UsageProblem(f"{name} is a {bot.runtime} bot, not a remote one")
        token = new_token()
        store_bots.set_token(eng, version.id, hash_token(token))
        return token

    def revoke_remote(who: Reader, name: str) -> None:
        found = store_bots.latest(eng, name.strip())
        if found is None or found[0].owner_id != who.id or found[0].runtime != "remote":
            raise HTTPException(404, f"no remote bot {name!r} of yours")
        store_bots.set_token(eng, found[1].id, None)

    # ------------------------------------------------------------ errors
    @app.exception_handler(UsageProblem)
    async def usage(_request: Request, exc: UsageProblem) -> JSONResponse:
        return JSONResponse({"detail": str(exc)}, 400)

    @app.exception_handler(ArenaError)
    async def failure(_request: Request, exc: ArenaError) -> JSONResponse:
        return JSONResponse({"detail": str(exc)}, 409)

    # ------------------------------------------------------------ the report's pages
    @app.get("/", include_in_schema=False)
    def home() -> RedirectResponse:
        return RedirectResponse("/index.html", 303)

    @app.get("/index.html", include_in_schema=False)
    def index(request: Request) -> Response:
        return page(request, "index.html")

    @app.get("/tournament/{key}.html", include_in_schema=False)
    def tournament_page(request: Request, key: str) -> Response:
        return page(request, f"tournament/{key}.html")  # also its archive pages (N-tables-K)

    @app.get("/bot/{key}.html", include_in_schema=False)
    def bot_page(request: Request, key: str) -> Response:
        return page(request, f"bot/{key}.html")

    @app.get("/game/{gid}.html", include_in_schema=False)
    def game_page(request: Request, gid: int) -> Response:
        return page(request, f"game/{gid}.html")

    @app.get("/game/{gid}.jsonl", include_in_schema=False)
    def game_log(request: Request, gid: int) -> Response:
        return page(request, f"game/{gid}.jsonl")

    # ------------------------------------------------------------ participants' pages
    @app.get("/signin.html", include_in_schema=False)
    def signin_page(request: Request) -> HTMLResponse:
        return own_page(request, reader(request), "signin.html", "signin.html", message=None)

    @app.post("/signin", include_in_schema=False)
    def signin(
        request: Request, token: Annotated[str, Form()], csrf: Annotated[str, Form()] = ""
    ) -> Response:
        from arena.participants import ParticipantDisabled, sign_in

        check_csrf(request, csrf, Reader())
        try:
            p = sign_in(eng, token)
        except ParticipantDisabled:
            return own_page(
                request,
                Reader(),
                "signin.html",
                "signin.html",
                403,
                message="This participant is disabled: ask the organiser.",
            )
        if p is None:
            return own_page(
                request,
                Reader(),
                "signin.html",
                "signin.html",
                401,
                message="That is not a login token of this arena.",
            )
        done = RedirectResponse("/me.html", 303)
        start_session(request, done, p)  # a session on the server and a fresh CSRF token
        return done

    @app.post("/signout", include_in_schema=False)
    def signout(request: Request, csrf: Annotated[str, Form()] = "") -> RedirectResponse:
        check_csrf(request, csrf, reader(request))
        done = RedirectResponse("/index.html" if config.read_only else "/signin.html", 303)
        end_session(request, done)  # a copy of the cookie is worthless from now on
        return done

    @app.get("/me.html", include_in_schema=False)
    def me(request: Request) -> Response:
        who = reader(request)
        if not who.signed_in:
            return RedirectResponse("/signin.html", 303)
        return me_page(request, who)

    @app.post("/upload", include_in_schema=False)
    async def upload_form(
        request: Request,
        name: Annotated[str, Form()],
        file: Annotated[UploadFile, File()],
        csrf: Annotated[str, Form()] = "",
    ) -> Response:
        who = require(reader(request))
        check_csrf(request, csrf, who)
        try:
            b = await do_upload(who, name, file)
        except TooMany as e:
            return me_page(request, who, 429, message=str(e))
        except (UsageProblem, ArenaError) as e:
            return me_page(request, who, 400, message=f"upload refused: {e}")
        return RedirectResponse(f"/build/{b.id}.html", 303)

    @app.get("/build/{build_id}.html", include_in_schema=False)
    def build_page(request: Request, build_id: int) -> Response:
        who = reader(request)
        if not who.signed_in:
            return RedirectResponse("/signin.html", 303)
        b = my_build(who, build_id)
        return own_page(
            request,
            who,
            f"build/{build_id}.html",
            "build.html",
            b=b,
            position=uploads.position(build_id),
            lines=b.log.count("\n") + 1 if b.log else 0,
        )

    @app.post("/build/{build_id}/cancel", include_in_schema=False)
    def cancel_form(request: Request, build_id: int, csrf: Annotated[str, Form()] = "") -> Response:
        who = require(reader(request))
        check_csrf(request, csrf, who)
        with contextlib.suppress(ArenaError):  # it ended meanwhile: its page says how
            cancel_build(who, build_id)
        return RedirectResponse(f"/build/{build_id}.html", 303)

    @app.post("/remote", include_in_schema=False)
    def remote_form(
        request: Request, name: Annotated[str, Form()], csrf: Annotated[str, Form()] = ""
    ) -> Response:
        who = require(reader(request))
        check_csrf(request, csrf, who)
        try:
            token = make_remote(who, name)
        except (UsageProblem, ArenaError) as e:
            return me_page(request, who, 400, message=str(e))
        return me_page(request, who, token=token, token_bot=name.strip())

    @app.post("/remote/revoke", include_in_schema=False)
    def revoke_form(
        request: Request, name: Annotated[str, Form()], csrf: Annotated[str, Form()] = ""
    ) -> Response:
        who = require(reader(request))
        check_csrf(request, csrf, who)
        revoke_remote(who, name)
        return me_page(request, who, message=f"the token of {name} is revoked", ok=True)

    # ------------------------------------------------------------ the JSON API
    @app.get("/api/leaderboard", tags=["read"])
    def api_leaderboard(request: Request) -> list[dict[str, Any]]:
        """Every board's rows (as ``arena leaderboard --json``)."""
        may_read(reader(request))
        return [row for b in leaderboard.boards(eng) for row in b.rows()]

    @app.get("/api/tournaments", tags=["read"])
    def api_tournaments(request: Request) -> list[dict[str, Any]]:
        may_read(reader(request))
        from arena.tournament import list_tournaments

        return list_tournaments(eng)

    @app.get("/api/tournaments/{tid}", tags=["read"])
    def api_tournament(request: Request, tid: int) -> dict[str, Any]:
        """An event's progress (games played, current round, status) and standings so far."""
        may_read(reader(request))
        from arena.tournament import standings_of

        progress = changes.progress(eng, tid)
        if progress is None:
            raise HTTPException(404, f"no tournament {tid}")
        standings = [
            {"bot": r.bot, "points": r.points, "games": r.games} for r in standings_of(eng, tid)
        ]
        return {**progress, "standings": standings, "error": runner.errors.get(tid)}

    @app.post("/api/tournaments", tags=["organiser"], status_code=201)
    def api_new_tournament(request: Request, event: NewEvent) -> dict[str, Any]:
        """Create an event and queue it on this server (the organiser only). Its settings
        are checked as ``arena tournament`` checks them, before anything is stored: a
        mistake is a 400 naming the setting, and no event is created."""
        who = require_organiser(reader(request))
        check_csrf(request, None, who)
        from arena.bots import is_builtin
        from arena.cli.events import entries_from
        from arena.tournament import (
            TournamentConfig,
            api_option,
            check_settings,
            create_tournament,
        )

        cfg = TournamentConfig(
            format=event.format,
            entries=[],
            seats=event.seats,
            rounds=event.rounds,
            games=event.games,
            concurrency=event.concurrency,
            variant=event.variant,
            brutal=event.brutal,
            name=event.name,
            deadline=event.deadline,
            time_bank=event.time_bank,
            max_strikes=event.max_strikes,
            start_timeout=event.start_timeout,
            duplicate=event.duplicate,
        )
        check_settings(cfg, api_option)  # before the registry is read
        url = eng.url.render_as_string(hide_password=False)
        cfg.entries = entries_from(event.bots, event.challengers, url, api_option)
        for e, value in zip(cfg.entries, event.bots, strict=True):
            # the server starts registered bots only (built and checked), never a command
            # or an image named in a request
            if e.bot_version_id is None and not is_builtin(e.source):
                raise UsageProblem(
                    f"{value.strip()!r} is not a registered bot: the server enters registered "
                    "bots (NAME, NAME@vN) and builtin:POLICY",
                    param="bots",
                )
            if e.remote and not config.grpc:
                raise UsageProblem(
                    f"{e.name} is a remote bot, and this server takes no remote bots "
                    "(arena serve --grpc HOST:PORT)",
                    param="bots",
                )
        tid = create_tournament(cfg, eng, api_option)
        runner.add(tid)
        return {"id": tid}

    @app.get("/api/bots", tags=["read"])
    def api_bots(request: Request) -> list[dict[str, Any]]:
        may_read(reader(request))
        return [
            {
                "name": bot.name,
                "runtime": bot.runtime,
                "version": v.version if v else 0,
                "page": f"/bot/{slug(bot.name)}.html",
            }
            for bot, v in store_bots.registered(eng)
        ]

    @app.get("/api/me", tags=["participant"])
    def api_me(request: Request) -> dict[str, Any]:
        who = require(reader(request))
        return {"name": who.name, "role": who.role, "csrf": csrf_token(request)}

    @app.get("/api/me/bots", tags=["participant"])
    def api_my_bots(request: Request) -> list[dict[str, Any]]:
        who = require(reader(request))
        assert who.id is not None
        return [
            {"name": bot.name, "runtime": bot.runtime, "version": v.version if v else 0}
            for bot, v in store_bots.owned(eng, who.id)
        ]

    @app.post(
        "/api/me/bots",
        tags=["participant"],
        status_code=202,
        responses={
            202: {"description": "queued: the build's id, status, place in the queue, page"},
            200: {"description": "with wait=true: built, checked and registered"},
            400: {"description": "refused before anything was stored (the reason)"},
            422: {"description": "with wait=true: the build or the check failed"},
            429: {"description": "past the hourly upload limit"},
        },
    )
    async def api_upload(
        request: Request,
        name: Annotated[str, Form()],
        file: Annotated[UploadFile, File()],
        wait: bool = False,
    ) -> JSONResponse:
        """Upload a bot (a .tar.gz or .zip with a Dockerfile, or one .py file) as the
        next version of ``name``. The archive is checked at once (400 with the reason,
        nothing stored); the build is queued and the answer comes at once (202:
        ``{"build": ID, "status": "queued", "page": ...}``): follow it with
        ``GET /api/builds/{ID}`` (its log as it builds; ``?after=N`` gives the lines
        from the N-th on). With ``wait=true`` the answer waits for the build's end
        (200: passed and registered, 422: the build or the check failed, or it was
        cancelled)."""
        who = require(reader(request))
        check_csrf(request, None, who)
        try:
            b = await do_upload(who, name, file)
        except TooMany as e:
            return JSONResponse({"detail": str(e)}, 429)
        build_id = b.id
        assert build_id is not None
        if wait:
            while not BuildStatus(b.status).done and not await request.is_disconnected():
                await asyncio.sleep(WAIT_POLL)
                b = await run_in_threadpool(fresh, b)
            body = {**build_dict(b, log=False), "build": build_id}
            return JSONResponse(body, 200 if b.status == BuildStatus.PASSED else 422)
        body = {"build": build_id, "status": b.status, "page": f"/build/{build_id}.html"}
        body["position"] = uploads.position(build_id)
        return JSONResponse(body, 202)

    @app.get("/api/me/builds", tags=["participant"])
    def api_my_builds(request: Request) -> list[dict[str, Any]]:
        who = require(reader(request))
        assert who.id is not None
        return [build_dict(b, log=False) for b in builds.of(eng, who.id)]

    @app.get("/api/builds/{build_id}", tags=["participant"])
    def api_build(request: Request, build_id: int, after: int | None = None) -> dict[str, Any]:
        """One upload with its status (``queued`` with its ``position`` in the queue,
        ``building``, ``passed``, ``failed``, ``cancelled``) and its build log, written
        while it builds (its owner and the organiser only). ``after=N``: the log's lines
        from the N-th on as ``lines``, and ``next``, the N to ask for next."""
        if after is not None and after < 0:
            raise UsageProblem("after: give a line number, 0 or more", param="after")
        return build_dict(my_build(reader(request), build_id), log=True, after=after)

    @app.post("/api/builds/{build_id}/cancel", tags=["participant"])
    def api_cancel_build(request: Request, build_id: int) -> dict[str, Any]:
        """Cancel a queued build (it never starts: ``cancelled`` at once) or a running one
        (it is stopped: ``cancelled`` within seconds); nothing is registered. 409 if the
        build has ended."""
        who = require(reader(request))
        check_csrf(request, None, who)
        return build_dict(cancel_build(who, build_id), log=False)

    @app.get("/api/bots/{name}/faults", tags=["participant"])
    def api_faults(request: Request, name: str) -> list[dict[str, Any]]:
        """A bot's faults with the tail of its stderr (its owner and the organiser only)."""
        who = reader(request)
        if not visibility(eng, who)(name):
            raise HTTPException(404, f"no bot {name!r} of yours")
        from arena.store import snapshot

        return [
            {"game": g.id, "tournament": g.tournament_id, **f}
            for g in snapshot.read(eng).games
            for f in g.faults
            if f.get("bot") == name or _bot_of(f.get("bot")) == name
        ]

    @app.post("/api/me/remote", tags=["participant"], status_code=201)
    def api_remote(request: Request, bot: RemoteBot) -> dict[str, Any]:
        """Create a remote bot, or a new token for one (shown once; the old one stops)."""
        who = require(reader(request))
        check_csrf(request, None, who)
        return {"name": bot.name, "token": make_remote(who, bot.name)}

    @app.delete("/api/me/remote/{name}/token", tags=["participant"])
    def api_revoke(request: Request, name: str) -> dict[str, Any]:
        who = require(reader(request))
        check_csrf(request, None, who)
        revoke_remote(who, name)
        return {"name": name, "revoked": True}

    @app.get("/api/stream", tags=["read"], response_class=StreamingResponse)
    async def api_stream(
        request: Request, since: str | None = None, tournament: int | None = None
    ) -> Response:
        """Server-sent events: ``change`` whenever what the pages show has changed (with
        the event's progress when ``tournament`` is given). Open streams are capped per
        client address and in all: beyond, 429 with Retry-After."""
        may_read(await run_in_threadpool(reader, request))
        address = request.client.host if request.client else ""
        try:
            give_back = app.state.streams.take(address)
        except live.TooManyStreams as e:
            return JSONResponse(
                {"detail": str(e)}, 429, headers={"Retry-After": str(live.RETRY_AFTER)}
            )
        return live.CappedStream(
            live.stream(app.state.changes, since, tournament),
            give_back,
            media_type="text/event-stream",
            headers={"Cache-Control": "no-store", "X-Accel-Buffering": "no"},
        )

    # the assets last: "/{asset}" would shadow the pages above
    @app.get("/{asset}", include_in_schema=False)
    def asset(asset: str) -> FileResponse:
        if asset not in ASSETS:
            raise HTTPException(404, "no such page")
        return FileResponse(TEMPLATES / asset, media_type=ASSETS[asset])

    return app


class Sites:
    """The loaded site of each kind of reader (the organiser, each participant, the
    public) at the database's current version: pages of an unchanged database are not
    loaded again; a change drops them all."""

    def __init__(self, eng: Any, keep: int = 32) -> None:
        self.eng = eng
        self.keep = keep
        self._sites: dict[tuple[str, str], LiveSite] = {}
        self._lock = threading.Lock()

    def get(self, who: Reader) -> LiveSite:
        version = changes.version(self.eng)
        kind = "organiser" if who.organiser else f"p{who.id}" if who.signed_in else "public"
        with self._lock:
            site = self._sites.get((version, kind))
            if site is None:
                self._sites = {k: v for k, v in self._sites.items() if k[0] == version}
                if len(self._sites) >= self.keep:
                    self._sites.clear()
                site = self._sites[(version, kind)] = LiveSite(self.eng, visibility(self.eng, who))
            return site


def _build_dict(b: Build, *, log: bool) -> dict[str, Any]:
    out = {
        "id": b.id,
        "bot": b.bot_name,
        "status": b.status,
        "detail": b.detail,
        "version": b.version,
        "created": b.created.isoformat(timespec="seconds"),
        "finished": b.finished.isoformat(timespec="seconds") if b.finished else None,
    }
    if log:
        out["log"] = b.log
    return out


def _bot_of(entry: str | None) -> str | None:
    """The registered bot an entry name stands for (``ev@v2`` → ``ev``)."""
    from arena.names import labelled_version

    found = labelled_version(entry) if entry else None
    return found[0] if found else None
