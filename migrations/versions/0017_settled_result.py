"""each evening's settled result, kept where every process finds it

Revision ID: 0017_settled_result
Revises: 0016_pin_budget
Create Date: 2026-12-04 21:50:00

A group's season added up every evening's ledger, and each app process kept its own
ledgers: the first view of a season in a process that had not settled its evenings
settled them all (issue 23 item 4). ``settled_result`` keeps, per evening, what the
season reads of it (players, totals, winners, hands) with the revision it was settled
at: a cache checked against the evening's revision, replaced when stale. Dropping it
loses nothing but time.
"""
import sqlalchemy as sa
from alembic import op

revision = '0017_settled_result'
down_revision = '0016_pin_budget'
branch_labels = None
depends_on = None


def upgrade():
    op.create_table(
        'settled_result',
        sa.Column('evening_id', sa.Integer(), autoincrement=False, nullable=False),
        sa.Column('revision', sa.Integer(), nullable=False),
        sa.Column('hands', sa.Integer(), nullable=False),
        sa.Column('players', sa.JSON(), nullable=False),
        sa.Column('totals', sa.JSON(), nullable=False),
        sa.Column('winners', sa.JSON(), nullable=False),
        sa.ForeignKeyConstraint(['evening_id'], ['evening.id']),
        sa.PrimaryKeyConstraint('evening_id'),
    )


def downgrade():
    op.drop_table('settled_result')
