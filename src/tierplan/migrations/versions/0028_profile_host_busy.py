"""profile.host_busy_ms: a decode step's host time in the trace, the launching thread's time apart from waiting for
the GPU (importers/trace_host.py), so a GPU-bound step's hidden host cost is priced from what it measured

Revision ID: 0028
Revises: 0027
Create Date: 2026-12-07
"""
from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = '0028'
down_revision: str | None = '0027'
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.add_column('profile', sa.Column('host_busy_ms', sa.Float(), nullable=True))


def downgrade() -> None:
    with op.batch_alter_table('profile', schema=None) as batch_op:
        batch_op.drop_column('host_busy_ms')
