"""Opening the database: SQLite by default (WAL), any SQLAlchemy URL otherwise.

The schema is created and upgraded by the migrations on first use, so a new database and
an old one both end up at the current schema (``arena db upgrade`` does it explicitly).
The first migration of a new database is serialised (an immediate transaction on SQLite,
an advisory lock on PostgreSQL), so that two commands creating it at once both succeed.

Commands that only read open with :func:`read_engine`: a SQLite file that does not exist
is then an empty database held in memory, so nothing (no file, no folder) is created.
Commands that write open with :func:`get_engine`; a SQLite file is created once and from
then on only reopened (never silently recreated), and before every transaction the arena
checks that the file is still the one it opened, so a database removed or replaced while
an event runs stops the event instead of losing its games.

Everything else in ``arena/`` reads and writes through the store's modules
(``bots``, ``tournaments``, ``rounds``, ``games``, ``snapshot``), which open their sessions
with :func:`session`.

Every database error carries the database's name (``arena_db``; passwords hidden), so
that the CLI can say in one line which file or URL failed (:func:`explain`).
"""

from __future__ import annotations

import os
import sqlite3
import urllib.parse
import weakref
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import Any, Protocol, TypeVar

from sqlalchemy import event, inspect, text
from sqlalchemy.engine import URL, Engine, make_url
from sqlalchemy.exc import ArgumentError, SQLAlchemyError
from sqlalchemy.pool import StaticPool
from sqlmodel import Session, SQLModel, create_engine

from arena.errors import ArenaError, UsageProblem

DEFAULT_URL = "sqlite:///arena.db"
MIGRATIONS = Path(__file__).resolve().parent / "migrations"
CONNECT_TIMEOUT = 10  # seconds to reach a database server
MIGRATION_LOCK = 0x46374152  # PostgreSQL advisory lock key held during a migration

_engines: dict[str, Engine] = {}
_meta: weakref.WeakKeyDictionary[Engine, dict[str, Any]] = weakref.WeakKeyDictionary()


class DatabaseReplaced(ArenaError):
    """The SQLite file was removed or replaced while the arena was using it."""


EXPECTED_FORMS = "sqlite:///path/to/arena.db or postgresql+psycopg://user:pw@host/db"
SQLITE_SUFFIXES = (".db", ".sqlite", ".sqlite3", ".db3")


def resolve_url(url: str | None) -> str:
    """--db, then ARENA_DB, then the SQLite file arena.db in the working directory.

    A value without a scheme is a SQLite file when it looks like one: it names an existing
    file, has a folder in it (``data/x``, ``./x``, ``~/x``, ``/abs/x``) or a SQLite suffix
    (``x.db``, ``x.sqlite``). A bare word such as ``foo`` is a mistake (a URL with its
    scheme forgotten, or a bot's name in the wrong place), not a new file: a usage error
    that shows the expected forms."""
    url = url or os.environ.get("ARENA_DB") or DEFAULT_URL
    if "://" not in url:
        if not looks_like_file(url):
            raise UsageProblem(
                f"{url!r} is not a database URL nor a SQLite file path; give e.g. "
                f"{EXPECTED_FORMS} (a SQLite file also as path/to/name.db)",
                param="--db",
            )
        url = f"sqlite:///{url}"
    return url


def looks_like_file(value: str) -> bool:
    """Whether a --db value without a scheme names a SQLite file (see resolve_url)."""
    if "/" in value or os.sep in value or value.startswith(("~", ".")):
        return True
    if value.lower().endswith(SQLITE_SUFFIXES):
        return True
    return Path(value).is_file()


def _parse(url: str) -> URL:
    try:
        return make_url(url)
    except (ArgumentError, ValueError):
        raise ArenaError(f"not a database URL: {describe(url)}") from None


def describe(url: str | URL) -> str:
    """How messages name a database: a SQLite file by its path, others by URL with the
    password hidden."""
    try:
        parsed = url if isinstance(url, URL) else make_url(url)
    except (ArgumentError, ValueError):
        text_url = str(url)
        if "@" in text_url and "://" in text_url:  # hide whatever sits before the host
            scheme, rest = text_url.split("://", 1)
            return f"{scheme}://***@{rest.rsplit('@', 1)[1]}"
        return repr(text_url)
    path = sqlite_file(parsed)
    if path is not None:
        return str(path)
    return parsed.render_as_string(hide_password=True)


def sqlite_file(url: str | URL) -> Path | None:
    """The file of a file-backed SQLite URL; None for memory databases and servers."""
    parsed = url if isinstance(url, URL) else make_url(url)
    if parsed.get_backend_name() != "sqlite":
        return None
    db = parsed.database
    if not db or db == ":memory:" or db.startswith("file:") or parsed.query.get("uri"):
        return None
    return Path(db).expanduser()


def one_line(exc: BaseException) -> str:
    """A database error's message, on one line, without SQLAlchemy's decorations."""
    orig = getattr(exc, "orig", None)
    msg = str(orig if orig is not None else exc) or type(exc).__name__
    lines = [part.strip() for part in msg.splitlines() if part.strip()]
    lines = [ln for ln in lines if not ln.startswith(("(Background on this error", "[SQL:"))]
    return "; ".join(lines) or type(exc).__name__


def explain(exc: BaseException) -> str:
    """``database NAME: MESSAGE`` for any database error."""
    name = getattr(exc, "arena_db", None)
    return f"database {name}: {one_line(exc)}" if name else f"database error: {one_line(exc)}"


def _name_errors(eng: Engine) -> None:
    """Attach the database's name to every error raised through this engine."""
    name = describe(eng.url)

    def tag(context: Any) -> None:
        for exc in (context.sqlalchemy_exception, context.original_exception):
            if exc is not None:
                try:
                    exc.arena_db = name
                except AttributeError:
                    pass

    event.listen(eng, "handle_error", tag)


def _sqlite_pragmas(dbapi_conn: sqlite3.Connection, _record: object) -> None:
    cur = dbapi_conn.cursor()
    cur.execute("PRAGMA busy_timeout=10000")  # first: the others may wait for a lock
    cur.execute("PRAGMA journal_mode=WAL")
    cur.execute("PRAGMA synchronous=NORMAL")
    cur.execute("PRAGMA foreign_keys=ON")
    cur.close()


def _identity(path: Path) -> tuple[int, int] | None:
    try:
        st = os.stat(path)
    except OSError:
        return None
    return st.st_dev, st.st_ino


def _watch_file(eng: Engine, path: Path) -> None:
    """Before every transaction: the file must still be the one that was opened."""
    opened = _identity(path)
    _meta.setdefault(eng, {})["file"] = (path, opened)

    def check(_conn: Any) -> None:
        now = _identity(path)
        if now == opened:
            return
        what = "removed" if now is None else "replaced by another file"
        raise DatabaseReplaced(
            f"the database file {path} was {what} while the arena was using it; "
            "stopped without writing (restore the file to continue)"
        )

    event.listen(eng, "begin", check)


def _same_file(eng: Engine) -> bool:
    info = _meta.get(eng, {}).get("file")
    return info is None or _identity(info[0]) == info[1]


def _sqlite_engine(url: str, path: Path, create: bool) -> Engine:
    """A file-backed SQLite engine that opens the existing file (read-write where the file
    allows it) and never creates it again once it is gone."""
    if not path.exists():
        if not create:
            raise FileNotFoundError(path)
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
            sqlite3.connect(path).close()  # creates the empty file
        except (OSError, sqlite3.Error) as e:
            raise ArenaError(f"cannot create database {path}: {_os_reason(e)}") from None
    target = "file:" + urllib.parse.quote(str(path.resolve())) + "?mode=rw"

    def connect() -> sqlite3.Connection:
        return sqlite3.connect(target, uri=True, check_same_thread=False)

    eng = create_engine(url, creator=connect)
    event.listen(eng, "connect", _sqlite_pragmas)
    return eng


def _os_reason(e: BaseException) -> str:
    return getattr(e, "strerror", None) or str(e)


def _empty_engine(url: str) -> Engine:
    """An empty database at the current schema, in memory and read-only: what a command
    that only reads sees when the SQLite file does not exist yet."""
    from sqlmodel import SQLModel

    import arena.store.models  # noqa: F401  (registers the tables)

    eng = create_engine(
        "sqlite://", poolclass=StaticPool, connect_args={"check_same_thread": False}
    )
    SQLModel.metadata.create_all(eng)
    with eng.connect() as conn:
        conn.exec_driver_sql("PRAGMA query_only=ON")
    _meta.setdefault(eng, {})["empty"] = url
    return eng


def get_engine(url: str | None = None, *, migrate: bool = True, create: bool = True) -> Engine:
    """An engine for the URL, with the schema at the current migration.

    ``create=False`` (commands that only read): a missing SQLite file is an empty,
    read-only database in memory, and nothing is created on disk.
    """
    url = resolve_url(url)
    eng = _engines.get(url)
    if eng is not None:
        if _same_file(eng):
            return eng
        eng.dispose()  # the file changed since: open what is there now
        del _engines[url]
    parsed = _parse(url)
    path = sqlite_file(parsed)
    if path is not None and not create and not path.exists():
        key = f"empty:{url}"
        eng = _engines.get(key)
        if eng is None:
            eng = _engines[key] = _empty_engine(url)
        return eng
    try:
        if path is not None:
            from arena.runtime.sandbox import protect

            protect(path)  # no bot started from this process may see it
            eng = _sqlite_engine(url, path, create)
        elif parsed.get_backend_name() == "sqlite":
            eng = create_engine(url, connect_args={"check_same_thread": False})
            event.listen(eng, "connect", _sqlite_pragmas)
        else:
            args = (
                {"connect_timeout": CONNECT_TIMEOUT}
                if parsed.get_backend_name()
                in (
                    "postgresql",
                    "mysql",
                )
                else {}
            )
            eng = create_engine(url, pool_pre_ping=True, connect_args=args)
    except ModuleNotFoundError as e:
        raise ArenaError(f"no driver for {parsed.drivername}: {e}") from None
    except (ArgumentError, TypeError, ValueError) as e:
        raise ArenaError(f"not a usable database URL {describe(parsed)}: {e}") from None
    _name_errors(eng)
    try:
        with eng.connect():
            pass
        if migrate:
            upgrade(eng)
    except SQLAlchemyError as e:
        eng.dispose()
        raise ArenaError(f"cannot open database {describe(parsed)}: {one_line(e)}") from None
    except ModuleNotFoundError as e:
        eng.dispose()
        raise ArenaError(f"no driver for {parsed.drivername}: {e}") from None
    if path is not None:
        _watch_file(eng, path.absolute())
    _engines[url] = eng
    return eng


def read_engine(url: str | None = None) -> Engine:
    """For commands that only read: never creates a database file or folder."""
    return get_engine(url, create=False)


def is_empty_stand_in(eng: Engine) -> bool:
    """Whether ``eng`` is the in-memory stand-in for a database file that does not exist."""
    return "empty" in _meta.get(eng, {})


def _config() -> Any:
    from alembic.config import Config

    cfg = Config()
    cfg.set_main_option("script_location", str(MIGRATIONS))
    return cfg


def _head(cfg: Any) -> str | None:
    from alembic.script import ScriptDirectory

    return ScriptDirectory.from_config(cfg).get_current_head()


def head_revision() -> str | None:
    """The schema revision this code migrates databases to (its newest migration)."""
    return _head(_config())


def upgrade(eng: Engine, revision: str = "head") -> None:
    """Run the migrations up to ``revision`` (the schema version table is alembic_version).

    A database already at the head is only read. Otherwise the migration holds the
    database's write lock (SQLite: an immediate transaction; PostgreSQL: an advisory
    lock) from reading the current revision to the last step, so that concurrent first
    uses run it once, one after the other."""
    from alembic import command

    cfg = _config()
    if revision == "head" and current_revision(eng) == _head(cfg):
        return
    with eng.begin() as conn:
        backend = eng.dialect.name
        if backend == "sqlite":
            conn.exec_driver_sql("BEGIN IMMEDIATE")
        elif backend == "postgresql":
            conn.execute(text("SELECT pg_advisory_xact_lock(:k)"), {"k": MIGRATION_LOCK})
        cfg.attributes["connection"] = conn
        command.upgrade(cfg, revision)


def current_revision(eng: Engine) -> str | None:
    from alembic.runtime.migration import MigrationContext

    with eng.connect() as conn:
        return MigrationContext.configure(conn).get_current_revision()


def tables(eng: Engine) -> list[str]:
    return sorted(inspect(eng).get_table_names())


Db = str | Engine | None
"""How callers name a database: an open Engine, a URL, or None for the default one."""


def engine_of(db: Db) -> Engine:
    """The engine of ``db``: itself if it is one, else :func:`get_engine` of the URL."""
    return db if isinstance(db, Engine) else get_engine(db)


@contextmanager
def session(db: Db = None) -> Iterator[Session]:
    """A session on ``db``: the only way the arena opens one (the store's modules call
    it). Rows stay readable after commit and close, so they can be handed out."""
    with Session(engine_of(db), expire_on_commit=False) as s:
        yield s


Row = TypeVar("Row", bound=SQLModel)


class HasId(Protocol):
    id: int | None


def add_with_children(db: Db, parent: HasId, children: Sequence[SQLModel], key: str) -> None:
    """Store a new row and the new rows that point at it (their column ``key`` is set to
    its id), in one transaction."""
    with session(db) as s:
        s.add(parent)
        s.flush()
        for child in children:
            setattr(child, key, parent.id)
            s.add(child)
        s.commit()


def update(
    db: Db, table: type[Row], key: int | None, *, also: Sequence[SQLModel] = (), **columns: object
) -> Row:
    """Set ``columns`` of the stored row ``key`` of ``table`` (which must exist) and add the
    new rows ``also``, in one transaction; returns the row."""
    with session(db) as s:
        s.add_all(also)
        row = s.get(table, key)
        assert row is not None, f"no stored {table.__name__} {key}"
        for name, value in columns.items():
            setattr(row, name, value)
        s.add(row)
        s.commit()
        return row


def dispose_all() -> None:
    for eng in _engines.values():
        eng.dispose()
    _engines.clear()
