"""the referee of a club night: referees, their phones, calls, wrong referee PINs

Revision ID: 0022_referees
Revises: 0021_events
Create Date: 2026-12-06 23:30:00

Issue 22 item 5. ``event_referee`` holds the referees an event's owner named, each with a
link key and a PIN of their own (``revoked_at``: the owner took the role away);
``referee_phone`` the phones holding a referee's role; ``referee_call`` every call a
table made (taken and closed by a referee, with the outcome and the dispute ruled on):
never deleted, the event's history of calls; ``referee_pin_miss`` the wrong referee PINs
(the budget). No existing table changes.
"""
import sqlalchemy as sa
from alembic import op

revision = '0022_referees'
down_revision = '0021_events'
branch_labels = None
depends_on = None


def upgrade():
    op.create_table(
        'event_referee',
        sa.Column('id', sa.Integer(), nullable=False),
        sa.Column('event_id', sa.Integer(), nullable=False),
        sa.Column('name', sa.String(length=40), nullable=False),
        sa.Column('link_key', sa.String(length=32), nullable=False),
        sa.Column('pin', sa.String(length=8), nullable=False),
        sa.Column('created_at', sa.DateTime(timezone=True), nullable=False),
        sa.Column('revoked_at', sa.DateTime(timezone=True), nullable=True),
        sa.ForeignKeyConstraint(['event_id'], ['event.id']),
        sa.PrimaryKeyConstraint('id'),
    )
    op.create_index('ix_event_referee_event_id', 'event_referee', ['event_id'])
    op.create_index('uq_event_referee_link_key', 'event_referee', ['link_key'], unique=True)
    op.create_table(
        'referee_phone',
        sa.Column('id', sa.Integer(), nullable=False),
        sa.Column('referee_id', sa.Integer(), nullable=False),
        sa.Column('device_id', sa.Integer(), nullable=False),
        sa.Column('via', sa.String(length=10), nullable=False),
        sa.Column('granted_at', sa.DateTime(timezone=True), nullable=False),
        sa.ForeignKeyConstraint(['referee_id'], ['event_referee.id']),
        sa.ForeignKeyConstraint(['device_id'], ['device.id']),
        sa.PrimaryKeyConstraint('id'),
        sa.UniqueConstraint('referee_id', 'device_id'),
    )
    op.create_index('ix_referee_phone_referee_id', 'referee_phone', ['referee_id'])
    op.create_index('ix_referee_phone_device_id', 'referee_phone', ['device_id'])
    op.create_table(
        'referee_call',
        sa.Column('id', sa.Integer(), nullable=False),
        sa.Column('event_id', sa.Integer(), nullable=False),
        sa.Column('evening_id', sa.Integer(), nullable=False),
        sa.Column('table_number', sa.Integer(), nullable=False),
        sa.Column('round_number', sa.Integer(), nullable=False),
        sa.Column('hand_number', sa.Integer(), nullable=True),
        sa.Column('hand_id', sa.Integer(), nullable=True),
        sa.Column('note', sa.String(length=200), server_default='', nullable=False),
        sa.Column('device', sa.String(length=40), server_default='', nullable=False),
        sa.Column('device_id', sa.Integer(), nullable=True),
        sa.Column('raised_at', sa.DateTime(timezone=True), nullable=False),
        sa.Column('taken_by', sa.Integer(), nullable=True),
        sa.Column('taken_at', sa.DateTime(timezone=True), nullable=True),
        sa.Column('closed_by', sa.Integer(), nullable=True),
        sa.Column('closed_at', sa.DateTime(timezone=True), nullable=True),
        sa.Column('outcome', sa.String(length=12), server_default='', nullable=False),
        sa.Column('dispute_id', sa.Integer(), nullable=True),
        sa.ForeignKeyConstraint(['event_id'], ['event.id']),
        sa.ForeignKeyConstraint(['evening_id'], ['evening.id']),
        sa.ForeignKeyConstraint(['taken_by'], ['event_referee.id']),
        sa.ForeignKeyConstraint(['closed_by'], ['event_referee.id']),
        sa.ForeignKeyConstraint(['dispute_id'], ['dispute.id']),
        sa.PrimaryKeyConstraint('id'),
    )
    op.create_index('ix_referee_call_event_closed', 'referee_call', ['event_id', 'closed_at'])
    op.create_index('ix_referee_call_evening_id', 'referee_call', ['evening_id'])
    op.create_table(
        'referee_pin_miss',
        sa.Column('id', sa.Integer(), nullable=False),
        sa.Column('event_id', sa.Integer(), nullable=False),
        sa.Column('device_id', sa.Integer(), nullable=True),
        sa.Column('network', sa.String(length=64), nullable=False),
        sa.Column('at', sa.DateTime(timezone=True), nullable=False),
        sa.ForeignKeyConstraint(['event_id'], ['event.id']),
        sa.ForeignKeyConstraint(['device_id'], ['device.id']),
        sa.PrimaryKeyConstraint('id'),
    )
    op.create_index('ix_referee_pin_miss_event_at', 'referee_pin_miss', ['event_id', 'at'])


def downgrade():
    op.drop_index('ix_referee_pin_miss_event_at', table_name='referee_pin_miss')
    op.drop_table('referee_pin_miss')
    op.drop_index('ix_referee_call_evening_id', table_name='referee_call')
    op.drop_index('ix_referee_call_event_closed', table_name='referee_call')
    op.drop_table('referee_call')
    op.drop_index('ix_referee_phone_device_id', table_name='referee_phone')
    op.drop_index('ix_referee_phone_referee_id', table_name='referee_phone')
    op.drop_table('referee_phone')
    op.drop_index('uq_event_referee_link_key', table_name='event_referee')
    op.drop_index('ix_event_referee_event_id', table_name='event_referee')
    op.drop_table('event_referee')
