"""initial schema

Revision ID: 0001
Revises:
Create Date: 2026-12-02
"""
from collections.abc import Sequence

import sqlalchemy as sa
import sqlmodel
from alembic import op

revision: str = '0001'
down_revision: str | None = None
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.create_table('campaign',
    sa.Column('name', sqlmodel.sql.sqltypes.AutoString(length=200), nullable=False),
    sa.Column('model', sqlmodel.sql.sqltypes.AutoString(length=500), nullable=False),
    sa.Column('hardware', sqlmodel.sql.sqltypes.AutoString(length=1000), nullable=False),
    sa.Column('gpu_count', sa.Integer(), nullable=False),
    sa.Column('notes', sqlmodel.sql.sqltypes.AutoString(), nullable=False),
    sa.Column('id', sa.Integer(), nullable=False),
    sa.Column('created_at', sqlmodel.sql.sqltypes.UTCDateTime(), nullable=False),
    sa.PrimaryKeyConstraint('id')
    )
    op.create_table('regime',
    sa.Column('id', sa.Integer(), nullable=False),
    sa.Column('campaign_id', sa.Integer(), nullable=False),
    sa.Column('name', sqlmodel.sql.sqltypes.AutoString(length=100), nullable=False),
    sa.Column('position', sa.Integer(), nullable=False),
    sa.Column('concurrency', sa.Integer(), nullable=False),
    sa.Column('input_tokens', sa.Integer(), nullable=False),
    sa.Column('output_tokens', sa.Integer(), nullable=False),
    sa.Column('workload_provenance', sqlmodel.sql.sqltypes.AutoString(), nullable=False),
    sa.Column('target_tok_s', sa.Float(), nullable=False),
    sa.Column('target_provenance', sqlmodel.sql.sqltypes.AutoString(), nullable=False),
    sa.Column('notes', sqlmodel.sql.sqltypes.AutoString(), nullable=False),
    sa.CheckConstraint("target_provenance IN ('measured', 'imported', 'reported', 'assumed')", name='ck_regime_target_provenance'),
    sa.CheckConstraint("workload_provenance IN ('measured', 'imported', 'reported', 'assumed')", name='ck_regime_workload_provenance'),
    sa.ForeignKeyConstraint(['campaign_id'], ['campaign.id'], ondelete='CASCADE'),
    sa.PrimaryKeyConstraint('id'),
    sa.UniqueConstraint('campaign_id', 'name', name='uq_regime_campaign_name')
    )
    with op.batch_alter_table('regime', schema=None) as batch_op:
        batch_op.create_index(batch_op.f('ix_regime_campaign_id'), ['campaign_id'], unique=False)

    op.create_table('tier',
    sa.Column('id', sa.Integer(), nullable=False),
    sa.Column('campaign_id', sa.Integer(), nullable=False),
    sa.Column('key', sqlmodel.sql.sqltypes.AutoString(length=20), nullable=False),
    sa.Column('name', sqlmodel.sql.sqltypes.AutoString(length=200), nullable=False),
    sa.Column('position', sa.Integer(), nullable=False),
    sa.Column('description', sqlmodel.sql.sqltypes.AutoString(), nullable=False),
    sa.Column('started_at', sqlmodel.sql.sqltypes.UTCDateTime(), nullable=True),
    sa.ForeignKeyConstraint(['campaign_id'], ['campaign.id'], ondelete='CASCADE'),
    sa.PrimaryKeyConstraint('id'),
    sa.UniqueConstraint('campaign_id', 'key', name='uq_tier_campaign_key')
    )
    with op.batch_alter_table('tier', schema=None) as batch_op:
        batch_op.create_index(batch_op.f('ix_tier_campaign_id'), ['campaign_id'], unique=False)

    op.create_table('gate',
    sa.Column('id', sa.Integer(), nullable=False),
    sa.Column('tier_id', sa.Integer(), nullable=False),
    sa.Column('regime_id', sa.Integer(), nullable=False),
    sa.Column('metric', sqlmodel.sql.sqltypes.AutoString(length=50), nullable=False),
    sa.Column('comparator', sqlmodel.sql.sqltypes.AutoString(), nullable=False),
    sa.Column('threshold', sa.Float(), nullable=False),
    sa.Column('provenance', sqlmodel.sql.sqltypes.AutoString(), nullable=False),
    sa.Column('note', sqlmodel.sql.sqltypes.AutoString(), nullable=False),
    sa.CheckConstraint("comparator IN ('>=', '<=')", name='ck_gate_comparator'),
    sa.CheckConstraint("provenance IN ('measured', 'imported', 'reported', 'assumed')", name='ck_gate_provenance'),
    sa.ForeignKeyConstraint(['regime_id'], ['regime.id'], ondelete='CASCADE'),
    sa.ForeignKeyConstraint(['tier_id'], ['tier.id'], ondelete='CASCADE'),
    sa.PrimaryKeyConstraint('id')
    )
    with op.batch_alter_table('gate', schema=None) as batch_op:
        batch_op.create_index(batch_op.f('ix_gate_regime_id'), ['regime_id'], unique=False)
        batch_op.create_index(batch_op.f('ix_gate_tier_id'), ['tier_id'], unique=False)

    op.create_table('intervention',
    sa.Column('id', sa.Integer(), nullable=False),
    sa.Column('campaign_id', sa.Integer(), nullable=False),
    sa.Column('tier_id', sa.Integer(), nullable=True),
    sa.Column('key', sqlmodel.sql.sqltypes.AutoString(length=20), nullable=False),
    sa.Column('title', sqlmodel.sql.sqltypes.AutoString(length=300), nullable=False),
    sa.Column('description', sqlmodel.sql.sqltypes.AutoString(), nullable=False),
    sa.Column('links', sqlmodel.sql.sqltypes.AutoString(), nullable=False),
    sa.Column('position', sa.Integer(), nullable=False),
    sa.Column('effort_low_days', sa.Float(), nullable=False),
    sa.Column('effort_likely_days', sa.Float(), nullable=False),
    sa.Column('effort_high_days', sa.Float(), nullable=False),
    sa.Column('effort_provenance', sqlmodel.sql.sqltypes.AutoString(), nullable=False),
    sa.Column('status', sqlmodel.sql.sqltypes.AutoString(), nullable=False),
    sa.Column('started_at', sqlmodel.sql.sqltypes.UTCDateTime(), nullable=True),
    sa.CheckConstraint("effort_provenance IN ('measured', 'imported', 'reported', 'assumed')", name='ck_intervention_effort_provenance'),
    sa.ForeignKeyConstraint(['campaign_id'], ['campaign.id'], ondelete='CASCADE'),
    sa.ForeignKeyConstraint(['tier_id'], ['tier.id'], ondelete='SET NULL'),
    sa.PrimaryKeyConstraint('id'),
    sa.UniqueConstraint('campaign_id', 'key', name='uq_intervention_campaign_key')
    )
    with op.batch_alter_table('intervention', schema=None) as batch_op:
        batch_op.create_index(batch_op.f('ix_intervention_campaign_id'), ['campaign_id'], unique=False)
        batch_op.create_index(batch_op.f('ix_intervention_tier_id'), ['tier_id'], unique=False)

    op.create_table('measurement',
    sa.Column('id', sa.Integer(), nullable=False),
    sa.Column('regime_id', sa.Integer(), nullable=False),
    sa.Column('metric', sqlmodel.sql.sqltypes.AutoString(length=50), nullable=False),
    sa.Column('value', sa.Float(), nullable=False),
    sa.Column('unit', sqlmodel.sql.sqltypes.AutoString(length=20), nullable=False),
    sa.Column('measured_at', sqlmodel.sql.sqltypes.UTCDateTime(), nullable=False),
    sa.Column('provenance', sqlmodel.sql.sqltypes.AutoString(), nullable=False),
    sa.Column('source', sqlmodel.sql.sqltypes.AutoString(length=300), nullable=False),
    sa.Column('note', sqlmodel.sql.sqltypes.AutoString(), nullable=False),
    sa.CheckConstraint("provenance IN ('measured', 'imported', 'reported', 'assumed')", name='ck_measurement_provenance'),
    sa.ForeignKeyConstraint(['regime_id'], ['regime.id'], ondelete='CASCADE'),
    sa.PrimaryKeyConstraint('id')
    )
    with op.batch_alter_table('measurement', schema=None) as batch_op:
        batch_op.create_index(batch_op.f('ix_measurement_regime_id'), ['regime_id'], unique=False)

    op.create_table('profile',
    sa.Column('id', sa.Integer(), nullable=False),
    sa.Column('regime_id', sa.Integer(), nullable=False),
    sa.Column('source', sqlmodel.sql.sqltypes.AutoString(length=300), nullable=False),
    sa.Column('created_at', sqlmodel.sql.sqltypes.UTCDateTime(), nullable=False),
    sa.ForeignKeyConstraint(['regime_id'], ['regime.id'], ondelete='CASCADE'),
    sa.PrimaryKeyConstraint('id')
    )
    with op.batch_alter_table('profile', schema=None) as batch_op:
        batch_op.create_index(batch_op.f('ix_profile_regime_id'), ['regime_id'], unique=False)

    op.create_table('effect',
    sa.Column('id', sa.Integer(), nullable=False),
    sa.Column('intervention_id', sa.Integer(), nullable=False),
    sa.Column('kind', sqlmodel.sql.sqltypes.AutoString(), nullable=False),
    sa.Column('bucket', sqlmodel.sql.sqltypes.AutoString(length=100), nullable=True),
    sa.Column('speedup_low', sa.Float(), nullable=False),
    sa.Column('speedup_likely', sa.Float(), nullable=False),
    sa.Column('speedup_high', sa.Float(), nullable=False),
    sa.Column('provenance', sqlmodel.sql.sqltypes.AutoString(), nullable=False),
    sa.Column('note', sqlmodel.sql.sqltypes.AutoString(), nullable=False),
    sa.CheckConstraint("kind IN ('bucket', 'step')", name='ck_effect_kind'),
    sa.CheckConstraint("provenance IN ('measured', 'imported', 'reported', 'assumed')", name='ck_effect_provenance'),
    sa.ForeignKeyConstraint(['intervention_id'], ['intervention.id'], ondelete='CASCADE'),
    sa.PrimaryKeyConstraint('id')
    )
    with op.batch_alter_table('effect', schema=None) as batch_op:
        batch_op.create_index(batch_op.f('ix_effect_intervention_id'), ['intervention_id'], unique=False)

    op.create_table('profile_share',
    sa.Column('id', sa.Integer(), nullable=False),
    sa.Column('profile_id', sa.Integer(), nullable=False),
    sa.Column('bucket', sqlmodel.sql.sqltypes.AutoString(length=100), nullable=False),
    sa.Column('share', sa.Float(), nullable=False),
    sa.Column('provenance', sqlmodel.sql.sqltypes.AutoString(), nullable=False),
    sa.CheckConstraint("provenance IN ('measured', 'imported', 'reported', 'assumed')", name='ck_profile_share_provenance'),
    sa.ForeignKeyConstraint(['profile_id'], ['profile.id'], ondelete='CASCADE'),
    sa.PrimaryKeyConstraint('id'),
    sa.UniqueConstraint('profile_id', 'bucket', name='uq_profile_share_bucket')
    )
    with op.batch_alter_table('profile_share', schema=None) as batch_op:
        batch_op.create_index(batch_op.f('ix_profile_share_profile_id'), ['profile_id'], unique=False)

    op.create_table('effect_regime',
    sa.Column('effect_id', sa.Integer(), nullable=False),
    sa.Column('regime_id', sa.Integer(), nullable=False),
    sa.ForeignKeyConstraint(['effect_id'], ['effect.id'], ondelete='CASCADE'),
    sa.ForeignKeyConstraint(['regime_id'], ['regime.id'], ondelete='CASCADE'),
    sa.PrimaryKeyConstraint('effect_id', 'regime_id')
    )


def downgrade() -> None:
    op.drop_table('effect_regime')
    with op.batch_alter_table('profile_share', schema=None) as batch_op:
        batch_op.drop_index(batch_op.f('ix_profile_share_profile_id'))

    op.drop_table('profile_share')
    with op.batch_alter_table('effect', schema=None) as batch_op:
        batch_op.drop_index(batch_op.f('ix_effect_intervention_id'))

    op.drop_table('effect')
    with op.batch_alter_table('profile', schema=None) as batch_op:
        batch_op.drop_index(batch_op.f('ix_profile_regime_id'))

    op.drop_table('profile')
    with op.batch_alter_table('measurement', schema=None) as batch_op:
        batch_op.drop_index(batch_op.f('ix_measurement_regime_id'))

    op.drop_table('measurement')
    with op.batch_alter_table('intervention', schema=None) as batch_op:
        batch_op.drop_index(batch_op.f('ix_intervention_tier_id'))
        batch_op.drop_index(batch_op.f('ix_intervention_campaign_id'))

    op.drop_table('intervention')
    with op.batch_alter_table('gate', schema=None) as batch_op:
        batch_op.drop_index(batch_op.f('ix_gate_tier_id'))
        batch_op.drop_index(batch_op.f('ix_gate_regime_id'))

    op.drop_table('gate')
    with op.batch_alter_table('tier', schema=None) as batch_op:
        batch_op.drop_index(batch_op.f('ix_tier_campaign_id'))

    op.drop_table('tier')
    with op.batch_alter_table('regime', schema=None) as batch_op:
        batch_op.drop_index(batch_op.f('ix_regime_campaign_id'))

    op.drop_table('regime')
    op.drop_table('campaign')
