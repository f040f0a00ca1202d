"""kernel rules version: a campaign's rules are saved as a whole, and a stale save of them answers 409

Revision ID: 0012
Revises: 0011
Create Date: 2026-12-03
"""
from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = '0012'
down_revision: str | None = '0011'
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    # a plain ADD COLUMN (SQLite has it): no table rebuild, so the campaign's children are never touched
    op.add_column('campaign', sa.Column('kernel_rules_version', sa.Integer(), nullable=False, server_default='1'))


def downgrade() -> None:
    with op.batch_alter_table('campaign') as batch:
        batch.drop_column('kernel_rules_version')
