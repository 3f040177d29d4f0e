"""when a hand was played on the phone that sent it

Revision ID: 0020_played_on_phone
Revises: 0019_notes
Create Date: 2026-12-06 21:30:00

Issue 24 ("Also"). ``hand_version.played_at`` is when the phone says the hand was played
(the time its outbox kept with the command, sent as the JSON command's optional ``played_at``,
in the past 7 days and not ahead of the server's clock); empty when not said. The history and
the hand's page show it beside when the hand reached the server (``created_at``) when they
differ by more than a minute: a hand that waited offline.
"""
import sqlalchemy as sa
from alembic import op

revision = '0020_played_on_phone'
down_revision = '0019_notes'
branch_labels = None
depends_on = None


def upgrade():
    op.add_column('hand_version', sa.Column('played_at', sa.DateTime(timezone=True), nullable=True))


def downgrade():
    # plain DROP COLUMN (SQLite 3.35+, PostgreSQL), as 0011 does
    op.drop_column('hand_version', 'played_at')
