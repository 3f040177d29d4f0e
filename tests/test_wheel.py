"""The wheel is all an install needs: built with ``python -m build``, installed outside
the repository into a fresh virtual environment, ``nap serve`` answers pages, serves
static files and creates the tables from the migrations the wheel carries
(``scorer/_bundled/``, see setup.py).

The fresh environment gets the project's dependencies from ``.venv`` by a ``.pth``
line (nothing is downloaded for them); only the build itself may need setuptools from
the package index. When the wheel cannot be built offline the test is skipped and says
why. Marked ``slow`` (about 10–30 s)."""

from __future__ import annotations

import http.client
import os
import shutil
import sqlite3
import subprocess
import sys
import sysconfig
import zipfile
from pathlib import Path

import pytest
from conftest import ROOT

from webhelpers import free_port, listening, stop, wait_until

pytestmark = pytest.mark.slow

SOURCES = ("pyproject.toml", "setup.py", "MANIFEST.in", "README.md", "scorer", "templates", "static", "migrations")


def _run(*args: str, cwd: Path, timeout: int = 180, env: dict[str, str] | None = None) -> subprocess.CompletedProcess:
    return subprocess.run(args, cwd=cwd, capture_output=True, text=True, timeout=timeout, env=env, check=False)


def _build(tmp: Path) -> Path:
    """Build the wheel from a copy of the sources (the checkout gets no build/ files)."""
    src = tmp / "src"
    src.mkdir()
    for name in SOURCES:
        if (ROOT / name).is_dir():
            shutil.copytree(ROOT / name, src / name, ignore=shutil.ignore_patterns("__pycache__", "*.pyc", "_bundled"))
        else:
            shutil.copy2(ROOT / name, src / name)
    dist = tmp / "dist"
    tried = []
    for extra in ((), ("--no-isolation",)):
        done = _run(sys.executable, "-m", "build", "--wheel", *extra, "--outdir", str(dist), ".", cwd=src)
        wheels = sorted(dist.glob("nap_scorer-*.whl"))
        if done.returncode == 0 and wheels:
            return wheels[0]
        tried.append(f"build {' '.join(extra) or '(isolated)'}: {(done.stdout + done.stderr).strip()[-600:]}")
    pytest.skip("the wheel could not be built here (offline?): " + " | ".join(tried))


def test_the_wheel_carries_everything_and_nap_serve_runs_from_it(tmp_path: Path) -> None:
    wheel = _build(tmp_path)
    names = set(zipfile.ZipFile(wheel).namelist())
    for needed in ("scorer/_bundled/templates/share.html", "scorer/_bundled/static/app.css",
                   "scorer/_bundled/migrations/env.py", "scorer/_bundled/migrations/alembic.ini",
                   "scorer/_bundled/migrations/versions/0001_initial.py",
                   "scorer/translations/ru/LC_MESSAGES/messages.mo", "scorer/schema/evening.schema.json"):
        assert needed in names, f"the wheel lacks {needed}"
    assert not any("__pycache__" in n for n in names)
    # the phone's engine (Pyodide, 13 MB, and the bundle) is made by scripts/setup, never shipped
    assert "scorer/_bundled/static/vendor/pyodide/LICENSE" in names
    assert not [n for n in names if n.startswith("scorer/_bundled/static/vendor/pyodide/") and
                not n.endswith(("/LICENSE", "/ORIGIN.md"))]

    # a fresh environment with the wheel; its dependencies come from .venv's site-packages
    venv = tmp_path / "venv"
    assert _run(sys.executable, "-m", "venv", "--without-pip", str(venv), cwd=tmp_path).returncode == 0
    python = venv / "bin" / "python"
    site = Path(_run(str(python), "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])",
                     cwd=tmp_path).stdout.strip())
    (site / "nap-deps.pth").write_text(sysconfig.get_paths()["purelib"] + "\n")
    done = _run(sys.executable, "-m", "pip", "--python", str(python), "install", "-q", "--no-deps", "--no-index",
                str(wheel), cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    work = tmp_path / "work"
    work.mkdir()
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "DATABASE_URL", "NAP_INSTANCE",
                                                                 "VIRTUAL_ENV", "PUBLIC_URL", "NAP_PROXY_HOPS")}
    env["DATABASE_URL"] = f"sqlite:///{work / 'x.sqlite3'}"
    where = _run(str(python), "-c", "import scorer, scorer.storage.paths as e; print(scorer.__file__); "
                 "print(e.resource_dir('templates'))", cwd=work, env=env)
    module, templates = where.stdout.split()
    assert module.startswith(str(site)) and templates.startswith(str(site)), where.stdout + where.stderr

    port = free_port()
    server = subprocess.Popen([str(venv / "bin" / "nap"), "serve", "--host", "127.0.0.1", "--port", str(port)],
                              cwd=work, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    try:
        # a hang guard only, far beyond any load (it starts in about a second): a server that
        # stops is reported at once by poll(); one that never listens fails after 10 minutes
        def serving() -> bool:
            if server.poll() is not None:
                pytest.fail(f"nap serve stopped: {server.stdout.read() if server.stdout else ''}")
            return listening(port)

        wait_until(serving, "nap serve never listened", pause=0.2)
        for path, kind in (("/", "text/html"), ("/static/app.css", "text/css")):
            conn = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
            conn.request("GET", path)
            response = conn.getresponse()
            body = response.read()
            conn.close()
            content_type = response.getheader("Content-Type", "")
            assert response.status == 200 and content_type.startswith(kind), (path, body[:200])
    finally:
        stop(server)
    with sqlite3.connect(work / "x.sqlite3") as db:
        tables = {row[0] for row in db.execute("select name from sqlite_master where type='table'")}
    assert {"evening", "hand", "alembic_version"} <= tables
    assert (work / "instance" / "secret_key").exists()  # the instance folder is the working directory's
    assert not (site / "instance").exists()
