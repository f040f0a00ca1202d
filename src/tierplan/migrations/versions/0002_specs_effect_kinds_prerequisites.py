"""specs, effect kinds, prerequisites, calibration

Revision ID: 0002
Revises: 0001
Create Date: 2026-12-02

On SQLite the effect table is rebuilt (batch mode); env.py turns foreign keys off
around the run so the rebuild does not cascade into effect_regime.
"""
from collections.abc import Sequence

import sqlalchemy as sa
import sqlmodel
from alembic import op

revision: str = '0002'
down_revision: str | None = '0001'
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.create_table('hardware_spec',
    sa.Column('id', sa.Integer(), nullable=False),
    sa.Column('campaign_id', sa.Integer(), nullable=False),
    sa.Column('name', sqlmodel.sql.sqltypes.AutoString(length=200), nullable=False),
    sa.Column('count', sa.Integer(), nullable=False),
    sa.Column('memory_gb', sa.Float(), nullable=False),
    sa.Column('bandwidth_gb_s', sa.Float(), nullable=False),
    sa.Column('tflops_bf16', sa.Float(), nullable=True),
    sa.Column('tflops_fp8', sa.Float(), nullable=True),
    sa.Column('tflops_fp4', sa.Float(), nullable=True),
    sa.Column('sm_count', sa.Integer(), nullable=True),
    sa.Column('interconnect', sqlmodel.sql.sqltypes.AutoString(), nullable=False),
    sa.Column('scaling_efficiency', sa.Float(), nullable=False),
    sa.Column('provenance', sqlmodel.sql.sqltypes.AutoString(), nullable=False),
    sa.Column('sources', sqlmodel.sql.sqltypes.AutoString(), nullable=False),
    sa.CheckConstraint("provenance IN ('measured', 'imported', 'reported', 'assumed')", name='ck_hardware_spec_provenance'),
    sa.ForeignKeyConstraint(['campaign_id'], ['campaign.id'], ondelete='CASCADE'),
    sa.PrimaryKeyConstraint('id'),
    sa.UniqueConstraint('campaign_id')
    )
    op.create_table('model_spec',
    sa.Column('id', sa.Integer(), nullable=False),
    sa.Column('campaign_id', sa.Integer(), nullable=False),
    sa.Column('name', sqlmodel.sql.sqltypes.AutoString(length=200), nullable=False),
    sa.Column('total_params_b', sa.Float(), nullable=False),
    sa.Column('active_params_b', sa.Float(), nullable=False),
    sa.Column('layers', sa.Integer(), nullable=False),
    sa.Column('routed_experts', sa.Integer(), nullable=False),
    sa.Column('experts_per_token', sa.Integer(), nullable=False),
    sa.Column('shared_experts', sa.Integer(), nullable=False),
    sa.Column('dense_bytes_per_weight', sa.Float(), nullable=False),
    sa.Column('expert_bytes_per_weight', sa.Float(), nullable=False),
    sa.Column('kv_bytes_per_token', sa.Float(), nullable=False),
    sa.Column('compute_dtype', sqlmodel.sql.sqltypes.AutoString(), nullable=False),
    sa.Column('provenance', sqlmodel.sql.sqltypes.AutoString(), nullable=False),
    sa.Column('sources', sqlmodel.sql.sqltypes.AutoString(), nullable=False),
    sa.CheckConstraint("provenance IN ('measured', 'imported', 'reported', 'assumed')", name='ck_model_spec_provenance'),
    sa.ForeignKeyConstraint(['campaign_id'], ['campaign.id'], ondelete='CASCADE'),
    sa.PrimaryKeyConstraint('id'),
    sa.UniqueConstraint('campaign_id')
    )
    op.create_table('prerequisite',
    sa.Column('intervention_id', sa.Integer(), nullable=False),
    sa.Column('requires_id', sa.Integer(), nullable=False),
    sa.ForeignKeyConstraint(['intervention_id'], ['intervention.id'], ondelete='CASCADE'),
    sa.ForeignKeyConstraint(['requires_id'], ['intervention.id'], ondelete='CASCADE'),
    sa.PrimaryKeyConstraint('intervention_id', 'requires_id')
    )
    with op.batch_alter_table('campaign', schema=None) as batch_op:
        batch_op.add_column(sa.Column('seed', sa.Integer(), nullable=False, server_default='20261202'))
        batch_op.add_column(sa.Column('samples', sa.Integer(), nullable=False, server_default='10000'))
        batch_op.add_column(sa.Column('apply_calibration', sa.Boolean(), nullable=False, server_default=sa.false()))

    with op.batch_alter_table('effect', schema=None) as batch_op:
        batch_op.add_column(sa.Column('saved_ms_low', sa.Float(), nullable=True))
        batch_op.add_column(sa.Column('saved_ms_likely', sa.Float(), nullable=True))
        batch_op.add_column(sa.Column('saved_ms_high', sa.Float(), nullable=True))
        batch_op.add_column(sa.Column('draft_tokens', sa.Integer(), nullable=True))
        batch_op.add_column(sa.Column('acceptance_low', sa.Float(), nullable=True))
        batch_op.add_column(sa.Column('acceptance_likely', sa.Float(), nullable=True))
        batch_op.add_column(sa.Column('acceptance_high', sa.Float(), nullable=True))
        batch_op.add_column(sa.Column('acceptance_per_position', sqlmodel.sql.sqltypes.AutoString(), nullable=False, server_default=''))
        batch_op.add_column(sa.Column('draft_cost_low', sa.Float(), nullable=True))
        batch_op.add_column(sa.Column('draft_cost_likely', sa.Float(), nullable=True))
        batch_op.add_column(sa.Column('draft_cost_high', sa.Float(), nullable=True))
        batch_op.alter_column('speedup_low',
               existing_type=sa.FLOAT(),
               nullable=True)
        batch_op.alter_column('speedup_likely',
               existing_type=sa.FLOAT(),
               nullable=True)
        batch_op.alter_column('speedup_high',
               existing_type=sa.FLOAT(),
               nullable=True)
        batch_op.drop_constraint('ck_effect_kind', type_='check')
        batch_op.create_check_constraint('ck_effect_kind', "kind IN ('bucket', 'step', 'time_saved', 'spec_decode')")

    with op.batch_alter_table('intervention', schema=None) as batch_op:
        batch_op.add_column(sa.Column('landed_at', sqlmodel.sql.sqltypes.UTCDateTime(), nullable=True))



def downgrade() -> None:
    with op.batch_alter_table('intervention', schema=None) as batch_op:
        batch_op.drop_column('landed_at')

    op.execute("DELETE FROM effect WHERE kind NOT IN ('bucket', 'step')")
    with op.batch_alter_table('effect', schema=None) as batch_op:
        batch_op.drop_constraint('ck_effect_kind', type_='check')
        batch_op.create_check_constraint('ck_effect_kind', "kind IN ('bucket', 'step')")
        batch_op.alter_column('speedup_high',
               existing_type=sa.FLOAT(),
               nullable=False)
        batch_op.alter_column('speedup_likely',
               existing_type=sa.FLOAT(),
               nullable=False)
        batch_op.alter_column('speedup_low',
               existing_type=sa.FLOAT(),
               nullable=False)
        batch_op.drop_column('draft_cost_high')
        batch_op.drop_column('draft_cost_likely')
        batch_op.drop_column('draft_cost_low')
        batch_op.drop_column('acceptance_per_position')
        batch_op.drop_column('acceptance_high')
        batch_op.drop_column('acceptance_likely')
        batch_op.drop_column('acceptance_low')
        batch_op.drop_column('draft_tokens')
        batch_op.drop_column('saved_ms_high')
        batch_op.drop_column('saved_ms_likely')
        batch_op.drop_column('saved_ms_low')

    with op.batch_alter_table('campaign', schema=None) as batch_op:
        batch_op.drop_column('apply_calibration')
        batch_op.drop_column('samples')
        batch_op.drop_column('seed')

    op.drop_table('prerequisite')
    op.drop_table('model_spec')
    op.drop_table('hardware_spec')
