"""Shared test configuration.

* makes the helpers in tests/engine importable as ``helpers``, and the modules of this
  folder (``hostkit``: CI, Docker, a host listener) by their names;
* ``db_url``: a fresh, empty database for each test, on SQLite and — when
  ARENA_TEST_POSTGRES names a PostgreSQL role that may create databases — on a real
  PostgreSQL too. Under CI (CI=true) a missing PostgreSQL fails the run instead of
  skipping it.
"""

from __future__ import annotations

import os
import sys
import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).parent / "engine"))
sys.path.insert(0, str(Path(__file__).parent))

POSTGRES = os.environ.get("ARENA_TEST_POSTGRES")
from hostkit import UNDER_CI  # noqa: E402 (found through the path set above)


@pytest.fixture(params=["sqlite", "postgresql"])
def db_url(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[str]:
    if request.param == "sqlite":
        yield f"sqlite:///{tmp_path / 'arena.db'}"
        return
    if not POSTGRES:
        if UNDER_CI:
            pytest.fail("ARENA_TEST_POSTGRES is not set: CI must test on a real PostgreSQL")
        pytest.skip("set ARENA_TEST_POSTGRES to also test on PostgreSQL")
    from sqlalchemy import create_engine, text
    from sqlalchemy.engine import make_url

    admin = create_engine(POSTGRES, isolation_level="AUTOCOMMIT")
    name = f"arena_test_{uuid.uuid4().hex[:12]}"
    with admin.connect() as c:
        c.execute(text(f'CREATE DATABASE "{name}"'))
    url = make_url(POSTGRES).set(database=name).render_as_string(hide_password=False)
    try:
        yield url
    finally:
        from arena.store.db import dispose_all

        dispose_all()
        with admin.connect() as c:
            c.execute(text(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)'))
        admin.dispose()
