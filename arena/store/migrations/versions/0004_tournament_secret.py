"""tournament deal key: secret deals unless the operator gives a seed

Revision ID: 0004
Revises: 0003
Create Date: 2026-12-01 20:00:00
"""

import sqlalchemy as sa
from alembic import op

revision = "0004"
down_revision = "0003"
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table("tournament", schema=None) as batch_op:
        # hex of the event's secret deal key; NULL for a reproducible (seeded) event
        batch_op.add_column(sa.Column("secret", sa.String(length=64), nullable=True))
        # a secret event has no seed
        batch_op.alter_column("seed", existing_type=sa.BigInteger(), nullable=True)


def downgrade() -> None:
    with op.batch_alter_table("tournament", schema=None) as batch_op:
        batch_op.alter_column("seed", existing_type=sa.BigInteger(), nullable=False)
        batch_op.drop_column("secret")
