"""Security headers on every answer of the competition server: pages, the API, assets,
errors and redirects alike.

* ``Content-Security-Policy``: scripts, styles and everything else from the site itself
  only; no inline script, no inline event handler, no inline style (the templates keep
  every script in an asset, ``live.js`` and ``replay.js``, and the replay's data in a
  ``<script type="application/json">`` block, which is never executed); forms post to the
  site only; no ``<base>``; and ``frame-ancestors 'none'``;
* ``X-Frame-Options: DENY`` (browsers without frame-ancestors), ``X-Content-Type-Options:
  nosniff``, ``Referrer-Policy: same-origin``, ``Cross-Origin-Opener-Policy:
  same-origin``.

A route that must differ sets its own ``Content-Security-Policy`` (for example
:func:`frameable` for a page meant for others' iframes): the middleware then leaves the
policy alone, and sends no ``X-Frame-Options`` (which cannot express "these sites may").
The API's documentation pages (``/docs``, ``/redoc``: FastAPI's, loading Swagger UI and
ReDoc from their CDN) have a policy of their own: :func:`docs_policy`.
"""

from __future__ import annotations

import base64
import hashlib
import re
from collections.abc import Iterable
from typing import Any

from fastapi import FastAPI
from starlette.types import ASGIApp, Receive, Scope, Send

FRAME_NONE = "'none'"


def policy(frame_ancestors: str = FRAME_NONE) -> str:
    """The site's Content-Security-Policy, with who may frame its pages."""
    return "; ".join(
        (
            "default-src 'none'",
            "script-src 'self'",
            "style-src 'self'",
            "img-src 'self' data:",  # data: for the empty favicon of every page
            "connect-src 'self'",  # the live stream and the pages' own refresh
            "form-action 'self'",
            "base-uri 'none'",
            f"frame-ancestors {frame_ancestors}",
        )
    )


def frameable(ancestors: str = "*") -> dict[str, str]:
    """The headers of an answer that others' pages may show in an iframe (``ancestors``:
    a CSP source list, for example ``https://example.org``): pass them to the response."""
    return {"Content-Security-Policy": policy(ancestors)}


def _hashes(html: str, tag: str) -> list[str]:
    """CSP hash sources of the inline ``<tag>`` blocks of a page."""
    found = re.findall(rf"<{tag}>(.*?)</{tag}>", html, flags=re.S)
    return [
        "'sha256-" + base64.b64encode(hashlib.sha256(text.encode()).digest()).decode() + "'"
        for text in found
    ]


def docs_policy(pages: Iterable[str]) -> str:
    """The policy of FastAPI's documentation pages (their HTML in ``pages``): Swagger UI
    and ReDoc from jsDelivr, their one inline script allowed by its hash; styles inline
    too, which both need (third-party pages holding no participant's data)."""
    scripts = sorted({h for html in pages for h in _hashes(html, "script")})
    cdn = "https://cdn.jsdelivr.net"
    return "; ".join(
        (
            "default-src 'none'",
            " ".join(("script-src 'self'", cdn, *scripts)),
            f"style-src 'self' 'unsafe-inline' {cdn} https://fonts.googleapis.com",
            "font-src https://fonts.gstatic.com",
            "img-src 'self' data: https://fastapi.tiangolo.com https://cdn.redoc.ly",
            "worker-src blob:",
            "connect-src 'self'",
            "form-action 'self'",
            "base-uri 'none'",
            f"frame-ancestors {FRAME_NONE}",
        )
    )


class SecurityHeaders:
    """ASGI middleware: the headers above on every HTTP answer (``overrides``: the policy
    of given paths, such as the documentation's)."""

    def __init__(self, app: Any, overrides: dict[str, str] | None = None) -> None:
        self.app = app
        self.default = policy().encode()
        self.overrides = {k: v.encode() for k, v in (overrides or {}).items()}

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        csp = self.overrides.get(scope.get("path", ""), self.default)

        async def with_headers(message: Any) -> None:
            if message["type"] == "http.response.start":
                headers = list(message.get("headers") or [])
                present = {k.lower() for k, _ in headers}
                own_policy = b"content-security-policy" in present
                add = [
                    (b"content-security-policy", csp),
                    (b"x-frame-options", b"DENY"),
                    (b"x-content-type-options", b"nosniff"),
                    (b"referrer-policy", b"same-origin"),
                    (b"cross-origin-opener-policy", b"same-origin"),
                ]
                for name, value in add:
                    if name in present or (own_policy and name == b"x-frame-options"):
                        continue
                    headers.append((name, value))
                message = {**message, "headers": headers}
            await send(message)

        await self.app(scope, receive, with_headers)


class Secured(FastAPI):
    """FastAPI whose every answer carries the security headers: the middleware wraps the
    whole stack, outside Starlette's error middleware, so that its 500 pages carry them
    too (a middleware added with ``add_middleware`` sits inside it)."""

    def build_middleware_stack(self) -> ASGIApp:
        docs = docs_policy(_docs_pages(self))
        overrides = dict.fromkeys([p for p in (self.docs_url, self.redoc_url) if p], docs)
        return SecurityHeaders(super().build_middleware_stack(), overrides)


def _docs_pages(app: FastAPI) -> list[str]:
    """The HTML of FastAPI's documentation pages as it serves them (their inline script
    is allowed by its hash in their policy)."""
    from fastapi.openapi.docs import get_redoc_html, get_swagger_ui_html

    if app.openapi_url is None:
        return []
    swagger = get_swagger_ui_html(
        openapi_url=app.openapi_url,
        title=f"{app.title} - Swagger UI",
        oauth2_redirect_url=app.swagger_ui_oauth2_redirect_url,
        init_oauth=app.swagger_ui_init_oauth,
        swagger_ui_parameters=app.swagger_ui_parameters,
    )
    redoc = get_redoc_html(openapi_url=app.openapi_url, title=f"{app.title} - ReDoc")
    return [bytes(page.body).decode() for page in (swagger, redoc)]
