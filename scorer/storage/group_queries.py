"""What the pages of a group (and the start page) read about its evenings: the group's
last evening, the table a new evening of the group starts from, evenings by their keys."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import sqlalchemy as sa
from sqlalchemy.orm import selectinload

from ..evening.file import format_stake
from .evenings import ledger_of
from .models import Evening, Hand, db
from .units import valid_key


def last_in_group(group_id: int) -> Evening | None:
    """The group's last evening (latest date, then latest started), players loaded, or ``None``."""
    return db.session.scalar(
        sa.select(Evening).where(Evening.group_id == group_id)
        .order_by(Evening.played_on.desc(), Evening.id.desc()).limit(1)
        .options(selectinload(Evening.players), selectinload(Evening.seat_changes),
                 selectinload(Evening.hands).selectinload(Hand.versions)))


def usual_table(evening: Evening) -> dict[str, Any]:
    """What a new evening of the same group starts from (issue 12): the players seated at
    the end of ``evening``, clockwise, its rule set, options and stake, as the new-evening
    form's fields (``players``, ``opt_<key>``, ``scoring``, ``stake``, ``currency``); the
    stake as the evening file writes it (``"0.10"``, ``"5"`` for JPY)."""
    ledger = ledger_of(evening)
    names = [ledger.setup.players[s] for s in ledger.seated or range(ledger.setup.n)]
    values: dict[str, Any] = {"players": names, "first_dealer": "0"}
    options = evening.options or {}
    values.update({f"opt_{k}": (v if isinstance(v, bool | int) else str(v)) for k, v in options.items()})
    if evening.stake_minor is not None:
        values.update(scoring="money", stake=format_stake(evening.stake_minor, evening.currency),
                      currency=evening.currency)
    return values


def evenings_by_keys(keys: Sequence[str]) -> list[Evening]:
    """The evenings with these URL keys, in the order of ``keys`` (unknown keys skipped)."""
    wanted = [k for k in keys if valid_key(k)][:100]
    if not wanted:
        return []
    found = {e.key: e for e in db.session.scalars(
        sa.select(Evening).where(Evening.key.in_(wanted)).options(selectinload(Evening.players)))}
    return [found[k] for k in wanted if k in found]
