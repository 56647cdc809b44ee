"""Goes for the tournament's SQLite database — reads it, rewrites its results in its own
favour, appends garbage, deletes it, writes beside it — then plays normally.
``db_attack.py DB_PATH ATTACK``: with ATTACK 0 it only plays (the same way), so that a
test can compare the results of an attacked run with those of a quiet one."""

import os
import sqlite3
import sys

import hostile

TARGET, ATTACK = sys.argv[1], sys.argv[2] != "0"


def attempt(what: str, fn) -> None:  # type: ignore[no-untyped-def]
    try:
        result = fn()
        hostile.note(event=what, ok=True, result=repr(result)[:200])
    except Exception as e:
        hostile.note(event=what, ok=False, error=f"{type(e).__name__}: {e}")


def read() -> bytes:
    with open(TARGET, "rb") as f:
        return f.read(100)


def rewrite() -> int:
    con = sqlite3.connect(TARGET, timeout=1)
    con.execute("UPDATE game SET ranks = '[1, 1]'")
    con.commit()
    return con.total_changes


def append() -> int:
    with open(TARGET, "ab") as f:
        return f.write(b"garbage")


def beside() -> int:
    with open(TARGET + ".new", "wb") as f:
        return f.write(b"x")


def attack() -> None:
    if not ATTACK:
        return
    attempt("read", read)
    attempt("rewrite", rewrite)
    attempt("append", append)
    attempt("delete", lambda: os.remove(TARGET))
    attempt("beside", beside)


if __name__ == "__main__":
    hostile.play(attack, name="db-attack")
