"""Fixtures: the app on a fresh database (SQLite, and PostgreSQL for storage tests).

The database is built by the Alembic migrations, not by ``create_all``, so every test
run checks the migrations too. PostgreSQL tests use a schema of their own in the
``test`` database and drop it afterwards. Without a PostgreSQL server they are
skipped (and the run says so at the end) unless ``NAP_REQUIRE_POSTGRES=1``, as in CI.
"""

from __future__ import annotations

import os
import secrets
from collections.abc import Iterator
from pathlib import Path

import pytest

from scorer import create_app

PG_URL = os.environ.get("TEST_POSTGRES_URL", "postgresql://postgres@127.0.0.1:5432/test")
REQUIRE_PG = os.environ.get("NAP_REQUIRE_POSTGRES") == "1"
_pg_problem: list[str] = []

ROOT = Path(__file__).resolve().parent.parent
EXAMPLES = ROOT / "examples"


def _pg_connect():  # type: ignore[no-untyped-def]
    import psycopg

    return psycopg.connect(PG_URL, connect_timeout=3, autocommit=True)


@pytest.fixture(autouse=True)
def no_lan_address(monkeypatch: pytest.MonkeyPatch) -> None:
    """No test depends on this machine's network: its LAN address is "none" (127.0.0.1),
    so links built for other phones stay on loopback (tests/test_lan.py sets its own)."""
    from scorer.web import lan

    monkeypatch.setattr(lan, "lan_address", lambda: "127.0.0.1")


@pytest.fixture(scope="session")
def postgres_available() -> bool:
    try:
        with _pg_connect():
            return True
    except Exception as error:  # noqa: BLE001 - any failure means "not available"
        _pg_problem.append(f"{type(error).__name__}: {str(error).strip().splitlines()[0]}")
        return False


@pytest.fixture
def sqlite_url(tmp_path: Path) -> str:
    return f"sqlite:///{tmp_path / 'test.sqlite3'}"


@pytest.fixture
def postgres_url(postgres_available: bool) -> Iterator[str]:
    if not postgres_available:
        message = f"PostgreSQL not reachable at {PG_URL} ({_pg_problem[0]})"
        if REQUIRE_PG:
            pytest.fail(message + " and NAP_REQUIRE_POSTGRES=1")
        pytest.skip(message)
    schema = f"nap_test_{secrets.token_hex(6)}"
    with _pg_connect() as conn:
        conn.execute(f'CREATE SCHEMA "{schema}"')
    base = PG_URL.replace("postgresql://", "postgresql+psycopg://", 1)
    yield f"{base}?options=-csearch_path%3D{schema}"
    with _pg_connect() as conn:
        conn.execute(f'DROP SCHEMA "{schema}" CASCADE')


def make_app(url: str, **extra):  # type: ignore[no-untyped-def]
    from flask_migrate import upgrade

    config = {
        "TESTING": True,
        "SECRET_KEY": "test-secret",
        "SQLALCHEMY_DATABASE_URI": url,
        "WTF_CSRF_ENABLED": False,
        **extra,
    }
    app = create_app(config)
    with app.app_context():
        upgrade()
    return app


def _dispose(app) -> None:  # type: ignore[no-untyped-def]
    from scorer.storage.models import db

    app.extensions["nap_revisions"].stop()  # the live poll's LISTEN connection (PostgreSQL)
    with app.app_context():
        db.session.remove()
        db.engine.dispose()


@pytest.fixture
def app(sqlite_url: str):  # type: ignore[no-untyped-def]
    app = make_app(sqlite_url)
    yield app
    _dispose(app)


@pytest.fixture(params=["sqlite", "postgresql"])
def any_app(request: pytest.FixtureRequest, sqlite_url: str):  # type: ignore[no-untyped-def]
    """An app on each database without the live poll's LISTEN thread (the live-changes tests)."""
    url = request.getfixturevalue("postgres_url") if request.param == "postgresql" else sqlite_url
    app = make_app(url, NAP_LIVE_LISTEN=False)
    yield app
    _dispose(app)


@pytest.fixture(params=["sqlite", "postgresql"])
def any_db_app(request: pytest.FixtureRequest):  # type: ignore[no-untyped-def]
    url = request.getfixturevalue("sqlite_url" if request.param == "sqlite" else "postgres_url")
    app = make_app(url)
    yield app
    _dispose(app)


@pytest.fixture
def client(app):  # type: ignore[no-untyped-def]
    return app.test_client()


def pytest_terminal_summary(terminalreporter, exitstatus, config) -> None:  # type: ignore[no-untyped-def]
    if _pg_problem:
        terminalreporter.write_line(
            f"NOTE: the PostgreSQL storage tests were SKIPPED: no server at {PG_URL} ({_pg_problem[0]}). "
            "They ran on SQLite only. Set TEST_POSTGRES_URL, or NAP_REQUIRE_POSTGRES=1 to make this an error.",
            yellow=True,
            bold=True,
        )
