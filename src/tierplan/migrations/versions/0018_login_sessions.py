"""server-side login sessions: a login is a row (its cookie holds a random token, only its SHA-256 is kept), so a
logout, a password change or an administrator ends it for good; the cookie-signing secret goes

Revision ID: 0018
Revises: 0017
Create Date: 2026-12-06
"""
from collections.abc import Sequence

import sqlalchemy as sa
import sqlmodel
from alembic import op

revision: str = '0018'
down_revision: str | None = '0017'
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.create_table(
        'login_session',
        sa.Column('id', sa.Integer(), nullable=False),
        sa.Column('user_id', sa.Integer(), nullable=False),
        sa.Column('token_sha256', sa.String(length=64), nullable=False),
        sa.Column('created_at', sqlmodel.sql.sqltypes.UTCDateTime(), nullable=False),
        sa.Column('ended_at', sqlmodel.sql.sqltypes.UTCDateTime(), nullable=True),
        sa.Column('user_agent', sa.String(length=200), server_default='', nullable=False),
        sa.ForeignKeyConstraint(['user_id'], ['user_account.id'], ondelete='CASCADE'),
        sa.PrimaryKeyConstraint('id'),
        sa.UniqueConstraint('token_sha256'),
    )
    op.create_index('ix_login_session_user_id', 'login_session', ['user_id'])
    op.drop_table('app_secret')  # cookies no longer carry a signed user id


def downgrade() -> None:
    op.create_table(
        'app_secret',
        sa.Column('id', sa.Integer(), nullable=False),
        sa.Column('value', sa.String(length=100), nullable=False),
        sa.PrimaryKeyConstraint('id'),
    )
    op.drop_index('ix_login_session_user_id', table_name='login_session')
    op.drop_table('login_session')
