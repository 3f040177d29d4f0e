"""The live poll's revisions, kept in each app process's memory.

Every watching phone asks ``GET /e/<key>/revision`` every 1.5 s (``static/live.js``):
three quarters of all requests on a club night. This module makes that poll cost
almost nothing:

- :class:`Revisions` keeps each table's revision in memory. A change made in this
  process forgets the table's entry once its unit of work commits
  (:func:`scorer.storage.units.writing`).
- On PostgreSQL each change also sends ``NOTIFY nap_revision, '<key>'`` inside its own
  transaction (delivered only if it commits), and a thread of each process ``LISTEN``\\ s
  and forgets that table: a change made through another process (another box) is seen
  by the next poll here. While the listener is connected an entry is kept for
  :data:`LISTEN_TTL` seconds (a safety net); otherwise (SQLite, or the listener lost its
  connection and is reconnecting) for :data:`POLL_TTL` seconds, so a change made in
  another process is seen within that time.
- A listening connection can die without a word (half-open: a NAT or firewall dropped it,
  the server's box vanished): no notification comes, nothing fails, and the process
  answered old revisions for up to :data:`LISTEN_TTL` (issue 21, item 7). So the listener
  sends itself a ``NOTIFY`` every :data:`HEARTBEAT` seconds on a channel of its own, and
  the memory is trusted only while the last echo came back at most :data:`TRUST` seconds
  ago; otherwise every kept revision is unknown and each poll reads the database. With no
  echo for :data:`RECONNECT_AFTER` seconds it reconnects (TCP keepalives and a TCP user
  timeout on the connection too), and a new connection starts with an empty memory.
  If the very first echo never comes, LISTEN/NOTIFY does not work through this
  connection (a pooler in transaction mode): said once in the log, in words.
- :class:`PollShortcut` answers a poll whose revision is in memory before Flask's
  request machinery (session, device, permission check, logging): a few microseconds.
  Anything else (a revision not in memory, an unknown table, another method) goes on
  to the Flask route, which reads the database once and fills the memory.

The answer is the same either way: ``200 {"revision": N}`` with ``Cache-Control:
no-store`` (no ETag: waitress closes the connection after a bodiless 304).
"""

from __future__ import annotations

import logging
import os
import re
import secrets
import threading
import time
from collections.abc import Callable, Iterable
from typing import Any

import sqlalchemy as sa

log = logging.getLogger("scorer")

#: Seconds an entry is trusted when no listener tells this process about changes (SQLite).
POLL_TTL = 0.5
#: Seconds an entry is trusted while the listener is connected (a notification forgets it sooner).
LISTEN_TTL = 60.0
#: The PostgreSQL channel every change is announced on (payload: the table's key).
CHANNEL = "nap_revision"
#: At most this many tables are remembered (the memory is emptied beyond it).
MAX_ENTRIES = 20000
#: Seconds between the listener's heartbeats (a NOTIFY to itself); ``NAP_LISTEN_HEARTBEAT=0``
#: turns them off (the memory is then trusted while the connection seems up, as before item 7).
HEARTBEAT = 1.5
#: The memory is trusted while the listener's last heartbeat came back at most this long ago.
TRUST = 6.0
#: With no heartbeat back for this long the listener drops its connection and reconnects.
RECONNECT_AFTER = 12.0
#: libpq settings of the listening connection: TCP keepalives, and unacknowledged data
#: abandons the connection after 15 s (``tcp_user_timeout``, milliseconds).
KEEPALIVES: dict[str, Any] = {"keepalives": 1, "keepalives_idle": 10, "keepalives_interval": 5,
                              "keepalives_count": 3, "tcp_user_timeout": 15000}
#: What the log says once when the first heartbeat never came back.
NO_NOTIFY = ("live updates: LISTEN/NOTIFY is not working on this database connection: a "
             "notification this process sent itself did not come back within %.1f s. The likely "
             "cause is a connection pooler in transaction mode (PgBouncer pool_mode = transaction) "
             "between the app and PostgreSQL; LISTEN needs a session of its own, so set "
             "NAP_LISTEN_URL to PostgreSQL itself (or to a session-mode pool) for the listening "
             "connection. "
             "Until it works, every live poll reads the database: changes are still seen, at the "
             "cost of a query per poll.")

_POLL_PATH = re.compile(r"/e/([A-Za-z0-9_-]{1,32})/revision")
_SAFE_ID = re.compile(r"[A-Za-z0-9._-]{1,64}")


class Revisions:
    """Each table's revision as this process last read it: ``{key: (revision, expires)}``.

    Thread-safe enough for waitress's threads: a dict's single get/set/pop are atomic,
    and a read that raced a change is never stored (see :meth:`fill`)."""

    def __init__(self, dsn: str | None = None, *, heartbeat: float | None = HEARTBEAT, trust: float = TRUST,
                 reconnect_after: float = RECONNECT_AFTER) -> None:
        #: a libpq URL to ``LISTEN`` on (PostgreSQL), or ``None`` (SQLite: the TTL only)
        self.dsn = dsn
        #: seconds between heartbeats, ``None`` or 0: none (the memory trusts a quiet connection)
        self.heartbeat = heartbeat or None
        self.trust = trust
        self.reconnect_after = reconnect_after
        #: connections the listener has made (each one starts with an empty memory)
        self.connects = 0
        self._last_echo = float("-inf")
        self._said_no_notify = False
        self._beat_channel = f"nap_beat_{secrets.token_hex(8)}"
        self._known: dict[str, tuple[int, float]] = {}
        self._changes = 0  # notifications and local changes seen: a read across one is not kept
        self._listening = False
        self._pid = os.getpid()
        self._thread: threading.Thread | None = None
        self._stop = threading.Event()
        self._lock = threading.Lock()

    # ------------------------------------------------------------------ the memory
    def cached(self, key: str) -> int | None:
        """The revision of ``key`` if this process knows it now, else ``None`` (no I/O).
        Always ``None`` while a listener with heartbeats has not heard one for :attr:`trust`
        seconds (down, reconnecting, or its connection half-open)."""
        if self.dsn is not None and self.heartbeat and not self.trusted:
            return None
        entry = self._known.get(key)
        if entry is None or entry[1] <= time.monotonic():
            return None
        return entry[0]

    def fill(self, key: str, read: Callable[[], int | None]) -> int | None:
        """The revision of ``key``: from memory, else ``read()`` (one query) kept for the
        TTL, unless a change was announced while it was read (then it answers this poll
        only). ``None``: no such table (not kept)."""
        self._ensure_listener()
        value = self.cached(key)
        if value is not None:
            return value
        before = self._changes
        value = read()
        if value is not None and self._changes == before:
            if len(self._known) >= MAX_ENTRIES:
                self._known.clear()
            ttl = LISTEN_TTL if self.trusted else POLL_TTL
            self._known[key] = (value, time.monotonic() + ttl)
        return value

    def forget(self, key: str) -> None:
        """``key`` changed (committed in this process, or announced by another one)."""
        self._changes += 1
        self._known.pop(key, None)

    def forget_all(self) -> None:
        self._changes += 1
        self._known.clear()

    @property
    def listening(self) -> bool:
        """Whether this process is told about every change (PostgreSQL ``LISTEN`` is up)."""
        return self._listening

    @property
    def trusted(self) -> bool:
        """Whether the listener is known to hear notifications now: connected, and (with
        heartbeats) its last heartbeat came back at most :attr:`trust` seconds ago."""
        if not self._listening:
            return False
        return not self.heartbeat or time.monotonic() - self._last_echo <= self.trust

    # ------------------------------------------------------------------ the listener
    def _ensure_listener(self) -> None:
        if self.dsn is None:
            return
        if self._pid != os.getpid():  # a forked child: the parent's thread and memory are not ours
            self._pid, self._thread, self._listening = os.getpid(), None, False
            self._known, self._last_echo = {}, float("-inf")
            self._beat_channel = f"nap_beat_{secrets.token_hex(8)}"  # a channel of its own
        if self._thread is not None or self._stop.is_set():
            return
        with self._lock:
            if self._thread is None:
                self._thread = threading.Thread(target=self._listen_loop, name="nap-listen", daemon=True)
                self._thread.start()

    def stop(self) -> None:
        """Stop listening (tests, shutdown); the memory then keeps entries for the TTL only."""
        self._stop.set()
        thread = self._thread
        if thread is not None and thread is not threading.current_thread():
            thread.join(timeout=5)

    def _listen_loop(self) -> None:
        delay = 0.5
        while not self._stop.is_set():
            try:
                self._listen_once()
                delay = 0.5
            except Exception as error:  # noqa: BLE001 - a lost connection: fall back to the TTL, retry
                log.warning("live updates: listener lost (%s); retrying in %.1f s", type(error).__name__, delay)
            self._listening = False
            self.forget_all()  # anything may have changed while nobody listened
            self._stop.wait(delay)
            delay = min(delay * 2, 10.0)

    def _listen_once(self) -> None:
        import psycopg

        assert self.dsn is not None
        with psycopg.connect(self.dsn, autocommit=True, connect_timeout=5, **KEEPALIVES) as conn:
            self.connects += 1
            conn.execute(f"LISTEN {CHANNEL}")
            if self.heartbeat:
                conn.execute(f"LISTEN {self._beat_channel}")
            self.forget_all()  # what was kept before the LISTEN may have missed a change
            self._listening = True
            if self.heartbeat:
                self._beat(conn.pgconn)
                return
            while not self._stop.is_set():
                for note in conn.notifies(timeout=1.0):
                    self.forget(note.payload)

    def _beat(self, pg: Any) -> None:
        """Listen on libpq's connection ``pg`` without ever blocking on it (a half-open
        connection would hold a blocking call for minutes): send a heartbeat every
        :attr:`heartbeat` seconds, forget the tables announced, note each echo, and raise
        ``TimeoutError`` when none came back for :attr:`reconnect_after` seconds."""
        import select

        from psycopg import OperationalError, pq

        assert self.heartbeat is not None
        pg.nonblocking = 1
        beat = f"SELECT pg_notify('{self._beat_channel}', '')".encode()
        started = heard = time.monotonic()
        next_beat, pending = started, False
        poller = select.poll()
        while not self._stop.is_set():
            now = time.monotonic()
            if now >= next_beat and not pending:
                pg.send_query(beat)
                pending, next_beat = True, now + self.heartbeat
            unsent = pg.flush() == 1
            # poll(), not select(): a process holding 1000 phones' sockets has descriptors past 1024
            poller.register(pg.socket, select.POLLIN | (select.POLLOUT if unsent else 0))
            if poller.poll(max(0.0, min(next_beat - now, 1.0)) * 1000):
                pg.consume_input()
            while pending and not pg.is_busy():
                result = pg.get_result()
                if result is None:
                    pending = False
                elif result.status == pq.ExecStatus.FATAL_ERROR:
                    raise OperationalError(result.error_message.decode(errors="replace").strip())
            while (note := pg.notifies()) is not None:
                if note.relname.decode() == self._beat_channel:
                    heard = self._last_echo = time.monotonic()
                else:
                    self.forget(note.extra.decode())
            now = time.monotonic()
            if heard == started and now - started > self.trust and not self._said_no_notify:
                self._said_no_notify = True
                log.error(NO_NOTIFY, self.trust)
            if now - heard > self.reconnect_after:
                raise TimeoutError(f"no heartbeat back for {now - heard:.1f} s")


def notify_call(dialect: str, key: str) -> Any:
    """What announces a change of the table ``key`` in the pending transaction, as a column
    a statement returns (``pg_notify``: the bump's ``UPDATE … RETURNING``, one statement
    instead of two), or ``None`` where nobody listens (SQLite)."""
    if dialect == "postgresql":
        return sa.func.pg_notify(CHANNEL, sa.literal(key, sa.String))
    return None


def listen_dsn(url: Any) -> str | None:
    """The libpq URL for ``LISTEN`` from the app's SQLAlchemy URL; ``None`` unless PostgreSQL."""
    if url.get_backend_name() != "postgresql":
        return None
    return str(url.set(drivername="postgresql").render_as_string(hide_password=False))


class PollShortcut:
    """WSGI middleware: answers ``GET /e/<key>/revision`` from :class:`Revisions` when the
    revision is in memory, with the headers the Flask route sends (``headers``), and hands
    every other request (and a poll whose revision is not in memory) to ``app``."""

    def __init__(self, app: Any, revisions: Revisions, headers: Iterable[tuple[str, str]]) -> None:
        self.app = app
        self.revisions = revisions
        self.headers = list(headers)

    def __call__(self, environ: dict[str, Any], start_response: Any) -> Iterable[bytes]:
        if environ.get("REQUEST_METHOD") == "GET":
            match = _POLL_PATH.fullmatch(environ.get("PATH_INFO", ""))
            if match is not None:
                value = self.revisions.cached(match[1])
                if value is not None:
                    body = b'{"revision":%d}\n' % value
                    incoming = environ.get("HTTP_X_REQUEST_ID", "")
                    request_id = incoming if _SAFE_ID.fullmatch(incoming) else secrets.token_hex(16)
                    start_response("200 OK", [("Content-Type", "application/json"),
                                              ("Content-Length", str(len(body))), *self.headers,
                                              ("X-Request-Id", request_id)])
                    return [body]
        return self.app(environ, start_response)
