"""Who is reading: the session cookie (or a bearer login token for the API), the CSRF
token of the session's forms, and what each role may see.

Signing in through the form opens a session kept on the server
(:func:`arena.participants.open_session`); the ``arena_session`` cookie carries only its
random key. Signing out ends it on the server, so a copied cookie stops working at once;
it also ends after :data:`~arena.server.settings.SESSION_IDLE` unused or
:data:`~arena.server.settings.SESSION_MAX` after signing in
(``arena serve --session-idle/--session-max``), or when the participant's sessions are
ended (:func:`arena.store.sessions.end_all`: ``arena user disable`` and ``arena user
token`` do). A disabled participant's sessions and bearer token are refused. The CSRF
token lives in a separate signed cookie (Starlette's SessionMiddleware, ``arena_csrf``),
renewed at each sign-in and sign-out."""

from __future__ import annotations

import hmac
import secrets
from dataclasses import dataclass
from datetime import timedelta
from typing import Any

from fastapi import HTTPException, Request, Response

from arena.names import labelled_version
from arena.participants import (
    ParticipantDisabled,
    close_session,
    open_session,
    session_participant,
    sign_in,
)
from arena.status import Role
from arena.store import bots

CSRF_FIELD = "csrf"
CSRF_HEADER = "x-csrf-token"
SESSION_COOKIE = "arena_session"  # the server-side session's key, nothing else
CSRF_COOKIE = "arena_csrf"  # Starlette's signed cookie, holding the CSRF token only


@dataclass(frozen=True)
class Reader:
    """The signed-in participant (or nobody)."""

    id: int | None = None
    name: str | None = None
    role: str | None = None
    bearer: bool = False  # signed in by a token in the request, not by the cookie

    @property
    def signed_in(self) -> bool:
        return self.id is not None

    @property
    def organiser(self) -> bool:
        return self.role == Role.ORGANISER


def reader(request: Request) -> Reader:
    """The request's reader: a bearer login token, else the session cookie's live
    session on the server (looked up once per request)."""
    known = getattr(request.state, "reader", None)
    if isinstance(known, Reader):
        return known
    db = request.app.state.db
    header = request.headers.get("authorization", "")
    if header.lower().startswith("bearer "):
        try:
            p = sign_in(db, header[7:])
        except ParticipantDisabled as e:
            raise HTTPException(401, str(e)) from None
        if p is None:
            raise HTTPException(401, "unknown login token")
        who = Reader(p.id, p.name, p.role, bearer=True)
    else:
        key = request.cookies.get(SESSION_COOKIE, "")
        p = session_participant(db, key, request.app.state.config.session_idle) if key else None
        who = Reader() if p is None else Reader(p.id, p.name, p.role)
    request.state.reader = who
    return who


def start_session(request: Request, response: Response, participant: Any) -> None:
    """Sign ``participant`` in: a new session on the server, its key in the cookie, and a
    fresh CSRF token (none of the signed-out page's survives)."""
    lifetime: timedelta = request.app.state.config.session_max
    db = request.app.state.db
    close_session(db, request.cookies.get(SESSION_COOKIE, ""))  # this browser's last one
    key = open_session(db, participant, lifetime)
    request.session.clear()
    response.set_cookie(
        SESSION_COOKIE,
        key,
        max_age=int(lifetime.total_seconds()),
        path="/",
        secure=request.url.scheme == "https",
        httponly=True,
        samesite="lax",
    )


def end_session(request: Request, response: Response) -> None:
    """Sign out: the session ends on the server (a copy of the cookie is worthless from
    now on) and the browser forgets its cookie and CSRF token."""
    close_session(request.app.state.db, request.cookies.get(SESSION_COOKIE, ""))
    request.session.clear()
    response.delete_cookie(SESSION_COOKIE, path="/", httponly=True, samesite="lax")


def csrf_token(request: Request) -> str:
    token = request.session.get(CSRF_FIELD)
    if not token:
        token = request.session[CSRF_FIELD] = secrets.token_urlsafe(24)
    return str(token)


def check_csrf(request: Request, sent: str | None, who: Reader) -> None:
    """A state-changing request under the session cookie carries the session's CSRF token
    (a form field or the X-CSRF-Token header); a bearer-token request needs none."""
    if who.bearer:
        return
    expected = request.session.get(CSRF_FIELD)
    sent = sent or request.headers.get(CSRF_HEADER)
    if not expected or not sent or not hmac.compare_digest(str(expected), str(sent)):
        raise HTTPException(403, "missing or wrong CSRF token: reload the page and try again")


def require(who: Reader) -> Reader:
    if not who.signed_in:
        raise HTTPException(401, "sign in first")
    return who


def require_organiser(who: Reader) -> Reader:
    if not require(who).organiser:
        raise HTTPException(403, "only the organiser may do that")
    return who


def visibility(db: Any, who: Reader) -> Any:
    """Whose faults and logs ``who`` may see: every bot's for the organiser, their own
    bots' for a participant, nobody's for an anonymous reader."""
    if who.organiser:
        return lambda _bot: True
    owner_of = bots.owners(db)

    def may_see(bot: str | None) -> bool:
        if not who.signed_in or bot is None:
            return False
        found = labelled_version(bot)  # results name a registered bot's version: NAME@vN
        return owner_of.get(found[0] if found else bot) == who.id

    return may_see
