"""the scoresheet's digests by revision, where every process finds them

Revision ID: 0024_sheet_digests
Revises: 0023_paid_transfers
Create Date: 2026-12-06 23:20:00

A phone's live update asks what changed on the scoresheet since the revision it shows
(GET /e/<key>/changes). The answer compares that revision's page with the new one; each app
process kept the pages it had rendered itself, so a phone sent to the other process got the
whole page instead (issue 23 item 1). ``sheet_digest`` keeps, per table, language and role,
the digests of the page's parts and rows for the last few revisions. Dropping it loses
nothing but bytes on the wire.
"""
import sqlalchemy as sa
from alembic import op

revision = '0024_sheet_digests'
down_revision = '0023_paid_transfers'
branch_labels = None
depends_on = None


def upgrade():
    op.create_table(
        'sheet_digest',
        sa.Column('evening_key', sa.String(length=32), nullable=False),
        sa.Column('variant', sa.String(length=200), nullable=False),
        sa.Column("revision", sa.Integer(), autoincrement=False, nullable=False),
        sa.Column('digests', sa.JSON(), nullable=False),
        sa.PrimaryKeyConstraint('evening_key', 'variant', 'revision'),
    )


def downgrade():
    op.drop_table('sheet_digest')
