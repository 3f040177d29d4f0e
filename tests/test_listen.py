"""The live poll's listener when its PostgreSQL connection fails without a word (issue 21,
item 7). A small proxy (tests/pgproxy.py) sits between the listener and the server: it can
go silent without closing (a half-open connection), or drop every notification (a pooler
in transaction mode). Saves are made on a direct connection, as another process would.

No clock is asserted: the heartbeat's times are made small, and each test waits for a
state (with the hang guard of :func:`webhelpers.wait_until`)."""

from __future__ import annotations

import logging
import secrets
from collections.abc import Iterator
from typing import Any

import psycopg
import pytest

from scorer.storage import live
from tests.pgproxy import PgProxy
from webhelpers import wait_until

#: small times, so that a test takes seconds: heartbeat, trust, reconnect after
FAST = {"heartbeat": 0.1, "trust": 0.5, "reconnect_after": 1.0}


class Table:
    """One row standing for a table's revision, read and changed on a direct connection;
    a change announces the key on :data:`live.CHANNEL` in its transaction, as the app does."""

    def __init__(self, url: str) -> None:
        self.key = secrets.token_urlsafe(16)
        self.conn = psycopg.connect(url.replace("+psycopg", ""), autocommit=True)
        self.conn.execute("CREATE TABLE IF NOT EXISTS rev (key TEXT PRIMARY KEY, n INTEGER NOT NULL)")
        self.conn.execute("INSERT INTO rev VALUES (%s, 0)", (self.key,))

    def read(self) -> int:
        row = self.conn.execute("SELECT n FROM rev WHERE key = %s", (self.key,)).fetchone()
        assert row is not None
        return int(row[0])

    def save(self, n: int) -> None:
        with self.conn.transaction():
            self.conn.execute("UPDATE rev SET n = %s WHERE key = %s", (n, self.key))
            self.conn.execute("SELECT pg_notify(%s, %s)", (live.CHANNEL, self.key))


@pytest.fixture
def table(postgres_url: str) -> Iterator[Table]:
    made = Table(postgres_url)
    yield made
    made.conn.close()


@pytest.fixture
def proxy() -> Iterator[PgProxy]:
    made = PgProxy()
    yield made
    made.close()


def test_a_half_open_listener_stops_being_trusted_and_reconnects(postgres_url: str, table: Table, proxy: PgProxy,
                                                                  monkeypatch: Any) -> None:
    """The listener's connection goes silent without closing: a save made meanwhile by
    another connection was answered stale for the whole ``LISTEN_TTL`` (an hour here),
    with nothing in the log. Now no heartbeat comes back, the memory is not trusted, the
    poll reads the database and sees the save; once the way is open again the listener
    reconnects, starts with an empty memory, and notifications work again."""
    monkeypatch.setattr(live, "LISTEN_TTL", 3600.0)  # only a notification (or distrust) makes it re-read
    revisions = live.Revisions(proxy.dsn(postgres_url), **FAST)
    try:
        assert revisions.fill(table.key, table.read) == 0  # starts the listener
        wait_until(lambda: revisions.trusted, "the listener's heartbeat never came back")
        assert revisions.fill(table.key, table.read) == 0 and revisions.cached(table.key) == 0  # kept
        table.save(1)
        wait_until(lambda: revisions.cached(table.key) is None, "the notification never came")
        assert revisions.fill(table.key, table.read) == 1 and revisions.cached(table.key) == 1
        connects = revisions.connects

        proxy.blackhole()
        table.save(2)
        wait_until(lambda: revisions.fill(table.key, table.read) == 2, "the half-open listener's memory stayed stale")
        assert not revisions.trusted and revisions.cached(table.key) is None  # every poll reads the database

        proxy.resume()
        wait_until(lambda: revisions.trusted and revisions.connects > connects, "the listener never reconnected")
        assert revisions.fill(table.key, table.read) == 2 and revisions.cached(table.key) == 2  # kept again
        table.save(3)
        wait_until(lambda: revisions.cached(table.key) is None, "no notification on the new connection")
        assert revisions.fill(table.key, table.read) == 3
    finally:
        revisions.stop()


class Said(logging.Handler):
    def __init__(self) -> None:
        super().__init__(logging.DEBUG)
        self.lines: list[str] = []

    def emit(self, record: logging.LogRecord) -> None:
        self.lines.append(record.getMessage())


def test_a_listener_whose_notifications_never_come_says_so_once(postgres_url: str, table: Table,
                                                                proxy: PgProxy) -> None:
    """Through a pooler in transaction mode ``LISTEN`` succeeds and no notification ever
    arrives: the poll answered old revisions with nothing in the log. The first heartbeat
    that never comes back is said once, in words naming the likely cause, however often the
    listener reconnects; meanwhile every poll reads the database."""
    proxy.swallow_notifications = True
    said = Said()
    logger = logging.getLogger("scorer")
    logger.addHandler(said)
    revisions = live.Revisions(proxy.dsn(postgres_url), **FAST)
    try:
        assert revisions.fill(table.key, table.read) == 0
        wait_until(lambda: revisions.connects >= 3, "the listener never tried again")
        words = [line for line in said.lines if "LISTEN/NOTIFY is not working" in line]
        assert len(words) == 1, said.lines
        assert "PgBouncer pool_mode = transaction" in words[0] and "every live poll reads the database" in words[0]
        assert not revisions.trusted
        table.save(1)
        assert revisions.fill(table.key, table.read) == 1 and revisions.cached(table.key) is None
    finally:
        revisions.stop()
        logger.removeHandler(said)


def test_the_listener_can_bypass_a_pooler_with_its_own_url(postgres_url: str, proxy: PgProxy) -> None:
    """``NAP_LISTEN_URL``: the listening connection goes there (PostgreSQL itself, past a
    pooler in transaction mode), the app's queries to ``DATABASE_URL``."""
    from conftest import _dispose, make_app

    app = make_app(postgres_url, NAP_LISTEN_URL=proxy.dsn(postgres_url))
    revisions = app.extensions["nap_revisions"]
    try:
        assert f"127.0.0.1:{proxy.port}/" in revisions.dsn and app.config["SQLALCHEMY_DATABASE_URI"] == postgres_url
        assert revisions.fill("no-such-table", lambda: None) is None  # starts the listener
        wait_until(lambda: revisions.trusted, "the listener never heard its heartbeat through NAP_LISTEN_URL")
        assert proxy.connections == 1  # the one connection through the proxy is the listener's
    finally:
        _dispose(app)


def test_the_listener_works_past_descriptor_1024(postgres_url: str, table: Table) -> None:
    """A process serving 1000 phones holds sockets past descriptor 1024, where select()
    cannot wait: the listener's connection gets such a descriptor and still hears its
    heartbeat and the notifications."""
    import os
    import resource

    soft, _hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    if soft < 1300:
        pytest.skip(f"at most {soft} open files here")
    held = [os.open(os.devnull, os.O_RDONLY) for _ in range(1100)]
    revisions = live.Revisions(postgres_url.replace("+psycopg", ""), **FAST)
    try:
        assert revisions.fill(table.key, table.read) == 0
        wait_until(lambda: revisions.trusted, "the listener never heard its heartbeat")
        assert revisions.fill(table.key, table.read) == 0 and revisions.cached(table.key) == 0
        table.save(1)
        wait_until(lambda: revisions.cached(table.key) is None, "the notification never came")
    finally:
        revisions.stop()
        for fd in held:
            os.close(fd)
