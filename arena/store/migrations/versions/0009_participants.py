"""participants of the competition server, their bots' owner, and their uploads' builds

Revision ID: 0009
Revises: 0006
Create Date: 2026-12-01 23:30:00
"""

import sqlalchemy as sa
from alembic import op

revision = "0009"
down_revision = "0008"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "participant",
        sa.Column("id", sa.Integer(), primary_key=True),
        sa.Column("name", sa.String(length=64), nullable=False),
        sa.Column("token_hash", sa.String(length=128), nullable=False),
        sa.Column("role", sa.String(length=16), nullable=False),
        sa.Column("created", sa.DateTime(), nullable=False),
    )
    op.create_index("ix_participant_name", "participant", ["name"], unique=True)
    op.create_index("ix_participant_token_hash", "participant", ["token_hash"], unique=True)
    op.create_table(
        "build",
        sa.Column("id", sa.Integer(), primary_key=True),
        sa.Column("participant_id", sa.Integer(), sa.ForeignKey("participant.id"), nullable=False),
        sa.Column("bot_name", sa.String(length=64), nullable=False),
        sa.Column("status", sa.String(length=16), nullable=False),
        sa.Column("detail", sa.Text(), nullable=False),
        sa.Column("log", sa.Text(), nullable=False),
        sa.Column("version", sa.Integer(), nullable=True),
        sa.Column("created", sa.DateTime(), nullable=False),
        sa.Column("finished", sa.DateTime(), nullable=True),
    )
    op.create_index("ix_build_participant_id", "build", ["participant_id"])
    with op.batch_alter_table("bot", schema=None) as batch_op:
        # NULL: a bot the organiser registered from the command line
        batch_op.add_column(sa.Column("owner_id", sa.Integer(), nullable=True))
        batch_op.create_index("ix_bot_owner_id", ["owner_id"])
        batch_op.create_foreign_key("fk_bot_owner_id", "participant", ["owner_id"], ["id"])


def downgrade() -> None:
    with op.batch_alter_table("bot", schema=None) as batch_op:
        batch_op.drop_constraint("fk_bot_owner_id", type_="foreignkey")
        batch_op.drop_index("ix_bot_owner_id")
        batch_op.drop_column("owner_id")
    op.drop_index("ix_build_participant_id", table_name="build")
    op.drop_table("build")
    op.drop_index("ix_participant_token_hash", table_name="participant")
    op.drop_index("ix_participant_name", table_name="participant")
    op.drop_table("participant")
