"""disputes raised from any phone, and confirmation of new hands

Revision ID: 0014_disputes
Revises: 0013_seat_changes
Create Date: 2026-11-30 20:00:00

A dispute is a claim (revoke, wrong number of cards, out of turn, misdeal, or "the
score is wrong") raised by any phone, a viewer's included, and shown on every phone
until a scorer rules on it. A table may ask that each new hand be confirmed by a phone
other than the one that entered it: the hand remembers that phone and who confirmed it.
"""
import sqlalchemy as sa
from alembic import op

revision = '0014_disputes'
down_revision = '0013_seat_changes'
branch_labels = None
depends_on = None


def upgrade():
    op.create_table(
        'dispute',
        sa.Column('id', sa.Integer(), nullable=False),
        sa.Column('evening_id', sa.Integer(), nullable=False),
        sa.Column('hand_id', sa.Integer(), nullable=False),
        sa.Column('kind', sa.String(length=20), nullable=False),
        sa.Column('accused', sa.Integer(), nullable=True),
        sa.Column('raised_by', sa.Integer(), nullable=True),
        sa.Column('trick', sa.Integer(), nullable=True),
        sa.Column('note', sa.String(length=200), server_default='', nullable=False),
        sa.Column('device', sa.String(length=40), server_default='', nullable=False),
        sa.Column('device_id', sa.Integer(), nullable=True),
        sa.Column('raised_at', sa.DateTime(timezone=True), nullable=False),
        sa.Column('resolved_at', sa.DateTime(timezone=True), nullable=True),
        sa.Column('resolution', sa.String(length=20), server_default='', nullable=False),
        sa.Column('resolved_device', sa.String(length=40), server_default='', nullable=False),
        sa.ForeignKeyConstraint(['evening_id'], ['evening.id']),
        sa.ForeignKeyConstraint(['hand_id'], ['hand.id']),
        sa.PrimaryKeyConstraint('id'),
    )
    op.create_index('ix_dispute_evening_id', 'dispute', ['evening_id'])
    op.create_index('ix_dispute_hand_id', 'dispute', ['hand_id'])
    # plain ADD COLUMN: other tables refer to evening and hand, so no batch rebuild
    op.add_column('evening', sa.Column('confirmation', sa.Boolean(), server_default=sa.false(), nullable=False))
    op.add_column('hand', sa.Column('entered_by', sa.Integer(), nullable=True))
    op.add_column('hand', sa.Column('confirmed_at', sa.DateTime(timezone=True), nullable=True))
    op.add_column('hand', sa.Column('confirmed_device', sa.String(length=40), server_default='', nullable=False))


def downgrade():
    # plain DROP COLUMN (SQLite 3.35+, PostgreSQL), as 0011 does
    op.drop_column('hand', 'confirmed_device')
    op.drop_column('hand', 'confirmed_at')
    op.drop_column('hand', 'entered_by')
    op.drop_column('evening', 'confirmation')
    op.drop_index('ix_dispute_hand_id', table_name='dispute')
    op.drop_index('ix_dispute_evening_id', table_name='dispute')
    op.drop_table('dispute')
