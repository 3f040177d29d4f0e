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


_TABLE = SheetDigest.__table__

#: Forget the table's revisions of one variant older than the last :data:`DEPTH`. The statements
#: of :func:`keep` are built once (each first view of a revision runs them: building them and
#: their cache keys cost more than running them), with these parameters and the row's columns.
_FORGET = sa.delete(_TABLE).where(_TABLE.c.evening_key == sa.bindparam("forget_key"),
                                  _TABLE.c.variant == sa.bindparam("forget_variant"),
                                  _TABLE.c.revision <= sa.bindparam("forget_below"))
#: ``INSERT … ON CONFLICT DO NOTHING`` of one row by dialect, and on PostgreSQL the same with
#: the forgetting as its ``WITH`` (:func:`_statements`).
_STATEMENTS: dict[str, tuple[Any, Any]] = {}


def _statements(dialect: str) -> tuple[Any, Any]:
    """The keeping alone, and on PostgreSQL the keeping with the forgetting (else ``None``)."""
    made = _STATEMENTS.get(dialect)
    if made is None:
        if dialect == "postgresql":
            from sqlalchemy.dialects.postgresql import insert
        else:
            from sqlalchemy.dialects.sqlite import insert
        keeping = insert(_TABLE).on_conflict_do_nothing(
            index_elements=[_TABLE.c.evening_key, _TABLE.c.variant, _TABLE.c.revision])
        made = _STATEMENTS[dialect] = (keeping, keeping.add_cte(_FORGET.cte("forgotten"))
                                       if dialect == "postgresql" else None)
    return made


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
    forget = {"forget_key": key, "forget_variant": variant, "forget_below": revision - DEPTH}
    session = db.session
    try:
        keeping, with_forgetting = _statements(session.get_bind().dialect.name)
        if (with_forgetting is not None and not WRITING.get()
                and not (session.new or session.dirty or session.deleted)):
            try:
                session.execute(with_forgetting, {**row, **forget})
                session.commit()
            except BaseException:
                session.rollback()
                raise
            return
        with units.writing():
            session.execute(keeping, row)
            session.execute(_FORGET, forget)
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
