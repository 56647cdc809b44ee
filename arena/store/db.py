"""Opening the database: SQLite by default (WAL), any SQLAlchemy URL otherwise.

The schema is created and upgraded by the migrations on first use, so a new database and
an old one both end up at the current schema (``arena db upgrade`` does it explicitly).
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from sqlalchemy import event, inspect
from sqlalchemy.engine import Engine, make_url
from sqlalchemy.exc import ArgumentError, OperationalError
from sqlmodel import Session, create_engine

from arena.errors import ArenaError

DEFAULT_URL = "sqlite:///arena.db"
MIGRATIONS = Path(__file__).resolve().parent / "migrations"

_engines: dict[str, Engine] = {}


def resolve_url(url: str | None) -> str:
    """--db, then ARENA_DB, then the SQLite file arena.db in the working directory."""
    url = url or os.environ.get("ARENA_DB") or DEFAULT_URL
    if "://" not in url:  # a bare path means a SQLite file
        url = f"sqlite:///{url}"
    return url


def _sqlite_pragmas(dbapi_conn, _record) -> None:  # type: ignore[no-untyped-def]
    cur = dbapi_conn.cursor()
    cur.execute("PRAGMA journal_mode=WAL")
    cur.execute("PRAGMA synchronous=NORMAL")
    cur.execute("PRAGMA foreign_keys=ON")
    cur.execute("PRAGMA busy_timeout=10000")
    cur.close()


def get_engine(url: str | None = None, *, migrate: bool = True) -> Engine:
    """An engine for the URL, with the schema at the current migration."""
    url = resolve_url(url)
    eng = _engines.get(url)
    if eng is not None:
        return eng
    try:
        parsed = make_url(url)
    except ArgumentError:
        raise ArenaError(f"not a database URL: {url!r}") from None
    if parsed.get_backend_name() == "sqlite":
        db = parsed.database
        if db and db != ":memory:":
            Path(db).expanduser().parent.mkdir(parents=True, exist_ok=True)
            from arena.runtime.sandbox import protect

            protect(Path(db).expanduser())  # no bot started from here may see it
        eng = create_engine(url, connect_args={"check_same_thread": False})
        event.listen(eng, "connect", _sqlite_pragmas)
    else:
        eng = create_engine(url, pool_pre_ping=True)
    try:
        with eng.connect():
            pass
    except OperationalError as e:
        raise ArenaError(f"cannot open database {parsed.render_as_string()}: {e.orig}") from None
    except ModuleNotFoundError as e:
        raise ArenaError(f"no driver for {parsed.drivername}: {e}") from None
    if migrate:
        upgrade(eng)
    _engines[url] = eng
    return eng


def upgrade(eng: Engine, revision: str = "head") -> None:
    """Run the migrations up to ``revision`` (the schema version table is alembic_version)."""
    from alembic import command
    from alembic.config import Config

    cfg = Config()
    cfg.set_main_option("script_location", str(MIGRATIONS))
    with eng.begin() as conn:
        cfg.attributes["connection"] = conn
        command.upgrade(cfg, revision)


def current_revision(eng: Engine) -> str | None:
    from alembic.runtime.migration import MigrationContext

    with eng.connect() as conn:
        return MigrationContext.configure(conn).get_current_revision()


def tables(eng: Engine) -> list[str]:
    return sorted(inspect(eng).get_table_names())


@contextmanager
def session(url: str | Engine | None = None) -> Iterator[Session]:
    eng = url if isinstance(url, Engine) else get_engine(url)
    with Session(eng, expire_on_commit=False) as s:
        yield s


def dispose_all() -> None:
    for eng in _engines.values():
        eng.dispose()
    _engines.clear()
