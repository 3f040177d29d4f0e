"""The live stream (``GET /e/<key>/events``, scorer/web/live_stream.py): server-sent events from
one asyncio process; the revision on open and after every save, on both databases; the poll's
access rules; 100 streams per address and a total cap (429 over); without the stream server
the app answers 204 and the page polls."""

from __future__ import annotations

import asyncio
import http.client
import socket
import threading
from collections.abc import Iterator
from typing import Any

import pytest

from scorer.web import live_stream
from webhelpers import post_hand, start_evening, wait_until


class StreamServer:
    """The stream server on a free loopback port, its loop in a thread (as ``nap serve``'s
    live process runs it, on the app's database)."""

    def __init__(self, url: str, **limits: Any) -> None:
        import sqlalchemy as sa

        from scorer.storage.live import listen_dsn

        self.hub = live_stream.Hub(live_stream.SqlReader(url), **limits)
        self.dsn = listen_dsn(sa.engine.make_url(url))
        self.loop = asyncio.new_event_loop()
        sock = socket.socket()
        sock.bind(("127.0.0.1", 0))
        sock.listen(64)
        self.port = sock.getsockname()[1]
        self.ready = threading.Event()
        self.thread = threading.Thread(target=self._run, args=(sock,), daemon=True)
        self.error: BaseException | None = None
        self.thread.start()
        assert self.ready.wait(60) and self.error is None, self.error

    def _run(self, sock: socket.socket) -> None:
        from aiohttp import web

        try:
            app = live_stream.make_app(self.hub, dsn=self.dsn)
            self.runner = web.AppRunner(app, handler_cancellation=True)
            self.loop.run_until_complete(self.runner.setup())
            self.loop.run_until_complete(web.SockSite(self.runner, sock).start())
        except BaseException as error:
            self.error = error
            raise
        finally:
            self.ready.set()
        self.loop.run_forever()

    def close(self) -> None:
        asyncio.run_coroutine_threadsafe(self.runner.cleanup(), self.loop).result(10)
        self.loop.call_soon_threadsafe(self.loop.stop)
        self.thread.join(10)
        self.loop.close()
        self.hub.reader.dispose()  # type: ignore[attr-defined]


class Stream:
    """One phone's open stream: the events as they come."""

    def __init__(self, port: int, key: str, headers: dict[str, str] | None = None, query: str = "") -> None:
        self.conn = http.client.HTTPConnection("127.0.0.1", port, timeout=15)
        self.conn.request("GET", f"/e/{key}/events{query}", headers={"Accept": "text/event-stream", **(headers or {})})
        self.response = self.conn.getresponse()
        self.status = self.response.status

    def event(self) -> str:
        """The next event's data (comments skipped)."""
        data = ""
        while True:
            line = self.response.fp.readline().decode()
            assert line, "the stream ended"
            if line == "\n" and data:
                return data
            if line.startswith("data: "):
                data = line[len("data: "):].strip()

    def close(self) -> None:
        self.conn.close()


@pytest.fixture(params=["sqlite", "postgresql"])
def stream_app(request: pytest.FixtureRequest) -> Iterator[tuple[Any, StreamServer]]:
    from conftest import _dispose, make_app

    url = request.getfixturevalue("sqlite_url" if request.param == "sqlite" else "postgres_url")
    app = make_app(url)
    server = StreamServer(url)
    try:
        yield app, server
    finally:
        server.close()
        _dispose(app)


def test_the_revision_is_pushed_on_open_and_after_every_save(stream_app: tuple[Any, StreamServer]) -> None:
    app, server = stream_app
    client = app.test_client()
    key = start_evening(client)
    stream = Stream(server.port, key)
    try:
        assert stream.status == 200
        assert stream.response.getheader("Content-Type") == "text/event-stream"
        assert stream.response.getheader("Cache-Control") == "no-store"
        assert stream.event() == '{"revision": 0}'
        # Bob (seat 1) bids three and makes it; two hands a dealer: Ann deals both
        assert post_hand(client, key, 1, 0, {1: "three"}, 3).status_code == 302
        assert stream.event() == '{"revision": 1}'
        assert post_hand(client, key, 2, 0, {1: "three"}, 2).status_code == 302
        assert stream.event() == '{"revision": 2}'
        assert server.hub.pushed == 2 and server.hub.open == 1
    finally:
        stream.close()
    wait_until(lambda: server.hub.open == 0, "the closed stream was never let go")
    assert server.hub.watches == {} and server.hub.by_address == {}


def test_a_stranger_without_the_tables_link_is_refused(sqlite_url: str) -> None:
    from conftest import _dispose, make_app

    app = make_app(sqlite_url)
    server = StreamServer(sqlite_url)
    try:
        key = start_evening(app.test_client())
        for path_key in ("nosuchtable", key[:-1] + ("A" if key[-1] != "A" else "B"), "a.b"):
            stream = Stream(server.port, path_key)
            assert stream.status == 404, path_key
            stream.close()
        assert server.hub.open == 0
        ok = Stream(server.port, key)  # whoever holds the link watches, as with the poll
        assert ok.status == 200
        ok.close()
    finally:
        server.close()
        _dispose(app)


def test_streams_over_the_caps_are_429(sqlite_url: str) -> None:
    from conftest import _dispose, make_app

    app = make_app(sqlite_url)
    server = StreamServer(sqlite_url, per_address=2, total=3, hops=1)
    opened: list[Stream] = []
    try:
        key = start_evening(app.test_client())

        def open_from(address: str) -> int:
            stream = Stream(server.port, key, {"X-Forwarded-For": address})
            opened.append(stream)
            return stream.status

        assert [open_from("203.0.113.7") for _ in range(3)] == [200, 200, 429]  # 2 per address
        over = opened[-1].response
        assert over.getheader("Retry-After") == "30"
        assert open_from("198.51.100.1") == 200   # another address: the third stream in all
        assert open_from("198.51.100.2") == 429   # 3 in all
        opened[0].close()
        wait_until(lambda: server.hub.open == 2, "the closed stream was never let go")
        assert open_from("198.51.100.2") == 200   # room again
    finally:
        for stream in opened:
            stream.close()
        server.close()
        _dispose(app)


def test_the_address_is_the_proxys_word_only_when_believed() -> None:
    hub = live_stream.Hub(lambda keys: {}, hops=0)

    class Request:
        remote = "127.0.0.1"
        headers = {"X-Forwarded-For": "203.0.113.7"}

    assert hub.address(Request()) == "127.0.0.1"  # type: ignore[arg-type]
    hub.hops = 1
    assert hub.address(Request()) == "203.0.113.7"  # type: ignore[arg-type]
    Request.headers = {"X-Forwarded-For": "2001:db8:1:2:3:4:5:6"}
    assert hub.address(Request()) == "2001:db8:1:2::/64"  # type: ignore[arg-type]


def test_without_the_stream_server_the_app_answers_204(client: Any, sqlite_url: str) -> None:
    from conftest import _dispose, make_app

    key = start_evening(client)
    answer = client.get(f"/e/{key}/events")
    assert answer.status_code == 204 and answer.data == b""
    assert client.get("/e/nosuchtable/events").status_code == 404
    # the page opens a stream only when nap serve runs the stream server
    assert b"data-events=" not in client.get(f"/e/{key}").data
    streaming = make_app(sqlite_url, NAP_LIVE_EVENTS=True)
    try:
        page = streaming.test_client().get(f"/e/{key}").data
        assert f'data-events="/e/{key}/events"'.encode() in page
    finally:
        _dispose(streaming)


def test_streams_opening_together_cost_one_query_and_a_watched_table_none() -> None:
    """A thousand phones arriving at once: the tables they open are read together, not one
    query each queued behind the others (the benchmark's 100 tables × 5 phones waited 19 s
    for a pushed revision when each opening stream read its own)."""
    asked: list[list[str]] = []

    def reader(keys: list[str]) -> dict[str, int]:
        asked.append(list(keys))
        return {key: 7 for key in keys if key != "gone"}

    async def scenario() -> tuple[list[int | None], int | None]:
        hub = live_stream.Hub(reader)
        keys = [f"table{i}" for i in range(20)] + ["gone"]
        found = await asyncio.gather(*(hub.lookup(key) for key in keys + keys))  # each asked twice
        hub.revisions["table0"] = 9  # watched: kept fresh by the changes
        return found, await hub.lookup("table0")

    found, watched = asyncio.run(scenario())
    assert found == [7] * 20 + [None] + [7] * 20 + [None]
    assert len(asked) == 1 and sorted(asked[0]) == sorted([f"table{i}" for i in range(20)] + ["gone"])
    assert watched == 9 and len(asked) == 1  # no query for a table already watched


def test_the_database_away_is_503_not_500_and_counts_nothing() -> None:
    """A stream that cannot read its table's revision (the database away) is answered 503
    with Retry-After, never 500: EventSource stops and the page polls, as it does without the
    stream server; the stream is not left counted against its address."""
    from aiohttp.test_utils import TestClient, TestServer

    def reader(keys: list[str]) -> dict[str, int]:
        raise OSError("connection refused")

    async def scenario() -> tuple[int, str | None, int, dict[str, int]]:
        hub = live_stream.Hub(reader)
        async with TestClient(TestServer(live_stream.make_app(hub))) as client:
            answer = await client.get("/e/sometable/events")
            return answer.status, answer.headers.get("Retry-After"), hub.open, hub.by_address

    status, retry, still_open, by_address = asyncio.run(scenario())
    assert (status, retry) == (503, "5")
    assert still_open == 0 and by_address == {}
