"""a club night's creating JSON command keeps its one-time token

Revision ID: 0025_event_tokens
Revises: 0024_sheet_digests
Create Date: 2026-12-07 00:20:00

Issue 22 (polish): ``POST /api/g/<group>/events`` takes a client token as the other creating
commands do (a new evening, a group). ``submission.event_id``: the event the token made, so a
retry answers that event (200) and makes no second one.
"""
import sqlalchemy as sa
from alembic import op

revision = '0025_event_tokens'
down_revision = '0024_sheet_digests'
branch_labels = None
depends_on = None


def upgrade():
    # nothing refers to submission: SQLite rebuilds it (batch), as 0012 does
    with op.batch_alter_table('submission') as batch_op:
        batch_op.add_column(sa.Column('event_id', sa.Integer(), nullable=True))
        batch_op.create_foreign_key('fk_submission_event_id', 'event', ['event_id'], ['id'])


def downgrade():
    op.execute("DELETE FROM submission WHERE event_id IS NOT NULL")  # an event's token: no evening keeps it
    with op.batch_alter_table('submission') as batch_op:
        batch_op.drop_constraint('fk_submission_event_id', type_='foreignkey')
        batch_op.drop_column('event_id')
