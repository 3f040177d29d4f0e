"""the evening's note, and the rematch an evening started

Revision ID: 0019_notes
Revises: 0017_settled_result
Create Date: 2026-12-06 20:15:00

Issue 25 items 7 and 8. ``evening.note`` is the table's line of free text about the
evening (at most 280 characters; a hand's note is one of its facts, kept in the hand's
``facts`` JSON, so it needs no column). ``evening.rematch_of`` is the finished evening a
rematch was started from: unique, so an evening has at most one rematch (two phones
tapping "Rematch" at once make one evening).
"""
import sqlalchemy as sa
from alembic import op

revision = '0019_notes'
down_revision = '0018_currency_minor_unit'
branch_labels = None
depends_on = None


def upgrade():
    # plain ADD COLUMN on evening: other tables refer to it, so no batch rebuild
    op.add_column('evening', sa.Column('note', sa.String(length=280), server_default='', nullable=False))
    op.add_column('evening', sa.Column('rematch_of', sa.Integer(), nullable=True))
    op.create_index('uq_evening_rematch_of', 'evening', ['rematch_of'], unique=True)


def downgrade():
    op.drop_index('uq_evening_rematch_of', table_name='evening')
    # plain DROP COLUMN (SQLite 3.35+, PostgreSQL), as 0011 does
    op.drop_column('evening', 'rematch_of')
    op.drop_column('evening', 'note')
