"""bot and participant names unique ignoring case: a normalised-name column, unique

Revision ID: 0011
Revises: 0010
Create Date: 2026-12-04 16:30:00

Each bot and participant gets ``name_key`` (arena.names.name_key: NFKC, case-folded) with a
unique index, so that ``Victim`` cannot register beside ``victim``, even when both arrive at
once. A database that already holds names differing only in case still migrates: the oldest
row (lowest id) keeps the plain key, each later one gets ``<key>#<id>`` ('#' is in no name),
so it keeps its name, its versions and its results, and stays reachable by its exact name,
while no new name of that key can be registered beside them.
"""

import unicodedata

import sqlalchemy as sa
from alembic import op

revision = "0011"
down_revision = "0010"
branch_labels = None
depends_on = None

KEY_MAX = 4 * 64 + 24
TABLES = ("bot", "participant")


def _key(name: str) -> str:
    # arena.names.name_key, frozen here as this revision computes it
    return unicodedata.normalize("NFKC", unicodedata.normalize("NFKC", name).casefold())


def upgrade() -> None:
    conn = op.get_bind()
    for table in TABLES:
        op.add_column(table, sa.Column("name_key", sa.String(length=KEY_MAX), nullable=True))
        rows = conn.execute(sa.text(f"SELECT id, name FROM {table} ORDER BY id")).all()
        seen: set[str] = set()
        for row_id, name in rows:
            key = _key(name)
            if key in seen:
                key = f"{key}#{row_id}"
            seen.add(key)
            conn.execute(
                sa.text(f"UPDATE {table} SET name_key = :k WHERE id = :i"), {"k": key, "i": row_id}
            )
        op.create_index(f"ix_{table}_name_key", table, ["name_key"], unique=True)


def downgrade() -> None:
    for table in TABLES:
        op.drop_index(f"ix_{table}_name_key", table_name=table)
        with op.batch_alter_table(table, schema=None) as batch_op:
            batch_op.drop_column("name_key")
