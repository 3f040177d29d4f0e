"""What the scoresheet showed at a revision, kept where every app process finds it (issue 23
item 1): the digests of its parts and of each row of hands
(:func:`scorer.web.sheet_changes.digests_of`), by table, language and role, for the table's
last few revisions. A phone asks ``GET /e/<key>/changes?since=N`` from whichever process the
proxy sends it to; the process that never rendered revision N reads its digests here and
answers what changed instead of the whole page.

A cache, never the truth: a row is written once per revision and variant by the first process
that renders the page (``INSERT … ON CONFLICT DO NOTHING``), the table's older revisions are
deleted, and a failure to write or read only costs the phone a page instead of a change.
"""

from __future__ import annotations

import logging
from typing import Any

import sqlalchemy as sa
from sqlalchemy.exc import SQLAlchemyError

from . import units
from .models import WRITING, SheetDigest, db

log = logging.getLogger(__name__)

#: How many revisions of a table (per language and role) are kept: phones a few hands behind.
DEPTH = 8


def _insert(row: dict[str, Any]) -> Any:
    dialect = db.session.get_bind().dialect.name
    if dialect == "postgresql":
        from sqlalchemy.dialects.postgresql import insert
    else:
        from sqlalchemy.dialects.sqlite import insert
    return insert(SheetDigest).values(row).on_conflict_do_nothing(
        index_elements=[SheetDigest.evening_key, SheetDigest.variant, SheetDigest.revision])


def _forget(key: str, variant: str, revision: int) -> Any:
    return sa.delete(SheetDigest).where(SheetDigest.evening_key == key, SheetDigest.variant == variant,
                                        SheetDigest.revision <= revision - DEPTH)


def keep(key: str, variant: str, revision: int, digests: dict[str, Any]) -> None:
    """Keep ``digests`` of the scoresheet of ``key`` at ``revision`` for ``variant`` (e.g.
    ``"en/viewer/"``) in a unit of work of its own, and forget the table's revisions of that
    variant older than the last :data:`DEPTH`. A failure is logged and changes nothing.

    On PostgreSQL, when the request has nothing of its own pending, both in one statement
    (the forgetting a ``WITH`` of the keeping), committed with the request's transaction
    (which only read: each statement sees what is committed, as a new transaction's would),
    not a unit of work of its own: two round trips instead of five, on the first view of
    each revision."""
    row = {"evening_key": key, "variant": variant, "revision": revision, "digests": digests}
    session = db.session
    try:
        if (session.get_bind().dialect.name == "postgresql" and not WRITING.get()
                and not (session.new or session.dirty or session.deleted)):
            try:
                session.execute(_insert(row).add_cte(_forget(key, variant, revision).cte("forgotten")))
                session.commit()
            except BaseException:
                session.rollback()
                raise
            return
        with units.writing():
            session.execute(_insert(row))
            session.execute(_forget(key, variant, revision))
    except SQLAlchemyError:
        log.warning("could not keep the scoresheet's digests of revision %d", revision, exc_info=True)


def recall(key: str, variant: str, revision: int) -> dict[str, Any] | None:
    """The digests kept for the scoresheet of ``key`` at ``revision`` for ``variant``, or ``None``."""
    try:
        found = db.session.execute(sa.select(SheetDigest.digests).where(
            SheetDigest.evening_key == key, SheetDigest.variant == variant,
            SheetDigest.revision == revision)).scalar_one_or_none()
    except SQLAlchemyError:
        log.warning("could not read the scoresheet's digests of revision %d", revision, exc_info=True)
        db.session.rollback()
        return None
    return found if isinstance(found, dict) else None
