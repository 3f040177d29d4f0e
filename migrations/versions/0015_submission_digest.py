"""a one-time token remembers what it saved: a digest of the command

Revision ID: 0015_submission_digest
Revises: 0014_disputes
Create Date: 2026-12-01 10:00:00

The same token sent again with other content (hand 2 with hand 1's token) was answered
as a retry of the first command, and what it carried was never saved. A token now keeps
the SHA-256 of its command's content; a reuse with other content is refused. Tokens kept
before this migration have none and are answered as before.
"""
import sqlalchemy as sa
from alembic import op

revision = '0015_submission_digest'
down_revision = '0014_disputes'
branch_labels = None
depends_on = None


def upgrade():
    # plain ADD COLUMN: nullable, no default (old rows keep none)
    op.add_column('submission', sa.Column('digest', sa.String(length=64), nullable=True))


def downgrade():
    # plain DROP COLUMN (SQLite 3.35+, PostgreSQL), as 0011 and 0014 do
    op.drop_column('submission', 'digest')
