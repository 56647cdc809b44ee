"""web sessions: the competition server's signed-in browsers, kept on the server

Revision ID: 0012
Revises: 0011
Create Date: 2026-12-04 16:00:00
"""

import sqlalchemy as sa
from alembic import op

revision = "0012"
down_revision = "0011"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "web_session",
        sa.Column("id", sa.Integer(), primary_key=True),
        sa.Column("key_hash", sa.String(length=128), nullable=False),
        sa.Column("participant_id", sa.Integer(), sa.ForeignKey("participant.id"), nullable=False),
        sa.Column("created", sa.DateTime(), nullable=False),
        sa.Column("last_seen", sa.DateTime(), nullable=False),
        sa.Column("expires", sa.DateTime(), nullable=False),
    )
    op.create_index("ix_web_session_key_hash", "web_session", ["key_hash"], unique=True)
    op.create_index("ix_web_session_participant_id", "web_session", ["participant_id"])


def downgrade() -> None:
    op.drop_index("ix_web_session_participant_id", table_name="web_session")
    op.drop_index("ix_web_session_key_hash", table_name="web_session")
    op.drop_table("web_session")
