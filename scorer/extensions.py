"""Every Flask extension object, created unbound here and bound to the app in
:func:`scorer.app.register_extensions` (cookiecutter-flask style). Also :data:`ROOT`,
the project's directory, which the app factory and the ``demo`` command both need, and
where the app's templates, static files and migrations are (:func:`resource_dir`).

Nothing here imports another module of the app, so any module may import from it
without making a circle.
"""

from __future__ import annotations

import os
from pathlib import Path

from flask_babel import Babel
from flask_migrate import Migrate
from flask_sqlalchemy import SQLAlchemy
from flask_wtf.csrf import CSRFProtect
from sqlalchemy.orm import DeclarativeBase

#: The project's directory (templates/, static/, instance/, migrations/, examples/).
ROOT = Path(__file__).resolve().parent.parent

#: Where an installed wheel carries templates/, static/ and migrations/ (copied into the
#: package by ``setup.py``'s ``build_py``); absent in the repository and in an editable install.
BUNDLED = Path(__file__).resolve().parent / "_bundled"


def resource_dir(name: str) -> Path:
    """``templates``, ``static`` or ``migrations``: inside the installed package if the
    wheel carries it, else at the repository's top level (a checkout, ``pip install -e``)."""
    bundled = BUNDLED / name
    return bundled if bundled.is_dir() else ROOT / name


def instance_dir() -> Path:
    """The instance folder (the SQLite database, the secret key): ``NAP_INSTANCE`` if set;
    ``instance/`` in the repository; ``instance/`` in the working directory when the app
    runs from an installed wheel (never inside site-packages)."""
    if os.environ.get("NAP_INSTANCE"):
        return Path(os.environ["NAP_INSTANCE"]).resolve()
    return (Path.cwd() if BUNDLED.is_dir() else ROOT) / "instance"


class Base(DeclarativeBase):
    pass


db = SQLAlchemy(model_class=Base)
migrate = Migrate(directory=str(resource_dir("migrations")))
csrf = CSRFProtect()
babel = Babel()
