"""a one-time token remembers what it did: the command and the hand's row

Revision ID: 0010_token_scope
Revises: 0009_facts_column
Create Date: 2026-11-30 17:20:00

A retry is answered with what its token saved only when it is the same command on the
same table (and the same hand); a token sent again for another command or table is
refused instead of being taken for a retry.
"""
import sqlalchemy as sa
from alembic import op

revision = '0010_token_scope'
down_revision = '0009_facts_column'
branch_labels = None
depends_on = None


def upgrade():
    # plain ADD COLUMN: nothing refers to submission, and no rebuild is needed
    op.add_column('submission', sa.Column('command', sa.String(length=20), server_default='', nullable=False))
    op.add_column('submission', sa.Column('hand_id', sa.Integer(), nullable=True))


def downgrade():
    with op.batch_alter_table('submission') as batch_op:
        batch_op.drop_column('hand_id')
        batch_op.drop_column('command')
