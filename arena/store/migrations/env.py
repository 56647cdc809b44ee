"""Alembic environment: the connection comes from arena.store.db.upgrade (or -x url=...)."""

from __future__ import annotations

from alembic import context
from sqlalchemy import Connection, create_engine
from sqlmodel import SQLModel

import arena.store.models  # noqa: F401  (registers the tables)

config = context.config
target_metadata = SQLModel.metadata


def migrate(connection: Connection) -> None:
    context.configure(connection=connection, target_metadata=target_metadata, render_as_batch=True)
    with context.begin_transaction():
        context.run_migrations()


def run() -> None:
    conn = config.attributes.get("connection")
    if conn is not None:
        migrate(conn)
        return
    url = context.get_x_argument(as_dictionary=True).get("url") or config.get_main_option(
        "sqlalchemy.url"
    )
    if not url:
        raise SystemExit("no database to migrate: pass -x url=URL")
    with create_engine(url).connect() as connection:
        migrate(connection)


run()
