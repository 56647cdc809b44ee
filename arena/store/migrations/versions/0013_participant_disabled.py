"""participant disabled: the organiser can shut a participant out (arena user disable)

Revision ID: 0013
Revises: 0012
Create Date: 2026-12-04 17:10:00

Every participant gets ``disabled`` (false for everyone already there): a disabled
participant cannot sign in, their login token is refused by the API and their bots sit out
of new events and the ladder, until ``arena user enable``.
"""

import sqlalchemy as sa
from alembic import op

revision = "0013"
down_revision = "0012"
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table("participant", schema=None) as batch_op:
        batch_op.add_column(
            sa.Column("disabled", sa.Boolean(), nullable=False, server_default=sa.false())
        )
    op.execute(sa.text("UPDATE participant SET disabled = :f").bindparams(f=False))


def downgrade() -> None:
    with op.batch_alter_table("participant", schema=None) as batch_op:
        batch_op.drop_column("disabled")
