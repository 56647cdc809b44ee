"""ladder: continuous ladders and the state of each bot version on them

Revision ID: 0010
Revises: 0006
Create Date: 2026-12-01 23:45:00
"""

import sqlalchemy as sa
from alembic import op

revision = "0010"
down_revision = "0009"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "ladder",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("tournament_id", sa.Integer(), nullable=False),
        sa.Column("variant", sa.String(length=16), nullable=False),
        sa.Column("brutal", sa.Boolean(), nullable=False),
        sa.Column("seats", sa.Integer(), nullable=False),
        sa.Column("created", sa.DateTime(), nullable=False),
        sa.ForeignKeyConstraint(["tournament_id"], ["tournament.id"]),
        sa.PrimaryKeyConstraint("id"),
        sa.UniqueConstraint("tournament_id"),
        sa.UniqueConstraint("variant", "brutal", "seats"),
    )
    op.create_table(
        "ladder_bot",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("ladder_id", sa.Integer(), nullable=False),
        sa.Column("entry_id", sa.Integer(), nullable=False),
        sa.Column("bot_id", sa.Integer(), nullable=False),
        sa.Column("bot_version_id", sa.Integer(), nullable=False),
        sa.Column("version", sa.Integer(), nullable=False),
        sa.Column("status", sa.String(length=16), nullable=False),
        sa.Column("reason", sa.String(length=500), nullable=False),
        sa.Column("crashes_after", sa.BigInteger(), nullable=False),
        sa.Column("changed", sa.DateTime(), nullable=False),
        sa.ForeignKeyConstraint(["ladder_id"], ["ladder.id"]),
        sa.ForeignKeyConstraint(["entry_id"], ["entry.id"]),
        sa.ForeignKeyConstraint(["bot_id"], ["bot.id"]),
        sa.ForeignKeyConstraint(["bot_version_id"], ["bot_version.id"]),
        sa.PrimaryKeyConstraint("id"),
        sa.UniqueConstraint("ladder_id", "bot_version_id"),
    )
    op.create_index("ix_ladder_bot_ladder_id", "ladder_bot", ["ladder_id"])


def downgrade() -> None:
    op.drop_index("ix_ladder_bot_ladder_id", table_name="ladder_bot")
    op.drop_table("ladder_bot")
    op.drop_table("ladder")
