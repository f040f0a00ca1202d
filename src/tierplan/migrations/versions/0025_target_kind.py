"""regime.target_kind: how the team states a regime's target (aggregate, per user, TPOT; planning/targets.py)

Revision ID: 0025
Revises: 0024
Create Date: 2026-12-06
"""
from collections.abc import Sequence

import sqlalchemy as sa
import sqlmodel
from alembic import op

revision: str = '0025'
down_revision: str | None = '0024'
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.add_column('regime', sa.Column('target_kind', sqlmodel.sql.sqltypes.AutoString(), server_default='aggregate',
                                      nullable=False))


def downgrade() -> None:
    with op.batch_alter_table('regime', schema=None) as batch_op:
        batch_op.drop_column('target_kind')
