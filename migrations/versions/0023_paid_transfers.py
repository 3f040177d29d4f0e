"""settle-up payments marked paid, and a player's own phone at a table

Revision ID: 0023_paid_transfers
Revises: 0022_referees
Create Date: 2026-12-06 23:10:00

Issue 22 item 7 ("Money after the night"). ``paid_transfer``: a payment of a finished money
evening's settle-up marked paid (payer, payee — ``-1`` for the pool —, amount in the
currency's smallest unit), by which phone and when; unmarking sets ``undone_at`` and keeps
the row. The partial unique index keeps at most one mark in force per payment, so two phones
marking at once record it once. ``table_access.party_seat`` / ``party_generation``: the
player whose phone this is at the table (opened the player's own link), valid while the
generation is the table's ``access_generation``.
"""
import sqlalchemy as sa
from alembic import op

revision = '0023_paid_transfers'
down_revision = '0022_referees'
branch_labels = None
depends_on = None


def upgrade():
    op.create_table(
        'paid_transfer',
        sa.Column('id', sa.Integer(), nullable=False),
        sa.Column('evening_id', sa.Integer(), nullable=False),
        sa.Column('payer', sa.Integer(), nullable=False),
        sa.Column('payee', sa.Integer(), nullable=False),
        sa.Column('amount', sa.Integer(), nullable=False),
        sa.Column('currency', sa.String(length=8), nullable=False),
        sa.Column('marked_at', sa.DateTime(timezone=True), nullable=False),
        sa.Column('marked_by', sa.String(length=40), nullable=False),
        sa.Column('undone_at', sa.DateTime(timezone=True), nullable=True),
        sa.Column('undone_by', sa.String(length=40), nullable=False),
        sa.ForeignKeyConstraint(['evening_id'], ['evening.id']),
        sa.PrimaryKeyConstraint('id'),
    )
    op.create_index('ix_paid_transfer_evening_id', 'paid_transfer', ['evening_id'])
    op.create_index('uq_paid_transfer_open', 'paid_transfer', ['evening_id', 'payer', 'payee', 'amount'],
                    unique=True, sqlite_where=sa.text('undone_at IS NULL'),
                    postgresql_where=sa.text('undone_at IS NULL'))
    op.add_column('table_access', sa.Column('party_seat', sa.Integer(), nullable=True))
    op.add_column('table_access', sa.Column('party_generation', sa.Integer(), nullable=True))


def downgrade():
    op.drop_column('table_access', 'party_generation')
    op.drop_column('table_access', 'party_seat')
    op.drop_index('uq_paid_transfer_open', table_name='paid_transfer')
    op.drop_index('ix_paid_transfer_evening_id', table_name='paid_transfer')
    op.drop_table('paid_transfer')
