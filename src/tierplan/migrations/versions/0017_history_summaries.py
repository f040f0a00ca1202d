"""a long history read in bounded statements: each run's state as a column, indexes for a regime's runs by time,
one metric's and one state's, and for the plan's snapshots by time (whose figures are now written after the change
commits); the series summaries and the measured changes kept as runs are written

Revision ID: 0017
Revises: 0016
Create Date: 2026-12-05
"""
from collections.abc import Sequence
from datetime import UTC, datetime

import sqlalchemy as sa
import sqlmodel
from alembic import op

revision: str = '0017'
down_revision: str | None = '0016'
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

BATCH = 1000


def upgrade() -> None:
    with op.batch_alter_table('measurement') as batch:
        batch.add_column(sa.Column('includes_key', sa.Text(), server_default='', nullable=False))
    op.drop_index('ix_measurement_regime_id', table_name='measurement')
    op.create_index('ix_measurement_regime_time', 'measurement', ['regime_id', 'measured_at', 'id'])
    op.create_index('ix_measurement_metric_time', 'measurement',
                    ['regime_id', 'metric', 'measured_at', 'id', 'value', 'kind', 'retracted_at'])
    op.create_index('ix_measurement_state_time', 'measurement',
                    ['regime_id', 'metric', 'kind', 'includes_key', 'measured_at', 'id'])
    op.create_index('ix_measurement_include_intervention_id', 'measurement_include', ['intervention_id'])
    with op.batch_alter_table('plan_snapshot') as batch:
        batch.alter_column('figures', existing_type=sa.Text(), nullable=True)
    op.drop_index('ix_plan_snapshot_campaign_id', table_name='plan_snapshot')
    op.create_index('ix_plan_snapshot_campaign_time', 'plan_snapshot', ['campaign_id', 'taken_at', 'id'])
    op.create_table(
        'measurement_series',
        sa.Column('id', sa.Integer(), nullable=False),
        sa.Column('regime_id', sa.Integer(), nullable=False),
        sa.Column('metric', sa.String(length=50), nullable=False),
        sa.Column('kind', sa.String(length=20), nullable=False),
        sa.Column('includes_key', sa.Text(), nullable=False),
        sa.Column('runs', sa.Integer(), nullable=False),
        sa.Column('newest_id', sa.Integer(), nullable=False),
        sa.Column('newest_at', sqlmodel.sql.sqltypes.UTCDateTime(), nullable=False),
        sa.Column('stamp', sa.Integer(), nullable=False),
        sa.ForeignKeyConstraint(['regime_id'], ['regime.id'], ondelete='CASCADE'),
        sa.PrimaryKeyConstraint('id'),
        sa.UniqueConstraint('regime_id', 'metric', 'kind', 'includes_key', name='uq_measurement_series'),
    )
    op.create_table(
        'measured_change',
        sa.Column('id', sa.Integer(), nullable=False),
        sa.Column('regime_id', sa.Integer(), nullable=False),
        sa.Column('changed_key', sa.Text(), nullable=False),
        sa.Column('before_id', sa.Integer(), nullable=False),
        sa.Column('after_id', sa.Integer(), nullable=False),
        sa.ForeignKeyConstraint(['regime_id'], ['regime.id'], ondelete='CASCADE'),
        sa.ForeignKeyConstraint(['before_id'], ['measurement.id'], ondelete='CASCADE'),
        sa.ForeignKeyConstraint(['after_id'], ['measurement.id'], ondelete='CASCADE'),
        sa.PrimaryKeyConstraint('id'),
        sa.UniqueConstraint('regime_id', 'changed_key', name='uq_measured_change'),
    )
    _fill()


def _fill() -> None:
    """The states, series and measured changes of the runs already stored."""
    from tierplan.planning.calibration import changes_by_set
    from tierplan.planning.model import Measurement, MeasurementKind

    bind = op.get_bind()
    includes: dict[int, list[int]] = {}
    for mid, iid in bind.execute(sa.text('SELECT measurement_id, intervention_id FROM measurement_include')):
        includes.setdefault(mid, []).append(iid)
    keys = [{'i': mid, 'k': ','.join(str(i) for i in sorted(set(iids)))} for mid, iids in includes.items()]
    for start in range(0, len(keys), BATCH):
        bind.execute(sa.text('UPDATE measurement SET includes_key = :k WHERE id = :i'), keys[start:start + BATCH])
    newest: dict[tuple, list] = {}  # series -> [runs, newest (time, id)]
    throughput: dict[int, list] = {}
    rows = bind.execute(sa.text('SELECT id, regime_id, metric, kind, includes_key, measured_at, value FROM measurement '
                                'WHERE retracted_at IS NULL'))
    for mid, regime_id, metric, kind, key, measured_at, value in rows:
        at = _utc(measured_at)
        entry = newest.setdefault((regime_id, metric, kind, key), [0, (at, mid)])
        entry[0] += 1
        entry[1] = max(entry[1], (at, mid))
        if metric == 'output_tok_s' and value > 0:
            throughput.setdefault(regime_id, []).append(
                (at, mid, Measurement(str(regime_id), metric, value, at, MeasurementKind(kind),
                                      frozenset(key.split(',')) - {''}, ref=mid)))
    values = [{'regime_id': k[0], 'metric': k[1], 'kind': k[2], 'includes_key': k[3], 'runs': runs,
               'newest_id': top[1], 'newest_at': top[0], 'stamp': 0} for k, (runs, top) in newest.items()]
    if values:
        op.bulk_insert(sa.table('measurement_series', sa.column('regime_id', sa.Integer()),
                                sa.column('metric', sa.String()), sa.column('kind', sa.String()),
                                sa.column('includes_key', sa.Text()), sa.column('runs', sa.Integer()),
                                sa.column('newest_id', sa.Integer()),
                                sa.column('newest_at', sqlmodel.sql.sqltypes.UTCDateTime()),
                                sa.column('stamp', sa.Integer())), values)
    changes = []
    for regime_id, runs in throughput.items():
        ordered = [m for _, _, m in sorted(runs, key=lambda r: (r[0], r[1]), reverse=True)]
        for changed, (before, after) in changes_by_set(ordered, str(regime_id)).items():
            changes.append({'regime_id': regime_id, 'changed_key': ','.join(sorted(changed, key=int)),
                            'before_id': before.ref, 'after_id': after.ref})
    if changes:
        op.bulk_insert(sa.table('measured_change', sa.column('regime_id', sa.Integer()),
                                sa.column('changed_key', sa.Text()), sa.column('before_id', sa.Integer()),
                                sa.column('after_id', sa.Integer())), changes)


def _utc(value) -> datetime:
    """A stored time as an aware UTC datetime (SQLite gives back text or naive values, PostgreSQL aware ones)."""
    if isinstance(value, str):
        value = datetime.fromisoformat(value)
    return value.replace(tzinfo=UTC) if value.tzinfo is None else value.astimezone(UTC)


def downgrade() -> None:
    op.drop_table('measured_change')
    op.drop_table('measurement_series')
    op.drop_index('ix_plan_snapshot_campaign_time', table_name='plan_snapshot')
    op.create_index('ix_plan_snapshot_campaign_id', 'plan_snapshot', ['campaign_id'])
    op.execute("DELETE FROM plan_snapshot WHERE figures IS NULL")
    with op.batch_alter_table('plan_snapshot') as batch:
        batch.alter_column('figures', existing_type=sa.Text(), nullable=False)
    op.drop_index('ix_measurement_include_intervention_id', table_name='measurement_include')
    op.drop_index('ix_measurement_state_time', table_name='measurement')
    op.drop_index('ix_measurement_metric_time', table_name='measurement')
    op.drop_index('ix_measurement_regime_time', table_name='measurement')
    op.create_index('ix_measurement_regime_id', 'measurement', ['regime_id'])
    with op.batch_alter_table('measurement') as batch:
        batch.drop_column('includes_key')
