"""gates that know about noise: aggregation over the last N runs, minimum runs, a threshold relative to a
baseline, severity; the absolute threshold becomes optional

Revision ID: 0013
Revises: 0012
Create Date: 2026-12-04
"""
from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = '0013'
down_revision: str | None = '0012'
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    # no table refers to gate, so SQLite's rebuild of it (to relax NOT NULL) touches nothing else
    with op.batch_alter_table('gate') as batch:
        batch.alter_column('threshold', existing_type=sa.Float(), nullable=True)
        batch.add_column(sa.Column('relative_pct', sa.Float(), nullable=True))
        batch.add_column(sa.Column('reference_regime_id', sa.Integer(), nullable=True))
        batch.add_column(sa.Column('aggregation', sa.String(length=10), nullable=False, server_default='newest'))
        batch.add_column(sa.Column('window', sa.Integer(), nullable=False, server_default='1'))
        batch.add_column(sa.Column('min_samples', sa.Integer(), nullable=False, server_default='1'))
        batch.add_column(sa.Column('severity', sa.String(length=10), nullable=False, server_default='hard'))
        batch.create_foreign_key('fk_gate_reference_regime', 'regime', ['reference_regime_id'], ['id'],
                                 ondelete='SET NULL')
        batch.create_check_constraint('ck_gate_aggregation', "aggregation IN ('newest', 'median', 'mean')")
        batch.create_check_constraint('ck_gate_severity', "severity IN ('hard', 'warn')")
        batch.create_check_constraint('ck_gate_threshold', 'threshold IS NOT NULL OR relative_pct IS NOT NULL')


def downgrade() -> None:
    op.execute('DELETE FROM gate WHERE threshold IS NULL')
    with op.batch_alter_table('gate') as batch:
        batch.drop_constraint('ck_gate_threshold', type_='check')
        batch.drop_constraint('ck_gate_severity', type_='check')
        batch.drop_constraint('ck_gate_aggregation', type_='check')
        batch.drop_constraint('fk_gate_reference_regime', type_='foreignkey')
        for column in ('severity', 'min_samples', 'window', 'aggregation', 'reference_regime_id', 'relative_pct'):
            batch.drop_column(column)
        batch.alter_column('threshold', existing_type=sa.Float(), nullable=False)
