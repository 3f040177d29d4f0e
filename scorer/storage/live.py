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

log = logging.getLogger("scorer")

#: Seconds an entry is trusted when no listener tells this process about changes (SQLite).
POLL_TTL = 0.5
#: Seconds an entry is trusted while the listener is connected (a notification forgets it sooner).
LISTEN_TTL = 60.0
#: The PostgreSQL channel every change is announced on (payload: the table's key).
CHANNEL = "nap_revision"
#: At most this many tables are remembered (the memory is emptied beyond it).
MAX_ENTRIES = 20000

_POLL_PATH = re.compile(r"/e/([A-Za-z0-9_-]{1,32})/revision")
_SAFE_ID = re.compile(r"[A-Za-z0-9._-]{1,64}")


class Revisions:
    """Each table's revision as this process last read it: ``{key: (revision, expires)}``.

    Thread-safe enough for waitress's threads: a dict's single get/set/pop are atomic,
    and a read that raced a change is never stored (see :meth:`fill`)."""

    def __init__(self, dsn: str | None = None) -> None:
        #: a libpq URL to ``LISTEN`` on (PostgreSQL), or ``None`` (SQLite: the TTL only)
        self.dsn = dsn
        self._known: dict[str, tuple[int, float]] = {}
        self._changes = 0  # notifications and local changes seen: a read across one is not kept
        self._listening = False
        self._pid = os.getpid()
        self._thread: threading.Thread | None = None
        self._stop = threading.Event()
        self._lock = threading.Lock()

    # ------------------------------------------------------------------ the memory
    def cached(self, key: str) -> int | None:
        """The revision of ``key`` if this process knows it now, else ``None`` (no I/O)."""
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
            ttl = LISTEN_TTL if self._listening else POLL_TTL
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

    # ------------------------------------------------------------------ the listener
    def _ensure_listener(self) -> None:
        if self.dsn is None:
            return
        if self._pid != os.getpid():  # a forked child: the parent's thread and memory are not ours
            self._pid, self._thread, self._listening = os.getpid(), None, False
            self._known = {}
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
        with psycopg.connect(self.dsn, autocommit=True, connect_timeout=5) as conn:
            conn.execute(f"LISTEN {CHANNEL}")
            self.forget_all()  # what was kept before the LISTEN may have missed a change
            self._listening = True
            while not self._stop.is_set():
                for note in conn.notifies(timeout=1.0):
                    self.forget(note.payload)


def notify_sql(dialect: str) -> str | None:
    """The statement that announces a change (parameter ``key``) in the pending
    transaction, or ``None`` where nobody listens (SQLite)."""
    if dialect == "postgresql":
        return f"SELECT pg_notify('{CHANNEL}', :key)"
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
