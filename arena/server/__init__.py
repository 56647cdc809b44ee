"""The competition server (``arena serve``): the report's pages, live, over the same
database as the command line; participants who sign in, upload bots and watch them play;
a JSON API; the gRPC gateway for remote bots, used by the events the server runs.

* :mod:`~arena.server.app` — the ASGI app (FastAPI): pages, forms and the JSON API;
* :mod:`~arena.server.auth` — sign-in, sessions kept on the server, CSRF tokens, roles;
* :mod:`~arena.server.headers` — security headers (CSP, frames, nosniff) on every answer;
* :mod:`~arena.server.settings` — the defaults of the server's settings;
* :mod:`~arena.server.pages` — the report's pages rendered for one reader;
* :mod:`~arena.server.uploads` — an upload through the build sandbox to a bot version;
* :mod:`~arena.server.upload` — archives checked before they are unpacked;
* :mod:`~arena.server.events` — the events the server runs, one at a time, resumed at start;
* :mod:`~arena.server.live` — server-sent events from one shared poller, streams capped;
* :mod:`~arena.server.body_limit` — request bodies capped as they arrive.
"""
