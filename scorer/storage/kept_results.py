"""Each evening's settled result kept in the database, where every process finds it
(issue 23 item 4): the first view of a season in a process that never settled its
evenings reads one row per evening instead of settling them all.

A row of :class:`~scorer.storage.models.SettledResult` holds what the season reads of
an evening (:class:`~scorer.evening.season.EveningResult`: the set-up's players, the
totals in units by seat, the winners' seats, the hands in play) and the revision it was
settled at. It is a cache, never the truth: it is used only while the evening's
revision is still that one (every change to the hands, the players, the options or
finishing bumps the revision, :func:`scorer.storage.units.bump`), read in the same
statement as the revision; otherwise the evening is settled again
(:func:`scorer.storage.kept_ledgers.settled_many`, which resumes this process's kept
ledger when it has one) and the row replaced. A row is only ever replaced by one of a
later revision, so two processes writing at once cannot put an older result back.

Written by the writes that settle an evening (:func:`keep`, inside their unit of work:
the row commits with the change or not at all) and by a season's view for the
evenings it had to settle (:func:`keep_many`, one small write of its own).
"""

from __future__ import annotations

import json
import logging
from collections import namedtuple
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from datetime import date
from typing import Any

import sqlalchemy as sa
from sqlalchemy.exc import SQLAlchemyError

from ..evening.ledger import HandError, Ledger
from ..evening.season import EveningResult
from ..rules import EveningSetup
from . import units
from .kept_ledgers import setup_from
from .models import Evening, SettledResult, db

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class SeasonRow:
    """One evening of a group as its season reads it: the evening's own columns and its
    ``result`` at its current revision (``hands``: those in play), or the ``problem`` (a stored hand the rules
    refuse: then no result)."""

    key: str
    name: str
    played_on: date
    variant: str
    stake_minor: int | None
    hands: int
    result: EveningResult | None
    problem: HandError | None = None


def _upsert(rows: Sequence[dict[str, Any]] | None = None) -> Any:
    """``INSERT … ON CONFLICT (evening_id) DO UPDATE`` of ``rows``, replacing a kept row
    only with one of a later revision (PostgreSQL and SQLite). Without ``rows``: the
    statement whose row is given when it is executed, made once per dialect (each save
    keeps one row: building and compiling the statement anew cost more than running it)."""
    dialect = db.session.get_bind().dialect.name
    if rows is None and dialect in _UPSERTS:
        return _UPSERTS[dialect]
    if dialect == "postgresql":
        from sqlalchemy.dialects.postgresql import insert
    else:
        from sqlalchemy.dialects.sqlite import insert
    statement = insert(SettledResult) if rows is None else insert(SettledResult).values(list(rows))
    statement = statement.on_conflict_do_update(
        index_elements=[SettledResult.evening_id],
        set_={c: statement.excluded[c] for c in ("revision", "hands", "players", "totals", "winners")},
        where=SettledResult.revision < statement.excluded.revision)
    if rows is None:
        _UPSERTS[dialect] = statement
    return statement


#: :func:`_upsert`'s statement of one row, by dialect
_UPSERTS: dict[str, Any] = {}


def _row(evening_id: int, revision: int, result: EveningResult) -> dict[str, Any]:
    return {"evening_id": evening_id, "revision": revision, "hands": result.hands,
            "players": list(result.setup.players), "totals": list(result.totals), "winners": list(result.winners)}


def keep(evening_id: int, revision: int, ledger: Ledger) -> None:
    """Keep ``ledger`` as evening ``evening_id``'s result at ``revision``, in the pending
    unit of work (the write that settled it, holding the evening's row lock)."""
    db.session.connection().execute(_upsert(), _row(evening_id, revision, EveningResult.of(ledger)))


def keep_many(settled: Iterable[tuple[int, int, EveningResult]]) -> None:
    """Keep ``(evening id, revision, result)`` for each evening a view settled, in one
    unit of work of its own (rows in evening order, so two views lock them in the same
    order). A failure only costs time: it is logged, and the next view settles again."""
    rows = [_row(*item) for item in sorted(settled, key=lambda item: item[0])]
    if not rows:
        return
    try:
        with units.writing():
            db.session.execute(_upsert(rows))
    except SQLAlchemyError:
        log.warning("could not keep %d settled results", len(rows), exc_info=True)


#: Every season row made from a row read by :func:`season_rows`, by that row as read (every
#: column it is made from, the JSON as its text): a pure function of the row, so never
#: stale; a season shown before costs a lookup per evening, not four JSON documents and a
#: set-up decoded per evening (issue 23 item 4). Emptied when it holds :data:`ROWS_KEPT`.
_rows: dict[tuple[Any, ...], SeasonRow] = {}
#: The set-ups those rows share (the same players, rules and stake, evening after evening).
_setups: dict[tuple[Any, ...], EveningSetup] = {}
ROWS_KEPT = 20_000


def _as_text(column: Any) -> Any:
    """A JSON column read as its text (decoded by :func:`_decode`, only when needed)."""
    return sa.cast(column, sa.Text)


def _decode(raws: Sequence[Any]) -> list[SeasonRow]:
    """The season rows of rows read by :func:`season_rows` (each with a kept result), their
    JSON decoded in one go."""
    texts = [text or "null" for raw in raws for text in (raw.options, raw.players, raw.totals, raw.winners)]
    values = json.loads("[" + ",".join(texts) + "]")
    out = []
    for i, raw in enumerate(raws):
        options, players, totals, winners = values[4 * i: 4 * i + 4]
        known = (raw.variant, raw.players, raw.first_dealer, raw.options, raw.stake_minor, raw.currency)
        setup = _setups.get(known)
        if setup is None:
            if len(_setups) >= ROWS_KEPT:
                _setups.clear()
            setup = _setups[known] = setup_from(raw.variant, players, raw.first_dealer, options, raw.stake_minor,
                                                raw.currency)
        out.append(SeasonRow(raw.key, raw.name, raw.played_on, raw.variant, raw.stake_minor, raw.hands,
                             EveningResult(setup, tuple(totals), tuple(winners), raw.hands)))
    return out


#: What :func:`season_rows` reads of each evening, in this order.
_Read = namedtuple("_Read", "id key name played_on variant options stake_minor currency first_dealer revision hands "
                            "players totals winners")


def _read(group_id: int) -> list[Any]:
    """The group's evenings in order of play (date, then id), each with its kept result at its
    current revision when there is one (else ``hands`` is ``None``), the JSON columns as their
    text: :func:`_read_document` on PostgreSQL, :func:`_read_rows` elsewhere."""
    if db.session.get_bind().dialect.name == "postgresql":
        return _read_document(group_id)
    return _read_rows(group_id)


#: The group read by :func:`_statement` (bound at execution).
_GROUP = sa.bindparam("group_id")
_ORDER = (Evening.played_on, Evening.id)


def _statement(*columns: Any) -> Any:
    kept = SettledResult
    return sa.select(*columns).select_from(Evening).outerjoin(
        kept, sa.and_(kept.evening_id == Evening.id, kept.revision == Evening.revision)
    ).where(Evening.group_id == _GROUP)


def _columns() -> tuple[Any, ...]:
    kept = SettledResult
    return (Evening.id, Evening.key, Evening.name, Evening.played_on, Evening.variant, _as_text(Evening.options),
            Evening.stake_minor, Evening.currency, Evening.first_dealer, Evening.revision, kept.hands,
            _as_text(kept.players), _as_text(kept.totals), _as_text(kept.winners))


def _read_rows(group_id: int) -> list[Any]:
    """:func:`_read` as rows (SQLite, whose driver reads them in C)."""
    return [_Read(*row) for row in db.session.execute(_statement(*_columns()).order_by(*_ORDER),
                                                      {"group_id": group_id})]


def _read_document(group_id: int) -> list[Any]:
    """:func:`_read` in one JSON document PostgreSQL builds (an array of rows): psycopg's
    pure-Python implementation (which ``nap serve`` asked for until the crash it avoided was
    found to be CPython's: :mod:`scorer.storage.state_guard`) cost ~4 µs a value, 56 ms of a
    new process's first view of a 1,000-evening season for 14,000 values, which
    :func:`json.loads` reads in a few ms (one value for any implementation)."""
    from sqlalchemy.dialects.postgresql import aggregate_order_by

    document = db.session.scalar(_statement(sa.cast(sa.func.json_agg(aggregate_order_by(
        sa.func.json_build_array(*_columns()), *_ORDER)), sa.Text)), {"group_id": group_id})
    out = []
    for values in json.loads(document or "[]"):
        values[3] = date.fromisoformat(values[3])
        out.append(_Read(*values))
    return out


def season_rows(group_id: int) -> list[SeasonRow]:
    """The group's evenings in order of play (date, then id), each with its result at
    its current revision: read with the revisions in one statement where kept, and the
    others settled (:func:`scorer.storage.kept_ledgers.settled_many`) and kept for every
    process (:func:`keep_many`). A kept row this process has read before is not decoded
    again (:data:`_rows`)."""
    from .kept_ledgers import settled_many

    rows = _read(group_id)
    out: dict[str, SeasonRow] = {}
    missed: list[str] = []
    new: list[Any] = []
    for row in rows:
        if row.hands is None:
            missed.append(row.key)
            continue
        known = _rows.get(tuple(row))
        if known is None:
            new.append(row)
        else:
            out[row.key] = known
    if new:
        if len(_rows) + len(new) > ROWS_KEPT:
            _rows.clear()
        for row, made in zip(new, _decode(new), strict=True):
            out[row.key] = _rows[tuple(row)] = made
    if missed:
        found = settled_many(missed)
        fresh: list[tuple[int, int, EveningResult]] = []
        for key, value in found.items():
            head = value.head
            if value.error is not None:
                out[key] = SeasonRow(key, head.name, head.played_on, head.variant, head.stake_minor,
                                    len(value.fingerprint), None, value.error)
                continue
            result = EveningResult.of(value.ledger)
            out[key] = SeasonRow(key, head.name, head.played_on, head.variant, head.stake_minor, result.hands, result)
            if value.revision >= 0:  # read consistently: the revision names these hands
                fresh.append((head.id, value.revision, result))
        keep_many(fresh)
    return [out[row.key] for row in rows if row.key in out]  # one taken out meanwhile is left out
