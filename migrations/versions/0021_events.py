"""club nights: an event of many tables in a group

Revision ID: 0021_events
Revises: 0020_played_on_phone
Create Date: 2026-12-06 23:10:00

Issue 22 item 1. An ``event`` (a club night) belongs to a group and fixes the rule set,
options and stake of all its tables, its number of rounds, each round's length and how
later rounds are seated. ``event_player`` holds its players (with the round a late
arrival came in and the round a leaver left in), ``event_round`` each round's seating
(how it was made, the seed of a draw), ``event_table`` each table of a round: an ordinary
evening, unique (an evening belongs to at most one event). ``event_change`` is the event's
history, ``event_access`` the phones with a role there (its owner, organisers).
Standings are never stored: they are worked out from the tables' ledgers.
"""
import sqlalchemy as sa
from alembic import op

revision = '0021_events'
down_revision = '0020_played_on_phone'
branch_labels = None
depends_on = None


def upgrade():
    op.create_table(
        'event',
        sa.Column('id', sa.Integer(), nullable=False),
        sa.Column('key', sa.String(length=32), nullable=False),
        sa.Column('group_id', sa.Integer(), nullable=False),
        sa.Column('name', sa.String(length=80), nullable=False),
        sa.Column('time_zone', sa.String(length=64), server_default='', nullable=False),
        sa.Column('variant', sa.String(length=20), nullable=False),
        sa.Column('options', sa.JSON(), nullable=False),
        sa.Column('stake_minor', sa.Integer(), nullable=True),
        sa.Column('currency', sa.String(length=8), nullable=False),
        sa.Column('rounds', sa.Integer(), nullable=False),
        sa.Column('length', sa.String(length=10), nullable=False),
        sa.Column('amount', sa.Integer(), nullable=True),
        sa.Column('style', sa.String(length=10), server_default='together', nullable=False),
        sa.Column('edit_key', sa.String(length=32), nullable=False),
        sa.Column('pin', sa.String(length=8), nullable=False),
        sa.Column('access_generation', sa.Integer(), server_default='0', nullable=False),
        sa.Column('revision', sa.Integer(), server_default='0', nullable=False),
        sa.Column('created_at', sa.DateTime(timezone=True), nullable=False),
        sa.Column('finished_at', sa.DateTime(timezone=True), nullable=True),
        sa.ForeignKeyConstraint(['group_id'], ['evening_group.id']),
        sa.PrimaryKeyConstraint('id'),
        sa.UniqueConstraint('key'),
    )
    op.create_index('ix_event_group_id', 'event', ['group_id'])
    op.create_index('uq_event_edit_key', 'event', ['edit_key'], unique=True)
    op.create_table(
        'event_player',
        sa.Column('id', sa.Integer(), nullable=False),
        sa.Column('event_id', sa.Integer(), nullable=False),
        sa.Column('name', sa.String(length=40), nullable=False),
        sa.Column('arrived', sa.Integer(), server_default='0', nullable=False),
        sa.Column('left', sa.Integer(), nullable=True),
        sa.ForeignKeyConstraint(['event_id'], ['event.id']),
        sa.PrimaryKeyConstraint('id'),
    )
    op.create_index('ix_event_player_event_id', 'event_player', ['event_id'])
    op.create_table(
        'event_round',
        sa.Column('id', sa.Integer(), nullable=False),
        sa.Column('event_id', sa.Integer(), nullable=False),
        sa.Column('number', sa.Integer(), nullable=False),
        sa.Column('how', sa.String(length=10), nullable=False),
        sa.Column('seed', sa.String(length=40), nullable=True),
        sa.Column('seating', sa.JSON(), nullable=False),
        sa.Column('created_at', sa.DateTime(timezone=True), nullable=False),
        sa.Column('started_at', sa.DateTime(timezone=True), nullable=True),
        sa.Column('finished_at', sa.DateTime(timezone=True), nullable=True),
        sa.ForeignKeyConstraint(['event_id'], ['event.id']),
        sa.PrimaryKeyConstraint('id'),
        sa.UniqueConstraint('event_id', 'number'),
    )
    op.create_index('ix_event_round_event_id', 'event_round', ['event_id'])
    op.create_table(
        'event_table',
        sa.Column('id', sa.Integer(), nullable=False),
        sa.Column('event_id', sa.Integer(), nullable=False),
        sa.Column('round_id', sa.Integer(), nullable=False),
        sa.Column('number', sa.Integer(), nullable=False),
        sa.Column('evening_id', sa.Integer(), nullable=False),
        sa.ForeignKeyConstraint(['event_id'], ['event.id']),
        sa.ForeignKeyConstraint(['round_id'], ['event_round.id']),
        sa.ForeignKeyConstraint(['evening_id'], ['evening.id']),
        sa.PrimaryKeyConstraint('id'),
        sa.UniqueConstraint('round_id', 'number'),
        sa.UniqueConstraint('evening_id'),
    )
    op.create_index('ix_event_table_event_id', 'event_table', ['event_id'])
    op.create_index('ix_event_table_round_id', 'event_table', ['round_id'])
    op.create_table(
        'event_change',
        sa.Column('id', sa.Integer(), nullable=False),
        sa.Column('event_id', sa.Integer(), nullable=False),
        sa.Column('at', sa.DateTime(timezone=True), nullable=False),
        sa.Column('kind', sa.String(length=20), nullable=False),
        sa.Column('round', sa.Integer(), nullable=True),
        sa.Column('data', sa.JSON(), nullable=False),
        sa.Column('device', sa.String(length=40), server_default='', nullable=False),
        sa.ForeignKeyConstraint(['event_id'], ['event.id']),
        sa.PrimaryKeyConstraint('id'),
    )
    op.create_index('ix_event_change_event_id', 'event_change', ['event_id'])
    op.create_table(
        'event_access',
        sa.Column('id', sa.Integer(), nullable=False),
        sa.Column('event_id', sa.Integer(), nullable=False),
        sa.Column('device_id', sa.Integer(), nullable=False),
        sa.Column('role', sa.String(length=10), nullable=False),
        sa.Column('via', sa.String(length=10), server_default='', nullable=False),
        sa.Column('generation', sa.Integer(), server_default='0', nullable=False),
        sa.Column('granted_at', sa.DateTime(timezone=True), nullable=False),
        sa.Column('revoked_at', sa.DateTime(timezone=True), nullable=True),
        sa.ForeignKeyConstraint(['event_id'], ['event.id']),
        sa.ForeignKeyConstraint(['device_id'], ['device.id']),
        sa.PrimaryKeyConstraint('id'),
        sa.UniqueConstraint('event_id', 'device_id', 'role'),
    )
    op.create_index('ix_event_access_event_id', 'event_access', ['event_id'])
    op.create_index('ix_event_access_device_id', 'event_access', ['device_id'])


def downgrade():
    for table in ('event_access', 'event_change', 'event_table', 'event_round', 'event_player'):
        op.drop_table(table)
    op.drop_index('uq_event_edit_key', table_name='event')
    op.drop_index('ix_event_group_id', table_name='event')
    op.drop_table('event')
