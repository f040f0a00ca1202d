"""import jobs: background parses, their progress and previews, in the database every worker shares

Revision ID: 0011
Revises: 0010
Create Date: 2026-12-03
"""
from collections.abc import Sequence

import sqlalchemy as sa
import sqlmodel
from alembic import op

revision: str = '0011'
down_revision: str | None = '0010'
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.create_table(
        'import_job',
        sa.Column('token', sa.String(length=64), nullable=False),
        sa.Column('campaign_id', sa.Integer(), nullable=False),
        sa.Column('state', sa.String(length=12), nullable=False),
        sa.Column('total_bytes', sa.BigInteger(), nullable=False),
        sa.Column('read_bytes', sa.BigInteger(), nullable=False),
        sa.Column('form', sa.Text(), nullable=False),
        sa.Column('errors', sa.Text(), nullable=False),
        sa.Column('preview', sa.Text(), nullable=True),
        sa.Column('created_at', sqlmodel.sql.sqltypes.UTCDateTime(), nullable=False),
        sa.Column('updated_at', sqlmodel.sql.sqltypes.UTCDateTime(), nullable=False),
        sa.ForeignKeyConstraint(['campaign_id'], ['campaign.id'], ondelete='CASCADE'),
        sa.PrimaryKeyConstraint('token'),
    )
    op.create_index('ix_import_job_campaign_id', 'import_job', ['campaign_id'])


def downgrade() -> None:
    op.drop_table('import_job')
