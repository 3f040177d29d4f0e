"""players join, leave and are renamed between hands (issue 12)

Revision ID: 0013_seat_changes
Revises: 0012_evening_zone
Create Date: 2026-11-30 20:00:00

One row per change of seats, recorded before a hand; undoing it keeps the row (``undone_at``).
"""
import sqlalchemy as sa
from alembic import op

revision = '0013_seat_changes'
down_revision = '0012_evening_zone'
branch_labels = None
depends_on = None


def upgrade():
    op.create_table(
        'seat_change',
        sa.Column('id', sa.Integer(), nullable=False),
        sa.Column('evening_id', sa.Integer(), nullable=False),
        sa.Column('before_hand', sa.Integer(), nullable=False),
        sa.Column('kind', sa.String(length=10), nullable=False),
        sa.Column('seat', sa.Integer(), nullable=False),
        sa.Column('left_of', sa.Integer(), nullable=True),
        sa.Column('name', sa.String(length=40), server_default='', nullable=False),
        sa.Column('created_at', sa.DateTime(timezone=True), nullable=False),
        sa.Column('undone_at', sa.DateTime(timezone=True), nullable=True),
        sa.ForeignKeyConstraint(['evening_id'], ['evening.id']),
        sa.PrimaryKeyConstraint('id'),
    )
    op.create_index('ix_seat_change_evening_id', 'seat_change', ['evening_id'])


def downgrade():
    # Before this migration a table's players were fixed: a player who joined, left or was
    # renamed would break every page of its evening (issue 21, item 11). Refuse in words.
    seat_change = sa.table('seat_change', sa.column('evening_id'), sa.column('undone_at'))
    evenings = op.get_bind().execute(
        sa.select(sa.func.count(sa.distinct(seat_change.c.evening_id))).where(seat_change.c.undone_at.is_(None))
    ).scalar()
    if evenings:
        raise RuntimeError(
            f"Cannot downgrade below 0013_seat_changes: {evenings} evening(s) have players who joined, "
            "left or were renamed between hands, which the older version cannot show (each of those "
            "evenings would fail to open). Nothing was changed. Export those evenings first (Export on "
            "each scoresheet, an evening file that keeps the seat changes), delete them, then downgrade; "
            "or stay on this version."
        )
    op.drop_index('ix_seat_change_evening_id', table_name='seat_change')
    op.drop_table('seat_change')
