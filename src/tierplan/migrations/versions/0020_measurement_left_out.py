"""measurement.left_out: why calibration leaves a run out ("" : it counts), set by the team without retracting it

Revision ID: 0020
Revises: 0019
Create Date: 2026-12-06
"""
from collections.abc import Sequence

import sqlalchemy as sa
import sqlmodel
from alembic import op

revision: str = '0020'
down_revision: str | None = '0019'
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.add_column('measurement', sa.Column('left_out', sqlmodel.sql.sqltypes.AutoString(length=500),
                                           server_default='', nullable=False))


def downgrade() -> None:
    with op.batch_alter_table('measurement', schema=None) as batch_op:
        batch_op.drop_column('left_out')
