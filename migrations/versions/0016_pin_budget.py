"""wrong PINs kept one row each: per phone, per network and per table per day

Revision ID: 0016_pin_budget
Revises: 0015_submission_digest
Create Date: 2026-12-04 21:00:00

Anyone with a table's view link could pause PIN entry for everyone with 30 wrong PINs
from fresh cookies (issue 21 item 5). Each wrong PIN is now a row of ``pin_attempt``
(the phone, its network, the time), counted per phone and per network over 15 minutes
and per table over a day (scorer.storage.pin_budget). The old counters
(``evening.pin_failures``, ``table_access.pin_failures`` and their windows) are left in
place, unused: a downgrade finds them as they were.
"""
import sqlalchemy as sa
from alembic import op

revision = '0016_pin_budget'
down_revision = '0015_submission_digest'
branch_labels = None
depends_on = None


def upgrade():
    op.create_table(
        'pin_attempt',
        sa.Column('id', sa.Integer(), nullable=False),
        sa.Column('evening_id', sa.Integer(), nullable=False),
        sa.Column('device_id', sa.Integer(), nullable=True),
        sa.Column('network', sa.String(length=64), nullable=False),
        sa.Column('at', sa.DateTime(timezone=True), nullable=False),
        sa.ForeignKeyConstraint(['evening_id'], ['evening.id']),
        sa.ForeignKeyConstraint(['device_id'], ['device.id']),
        sa.PrimaryKeyConstraint('id'),
    )
    op.create_index('ix_pin_attempt_evening_at', 'pin_attempt', ['evening_id', 'at'])


def downgrade():
    op.drop_index('ix_pin_attempt_evening_at', table_name='pin_attempt')
    op.drop_table('pin_attempt')
