"""The database handle: Flask-SQLAlchemy's :data:`db` on the typed declarative
:class:`Base`, and Flask-Migrate's :data:`migrate` (migrations in ``migrations/``), both
created unbound here and bound to the app by :func:`scorer.web.app.register_extensions`.
"""

from __future__ import annotations

from flask_migrate import Migrate
from flask_sqlalchemy import SQLAlchemy
from sqlalchemy.orm import DeclarativeBase

from .paths import resource_dir


class Base(DeclarativeBase):
    pass


db = SQLAlchemy(model_class=Base)
migrate = Migrate(directory=str(resource_dir("migrations")))
