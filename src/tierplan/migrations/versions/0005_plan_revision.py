"""plan revision: one counter every write moves, so a rendered plan can be reused until something changes

Revision ID: 0005
Revises: 0004
Create Date: 2026-12-03
"""
from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = '0005'
down_revision: str | None = '0004'
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    table = op.create_table(
        'plan_revision',
        sa.Column('id', sa.Integer(), nullable=False),
        sa.Column('revision', sa.Integer(), nullable=False),
        sa.PrimaryKeyConstraint('id'),
    )
    op.bulk_insert(table, [{'id': 1, 'revision': 0}])


def downgrade() -> None:
    op.drop_table('plan_revision')
