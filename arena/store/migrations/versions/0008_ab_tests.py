"""A/B tests: a test, its units (the games on one deal) and their games

Revision ID: 0008
Revises: 0006 (to be rechained onto 0007 when that lands)
Create Date: 2026-12-03 10:00:00
"""

import sqlalchemy as sa
from alembic import op

revision = "0008"
down_revision = "0007"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "ab_test",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("new", sa.String(length=64), nullable=False),
        sa.Column("base", sa.String(length=64), nullable=False),
        sa.Column("bots", sa.JSON(), nullable=True),
        sa.Column("seats", sa.Integer(), nullable=False),
        sa.Column("variant", sa.String(length=16), nullable=False),
        sa.Column("brutal", sa.Boolean(), nullable=False),
        sa.Column("design", sa.String(length=32), nullable=False),
        sa.Column("sprt", sa.JSON(), nullable=True),
        sa.Column("fixed_games", sa.Integer(), nullable=True),
        sa.Column("max_games", sa.Integer(), nullable=False),
        sa.Column("ahead", sa.Integer(), nullable=False),
        sa.Column("concurrency", sa.Integer(), nullable=False),
        sa.Column("seed", sa.BigInteger(), nullable=True),
        sa.Column("secret", sa.String(length=64), nullable=True),
        sa.Column("options", sa.JSON(), nullable=True),
        sa.Column("state", sa.JSON(), nullable=True),
        sa.Column("verdict", sa.String(length=16), nullable=False),
        sa.Column("status", sa.String(length=16), nullable=False),
        sa.Column("created", sa.DateTime(), nullable=False),
        sa.Column("finished", sa.DateTime(), nullable=True),
        sa.PrimaryKeyConstraint("id"),
    )
    op.create_table(
        "ab_unit",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("test_id", sa.Integer(), nullable=False),
        sa.Column("index", sa.Integer(), nullable=False),
        sa.Column("seed", sa.BigInteger(), nullable=False),
        sa.Column("outcome", sa.String(length=32), nullable=False),
        sa.Column("status", sa.String(length=16), nullable=False),
        sa.Column("finished", sa.DateTime(), nullable=False),
        sa.ForeignKeyConstraint(["test_id"], ["ab_test.id"]),
        sa.PrimaryKeyConstraint("id"),
        sa.UniqueConstraint("test_id", "index"),
    )
    with op.batch_alter_table("ab_unit", schema=None) as batch_op:
        batch_op.create_index(batch_op.f("ix_ab_unit_test_id"), ["test_id"], unique=False)
    op.create_table(
        "ab_game",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("test_id", sa.Integer(), nullable=False),
        sa.Column("unit_id", sa.Integer(), nullable=False),
        sa.Column("position", sa.Integer(), nullable=False),
        sa.Column("seed", sa.BigInteger(), nullable=False),
        sa.Column("seating", sa.JSON(), nullable=True),
        sa.Column("ranks", sa.JSON(), nullable=True),
        sa.Column("totals", sa.JSON(), nullable=True),
        sa.Column("rounds", sa.Integer(), nullable=False),
        sa.Column("status", sa.String(length=16), nullable=False),
        sa.Column("faults", sa.JSON(), nullable=True),
        sa.Column("choices", sa.JSON(), nullable=True),
        sa.Column("played", sa.DateTime(), nullable=False),
        sa.ForeignKeyConstraint(["test_id"], ["ab_test.id"]),
        sa.ForeignKeyConstraint(["unit_id"], ["ab_unit.id"]),
        sa.PrimaryKeyConstraint("id"),
        sa.UniqueConstraint("unit_id", "position"),
    )
    with op.batch_alter_table("ab_game", schema=None) as batch_op:
        batch_op.create_index(batch_op.f("ix_ab_game_test_id"), ["test_id"], unique=False)
        batch_op.create_index(batch_op.f("ix_ab_game_unit_id"), ["unit_id"], unique=False)


def downgrade() -> None:
    with op.batch_alter_table("ab_game", schema=None) as batch_op:
        batch_op.drop_index(batch_op.f("ix_ab_game_unit_id"))
        batch_op.drop_index(batch_op.f("ix_ab_game_test_id"))
    op.drop_table("ab_game")
    with op.batch_alter_table("ab_unit", schema=None) as batch_op:
        batch_op.drop_index(batch_op.f("ix_ab_unit_test_id"))
    op.drop_table("ab_unit")
    op.drop_table("ab_test")
