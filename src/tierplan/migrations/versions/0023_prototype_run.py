"""prototype_run: the throughput a prototype of an intervention measured in a regime (its benchmark evidence)

Revision ID: 0023
Revises: 0022
Create Date: 2026-12-06
"""
from collections.abc import Sequence

import sqlalchemy as sa
import sqlmodel
from alembic import op

revision: str = '0023'
down_revision: str | None = '0022'
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.create_table(
        'prototype_run',
        sa.Column('id', sa.Integer(), nullable=False),
        sa.Column('intervention_id', sa.Integer(), nullable=False),
        sa.Column('regime_id', sa.Integer(), nullable=False),
        sa.Column('import_id', sa.Integer(), nullable=True),
        sa.Column('tok_s', sa.Float(), nullable=False),
        sa.Column('measured_at', sqlmodel.sql.sqltypes.UTCDateTime(), nullable=False),
        sa.Column('created_at', sqlmodel.sql.sqltypes.UTCDateTime(), nullable=False),
        sa.Column('source', sqlmodel.sql.sqltypes.AutoString(length=300), nullable=False),
        sa.ForeignKeyConstraint(['intervention_id'], ['intervention.id'], ondelete='CASCADE'),
        sa.ForeignKeyConstraint(['regime_id'], ['regime.id'], ondelete='CASCADE'),
        sa.ForeignKeyConstraint(['import_id'], ['import_record.id'], ondelete='CASCADE'),
        sa.PrimaryKeyConstraint('id'),
    )
    for column in ('intervention_id', 'regime_id', 'import_id'):
        op.create_index(f'ix_prototype_run_{column}', 'prototype_run', [column])


def downgrade() -> None:
    op.drop_table('prototype_run')
