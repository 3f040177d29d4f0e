"""groups of evenings (the season) and merged spellings of players' names

Revision ID: 0007_groups
Revises: 0006_record_of_play
Create Date: 2026-11-29 14:30:00

The evening table gains a nullable ``group_id``. On SQLite the column is added with
a plain ``ALTER TABLE … ADD COLUMN … REFERENCES`` (and dropped with ``DROP COLUMN``,
SQLite ≥ 3.35) instead of Alembic's copy-and-rename batch mode: other tables refer to
``evening``, and with foreign keys on, dropping the old copy would fail once it has rows.
"""
import sqlalchemy as sa
from alembic import op

revision = '0007_groups'
down_revision = '0006_record_of_play'
branch_labels = None
depends_on = None


def upgrade():
    op.create_table(
        'evening_group',
        sa.Column('id', sa.Integer(), nullable=False),
        sa.Column('key', sa.String(length=32), nullable=False),
        sa.Column('name', sa.String(length=80), nullable=False),
        sa.Column('created_at', sa.DateTime(timezone=True), nullable=False),
        sa.PrimaryKeyConstraint('id'),
        sa.UniqueConstraint('key', name='uq_evening_group_key'),
    )
    op.create_table(
        'group_alias',
        sa.Column('id', sa.Integer(), nullable=False),
        sa.Column('group_id', sa.Integer(), nullable=False),
        sa.Column('alias', sa.String(length=120), nullable=False),
        sa.Column('canonical', sa.String(length=120), nullable=False),
        sa.Column('created_at', sa.DateTime(timezone=True), nullable=False),
        sa.ForeignKeyConstraint(['group_id'], ['evening_group.id'], name='fk_group_alias_group_id'),
        sa.PrimaryKeyConstraint('id'),
        sa.UniqueConstraint('group_id', 'alias', name='uq_group_alias_group_id_alias'),
    )
    op.create_index('ix_group_alias_group_id', 'group_alias', ['group_id'])
    if op.get_bind().dialect.name == 'sqlite':
        # Alembic would add the constraint separately, which SQLite cannot do
        op.execute('ALTER TABLE evening ADD COLUMN group_id INTEGER REFERENCES evening_group (id)')
    else:
        op.add_column('evening', sa.Column('group_id', sa.Integer(), nullable=True))
        op.create_foreign_key('fk_evening_group_id', 'evening', 'evening_group', ['group_id'], ['id'])
    op.create_index('ix_evening_group_id', 'evening', ['group_id'])


def downgrade():
    op.drop_index('ix_evening_group_id', table_name='evening')
    if op.get_bind().dialect.name == 'sqlite':
        try:  # the column as this migration added it (an inline REFERENCES)
            op.execute('ALTER TABLE evening DROP COLUMN group_id')
        except sa.exc.OperationalError:
            # a later batch migration rebuilt the table and made the reference a table
            # constraint, which DROP COLUMN refuses: copy and rename instead
            with op.batch_alter_table('evening', schema=None) as batch_op:
                batch_op.drop_column('group_id')
    else:
        op.drop_constraint('fk_evening_group_id', 'evening', type_='foreignkey')
        op.drop_column('evening', 'group_id')
    op.drop_index('ix_group_alias_group_id', table_name='group_alias')
    op.drop_table('group_alias')
    op.drop_table('evening_group')
