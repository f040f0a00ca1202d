"""API tokens scoped to a campaign: a CI token may change its campaign's data and nothing else

Revision ID: 0014
Revises: 0013
Create Date: 2026-12-04
"""
from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = '0014'
down_revision: str | None = '0013'
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    # no table refers to api_token, so SQLite's rebuild (for the foreign key) touches nothing else
    with op.batch_alter_table('api_token') as batch:
        batch.add_column(sa.Column('campaign_id', sa.Integer(), nullable=True))
        batch.create_foreign_key('fk_api_token_campaign', 'campaign', ['campaign_id'], ['id'], ondelete='CASCADE')


def downgrade() -> None:
    with op.batch_alter_table('api_token') as batch:
        batch.drop_constraint('fk_api_token_campaign', type_='foreignkey')
        batch.drop_column('campaign_id')
