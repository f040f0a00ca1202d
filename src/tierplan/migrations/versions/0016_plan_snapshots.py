"""plan snapshots: the plan's figures after each change that could move them, for its history

Revision ID: 0016
Revises: 0015
Create Date: 2026-12-04
"""
from collections.abc import Sequence

import sqlalchemy as sa
import sqlmodel
from alembic import op

revision: str = '0016'
down_revision: str | None = '0015'
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.create_table(
        'plan_snapshot',
        sa.Column('id', sa.Integer(), nullable=False),
        sa.Column('campaign_id', sa.Integer(), nullable=False),
        sa.Column('taken_at', sqlmodel.sql.sqltypes.UTCDateTime(), nullable=False),
        sa.Column('by', sa.String(length=100), nullable=False),
        sa.Column('cause', sa.String(length=300), nullable=False),
        sa.Column('figures', sa.Text(), nullable=False),
        sa.ForeignKeyConstraint(['campaign_id'], ['campaign.id'], ondelete='CASCADE'),
        sa.PrimaryKeyConstraint('id'),
    )
    op.create_index('ix_plan_snapshot_campaign_id', 'plan_snapshot', ['campaign_id'])


def downgrade() -> None:
    op.drop_table('plan_snapshot')
