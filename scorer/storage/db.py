"""The database handle: Flask-SQLAlchemy's :data:`db` on the typed declarative
:class:`Base`, and Flask-Migrate's :data:`migrate` (migrations in ``migrations/``), both
created unbound here and bound to the app by :func:`scorer.web.app.register_extensions`.
"""

from __future__ import annotations

import secrets
from datetime import UTC, datetime

from flask_migrate import Migrate
from flask_sqlalchemy import SQLAlchemy
from sqlalchemy.orm import DeclarativeBase

from .paths import resource_dir


class Base(DeclarativeBase):
    pass


db = SQLAlchemy(model_class=Base)
migrate = Migrate(directory=str(resource_dir("migrations")))


def utcnow() -> datetime:
    return datetime.now(UTC)


def new_pin() -> str:
    """A table's edit PIN: six random digits."""
    return f"{secrets.randbelow(10**6):06d}"


def new_key() -> str:
    """An unguessable evening key: 128 random bits, URL-safe (22 characters)."""
    return secrets.token_urlsafe(16)
