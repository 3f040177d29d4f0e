"""sharing (edit link, PIN), undo, one-time form tokens, history

Revision ID: 0008_sharing
Revises: 0007_groups
Create Date: 2026-11-29 14:40:00

Existing evenings get a fresh edit link and PIN each.
"""
import secrets

import sqlalchemy as sa
from alembic import op

revision = '0008_sharing'
down_revision = '0007_groups'
branch_labels = None
depends_on = None


def upgrade():
    # plain ADD COLUMN (no table rebuild: other tables hold foreign keys to evening);
    # every row gets its values below and the app always sets them
    op.add_column('evening', sa.Column('edit_key', sa.String(length=32), nullable=True))
    op.add_column('evening', sa.Column('pin', sa.String(length=8), nullable=True))
    op.add_column('evening', sa.Column('pin_failures', sa.Integer(), server_default='0', nullable=False))
    op.add_column('evening', sa.Column('pin_window_start', sa.DateTime(timezone=True), nullable=True))
    conn = op.get_bind()
    evening = sa.table('evening', sa.column('id', sa.Integer), sa.column('edit_key', sa.String),
                       sa.column('pin', sa.String))
    for (evening_id,) in conn.execute(sa.select(evening.c.id)).all():
        conn.execute(sa.update(evening).where(evening.c.id == evening_id).values(
            edit_key=secrets.token_urlsafe(16), pin=f"{secrets.randbelow(10**6):06d}"))
    op.create_index('uq_evening_edit_key', 'evening', ['edit_key'], unique=True)

    op.add_column('hand', sa.Column('undone_number', sa.Integer(), nullable=True))
    op.add_column('hand', sa.Column('undone_at', sa.DateTime(timezone=True), nullable=True))

    op.create_table(
        'submission',
        sa.Column('id', sa.Integer(), nullable=False),
        sa.Column('token', sa.String(length=64), nullable=False),
        sa.Column('evening_id', sa.Integer(), nullable=False),
        sa.Column('hand_number', sa.Integer(), nullable=True),
        sa.Column('created_at', sa.DateTime(timezone=True), nullable=False),
        sa.ForeignKeyConstraint(['evening_id'], ['evening.id']),
        sa.PrimaryKeyConstraint('id'),
        sa.UniqueConstraint('token'),
    )
    op.create_index('ix_submission_evening_id', 'submission', ['evening_id'])
    op.create_table(
        'change',
        sa.Column('id', sa.Integer(), nullable=False),
        sa.Column('evening_id', sa.Integer(), nullable=False),
        sa.Column('at', sa.DateTime(timezone=True), nullable=False),
        sa.Column('device', sa.String(length=40), nullable=False),
        sa.Column('kind', sa.String(length=20), nullable=False),
        sa.Column('hand_number', sa.Integer(), nullable=True),
        sa.Column('before', sa.JSON(), nullable=True),
        sa.Column('after', sa.JSON(), nullable=True),
        sa.ForeignKeyConstraint(['evening_id'], ['evening.id']),
        sa.PrimaryKeyConstraint('id'),
    )
    op.create_index('ix_change_evening_id', 'change', ['evening_id'])


def downgrade():
    op.drop_index('ix_change_evening_id', table_name='change')
    op.drop_table('change')
    op.drop_index('ix_submission_evening_id', table_name='submission')
    op.drop_table('submission')
    # plain DROP COLUMN (SQLite 3.35+): a batch rebuild would copy tables that others refer to
    op.drop_column('hand', 'undone_at')
    op.drop_column('hand', 'undone_number')
    op.drop_index('uq_evening_edit_key', table_name='evening')
    for column in ('pin_window_start', 'pin_failures', 'pin', 'edit_key'):
        op.drop_column('evening', column)
