"""profile.intervention_id: a profile traced with a prototype of that intervention in place (its evidence), not
the regime's own profile

Revision ID: 0021
Revises: 0020
Create Date: 2026-12-06
"""
from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = '0021'
down_revision: str | None = '0020'
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    with op.batch_alter_table('profile', schema=None) as batch_op:
        batch_op.add_column(sa.Column('intervention_id', sa.Integer(), nullable=True))
        batch_op.create_index(batch_op.f('ix_profile_intervention_id'), ['intervention_id'], unique=False)
        batch_op.create_foreign_key('fk_profile_intervention_id', 'intervention', ['intervention_id'], ['id'],
                                    ondelete='CASCADE')


def downgrade() -> None:
    with op.batch_alter_table('profile', schema=None) as batch_op:
        batch_op.drop_constraint('fk_profile_intervention_id', type_='foreignkey')
        batch_op.drop_index(batch_op.f('ix_profile_intervention_id'))
        batch_op.drop_column('intervention_id')
