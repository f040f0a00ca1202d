"""measurement includes and kind, corrections, launch profiles, launch effects

Revision ID: 0004
Revises: 0003
Create Date: 2026-12-03

Existing measurements become baselines that include the interventions of their campaign that were
landed or validated by the time they were taken (the default a new measurement gets too).
On SQLite the effect and measurement tables are rebuilt (batch mode); env.py turns foreign keys
off around the run so the rebuild does not cascade into their children.
"""
from collections.abc import Sequence

import sqlalchemy as sa
import sqlmodel
from alembic import op

revision: str = '0004'
down_revision: str | None = '0003'
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

OLD_KINDS = "kind IN ('bucket', 'step', 'time_saved', 'spec_decode')"
NEW_KINDS = "kind IN ('bucket', 'step', 'time_saved', 'spec_decode', 'launch_overhead', 'launch_count')"


def upgrade() -> None:
    op.create_table('measurement_include',
    sa.Column('measurement_id', sa.Integer(), nullable=False),
    sa.Column('intervention_id', sa.Integer(), nullable=False),
    sa.ForeignKeyConstraint(['intervention_id'], ['intervention.id'], ondelete='CASCADE'),
    sa.ForeignKeyConstraint(['measurement_id'], ['measurement.id'], ondelete='CASCADE'),
    sa.PrimaryKeyConstraint('measurement_id', 'intervention_id')
    )
    with op.batch_alter_table('effect', schema=None) as batch_op:
        batch_op.add_column(sa.Column('removed_low', sa.Float(), nullable=True))
        batch_op.add_column(sa.Column('removed_likely', sa.Float(), nullable=True))
        batch_op.add_column(sa.Column('removed_high', sa.Float(), nullable=True))
        batch_op.add_column(sa.Column('launches_low', sa.Float(), nullable=True))
        batch_op.add_column(sa.Column('launches_likely', sa.Float(), nullable=True))
        batch_op.add_column(sa.Column('launches_high', sa.Float(), nullable=True))
        batch_op.drop_constraint('ck_effect_kind', type_='check')
        batch_op.create_check_constraint('ck_effect_kind', NEW_KINDS)

    with op.batch_alter_table('measurement', schema=None) as batch_op:
        batch_op.add_column(sa.Column('kind', sqlmodel.sql.sqltypes.AutoString(length=20), nullable=False,
                                      server_default='baseline'))
        batch_op.add_column(sa.Column('confirmed', sqlmodel.sql.sqltypes.AutoString(), nullable=False,
                                      server_default=''))
        batch_op.add_column(sa.Column('retracted_at', sqlmodel.sql.sqltypes.UTCDateTime(), nullable=True))
        batch_op.add_column(sa.Column('retracted_by', sqlmodel.sql.sqltypes.AutoString(length=200), nullable=False,
                                      server_default=''))
        batch_op.add_column(sa.Column('retraction_reason', sqlmodel.sql.sqltypes.AutoString(), nullable=False,
                                      server_default=''))
        batch_op.create_check_constraint('ck_measurement_kind', "kind IN ('baseline', 'gate check')")

    with op.batch_alter_table('profile', schema=None) as batch_op:
        batch_op.add_column(sa.Column('step_ms', sa.Float(), nullable=True))
        batch_op.add_column(sa.Column('gpu_items', sa.Float(), nullable=True))
        batch_op.add_column(sa.Column('host_launches', sa.Float(), nullable=True))
        batch_op.add_column(sa.Column('gpu_gap_us', sa.Float(), nullable=True))
        batch_op.add_column(sa.Column('gap_measured', sa.Boolean(), nullable=False, server_default=sa.false()))
        batch_op.add_column(sa.Column('host_fixed_ms', sa.Float(), nullable=False, server_default='0'))
        batch_op.add_column(sa.Column('gpu_busy_ms', sa.Float(), nullable=True))
        batch_op.add_column(sa.Column('trace_idle_ms', sa.Float(), nullable=True))
        batch_op.add_column(sa.Column('steps', sa.Integer(), nullable=True))
        batch_op.add_column(sa.Column('passes', sqlmodel.sql.sqltypes.AutoString(), nullable=False, server_default=''))
        batch_op.add_column(sa.Column('device', sqlmodel.sql.sqltypes.AutoString(length=200), nullable=False,
                                      server_default=''))

    op.execute(
        "INSERT INTO measurement_include (measurement_id, intervention_id) "
        "SELECT m.id, i.id FROM measurement m JOIN regime r ON m.regime_id = r.id "
        "JOIN intervention i ON i.campaign_id = r.campaign_id "
        "WHERE i.status IN ('landed', 'validated') AND i.landed_at IS NOT NULL AND i.landed_at <= m.measured_at"
    )


def downgrade() -> None:
    with op.batch_alter_table('profile', schema=None) as batch_op:
        for column in ('device', 'passes', 'steps', 'trace_idle_ms', 'gpu_busy_ms', 'host_fixed_ms', 'gap_measured',
                       'gpu_gap_us', 'host_launches', 'gpu_items', 'step_ms'):
            batch_op.drop_column(column)

    with op.batch_alter_table('measurement', schema=None) as batch_op:
        batch_op.drop_constraint('ck_measurement_kind', type_='check')
        for column in ('retraction_reason', 'retracted_by', 'retracted_at', 'confirmed', 'kind'):
            batch_op.drop_column(column)

    op.execute("DELETE FROM effect WHERE kind IN ('launch_overhead', 'launch_count')")
    with op.batch_alter_table('effect', schema=None) as batch_op:
        batch_op.drop_constraint('ck_effect_kind', type_='check')
        batch_op.create_check_constraint('ck_effect_kind', OLD_KINDS)
        for column in ('launches_high', 'launches_likely', 'launches_low', 'removed_high', 'removed_likely',
                       'removed_low'):
            batch_op.drop_column(column)

    op.drop_table('measurement_include')
