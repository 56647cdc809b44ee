"""drop rating_point: the rating history is the fit re-run after each round, computed
from the stored games when it is shown

Revision ID: 0005
Revises: 0004
Create Date: 2027-01-10 12:00:00
"""

import sqlalchemy as sa
from alembic import op

revision = "0005"
down_revision = "0004"
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table("rating_point", schema=None) as batch_op:
        batch_op.drop_index(batch_op.f("ix_rating_point_variant"))
        batch_op.drop_index(batch_op.f("ix_rating_point_bot"))
    op.drop_table("rating_point")


def downgrade() -> None:
    # the table comes back empty: its rows were a recomputable cache of the games
    op.create_table(
        "rating_point",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("variant", sa.String(length=16), nullable=False),
        sa.Column("bot", sa.String(length=64), nullable=False),
        sa.Column("game_id", sa.Integer(), nullable=False),
        sa.Column("rating", sa.Float(), nullable=False),
        sa.ForeignKeyConstraint(["game_id"], ["game.id"]),
        sa.PrimaryKeyConstraint("id"),
    )
    with op.batch_alter_table("rating_point", schema=None) as batch_op:
        batch_op.create_index(batch_op.f("ix_rating_point_bot"), ["bot"], unique=False)
        batch_op.create_index(batch_op.f("ix_rating_point_variant"), ["variant"], unique=False)
