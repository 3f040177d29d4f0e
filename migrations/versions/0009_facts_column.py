"""a hand version's facts in one JSON column, in the evening file's shape

Revision ID: 0009_facts_column
Revises: 0008_sharing
Create Date: 2026-11-30 17:00:00

The eleven fact columns of ``hand_version`` (dealer, misdeal, auction, tricks, trump,
purchase, widow, peeks, claims, override, record) become one ``facts`` column holding
the hand as ``scorer.evening.codec.encode_hand`` writes it with seats as indices. The
conversion is written out here rather than imported, so that this migration keeps
doing what it did when the codec changes later. Down moves the data back.
"""
import json

import sqlalchemy as sa
from alembic import op

revision = '0009_facts_column'
down_revision = '0008_sharing'
branch_labels = None
depends_on = None

_CLAIM_DETAILS = ("trick", "suit_led", "card", "evidence", "cards_held")
_OLD = ('dealer', 'misdeal', 'auction', 'tricks', 'trump', 'purchase', 'widow', 'peeks', 'claims', 'override',
        'record')


def _json(value):
    """A JSON column as read through a plain table (a str on some drivers)."""
    return json.loads(value) if isinstance(value, str) else value


def to_facts(row) -> dict:
    """The old columns of one row → the ``facts`` dict (scorer.evening.codec's shape, seats as indices)."""
    facts = {"dealer": row.dealer}
    if row.misdeal:
        facts["misdeal"] = True
    else:
        facts["auction"] = list(_json(row.auction) or [])
        if row.tricks is not None:
            facts["tricks"] = row.tricks
        if row.trump is not None:
            facts["trump"] = row.trump
        if row.purchase:
            facts["purchase"] = True
        if row.widow:
            facts["widow"] = True
        if _json(row.peeks):
            facts["peeks"] = list(_json(row.peeks))
        claims = []
        for old in _json(row.claims) or []:
            claim = {"kind": old["kind"], "accused": old["accused"], "upheld": old["upheld"]}
            if old.get("by") is not None:
                claim["by"] = old["by"]
            claim.update({k: old[k] for k in _CLAIM_DETAILS if old.get(k) is not None})
            if old.get("before_speaking"):
                claim["before_speaking"] = True
            claims.append(claim)
        if claims:
            facts["claims"] = claims
        if _json(row.record):
            facts["record"] = [list(trick) for trick in _json(row.record)]
    override = _json(row.override)
    if override:
        facts["override"] = {"entries": {str(s): u for s, u in enumerate(override["units"])},
                             "pool": override.get("pool", 0), "reason": override["reason"]}
    return facts


def from_facts(facts: dict) -> dict:
    """The ``facts`` dict → the old columns' values."""
    override = facts.get("override")
    claims = []
    for claim in facts.get("claims", []):
        old = {"kind": claim["kind"], "accused": claim["accused"], "upheld": claim["upheld"],
               "by": claim.get("by"), "before_speaking": bool(claim.get("before_speaking", False))}
        old.update({k: claim.get(k) for k in _CLAIM_DETAILS})
        claims.append(old)
    return {
        "dealer": facts["dealer"], "misdeal": bool(facts.get("misdeal", False)),
        "auction": list(facts.get("auction", [])), "tricks": facts.get("tricks"), "trump": facts.get("trump"),
        "purchase": bool(facts.get("purchase", False)), "widow": bool(facts.get("widow", False)),
        "peeks": list(facts.get("peeks", [])), "claims": claims,
        "override": None if override is None else {
            "units": [override["entries"][k] for k in sorted(override["entries"], key=int)],
            "pool": override.get("pool", 0), "reason": override["reason"]},
        "record": [list(t) for t in facts.get("record", [])],
    }


def _old_columns() -> list:
    return [
        sa.Column('dealer', sa.Integer(), nullable=True),
        sa.Column('misdeal', sa.Boolean(), nullable=False, server_default=sa.false()),
        sa.Column('auction', sa.JSON(), nullable=True),
        sa.Column('tricks', sa.Integer(), nullable=True),
        sa.Column('trump', sa.String(length=1), nullable=True),
        sa.Column('purchase', sa.Boolean(), server_default=sa.false(), nullable=False),
        sa.Column('widow', sa.Boolean(), server_default=sa.false(), nullable=False),
        sa.Column('peeks', sa.JSON(), server_default='[]', nullable=False),
        sa.Column('claims', sa.JSON(), server_default='[]', nullable=False),
        sa.Column('override', sa.JSON(), nullable=True),
        sa.Column('record', sa.JSON(), server_default='[]', nullable=False),
    ]


def upgrade():
    # hand_version is referred to by no other table: a batch rebuild on SQLite is safe
    with op.batch_alter_table('hand_version') as batch_op:
        batch_op.add_column(sa.Column('facts', sa.JSON(), nullable=True))
    conn = op.get_bind()
    old = sa.table('hand_version', sa.column('id', sa.Integer), sa.column('facts', sa.JSON),
                   *(sa.column(name, sa.JSON if name in ('auction', 'peeks', 'claims', 'override', 'record')
                               else None) for name in _OLD))
    for row in conn.execute(sa.select(old)).all():
        conn.execute(sa.update(old).where(old.c.id == row.id).values(facts=to_facts(row)))
    with op.batch_alter_table('hand_version') as batch_op:
        batch_op.alter_column('facts', existing_type=sa.JSON(), nullable=False)
        for name in _OLD:
            batch_op.drop_column(name)


def downgrade():
    with op.batch_alter_table('hand_version') as batch_op:
        for column in _old_columns():
            batch_op.add_column(column)
    conn = op.get_bind()
    table = sa.table('hand_version', sa.column('id', sa.Integer), sa.column('facts', sa.JSON),
                     *(sa.column(name, sa.JSON if name in ('auction', 'peeks', 'claims', 'override', 'record')
                                 else None) for name in _OLD))
    for row in conn.execute(sa.select(table.c.id, table.c.facts)).all():
        conn.execute(sa.update(table).where(table.c.id == row.id).values(**from_facts(_json(row.facts))))
    with op.batch_alter_table('hand_version') as batch_op:
        batch_op.alter_column('dealer', existing_type=sa.Integer(), nullable=False)
        batch_op.alter_column('auction', existing_type=sa.JSON(), nullable=False)
        batch_op.drop_column('facts')
