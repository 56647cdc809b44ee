"""Who is reading: the signed session cookie (or a bearer login token for the API), the
CSRF token of the session's forms, and what each role may see."""

from __future__ import annotations

import hmac
import secrets
from dataclasses import dataclass
from typing import Any

from fastapi import HTTPException, Request

from arena.names import labelled_version
from arena.participants import sign_in
from arena.status import Role
from arena.store import bots, participants

CSRF_FIELD = "csrf"
CSRF_HEADER = "x-csrf-token"


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
    """The request's reader: a bearer login token, else the session cookie."""
    db = request.app.state.db
    header = request.headers.get("authorization", "")
    if header.lower().startswith("bearer "):
        p = sign_in(db, header[7:])
        if p is None:
            raise HTTPException(401, "unknown login token")
        return Reader(p.id, p.name, p.role, bearer=True)
    pid = request.session.get("pid")
    if pid is None:
        return Reader()
    p = participants.get(db, int(pid))
    if p is None:  # the participant is gone: the cookie is worthless
        request.session.clear()
        return Reader()
    return Reader(p.id, p.name, p.role)


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
