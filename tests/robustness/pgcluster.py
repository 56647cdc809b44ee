"""A private, throwaway PostgreSQL server for tests that stop and restart it.

``initdb`` a fresh cluster in a temporary folder, owned by the ``postgres`` user (the
server refuses to run as root), listening on 127.0.0.1 and a free port only, with trust
authentication for its one superuser. ``stop()`` and ``start()`` restart it; ``close()``
removes it. The machine's own PostgreSQL is never touched.
"""

from __future__ import annotations

import glob
import os
import pwd
import shutil
import socket
import subprocess
import tempfile
from pathlib import Path

import pytest

USER = "arena"


def _bin() -> Path | None:
    found = sorted(glob.glob("/usr/lib/postgresql/*/bin/pg_ctl"))
    return Path(found[-1]).parent if found else None


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class PrivateCluster:
    def __init__(self) -> None:
        bindir = _bin()
        under_ci = os.environ.get("CI", "").lower() in ("1", "true", "yes")
        why = None
        if bindir is None:
            why = "no PostgreSQL server binaries (initdb, pg_ctl) in /usr/lib/postgresql"
        elif os.geteuid() != 0:
            why = "needs root to run a private PostgreSQL server as the postgres user"
        else:
            try:
                pwd.getpwnam("postgres")
            except KeyError:
                why = "no postgres user to run a private PostgreSQL server"
        if why:
            if under_ci:
                pytest.fail(why)
            pytest.skip(why)
        assert bindir is not None
        self.bin = bindir
        self.root = Path(tempfile.mkdtemp(prefix="arena-pg-"))
        self.data = self.root / "data"
        self.port = _free_port()
        shutil.chown(self.root, "postgres", "postgres")
        self._as_postgres(
            "initdb", "-D", str(self.data), "-U", USER, "--auth=trust", "-E", "UTF8", "--no-sync"
        )
        self.start()

    @property
    def url(self) -> str:
        return f"postgresql+psycopg://{USER}@127.0.0.1:{self.port}/postgres"

    def _as_postgres(self, tool: str, *args: str) -> None:
        subprocess.run(
            ["runuser", "-u", "postgres", "--", str(self.bin / tool), *args],
            check=True,
            capture_output=True,
            cwd=self.root,
            timeout=120,
        )

    def start(self) -> None:
        options = (
            f"-p {self.port} -c listen_addresses=127.0.0.1 -k {self.root} -c fsync=off "
            "-c full_page_writes=off"
        )
        self._as_postgres(
            "pg_ctl",
            "-D",
            str(self.data),
            "-o",
            options,
            "-l",
            str(self.root / "log"),
            "-w",
            "start",
        )

    def stop(self) -> None:
        self._as_postgres("pg_ctl", "-D", str(self.data), "-m", "fast", "-w", "stop")

    def close(self) -> None:
        try:
            self.stop()
        except subprocess.CalledProcessError:
            pass  # already stopped
        shutil.rmtree(self.root, ignore_errors=True)
