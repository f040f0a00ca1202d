"""intervention.assignee and tier.first_done_p50/p90: who does each intervention, and the first schedule of each tier
(planning/schedule.py; slips are shown against it)

Revision ID: 0026
Revises: 0025
Create Date: 2026-12-06
"""
from collections.abc import Sequence

import sqlalchemy as sa
import sqlmodel
from alembic import op

revision: str = '0026'
down_revision: str | None = '0025'
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.add_column('intervention', sa.Column('assignee', sqlmodel.sql.sqltypes.AutoString(), server_default='',
                                            nullable=False))
    op.add_column('tier', sa.Column('first_done_p50', sa.Date(), nullable=True))
    op.add_column('tier', sa.Column('first_done_p90', sa.Date(), nullable=True))


def downgrade() -> None:
    with op.batch_alter_table('tier', schema=None) as batch_op:
        batch_op.drop_column('first_done_p90')
        batch_op.drop_column('first_done_p50')
    with op.batch_alter_table('intervention', schema=None) as batch_op:
        batch_op.drop_column('assignee')
