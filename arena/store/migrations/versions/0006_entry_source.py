"""entry source: the whole bot source (arena.bots) as JSON

Revision ID: 0006
Revises: 0005
Create Date: 2026-12-01 23:00:00
"""

import sqlalchemy as sa
from alembic import op

revision = "0006"
down_revision = "0005"
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table("entry", schema=None) as batch_op:
        # NULL for entries stored before: their command/policy/image/remote columns say it
        batch_op.add_column(sa.Column("source", sa.JSON(), nullable=True))


def downgrade() -> None:
    with op.batch_alter_table("entry", schema=None) as batch_op:
        batch_op.drop_column("source")
