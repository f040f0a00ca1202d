"""profile_kernel.calls_a_step and .launch: how many times a decode step launches each kernel a trace named, so a
prototype's new kernels can be carried to another batch launch by launch (planning/prototype_kernels.py), and the
kernel's launch figures in words where Nsight Compute gave them (blocks, threads, SMs, occupancy, DRAM throughput)

Revision ID: 0027
Revises: 0026
Create Date: 2026-12-07
"""
from collections.abc import Sequence

import sqlalchemy as sa
import sqlmodel
from alembic import op

revision: str = '0027'
down_revision: str | None = '0026'
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.add_column('profile_kernel', sa.Column('calls_a_step', sa.Float(), nullable=True))
    op.add_column('profile_kernel', sa.Column('launch', sqlmodel.sql.sqltypes.AutoString(length=300), server_default='',
                                              nullable=False))


def downgrade() -> None:
    with op.batch_alter_table('profile_kernel', schema=None) as batch_op:
        batch_op.drop_column('launch')
        batch_op.drop_column('calls_a_step')
