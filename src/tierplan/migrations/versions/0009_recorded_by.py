"""recorded_by: who recorded each measurement (the logged-in user; blank in single-user mode)

Revision ID: 0009
Revises: 0008
Create Date: 2026-12-03
"""
from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = '0009'
down_revision: str | None = '0008'
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    with op.batch_alter_table('measurement') as batch:
        batch.add_column(sa.Column('recorded_by', sa.String(length=100), nullable=False, server_default=''))


def downgrade() -> None:
    with op.batch_alter_table('measurement') as batch:
        batch.drop_column('recorded_by')
