"""service-level objectives of a campaign (P99 TTFT <= 2 s, median TPOT <= 50 ms), for the capacity at SLO

Revision ID: 0015
Revises: 0014
Create Date: 2026-12-04
"""
from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = '0015'
down_revision: str | None = '0014'
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.create_table(
        'slo',
        sa.Column('id', sa.Integer(), primary_key=True),
        sa.Column('version', sa.Integer(), nullable=False, server_default='1'),
        sa.Column('campaign_id', sa.Integer(), sa.ForeignKey('campaign.id', ondelete='CASCADE'), nullable=False),
        sa.Column('metric', sa.String(length=50), nullable=False),
        sa.Column('comparator', sa.String(), nullable=False),
        sa.Column('threshold', sa.Float(), nullable=False),
        sa.Column('provenance', sa.String(), nullable=False),
        sa.Column('note', sa.String(), nullable=False),
        sa.CheckConstraint("comparator IN ('>=', '<=')", name='ck_slo_comparator'),
        sa.CheckConstraint("provenance IN ('measured', 'imported', 'reported', 'assumed')", name='ck_slo_provenance'),
    )
    op.create_index('ix_slo_campaign_id', 'slo', ['campaign_id'])


def downgrade() -> None:
    op.drop_index('ix_slo_campaign_id', table_name='slo')
    op.drop_table('slo')
