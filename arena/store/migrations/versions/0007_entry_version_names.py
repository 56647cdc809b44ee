"""entry names of registered bots name their version (ev@v2), so that each version is
rated on its own; entry.name widens to 100 characters to hold a 64-character bot name
with its version

Entries stored before were named by the bot's name (``ev``, ``ev#2`` for a repeat) while
their ``bot_version_id`` said which version played: they are renamed to the version's
label (``ev@v1``, ``ev@v1#2``), and the names in their event's rounds, tables, games and
fault records with them. Entries given other names through the Python API keep them.

Revision ID: 0007
Revises: 0006
Create Date: 2027-01-20 12:00:00
"""

from __future__ import annotations

import re
from collections import defaultdict
from typing import Any

import sqlalchemy as sa
from alembic import op

revision = "0007"
down_revision = "0006"
branch_labels = None
depends_on = None

BATCH = 1000  # game rows read and written at a time

entry = sa.table(
    "entry",
    sa.column("id", sa.Integer),
    sa.column("tournament_id", sa.Integer),
    sa.column("bot_version_id", sa.Integer),
    sa.column("name", sa.String),
)
bot = sa.table("bot", sa.column("id", sa.Integer), sa.column("name", sa.String))
bot_version = sa.table(
    "bot_version",
    sa.column("id", sa.Integer),
    sa.column("bot_id", sa.Integer),
    sa.column("version", sa.Integer),
)
round_ = sa.table(
    "round",
    sa.column("id", sa.Integer),
    sa.column("tournament_id", sa.Integer),
    sa.column("byes", sa.JSON),
)
match = sa.table(
    "match",
    sa.column("id", sa.Integer),
    sa.column("tournament_id", sa.Integer),
    sa.column("seats", sa.JSON),
)
game = sa.table(
    "game",
    sa.column("id", sa.Integer),
    sa.column("tournament_id", sa.Integer),
    sa.column("seating", sa.JSON),
    sa.column("faults", sa.JSON),
)


def upgrade() -> None:
    with op.batch_alter_table("entry", schema=None) as batch_op:
        batch_op.alter_column(
            "name",
            existing_type=sa.String(length=64),
            type_=sa.String(length=100),
            existing_nullable=False,
        )
    conn = op.get_bind()
    for tid, renames in _renames(conn).items():
        _rename(conn, tid, renames)


def downgrade() -> None:
    # the names stay (older code reads any entry name); a name longer than 64 characters
    # makes PostgreSQL refuse the narrower column
    with op.batch_alter_table("entry", schema=None) as batch_op:
        batch_op.alter_column(
            "name",
            existing_type=sa.String(length=100),
            type_=sa.String(length=64),
            existing_nullable=False,
        )


def _renames(conn: sa.Connection) -> dict[int, dict[str, str]]:
    """tournament id -> {old entry name: the version's label} for the entries of
    registered versions that were named by their bot's name (or name#N)."""
    rows = conn.execute(
        sa.select(
            entry.c.id, entry.c.tournament_id, entry.c.name, bot.c.name, bot_version.c.version
        )
        .join(bot_version, bot_version.c.id == entry.c.bot_version_id)
        .join(bot, bot.c.id == bot_version.c.bot_id)
    ).all()
    taken: dict[int, set[str]] = defaultdict(set)
    for tid, name in conn.execute(sa.select(entry.c.tournament_id, entry.c.name)):
        taken[tid].add(name)
    out: dict[int, dict[str, str]] = defaultdict(dict)
    for eid, tid, name, bot_name, number in rows:
        m = re.fullmatch(rf"{re.escape(bot_name)}(#[0-9]+)?", name)
        if m is None:
            continue
        label = f"{bot_name}@v{number}{m[1] or ''}"
        if label in taken[tid]:  # only possible for names given through the API: keep
            continue
        taken[tid].add(label)
        conn.execute(entry.update().where(entry.c.id == eid).values(name=label))
        out[tid][name] = label
    return out


def _names(value: Any, renames: dict[str, str]) -> Any:
    return [renames.get(n, n) for n in value] if isinstance(value, list) else value


def _faults(value: Any, renames: dict[str, str]) -> Any:
    if not isinstance(value, list):
        return value
    return [
        {**f, "bot": renames.get(f["bot"], f["bot"])}
        if isinstance(f, dict) and isinstance(f.get("bot"), str)
        else f
        for f in value
    ]


def _rename(conn: sa.Connection, tid: int, renames: dict[str, str]) -> None:
    """The renamed entries' names in the event's rounds, tables and games."""
    for table, column, change in (
        (round_, round_.c.byes, _names),
        (match, match.c.seats, _names),
    ):
        found = conn.execute(sa.select(table.c.id, column).where(table.c.tournament_id == tid))
        for rid, value in found.all():
            new = change(value, renames)
            if new != value:
                conn.execute(table.update().where(table.c.id == rid).values({column.name: new}))
    after = 0
    while True:
        rows = conn.execute(
            sa.select(game.c.id, game.c.seating, game.c.faults)
            .where(game.c.tournament_id == tid, game.c.id > after)
            .order_by(game.c.id)
            .limit(BATCH)
        ).all()
        if not rows:
            return
        updates = []
        for gid, seating, faults in rows:
            new_seating, new_faults = _names(seating, renames), _faults(faults, renames)
            if (new_seating, new_faults) != (seating, faults):
                updates.append({"gid": gid, "new_seating": new_seating, "new_faults": new_faults})
        if updates:
            conn.execute(
                game.update()
                .where(game.c.id == sa.bindparam("gid"))
                .values(
                    seating=sa.bindparam("new_seating", type_=sa.JSON),
                    faults=sa.bindparam("new_faults", type_=sa.JSON),
                ),
                updates,
            )
        after = rows[-1][0]
