"""The database away: 503 with Retry-After, never a 500 with a traceback; logged once per
outage; the first request after it is back is served. SQLite under a burst: a write waits
for another's lock within a bound (short here, by configuration), then 503."""

from __future__ import annotations

import logging
import secrets
import sqlite3
from collections.abc import Iterator
from typing import Any

import pytest
from conftest import _dispose, _pg_connect, make_app

from scorer import create_app
from webhelpers import post_hand, start_evening


@pytest.fixture
def scorer_log() -> Iterator[list[str]]:
    """The messages of the ``scorer`` logger (it does not propagate to pytest's handler)."""
    messages: list[str] = []

    class Keep(logging.Handler):
        def emit(self, record: logging.LogRecord) -> None:
            messages.append(record.getMessage())

    handler = Keep(logging.DEBUG)
    logger = logging.getLogger("scorer")
    logger.addHandler(handler)
    yield messages
    logger.removeHandler(handler)


def _unavailable(response: Any) -> None:
    assert response.status_code == 503, response.get_data(as_text=True)[:500]
    assert response.headers["Retry-After"].isdigit()
    assert "Traceback" not in response.get_data(as_text=True)


def test_an_unreachable_postgresql_answers_503_and_is_logged_once(scorer_log: list[str]) -> None:
    """Port 1 on loopback: nothing listens, the shared server is left alone."""
    app = create_app({"TESTING": True, "SECRET_KEY": "x", "NAP_LIVE_LISTEN": False, "WTF_CSRF_ENABLED": False,
                      "SQLALCHEMY_DATABASE_URI": "postgresql+psycopg://postgres@127.0.0.1:1/test"})
    try:
        client = app.test_client()
        page = client.get("/e/abcdefghijklmnopqrstuv")
        _unavailable(page)
        assert page.mimetype == "text/html" and "nothing was lost" in page.get_data(as_text=True)
        api = client.get("/api/e/abcdefghijklmnopqrstuv")
        _unavailable(api)
        assert api.get_json()["error"]["code"] == "unavailable"
        _unavailable(client.post("/new/pagat", data={"players-0": "Ann", "players-1": "Bob", "players-2": "Cat",
                                                     "first_dealer": "0", "scoring": "points"}))
        assert sum("database unavailable" in m for m in scorer_log) == 1, scorer_log
        assert not any(m.startswith("server error") for m in scorer_log), scorer_log
    finally:
        _dispose(app)


def test_postgresql_connections_killed_under_the_app_are_replaced_without_an_error(postgres_url: str) -> None:
    """A restart of the server (here: its backends terminated) left the pool's connections
    dead: the next requests answered 500 until each had failed once."""
    name = f"nap_outage_{secrets.token_hex(4)}"
    app = make_app(f"{postgres_url}&application_name={name}", NAP_LIVE_LISTEN=False)
    try:
        client = app.test_client()
        key = start_evening(client)
        assert client.get(f"/e/{key}").status_code == 200  # a connection is in the pool
        with _pg_connect() as conn:
            killed = conn.execute("SELECT count(pg_terminate_backend(pid)) FROM pg_stat_activity "
                                  "WHERE application_name = %s", (name,)).fetchone()
        assert killed is not None and killed[0] >= 1
        assert client.get(f"/e/{key}").status_code == 200
        assert client.get(f"/api/e/{key}").status_code == 200
    finally:
        _dispose(app)


def test_a_locked_sqlite_waits_its_bound_then_answers_503_and_recovers(sqlite_url: str,
                                                                       scorer_log: list[str]) -> None:
    """A burst of writes on SQLite: one holds the write lock longer than the bound; the others
    answered 500 'database is locked'. Now they wait at most SQLITE_BUSY_TIMEOUT, then 503."""
    app = make_app(sqlite_url, SQLITE_BUSY_TIMEOUT=0.2)
    try:
        client = app.test_client()
        key = start_evening(client)
        from scorer.storage.models import db

        with app.app_context():  # the bound the app's connections wait for a lock, in ms
            assert db.session.connection().exec_driver_sql("PRAGMA busy_timeout").scalar() == 200
            db.session.remove()
        holder = sqlite3.connect(sqlite_url.removeprefix("sqlite:///"), isolation_level=None)
        try:
            holder.execute("BEGIN EXCLUSIVE")
            _unavailable(post_hand(client, key, 1, 0, {1: "three"}, 3))
            api = client.post(f"/api/e/{key}/hands", json={"number": 1, "token": "t-1", "facts": {
                "dealer": "Ann", "auction": ["three", "pass", "pass", "pass"], "tricks": 3}})
            _unavailable(api)
            assert api.get_json()["error"]["code"] == "unavailable"
        finally:
            holder.rollback()
            holder.close()
        assert sum("database unavailable" in m for m in scorer_log) == 1, scorer_log
        assert post_hand(client, key, 1, 0, {1: "three"}, 3).status_code == 302
        assert sum("database reachable again" in m for m in scorer_log) == 1, scorer_log
        assert "Bob" in client.get(f"/e/{key}").get_data(as_text=True)
    finally:
        _dispose(app)
