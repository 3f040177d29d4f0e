"""Live updates pushed: ``GET /e/<key>/events``, server-sent events from one asyncio process
(issue 23, items 2 and 3).

A phone watching a table used to ask ``GET /e/<key>/revision`` every 1.5 s (``static/live.js``):
1.1-1.7 ms of server CPU per table-second for a table of five, and waitress would need a thread
for each open stream. This module holds every watching phone's stream in one process on an
event loop (aiohttp), never a thread per phone:

- A stream answers ``200 text/event-stream``; its first event is the table's revision, then one
  event each time it changes (``id: N`` and ``data: {"revision": N}``) and a comment every
  :data:`KEEPALIVE` seconds (so no proxy or NAT closes a quiet stream). A scorer's phone (and
  any page but a viewer's scoresheet) then asks ``/changes`` or the page itself as before,
  with its own cookies. A viewer's scoresheet opens its stream with ``?shown=<lang>/viewer&
  since=<revision shown>`` (EventSource's ``Last-Event-ID`` says it again on a reconnect): its
  event carries what changed as well (``"since": S, "changes": {…}``, the app's own answer to
  ``/changes``, asked once for every viewer at that revision: :mod:`scorer.web.live_changes`),
  so the viewers of a table cost the app one request a hand, not one each. What a phone sees
  is decided by the app's routes alone.
- Access is the poll's (``@permission("view")`` on :func:`scorer.web.views.table.revision`):
  whoever holds the table's link reads; a key that names no table is ``404``, as the poll says.
- Limits: :data:`PER_ADDRESS` streams per client address (``NAP_LIVE_PER_ADDRESS``; behind the
  proxy, the address it gives in ``X-Forwarded-For``), :data:`TOTAL` in all; over either, ``429``.
- Changes: on PostgreSQL the process ``LISTEN``\\ s on the app's channel
  (:data:`scorer.storage.live.CHANNEL`, payload the table's key), reads the revisions of the
  tables announced (one query for all of them) and, as a net for a lost notification, re-reads
  every watched table every :data:`FULL_READ` seconds. On SQLite (no notifications) one query
  for all watched tables every :data:`SQLITE_READ` seconds.

``nap serve`` starts it beside the waitress workers when behind a proxy (``NAP_PROXY_HOPS``) or
with ``--live-port`` (:mod:`scorer.cli.serve`), restarts it if it dies and stops it with the
rest; ``deploy/nginx.conf`` sends ``/e/<key>/events`` to it, unbuffered. Without it the app
answers that path ``204`` (:func:`scorer.web.views.table.events`), EventSource stops, and the
page polls as before: polling is the fallback, and with JavaScript off a reload shows the score.
"""

from __future__ import annotations

import asyncio
import contextlib
import ipaddress
import logging
import os
import re
from collections.abc import Callable, Iterable
from typing import Any

from aiohttp import web

from . import live_changes

log = logging.getLogger("scorer")

#: Open streams per client address (a club's phones behind one Wi-Fi share one address).
PER_ADDRESS = 100
#: Open streams in all (a thousand tables of five is 5,000).
TOTAL = 20000
#: Seconds between comments on a quiet stream.
KEEPALIVE = 20.0
#: Seconds between reads of every watched table on SQLite.
SQLITE_READ = 0.5
#: Seconds between reads of every watched table on PostgreSQL (the net under LISTEN).
FULL_READ = 5.0
#: At most this many keys in one query.
CHUNK = 500
#: What EventSource waits before it reconnects after a lost stream (milliseconds).
RETRY_MS = 3000

_KEY = re.compile(r"[A-Za-z0-9_-]{1,32}")
_HEADERS = {"Content-Type": "text/event-stream", "Cache-Control": "no-store",
            # nginx: never buffer this answer (deploy/nginx.conf says so for the location too)
            "X-Accel-Buffering": "no", "X-Content-Type-Options": "nosniff"}

#: ``read(keys) -> {key: revision}`` for the keys that name a table (blocking; run in a thread).
Reader = Callable[[list[str]], dict[str, int]]


class Watch:
    """One open stream: the revision it last sent and a wake-up for a new one; for a viewer's
    scoresheet, its ``shown`` (``"en/viewer"``) and the revision its page shows as far as the
    stream knows (``base``: the phone's ``since``, then the revision each pushed change brings
    it to)."""

    __slots__ = ("address", "base", "event", "key", "sent", "shown")

    def __init__(self, key: str, address: str, sent: int, shown: str | None = None, base: int | None = None) -> None:
        self.key, self.address, self.sent = key, address, sent
        self.shown, self.base = shown, base
        self.event = asyncio.Event()


class Hub:
    """Every open stream, by table; the tables' revisions as last read.

    ``reader`` reads revisions (:class:`SqlReader`); ``hops`` the proxies believed about the
    client's address (``NAP_PROXY_HOPS``); ``changes`` asks the app what changed for a
    viewer's page (:class:`scorer.web.live_changes.AppChanges`; ``None``: the revision alone)."""

    def __init__(self, reader: Reader, *, hops: int = 0, per_address: int = PER_ADDRESS, total: int = TOTAL,
                 keepalive: float = KEEPALIVE, changes: live_changes.Fetch | None = None) -> None:
        self.reader = reader
        self.changes = changes
        self.hops = hops
        self.per_address = per_address
        self.total = total
        self.keepalive = keepalive
        self.watches: dict[str, set[Watch]] = {}
        self.revisions: dict[str, int] = {}
        self.by_address: dict[str, int] = {}
        self.open = 0
        #: events sent after the first (a benchmark's and a test's count)
        self.pushed = 0
        #: events that carried what changed
        self.carried = 0
        self._lock = asyncio.Lock()
        self._asked: dict[str, asyncio.Future[int | None]] = {}
        self._asking: asyncio.Task[None] | None = None

    # ------------------------------------------------------------------ reading
    async def read(self, keys: Iterable[str]) -> dict[str, int]:
        """The revisions of ``keys`` (one query per :data:`CHUNK` keys, in a thread)."""
        wanted = sorted(set(keys))
        found: dict[str, int] = {}
        async with self._lock:  # one query at a time: the reader holds one connection
            for start in range(0, len(wanted), CHUNK):
                found.update(await asyncio.to_thread(self.reader, wanted[start:start + CHUNK]))
        return found

    async def lookup(self, key: str) -> int | None:
        """The revision of ``key`` for a stream opening: the one kept while the table is
        watched (kept fresh by the changes), else read with every other table asked for
        meanwhile in one query (a thousand phones arriving at once cost a few queries, not a
        thousand queued one behind another). ``None``: no such table."""
        known = self.revisions.get(key)
        if known is not None:
            return known
        future = self._asked.get(key)
        if future is None:
            future = self._asked[key] = asyncio.get_running_loop().create_future()
            if self._asking is None or self._asking.done():
                self._asking = asyncio.create_task(self._ask())
        return await asyncio.shield(future)

    async def _ask(self) -> None:
        while self._asked:
            asked, self._asked = self._asked, {}
            try:
                found = await self.read(asked)
            except Exception as error:  # noqa: BLE001 - each opening stream gets it (a 500 of aiohttp's)
                for future in asked.values():
                    if not future.done():
                        future.set_exception(error)
                continue
            for key, future in asked.items():
                if not future.done():
                    future.set_result(found.get(key))

    async def refresh(self, keys: Iterable[str] | None = None) -> None:
        """Read the revisions of ``keys`` (every watched table if ``None``) and wake the
        streams of each table whose revision moved."""
        keys = list(self.watches) if keys is None else [k for k in keys if k in self.watches]
        if not keys:
            return
        found = await self.read(keys)
        for key in keys:
            revision = found.get(key)
            if revision is None or self.revisions.get(key) == revision:
                continue
            self.revisions[key] = revision
            for watch in self.watches.get(key, ()):
                watch.event.set()

    # ------------------------------------------------------------------ streams
    def address(self, request: web.Request) -> str:
        """The client's address: the peer's, or behind ``hops`` proxies the one the outermost
        believed proxy put in ``X-Forwarded-For``."""
        peer = request.remote or ""
        if self.hops:
            forwarded = [part.strip() for part in request.headers.get("X-Forwarded-For", "").split(",") if part.strip()]
            if len(forwarded) >= self.hops:
                peer = forwarded[-self.hops]
        with contextlib.suppress(ValueError):
            ip = ipaddress.ip_address(peer)
            if ip.version == 6:  # one phone holds a /64
                return str(ipaddress.ip_network(f"{ip}/64", strict=False))
        return peer

    async def stream(self, request: web.Request) -> web.StreamResponse:
        """``GET /e/<key>/events``: see the module's docstring."""
        key = request.match_info["key"]
        if not _KEY.fullmatch(key):
            raise web.HTTPNotFound()
        address = self.address(request)
        if self.open >= self.total or self.by_address.get(address, 0) >= self.per_address:
            raise web.HTTPTooManyRequests(headers={"Retry-After": "30"})
        self._count(address, 1)  # counted from now: phones arriving together cannot pass the caps
        try:
            try:
                revision = await self.lookup(key)
            except Exception as error:  # noqa: BLE001 - the database away: the page polls (and is told 503)
                log.warning("live stream: reading a revision failed (%s)", type(error).__name__)
                raise web.HTTPServiceUnavailable(headers={"Retry-After": "5"}) from error
            if revision is None:
                raise web.HTTPNotFound()
            shown = live_changes.viewer_shown(request.query.get("shown", "")) if self.changes else None
            return await self._serve(request, Watch(key, address, revision, shown, _since(request) if shown else None))
        finally:
            self._count(address, -1)

    async def _serve(self, request: web.Request, watch: Watch) -> web.StreamResponse:
        self.watches.setdefault(watch.key, set()).add(watch)
        if self.revisions.setdefault(watch.key, watch.sent) != watch.sent:
            watch.event.set()  # a newer one was read while this one was looked up: sent next
        response = web.StreamResponse(status=200, headers=_HEADERS)
        try:
            await response.prepare(request)
            await response.write(b"retry: %d\n%s" % (RETRY_MS, await self._event(watch, watch.sent)))
            await self._follow(watch, response)
        except (ConnectionError, asyncio.CancelledError):
            pass  # the phone went away (or the server stops)
        finally:
            self._unwatch(watch)
        return response

    async def _follow(self, watch: Watch, response: web.StreamResponse) -> None:
        while True:
            try:
                await asyncio.wait_for(watch.event.wait(), self.keepalive)
            except TimeoutError:
                await response.write(b": keep\n\n")
                continue
            watch.event.clear()
            revision = self.revisions.get(watch.key, watch.sent)
            if revision != watch.sent:
                watch.sent = revision
                self.pushed += 1
                await response.write(await self._event(watch, revision))

    async def _event(self, watch: Watch, revision: int) -> bytes:
        """The event telling ``watch`` of ``revision``: with what changed since the revision its
        page shows when it is a viewer's scoresheet behind it and the app says (else the
        revision alone: the phone asks, as before)."""
        if self.changes is None or watch.shown is None or watch.base is None or watch.base >= revision:
            if watch.base is not None:
                watch.base = max(watch.base, revision)  # the phone catches up by itself
            return live_changes.event(revision)
        since = watch.base
        try:
            found = await self.changes(watch.key, watch.shown, since, revision)
        except Exception as error:  # noqa: BLE001 - never the stream's end: the revision alone
            log.warning("live stream: carrying what changed failed (%s)", type(error).__name__)
            found = None
        if found is None or found[0] < revision:  # not said, or said short of it: the phone asks
            watch.base = revision
            return live_changes.event(revision)
        watch.base = found[0]  # its page now shows that (or has fetched itself afresh: a reload)
        self.carried += 1
        return live_changes.event(found[0], since, found[1])

    def _count(self, address: str, step: int) -> None:
        left = self.by_address.get(address, 0) + step
        if left > 0:
            self.by_address[address] = left
        else:
            self.by_address.pop(address, None)
        self.open += step

    def _unwatch(self, watch: Watch) -> None:
        watchers = self.watches.get(watch.key)
        if watchers is not None:
            watchers.discard(watch)
            if not watchers:
                del self.watches[watch.key]
                self.revisions.pop(watch.key, None)


# ---------------------------------------------------------------------- learning of changes
async def poll_changes(hub: Hub, every: float = SQLITE_READ) -> None:
    """SQLite: every ``every`` seconds, one query for all watched tables."""
    while True:
        await asyncio.sleep(every)
        try:
            await hub.refresh()
        except Exception as error:  # noqa: BLE001 - the database away: try again at the next round
            log.warning("live stream: reading revisions failed (%s)", type(error).__name__)


async def listen_changes(hub: Hub, dsn: str, full_read: float = FULL_READ) -> None:
    """PostgreSQL: ``LISTEN`` for announced tables and read those (one query for all that
    came together); every ``full_read`` seconds every watched table is read anyway (a lost
    notification, a listener reconnecting). Reconnects after a lost connection."""
    import psycopg

    from ..storage.live import CHANNEL, KEEPALIVES

    async def net() -> None:
        while True:
            await asyncio.sleep(full_read)
            try:
                await hub.refresh()
            except Exception as error:  # noqa: BLE001 - tried again at the next round
                log.warning("live stream: reading revisions failed (%s)", type(error).__name__)

    safety = asyncio.create_task(net())
    delay = 0.5
    try:
        while True:
            try:
                async with await psycopg.AsyncConnection.connect(dsn, autocommit=True, connect_timeout=5,
                                                                 **KEEPALIVES) as conn:
                    await conn.execute(f"LISTEN {CHANNEL}")
                    delay = 0.5
                    await hub.refresh()  # a change made before the LISTEN
                    await _announced(hub, conn)
            except (OSError, psycopg.Error) as error:
                log.warning("live stream: listener lost (%s); retrying in %.1f s", type(error).__name__, delay)
            await asyncio.sleep(delay)
            delay = min(delay * 2, 10.0)
    finally:
        safety.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await safety


async def _announced(hub: Hub, conn: Any) -> None:
    """Read the tables announced on ``conn``, a batch at a time (what came while the last
    batch was read is the next batch)."""
    pending: set[str] = set()
    wake = asyncio.Event()

    async def gather() -> None:
        async for note in conn.notifies():
            pending.add(note.payload)
            wake.set()

    listener = asyncio.create_task(gather())
    waiter: asyncio.Task[Any] | None = None
    try:
        while not listener.done():
            waiter = asyncio.create_task(wake.wait())
            await asyncio.wait({waiter, listener}, return_when=asyncio.FIRST_COMPLETED)
            wake.clear()
            batch = set(pending)
            pending.clear()
            if batch:
                await hub.refresh(batch)
        listener.result()  # its error, if it ended with one
    finally:
        for task in (waiter, listener):
            if task is not None and not task.done():
                task.cancel()
                with contextlib.suppress(asyncio.CancelledError):
                    await task


class SqlReader:
    """A :data:`Reader` on the app's database (SQLAlchemy URL ``url``): one small pool, one
    query for a list of keys. :meth:`dispose` closes its connection."""

    def __init__(self, url: str) -> None:
        import sqlalchemy as sa

        from ..storage.models import Evening

        self.engine = sa.create_engine(url, pool_size=1, max_overflow=0, pool_pre_ping=True)
        table = Evening.__table__
        self._columns = (table.c.key, table.c.revision)

    def __call__(self, keys: list[str]) -> dict[str, int]:
        import sqlalchemy as sa

        key, revision = self._columns
        with self.engine.connect() as conn:
            return {k: r for k, r in conn.execute(sa.select(key, revision).where(key.in_(keys)))}

    def dispose(self) -> None:
        self.engine.dispose()


def _since(request: web.Request) -> int | None:
    """The revision a viewer's page shows: the newer of its ``since`` and the ``Last-Event-ID``
    its EventSource sends when it reconnects (``None``: neither, or not a number)."""
    found = [int(text) for text in (request.query.get("since", ""), request.headers.get("Last-Event-ID", ""))
             if text.isascii() and text.isdigit() and len(text) < 19]
    return max(found) if found else None


async def _healthz(request: web.Request) -> web.Response:
    return web.Response(text="ok")


def make_app(hub: Hub, *, dsn: str | None = None) -> web.Application:
    """The aiohttp application: the stream route, and the task that learns of changes
    (``LISTEN`` on ``dsn`` if given, else the SQLite round); the hub's :class:`AppChanges
    <scorer.web.live_changes.AppChanges>`, if any, is closed with it."""
    app = web.Application()
    app.router.add_get("/e/{key}/events", hub.stream)
    app.router.add_get("/healthz", _healthz)

    async def changes(app: web.Application) -> Any:
        task = asyncio.create_task(listen_changes(hub, dsn) if dsn else poll_changes(hub))
        yield
        task.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await task
        close = getattr(hub.changes, "close", None)
        if close is not None:
            await close()

    app.cleanup_ctx.append(changes)
    return app


def per_address() -> int:
    """Streams one address may hold: ``NAP_LIVE_PER_ADDRESS`` if set, else :data:`PER_ADDRESS`
    (a club whose phones share one public address raises it, as it raises nginx's rates)."""
    configured = os.environ.get("NAP_LIVE_PER_ADDRESS", "").strip()
    return max(1, int(configured)) if configured.isdigit() else PER_ADDRESS


def run(host: str, port: int, database_url: str, *, hops: int = 0, sock: Any = None,
        app_addresses: list[str] | None = None) -> None:
    """Serve the streams until stopped (``nap serve``'s live process): on ``sock`` if given
    (a socket already listening), else on ``host``:``port``; viewers' pages get what changed
    from the app at ``app_addresses`` (``"127.0.0.1:5010"``, in the proxy's upstream order;
    none: the revision alone)."""
    import sqlalchemy as sa

    from ..storage.live import listen_dsn

    fetch = live_changes.AppChanges(app_addresses) if app_addresses else None
    hub = Hub(SqlReader(database_url), hops=hops, per_address=per_address(), changes=fetch)
    dsn = listen_dsn(sa.engine.make_url(database_url))
    app = make_app(hub, dsn=dsn)
    if sock is not None:
        web.run_app(app, sock=sock, **_RUN)
    else:
        web.run_app(app, host=host, port=port, **_RUN)


# access_log None: a stream's one line would come when it closes, an hour later;
# handler_cancellation: a phone gone away ends its stream at once, not at the next write
_RUN: dict[str, Any] = {"access_log": None, "print": None, "handle_signals": True, "shutdown_timeout": 1,
                        "handler_cancellation": True}
