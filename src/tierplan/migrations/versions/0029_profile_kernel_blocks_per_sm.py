"""profile_kernel.blocks_per_sm: a traced kernel's mean blocks per SM (torch.profiler's CUPTI figure), which tells a
prototype's new kernel that fills the GPU from one that waits on its launch (planning/prototype_kernels.py)

Revision ID: 0029
Revises: 0028
Create Date: 2026-12-08
"""
from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = '0029'
down_revision: str | None = '0028'
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.add_column('profile_kernel', sa.Column('blocks_per_sm', sa.Float(), nullable=True))


def downgrade() -> None:
    with op.batch_alter_table('profile_kernel', schema=None) as batch_op:
        batch_op.drop_column('blocks_per_sm')
