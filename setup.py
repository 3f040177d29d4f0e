"""Only one thing beyond pyproject.toml: the wheel carries the app's templates/, static/
and migrations/ inside the package (``scorer/_bundled/``), where
:func:`scorer.storage.paths.resource_dir` finds them. The repository keeps them at its top
level; an editable install (``pip install -e``) reads them from there."""

from __future__ import annotations

import shutil
from pathlib import Path

from setuptools import setup
from setuptools.command.build_py import build_py

HERE = Path(__file__).resolve().parent
BUNDLED = ("templates", "static", "migrations")


def _ignored(folder: str, names: list[str]) -> set[str]:
    """``__pycache__`` and ``*.pyc`` anywhere; in ``static/vendor/pyodide`` all but the licence and
    the note of origin (Pyodide's 13 MB and the engine bundle are made by scripts/setup)."""
    skipped = set(shutil.ignore_patterns("__pycache__", "*.pyc")(folder, names))
    if Path(folder).as_posix().endswith("static/vendor/pyodide"):
        skipped |= {n for n in names if n not in ("LICENSE", "ORIGIN.md")}
    return skipped


class BuildPyWithResources(build_py):
    def run(self) -> None:
        super().run()
        if getattr(self, "editable_mode", False):
            return  # the checkout's own directories are used
        target = Path(self.build_lib) / "scorer" / "_bundled"
        for name in BUNDLED:
            source = HERE / name
            if not source.is_dir():
                raise SystemExit(f"setup.py: {source} is missing; build from a checkout or an sdist")
            shutil.rmtree(target / name, ignore_errors=True)
            shutil.copytree(source, target / name, ignore=_ignored)


setup(cmdclass={"build_py": BuildPyWithResources})
