"""The database's schema at start: :func:`upgrade_to_head`, what ``nap serve`` runs first.

Two boxes (or two ``nap serve`` processes) starting at once on one database raced their
migrations: both saw the old version, both ran the same ``CREATE TABLE``, and one of
them died (issue 21, item 11). Now:

- the usual start, a schema already at head, only reads Alembic's version table (one
  query, no lock);
- otherwise the upgrade runs through ``migrations/env.py``, which holds a session-level
  PostgreSQL advisory lock (``pg_advisory_lock``, keyed by the schema) for the whole
  upgrade, or on SQLite runs it in one ``BEGIN IMMEDIATE`` transaction. Alembic reads the
  version inside the lock, so the second process waits for the first and then finds
  nothing to do. ``flask db upgrade`` by hand goes the same way.
"""

from __future__ import annotations

from .db import db


def schema_heads() -> tuple[set[str], set[str]]:
    """``(current, head)``: the revisions the database is at (Alembic's version table;
    empty for an empty database) and the newest ones in ``migrations/``. Needs an app
    context; one query, no lock."""
    from alembic.runtime.migration import MigrationContext
    from alembic.script import ScriptDirectory
    from flask import current_app

    config = current_app.extensions["migrate"].migrate.get_config()
    heads = set(ScriptDirectory.from_config(config).get_heads())
    with db.engine.connect() as connection:
        current = set(MigrationContext.configure(connection).get_current_heads())
    return current, heads


def upgrade_to_head() -> bool:
    """Bring the database of the current app context up to the newest migration, safely
    when other processes do the same at the same time (see the module's text). Returns
    whether anything was to be done (``False``: already at head, nothing locked).
    A failed migration exits the process (status 1) with Alembic's message, as
    ``flask db upgrade`` does."""
    from flask_migrate import upgrade

    current, heads = schema_heads()
    if current == heads:
        return False
    upgrade()
    return True
