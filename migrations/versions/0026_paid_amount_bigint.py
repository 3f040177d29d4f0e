"""a payment marked paid may be past 2^31 minor units

Revision ID: 0026_paid_amount_bigint
Revises: 0025_event_tokens
Create Date: 2026-12-07 00:25:00

A stake may be 1,000,000,000 minor units (``scorer.rules.currency.MAX_STAKE_MINOR``, a 32-bit
column), but a settle-up payment is the stake times the units won (a Three made at a table of
five: 3,000,000,000), past a 32-bit integer: PostgreSQL refused to mark it paid.
``paid_transfer.amount`` becomes a 64-bit integer (SQLite's integers are 64-bit already).
"""
import sqlalchemy as sa
from alembic import op

revision = '0026_paid_amount_bigint'
down_revision = '0025_event_tokens'
branch_labels = None
depends_on = None


def upgrade():
    if op.get_bind().dialect.name == 'postgresql':
        op.alter_column('paid_transfer', 'amount', type_=sa.BigInteger(), existing_type=sa.Integer(),
                        existing_nullable=False)


def downgrade():
    if op.get_bind().dialect.name == 'postgresql':
        op.alter_column('paid_transfer', 'amount', type_=sa.Integer(), existing_type=sa.BigInteger(),
                        existing_nullable=False)
