"""phones known by a device cookie; what each may do at each table kept server side

Revision ID: 0011_devices
Revises: 0010_token_scope
Create Date: 2026-11-30 17:40:00

Roles, the tables a phone has opened and its wrong PINs move out of the session cookie
(which lasted until the browser closed, and grew with every table) into the database,
keyed by a random device id kept in a cookie for a year.
"""
import sqlalchemy as sa
from alembic import op

revision = '0011_devices'
down_revision = '0010_token_scope'
branch_labels = None
depends_on = None


def upgrade():
    op.create_table(
        'device',
        sa.Column('id', sa.Integer(), nullable=False),
        sa.Column('token_hash', sa.String(length=64), nullable=False),
        sa.Column('name', sa.String(length=40), nullable=False),
        sa.Column('tag', sa.String(length=8), nullable=False),
        sa.Column('model', sa.String(length=20), server_default='', nullable=False),
        sa.Column('created_at', sa.DateTime(timezone=True), nullable=False),
        sa.PrimaryKeyConstraint('id'),
        sa.UniqueConstraint('token_hash'),
    )
    op.create_table(
        'table_access',
        sa.Column('id', sa.Integer(), nullable=False),
        sa.Column('device_id', sa.Integer(), nullable=False),
        sa.Column('evening_id', sa.Integer(), nullable=False),
        sa.Column('via', sa.String(length=10), server_default='', nullable=False),
        sa.Column('generation', sa.Integer(), server_default='0', nullable=False),
        sa.Column('revoked_at', sa.DateTime(timezone=True), nullable=True),
        sa.Column('granted_at', sa.DateTime(timezone=True), nullable=True),
        sa.Column('seen_at', sa.DateTime(timezone=True), nullable=False),
        sa.Column('pin_failures', sa.Integer(), server_default='0', nullable=False),
        sa.Column('pin_window_start', sa.DateTime(timezone=True), nullable=True),
        sa.ForeignKeyConstraint(['device_id'], ['device.id']),
        sa.ForeignKeyConstraint(['evening_id'], ['evening.id']),
        sa.PrimaryKeyConstraint('id'),
        sa.UniqueConstraint('device_id', 'evening_id'),
    )
    op.create_index('ix_table_access_device_id', 'table_access', ['device_id'])
    op.create_index('ix_table_access_evening_id', 'table_access', ['evening_id'])
    # plain ADD COLUMN: other tables refer to evening, so no batch rebuild
    op.add_column('evening', sa.Column('access_generation', sa.Integer(), server_default='0', nullable=False))


def downgrade():
    op.drop_column('evening', 'access_generation')
    op.drop_index('ix_table_access_evening_id', table_name='table_access')
    op.drop_index('ix_table_access_device_id', table_name='table_access')
    op.drop_table('table_access')
    op.drop_table('device')
