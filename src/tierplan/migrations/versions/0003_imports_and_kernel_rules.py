"""imports and kernel rules

Revision ID: 0003
Revises: 0002
Create Date: 2026-12-02
"""
from collections.abc import Sequence

import sqlalchemy as sa
import sqlmodel
from alembic import op

revision: str = '0003'
down_revision: str | None = '0002'
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.create_table('import_record',
    sa.Column('id', sa.Integer(), nullable=False),
    sa.Column('campaign_id', sa.Integer(), nullable=False),
    sa.Column('batch', sqlmodel.sql.sqltypes.AutoString(length=64), nullable=False),
    sa.Column('file_name', sqlmodel.sql.sqltypes.AutoString(length=500), nullable=False),
    sa.Column('sha256', sqlmodel.sql.sqltypes.AutoString(length=64), nullable=False),
    sa.Column('format', sqlmodel.sql.sqltypes.AutoString(length=40), nullable=False),
    sa.Column('size_bytes', sa.Integer(), nullable=False),
    sa.Column('imported_at', sqlmodel.sql.sqltypes.UTCDateTime(), nullable=False),
    sa.Column('summary', sqlmodel.sql.sqltypes.AutoString(), nullable=False),
    sa.ForeignKeyConstraint(['campaign_id'], ['campaign.id'], ondelete='CASCADE'),
    sa.PrimaryKeyConstraint('id')
    )
    with op.batch_alter_table('import_record', schema=None) as batch_op:
        batch_op.create_index(batch_op.f('ix_import_record_batch'), ['batch'], unique=False)
        batch_op.create_index(batch_op.f('ix_import_record_campaign_id'), ['campaign_id'], unique=False)
        batch_op.create_index(batch_op.f('ix_import_record_sha256'), ['sha256'], unique=False)

    op.create_table('kernel_rule',
    sa.Column('id', sa.Integer(), nullable=False),
    sa.Column('campaign_id', sa.Integer(), nullable=False),
    sa.Column('position', sa.Integer(), nullable=False),
    sa.Column('pattern', sqlmodel.sql.sqltypes.AutoString(length=500), nullable=False),
    sa.Column('bucket', sqlmodel.sql.sqltypes.AutoString(length=100), nullable=False),
    sa.ForeignKeyConstraint(['campaign_id'], ['campaign.id'], ondelete='CASCADE'),
    sa.PrimaryKeyConstraint('id')
    )
    with op.batch_alter_table('kernel_rule', schema=None) as batch_op:
        batch_op.create_index(batch_op.f('ix_kernel_rule_campaign_id'), ['campaign_id'], unique=False)

    with op.batch_alter_table('measurement', schema=None) as batch_op:
        batch_op.add_column(sa.Column('import_id', sa.Integer(), nullable=True))
        batch_op.create_index(batch_op.f('ix_measurement_import_id'), ['import_id'], unique=False)
        batch_op.create_foreign_key('fk_measurement_import_id', 'import_record', ['import_id'], ['id'], ondelete='CASCADE')

    with op.batch_alter_table('profile', schema=None) as batch_op:
        batch_op.add_column(sa.Column('import_id', sa.Integer(), nullable=True))
        batch_op.create_index(batch_op.f('ix_profile_import_id'), ['import_id'], unique=False)
        batch_op.create_foreign_key('fk_profile_import_id', 'import_record', ['import_id'], ['id'], ondelete='CASCADE')



def downgrade() -> None:
    with op.batch_alter_table('profile', schema=None) as batch_op:
        batch_op.drop_constraint('fk_profile_import_id', type_='foreignkey')
        batch_op.drop_index(batch_op.f('ix_profile_import_id'))
        batch_op.drop_column('import_id')

    with op.batch_alter_table('measurement', schema=None) as batch_op:
        batch_op.drop_constraint('fk_measurement_import_id', type_='foreignkey')
        batch_op.drop_index(batch_op.f('ix_measurement_import_id'))
        batch_op.drop_column('import_id')

    with op.batch_alter_table('kernel_rule', schema=None) as batch_op:
        batch_op.drop_index(batch_op.f('ix_kernel_rule_campaign_id'))

    op.drop_table('kernel_rule')
    with op.batch_alter_table('import_record', schema=None) as batch_op:
        batch_op.drop_index(batch_op.f('ix_import_record_sha256'))
        batch_op.drop_index(batch_op.f('ix_import_record_campaign_id'))
        batch_op.drop_index(batch_op.f('ix_import_record_batch'))

    op.drop_table('import_record')
