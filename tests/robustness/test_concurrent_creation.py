"""Several commands creating the same new database at the same moment.

Before: each ran the first migration, and all but one died with ``table bot already
exists``. The first migration is now serialised (an immediate transaction on SQLite, an
advisory lock on PostgreSQL): every command succeeds and the schema is created once.

The processes are real and start their commands together: each imports everything, says
it is ready, and waits for the go on its stdin.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from clikit import A_BOT, ROOT, _env
from sqlmodel import Session, select

from arena.store.db import MIGRATIONS, current_revision, get_engine
from arena.store.models import Bot

CHILD = """
import sys
from alembic import command
from alembic.config import Config
from alembic.script import ScriptDirectory
import arena.registry, arena.store.db
from arena.cli import main
print("ready", flush=True)
sys.stdin.readline()
sys.exit(main(sys.argv[1:]))
"""
PROCESSES = 4


def head() -> str:
    return sorted(p.name.split("_")[0] for p in (MIGRATIONS / "versions").glob("0*.py"))[-1]


def start_together(argvs: list[list[str]]) -> list[subprocess.CompletedProcess[str]]:
    procs = [
        subprocess.Popen(
            [sys.executable, "-c", CHILD, *argv],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
            cwd=ROOT,
            env=_env(),
        )
        for argv in argvs
    ]
    try:
        for p in procs:
            assert p.stdout is not None and p.stdout.readline().strip() == "ready"
        for p in procs:  # the go, as close together as the pipes allow
            assert p.stdin is not None
            p.stdin.write("go\n")
            p.stdin.flush()
        results = []
        for p, argv in zip(procs, argvs, strict=True):
            out, err = p.communicate(timeout=120)
            results.append(subprocess.CompletedProcess(argv, p.returncode, out, err))
        return results
    finally:
        for p in procs:
            if p.poll() is None:
                p.kill()


def test_commands_creating_a_new_database_at_once_all_succeed(db_url: str) -> None:
    argvs = [["bot", "add", f"b{i}", "--cmd", A_BOT, "--db", db_url] for i in range(PROCESSES)]
    for r in start_together(argvs):
        assert r.returncode == 0, r.stderr
        assert r.stderr == ""
    eng = get_engine(db_url)
    assert current_revision(eng) == head()
    with Session(eng) as s:
        assert sorted(b.name for b in s.exec(select(Bot))) == [f"b{i}" for i in range(PROCESSES)]


def test_concurrent_upgrades_of_a_new_database_all_report_the_head(tmp_path: Path) -> None:
    url = f"sqlite:///{tmp_path / 'new.db'}"
    for r in start_together([["db", "upgrade", "--db", url]] * PROCESSES):
        assert r.returncode == 0, r.stderr
        assert f"revision {head()}" in r.stdout
