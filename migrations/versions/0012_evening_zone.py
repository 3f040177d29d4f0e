"""the table's time zone; one-time tokens for the forms that create

Revision ID: 0012_evening_zone
Revises: 0011_devices
Create Date: 2026-11-30 19:45:00

An evening keeps the time zone of the browser that started it (every date and time of
the evening is shown in it, and its date is the table's date, not UTC's). The forms that
create an evening, import one or start a group carry a one-time token like the hand
forms: a submission row then names the evening made, or the group (``group_id``, with
no evening), so a form posted twice creates once.
"""
import sqlalchemy as sa
from alembic import op

revision = '0012_evening_zone'
down_revision = '0011_devices'
branch_labels = None
depends_on = None


def upgrade():
    # plain ADD COLUMN on evening: other tables refer to it, so no batch rebuild
    op.add_column('evening', sa.Column('time_zone', sa.String(length=64), server_default='', nullable=False))
    # nothing refers to submission: SQLite rebuilds it (batch) to drop NOT NULL
    with op.batch_alter_table('submission') as batch_op:
        batch_op.alter_column('evening_id', existing_type=sa.Integer(), nullable=True)
        batch_op.add_column(sa.Column('group_id', sa.Integer(), nullable=True))
        batch_op.create_foreign_key('fk_submission_group_id', 'evening_group', ['group_id'], ['id'])


def downgrade():
    op.execute("DELETE FROM submission WHERE evening_id IS NULL")  # a group's token: no evening to keep it by
    with op.batch_alter_table('submission') as batch_op:
        batch_op.drop_constraint('fk_submission_group_id', type_='foreignkey')
        batch_op.drop_column('group_id')
        batch_op.alter_column('evening_id', existing_type=sa.Integer(), nullable=False)
    op.drop_column('evening', 'time_zone')  # plain DROP COLUMN (SQLite 3.35+), as 0011 does
