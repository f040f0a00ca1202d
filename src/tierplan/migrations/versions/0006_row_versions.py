"""row versions: every editable row counts its saves, so a form saved over a newer change is refused (409)

Revision ID: 0006
Revises: 0005
Create Date: 2026-12-03
"""
from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = '0006'
down_revision: str | None = '0005'
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

TABLES = ('campaign', 'regime', 'tier', 'intervention', 'effect', 'gate', 'hardware_spec', 'model_spec')


def upgrade() -> None:
    for table in TABLES:
        with op.batch_alter_table(table) as batch:
            batch.add_column(sa.Column('version', sa.Integer(), nullable=False, server_default='1'))


def downgrade() -> None:
    for table in TABLES:
        with op.batch_alter_table(table) as batch:
            batch.drop_column('version')
