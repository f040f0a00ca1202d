"""effect.kernels and profile_kernel: an effect may act on named kernels alone, read from the kernels a profile's
trace or kernel table named (planning/kernel_targets.py)

Revision ID: 0024
Revises: 0023
Create Date: 2026-12-06
"""
from collections.abc import Sequence

import sqlalchemy as sa
import sqlmodel
from alembic import op

revision: str = '0024'
down_revision: str | None = '0023'
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.add_column('effect', sa.Column('kernels', sqlmodel.sql.sqltypes.AutoString(), server_default='', nullable=False))
    op.create_table(
        'profile_kernel',
        sa.Column('id', sa.Integer(), nullable=False),
        sa.Column('profile_id', sa.Integer(), nullable=False),
        sa.Column('name', sqlmodel.sql.sqltypes.AutoString(length=1000), nullable=False),
        sa.Column('bucket', sqlmodel.sql.sqltypes.AutoString(length=100), nullable=False),
        sa.Column('fraction', sa.Float(), nullable=False),
        sa.ForeignKeyConstraint(['profile_id'], ['profile.id'], ondelete='CASCADE'),
        sa.PrimaryKeyConstraint('id'),
    )
    op.create_index('ix_profile_kernel_profile_id', 'profile_kernel', ['profile_id'])


def downgrade() -> None:
    op.drop_table('profile_kernel')
    with op.batch_alter_table('effect', schema=None) as batch_op:
        batch_op.drop_column('kernels')
