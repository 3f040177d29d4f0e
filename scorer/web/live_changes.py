"""What changed, carried by the live stream itself to the viewers' phones (issue 23, items 1
and 2): the stream server (:mod:`scorer.web.live_stream`) asks the app once what changed on a
table's scoresheet since the revision the watching viewers show, and pushes the answer in the
event that tells them the new revision. Four viewers of a table then cost the app one
``GET /e/<key>/changes`` a hand instead of four, and nothing passes the proxy but the stream.

Only a viewer's page is answered this way: a viewer's changes are what the table's link shows
anyone (:func:`scorer.web.access.role_shown` answers ``shown=<lang>/viewer`` without reading
the phone's cookies), so the one answer the stream server gets, asked with the language's
cookie alone, is the answer each viewer's phone would get. A scorer's page (its answer depends
on the phone's own role) gets the revision only and asks ``/changes`` itself, as before. What
a phone sees is still decided by the app's route alone; this module only carries it.

The answer is asked of the worker the proxy sends the table to (``deploy/nginx.conf``:
``hash $nap_table`` over the workers' own ports, :func:`worker_of`), so it is made where the
table's scoresheet was just rendered for the scorer and its digests are in memory. Any failure
(the app busy past :data:`TIMEOUT`, an error, an answer over :data:`MAX_PUSHED` bytes) pushes
the revision alone, and the phone asks as it did before this module; an answer not there in
:data:`DEADLINE` seconds, or a failed question, rests the asking for :data:`REST` seconds, so an
app slowed by load is asked by the phones only, never twice for one change.
"""

from __future__ import annotations

import asyncio
import json
import logging
import re
import time
import zlib
from collections import OrderedDict
from collections.abc import Awaitable, Callable, Sequence
from typing import Any

log = logging.getLogger("scorer")

#: The languages a page can be shown in (:data:`scorer.web.i18n.LANGUAGES`' codes; said again
#: here so the stream process loads no Flask: ``tests/test_live_stream.py`` holds the two equal).
LANGUAGES = ("en", "ru", "nb", "pt_BR")
#: A viewer's ``shown`` (:func:`scorer.web.views.sheet.shown_as`): the only pages pushed changes.
VIEWER_SHOWN = re.compile("(" + "|".join(LANGUAGES) + ")/viewer")
#: Seconds a question may take (the wait for a free connection included); its answer is then
#: kept for the viewers who come later.
TIMEOUT = 10.0
#: Seconds the viewers' event waits for the answer before it goes with the revision alone (the
#: phones then ask, as before this module). As long as the question may take: a phone asking
#: a slow app itself waits as long, and costs it four questions where the stream server asks
#: one (measured at 800 tables, beyond the box's knee: with 1.5 s here every change went to the
#: phones, none was carried, and p99 was 6.3 s against 1.5-2.5 s waiting for the answers).
DEADLINE = TIMEOUT
#: Seconds nothing is asked after a question missed its deadline or failed: an app that is slow
#: or away is asked only by the phones, as before this module, not by the stream server too.
REST = 30.0
#: Bytes of an answer pushed at most (a long correction's rows); a larger one: the revision alone.
MAX_PUSHED = 64 * 1024
#: Answers kept, each for a (table, language, revision shown) (a room of 1,000 tables, a
#: language or two each), and their bytes (about 5.5 KB each at 30 hands; past the bytes by
#: one answer at most, the one being asked).
KEPT = 4096
KEPT_BYTES = 32 * 1024 * 1024
#: Requests to the app at once. Not fewer than a busy room needs: a thousand tables change
#: about 17 times a second, and at 8 at once an app slowed to a second an answer would have
#: left the changes waiting behind each other (measured at 800 tables: pushes 20 s late);
#: past this they wait in waitress's queue like any phone's request.
AT_ONCE = 64
#: Different questions asked of the app for one table's change at most (each (language, revision
#: shown) pair is one; a table's viewers share one or two): past it, and for a page more than
#: :data:`MAX_BEHIND` revisions behind, the revision alone, and the phone asks through the proxy
#: and its limits. Without the cap, streams opened with made-up revisions would have the stream
#: server ask the app once each at every change of a table, past every limit of the proxy.
MAX_ASKS = 4
MAX_BEHIND = 16

#: ``fetch(key, shown, since, at_least) -> (revision, changes) | None``: what changed on table
#: ``key``'s scoresheet since ``since`` for a viewer's page ``shown``, as ``GET /e/<key>/changes``
#: answers it (``changes`` its JSON text on one line, ``revision`` the revision it brings the
#: page to; an answer kept from before revision ``at_least`` is asked again).
Fetch = Callable[[str, str, int, int], Awaitable["tuple[int, bytes] | None"]]


def viewer_shown(shown: str) -> str | None:
    """``shown`` if it is a viewer's page's (``"ru/viewer"``), else ``None``."""
    return shown if VIEWER_SHOWN.fullmatch(shown) else None


def worker_of(scope: str, count: int) -> int:
    """The index of the worker nginx's ``hash $nap_table`` (``ngx_http_upstream_hash_module``,
    not consistent, every server of weight 1, the first try) sends ``scope``
    (``"e/<key>"``) to, among ``count`` servers in the upstream's order: CRC-32 of the scope,
    its bits 16-30, modulo the servers."""
    return ((zlib.crc32(scope.encode()) >> 16) & 0x7FFF) % count


class AppChanges:
    """A :data:`Fetch` asking the app at ``addresses`` (``"127.0.0.1:5010"``, one per worker in
    the proxy's upstream order, or the one shared port): one request per (table, language,
    revision shown) at a time, its answer kept for every viewer who shows that revision; at
    most :data:`MAX_ASKS` questions a table's change, none for a page more than
    :data:`MAX_BEHIND` revisions behind, an answer waited for :data:`DEADLINE` seconds, and
    none asked for :data:`REST` seconds after one missed it or failed (``None``: the phone asks
    itself)."""

    def __init__(self, addresses: Sequence[str], *, timeout: float = TIMEOUT, deadline: float = DEADLINE,
                 rest: float = REST) -> None:
        if not addresses:
            raise ValueError("no address of the app")
        self.addresses = list(addresses)
        self.timeout, self.deadline, self.rest = timeout, deadline, rest
        self.resting_until = 0.0
        self.kept_bytes = 0
        self.asked = 0  # requests sent to the app (a test's and a benchmark's count)
        self._kept: OrderedDict[tuple[str, str, int], asyncio.Task[tuple[int, bytes] | None]] = OrderedDict()
        self._asks: OrderedDict[str, tuple[int, int]] = OrderedDict()  # key → (revision, questions asked)
        self._session: Any = None
        self._at_once = asyncio.Semaphore(AT_ONCE)

    async def __call__(self, key: str, shown: str, since: int, at_least: int) -> tuple[int, bytes] | None:
        asked = (key, shown, since)
        task = self._kept.get(asked)
        if task is None or (task.done() and not _reaches(task, at_least)):
            if (time.monotonic() < self.resting_until or not 0 <= at_least - since <= MAX_BEHIND
                    or not self._may_ask(key, at_least)):
                return None
            self._forget(asked)
            task = self._kept[asked] = asyncio.ensure_future(self._ask(key, shown, since))
            task.add_done_callback(lambda done: self._count_bytes(asked, done))
            while len(self._kept) > KEPT or self.kept_bytes > KEPT_BYTES:
                self._forget(next(iter(self._kept)))
        else:
            self._kept.move_to_end(asked)
        try:
            return await asyncio.wait_for(asyncio.shield(task), self.deadline)
        except TimeoutError:
            self._rest(f"no answer in {self.deadline:.1f} s")
            return None

    @property
    def waiting(self) -> int:
        """Questions asked of the app and not answered yet."""
        return sum(not task.done() for task in self._kept.values())

    def _count_bytes(self, asked: tuple[str, str, int], task: asyncio.Task[tuple[int, bytes] | None]) -> None:
        if self._kept.get(asked) is task and _reaches(task, 0):  # (one forgotten meanwhile counts nothing)
            self.kept_bytes += len(task.result()[1])  # type: ignore[index]

    def _forget(self, asked: tuple[str, str, int]) -> None:
        task = self._kept.pop(asked, None)
        if task is not None and _reaches(task, 0):
            self.kept_bytes -= len(task.result()[1])  # type: ignore[index]

    def _rest(self, why: str) -> None:
        if time.monotonic() >= self.resting_until:
            log.warning("live stream: %s; the phones ask what changed for %.0f s", why, self.rest)
        self.resting_until = time.monotonic() + self.rest

    def _may_ask(self, key: str, revision: int) -> bool:
        """Whether one more question may be asked of the app for table ``key`` at ``revision``
        (at most :data:`MAX_ASKS` a revision; counted here)."""
        counted = self._asks.get(key)
        if counted is None or revision > counted[0]:  # counted afresh only for a newer change
            counted = (revision, 0)
        if counted[1] >= MAX_ASKS:
            return False
        self._asks[key] = (counted[0], counted[1] + 1)
        self._asks.move_to_end(key)
        while len(self._asks) > KEPT:
            self._asks.popitem(last=False)
        return True

    async def _ask(self, key: str, shown: str, since: int) -> tuple[int, bytes] | None:
        import aiohttp

        if self._session is None:
            self._session = aiohttp.ClientSession(connector=aiohttp.TCPConnector(limit=AT_ONCE))
        address = self.addresses[worker_of(f"e/{key}", len(self.addresses))]
        lang = shown.split("/", 1)[0]
        try:
            async with asyncio.timeout(self.timeout), self._at_once:
                self.asked += 1
                async with self._session.get(
                        f"http://{address}/e/{key}/changes", params={"shown": shown, "since": str(since)},
                        headers={"Cookie": f"lang={lang}", "Accept-Encoding": "identity"},
                        allow_redirects=False) as answer:
                    if answer.status != 200 or answer.content_type != "application/json":
                        self._rest(f"the app answered {answer.status}")
                        return None
                    if answer.content_length is None or answer.content_length > MAX_PUSHED:
                        return None  # a long correction's rows (or an answer of unsaid length): the phones ask
                    body = await answer.read()  # the whole body (content.read(n) may stop at a chunk)
        except (OSError, TimeoutError, aiohttp.ClientError) as error:
            self._rest(f"asking the app what changed failed ({type(error).__name__})")
            return None
        if len(body) > MAX_PUSHED:
            return None
        try:
            changes = json.loads(body)
            revision = changes["revision"]
        except (ValueError, KeyError, TypeError):
            return None
        if not isinstance(revision, int) or isinstance(revision, bool):
            return None
        return revision, json.dumps(changes, separators=(",", ":"), ensure_ascii=False).encode()

    async def close(self) -> None:
        """End the questions still waiting (an app that never answers: their connections are
        closed here, not left to the garbage collector after the loop is gone), then the session."""
        waiting = [task for task in self._kept.values() if not task.done()]
        for task in waiting:
            task.cancel()
        if waiting:
            await asyncio.gather(*waiting, return_exceptions=True)
        if self._session is not None:
            await self._session.close()
            self._session = None


def _reaches(task: asyncio.Task[tuple[int, bytes] | None], revision: int) -> bool:
    """Whether the finished ``task`` answered, bringing a page to ``revision`` or later."""
    if task.cancelled() or task.exception() is not None:
        return False
    found = task.result()
    return found is not None and found[0] >= revision


def event(revision: int, since: int | None = None, changes: bytes | None = None) -> bytes:
    """A stream's event: ``id: <revision>`` (EventSource sends it back as ``Last-Event-ID``
    when it reconnects) and ``data: {"revision": N}``, with ``"since": S, "changes": {…}`` when
    it carries what changed since revision ``S`` (the answer of ``/changes``, docs/api.md)."""
    if changes is None:
        return b'id: %d\ndata: {"revision": %d}\n\n' % (revision, revision)
    return b'id: %d\ndata: {"revision": %d, "since": %d, "changes": %s}\n\n' % (revision, revision, since, changes)
