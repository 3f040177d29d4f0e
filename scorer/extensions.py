"""Every Flask extension object, created unbound here and bound to the app in
:func:`scorer.app.register_extensions` (cookiecutter-flask style). Also :data:`ROOT`,
the project's directory, which the app factory and the ``demo`` command both need.

Nothing here imports another module of the app, so any module may import from it
without making a circle.
"""

from __future__ import annotations

from pathlib import Path

from flask_babel import Babel
from flask_migrate import Migrate
from flask_sqlalchemy import SQLAlchemy
from flask_wtf.csrf import CSRFProtect
from sqlalchemy.orm import DeclarativeBase

#: The project's directory (templates/, static/, instance/, migrations/, examples/).
ROOT = Path(__file__).resolve().parent.parent


class Base(DeclarativeBase):
    pass


db = SQLAlchemy(model_class=Base)
migrate = Migrate(directory=str(ROOT / "migrations"))
csrf = CSRFProtect()
babel = Babel()
