"""a stake in its currency's own minor unit (yen for JPY, fils for KWD)

Revision ID: 0018
Revises: 0017_settled_result
Create Date: 2026-12-06 20:30:00

``evening.stake_minor`` was in hundredths of the currency's main unit whatever the
currency: 5 JPY was 500, 0.125 KWD could not be written. It is now in the currency's
own smallest unit (:mod:`scorer.rules.currency`, ISO 4217's minor unit as Babel gives
it): 5 JPY is 5, 0.125 KWD is 125 (issue 25 item 13). A currency with two decimals, or a
label that is no currency code (``"kr"``, ``""``), keeps its figure.

A stake the old version took that the currency has no unit for (half a yen, stored as
50) becomes the nearest whole unit, half up, and at least 1: 0.50 JPY is 1 JPY. Each
such evening is named on the migration's output. Downgrading goes back to hundredths;
a stake of thousandths rounds half up to hundredths there (0.125 KWD: 0.13), as the
older version can hold no finer.
"""
from decimal import ROUND_HALF_UP, Decimal

import sqlalchemy as sa
from alembic import op

from scorer.rules.currency import MAX_STAKE_MINOR, minor_digits

revision = '0018_currency_minor_unit'
down_revision = '0017_settled_result'
branch_labels = None
depends_on = None

OLD_DIGITS = 2  # every stake was kept in hundredths before this revision

evening = sa.table('evening', sa.column('id', sa.Integer), sa.column('key', sa.String),
                   sa.column('stake_minor', sa.Integer), sa.column('currency', sa.String))


def convert(minor: int, from_digits: int, to_digits: int) -> int:
    """``minor`` units of ``10**-from_digits`` as units of ``10**-to_digits``: exact, or
    rounded half up; at least 1 and at most ``MAX_STAKE_MINOR`` (500 hundredths → 5
    yen, 50 → 1, 125 fils → 13 hundredths)."""
    value = (Decimal(minor).scaleb(to_digits - from_digits)).quantize(Decimal(1), rounding=ROUND_HALF_UP)
    return max(1, min(int(value), MAX_STAKE_MINOR))


def _restate(to_new: bool) -> None:
    bind = op.get_bind()
    rows = bind.execute(sa.select(evening.c.id, evening.c.key, evening.c.stake_minor, evening.c.currency)
                        .where(evening.c.stake_minor.is_not(None))).all()
    for row in rows:
        digits = minor_digits(row.currency or "")
        if digits == OLD_DIGITS:
            continue
        source, target = (OLD_DIGITS, digits) if to_new else (digits, OLD_DIGITS)
        minor = convert(row.stake_minor, source, target)
        if Decimal(minor).scaleb(-target) != Decimal(row.stake_minor).scaleb(-source):
            print(f"0018: evening {row.key}: a stake of {Decimal(row.stake_minor).scaleb(-source)} "
                  f"{row.currency} is {Decimal(minor).scaleb(-target)} {row.currency} "
                  f"({'the currency has no smaller unit' if to_new else 'the older version keeps hundredths'})")
        bind.execute(evening.update().where(evening.c.id == row.id).values(stake_minor=minor))


def upgrade():
    _restate(to_new=True)


def downgrade():
    _restate(to_new=False)
