"""Where the project's files are: :data:`ROOT` (the repository), the resources an
installed wheel carries (:func:`resource_dir`) and the instance folder (:func:`instance_dir`).

Nothing here imports another module of the app.
"""

from __future__ import annotations

import os
from pathlib import Path

#: The project's directory (templates/, static/, instance/, migrations/, examples/).
ROOT = Path(__file__).resolve().parent.parent.parent

#: Where an installed wheel carries templates/, static/ and migrations/ (copied into the
#: package by ``setup.py``'s ``build_py``); absent in the repository and in an editable install.
BUNDLED = Path(__file__).resolve().parent.parent / "_bundled"


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
