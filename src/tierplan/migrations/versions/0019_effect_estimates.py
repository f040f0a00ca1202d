"""effect estimates as rows: each three-point input of an effect (speedup, saved_ms, acceptance, draft_cost,
removed, launches) moves from three nullable columns of `effect` to a row of `effect_estimate`, and the CHECK on
the kind goes (the kinds are the core's registry, checked where a row is written), so a new kind of effect, or one
with new inputs, needs no migration

Revision ID: 0019
Revises: 0018
Create Date: 2026-12-06
"""
from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = '0019'
down_revision: str | None = '0018'
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

INPUTS = ('speedup', 'saved_ms', 'acceptance', 'draft_cost', 'removed', 'launches')
KINDS = "kind IN ('bucket', 'step', 'time_saved', 'spec_decode', 'launch_overhead', 'launch_count')"


def upgrade() -> None:
    op.create_table(
        'effect_estimate',
        sa.Column('effect_id', sa.Integer(), nullable=False),
        sa.Column('input', sa.String(length=30), nullable=False),
        sa.Column('low', sa.Float(), nullable=False),
        sa.Column('likely', sa.Float(), nullable=False),
        sa.Column('high', sa.Float(), nullable=False),
        sa.ForeignKeyConstraint(['effect_id'], ['effect.id'], ondelete='CASCADE'),
        sa.PrimaryKeyConstraint('effect_id', 'input'),
    )
    for name in INPUTS:  # an estimate was all three points or none (the form and the API saw to it)
        op.execute(
            f"INSERT INTO effect_estimate (effect_id, input, low, likely, high) "
            f"SELECT id, '{name}', {name}_low, {name}_likely, {name}_high FROM effect "
            f"WHERE {name}_low IS NOT NULL AND {name}_likely IS NOT NULL AND {name}_high IS NOT NULL"
        )
    with op.batch_alter_table('effect', schema=None) as batch_op:
        batch_op.drop_constraint('ck_effect_kind', type_='check')
        for name in INPUTS:
            for point in ('low', 'likely', 'high'):
                batch_op.drop_column(f'{name}_{point}')


def downgrade() -> None:
    with op.batch_alter_table('effect', schema=None) as batch_op:
        for name in INPUTS:
            for point in ('low', 'likely', 'high'):
                batch_op.add_column(sa.Column(f'{name}_{point}', sa.Float(), nullable=True))
        batch_op.create_check_constraint('ck_effect_kind', KINDS)
    for name in INPUTS:
        for point in ('low', 'likely', 'high'):
            op.execute(
                f"UPDATE effect SET {name}_{point} = (SELECT e.{point} FROM effect_estimate e "
                f"WHERE e.effect_id = effect.id AND e.input = '{name}')"
            )
    op.drop_table('effect_estimate')
