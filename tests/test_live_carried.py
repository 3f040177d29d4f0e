"""What changed, carried by the live stream to viewers' scoresheets (scorer/web/live_changes.py,
issue 23 items 1 and 2): the event holds the app's own answer to ``/changes`` for the revision the
viewer shows, asked once for every viewer at that revision, on both databases; a scorer's page,
an unknown language, a missing or garbled ``since`` and an app that does not answer all get the
revision alone (the phone asks, as before); a reconnect's ``Last-Event-ID`` says what the page
shows; the worker asked is the one nginx sends the table to."""

from __future__ import annotations

import asyncio
import contextlib
import gc
import json
import socket
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from test_live_stream import Stream, StreamServer

from scorer.web import live_changes
from webhelpers import post_hand, running, start_evening


def served(app: Any) -> Any:
    """``app`` served by waitress on a free loopback port, as a ``nap serve`` worker."""
    from scorer.cli.serve import server_settings

    return running(app, **server_settings(app))


@contextlib.contextmanager
def one_viewer(sqlite_url: str, fetch: live_changes.AppChanges) -> Iterator[tuple[Any, str, StreamServer, Stream]]:
    """(the app's test client, a new table's key, its stream server asking with ``fetch``, a
    viewer's stream at revision 0, its first event read)."""
    from conftest import _dispose, make_app

    app = make_app(sqlite_url)
    server = StreamServer(sqlite_url, changes=fetch)
    client = app.test_client()
    key = start_evening(client)
    viewer = Stream(server.port, key, query="?shown=en/viewer&since=0")
    try:
        assert viewer.event() == '{"revision": 0}'
        yield client, key, server, viewer
    finally:
        viewer.close()
        server.close()
        _dispose(app)
        gc.collect()  # a connection the stream server left open warns here, in this test, not in a later one


@pytest.fixture(params=["sqlite", "postgresql"])
def carried(request: pytest.FixtureRequest) -> Iterator[tuple[Any, StreamServer, live_changes.AppChanges]]:
    """(the app, its stream server asking it what changed, that asker)."""
    from conftest import _dispose, make_app

    url = request.getfixturevalue("sqlite_url" if request.param == "sqlite" else "postgres_url")
    app = make_app(url)
    try:
        with served(app) as port:
            fetch = live_changes.AppChanges([f"127.0.0.1:{port}"])
            server = StreamServer(url, changes=fetch)
            try:
                yield app, server, fetch
            finally:
                server.close()
    finally:
        _dispose(app)


def test_each_viewer_gets_the_apps_own_changes_asked_once_and_a_scorer_the_revision(
        carried: tuple[Any, StreamServer, live_changes.AppChanges]) -> None:
    app, server, fetch = carried
    client = app.test_client()
    key = start_evening(client)
    assert post_hand(client, key, 1, 0, {1: "three"}, 3).status_code == 302  # Bob Three made: +3 a player
    assert app.test_client().get(f"/e/{key}").status_code == 200  # the viewers' page at revision 1
    viewers = [Stream(server.port, key, query="?shown=en/viewer&since=1") for _ in range(3)]
    scorer = Stream(server.port, key, query="?shown=en/scorer&since=1")
    try:
        assert [v.event() for v in viewers] == ['{"revision": 1}'] * 3  # shown already: nothing to carry
        assert scorer.event() == '{"revision": 1}'
        assert post_hand(client, key, 2, 0, {1: "three"}, 2).status_code == 302  # Bob Three lost: -3 a player
        events = [json.loads(v.event()) for v in viewers]
        asked = client.get(f"/e/{key}/changes?shown=en/viewer&since=1").get_json()  # what a viewer would ask
        assert asked["revision"] == 2 and list(asked["rows"]) == ["2"] and "reload" not in asked
        assert events == [{"revision": 2, "since": 1, "changes": asked}] * 3
        assert scorer.event() == '{"revision": 2}'  # a scorer's answer depends on its cookies: it asks
        assert fetch.asked == 1 and server.hub.carried == 3  # one request for three viewers
        # the next hand: from the revision the last event brought them to
        assert post_hand(client, key, 3, 1, {2: "three"}, 3).status_code == 302
        events = [json.loads(v.event()) for v in viewers]
        asked = client.get(f"/e/{key}/changes?shown=en/viewer&since=2").get_json()
        assert events == [{"revision": 3, "since": 2, "changes": asked}] * 3
        assert list(asked["rows"]) == ["3"] and fetch.asked == 2
    finally:
        for stream in (*viewers, scorer):
            stream.close()


def test_a_reconnect_says_its_revision_and_nonsense_gets_the_revision_alone(
        carried: tuple[Any, StreamServer, live_changes.AppChanges]) -> None:
    app, server, fetch = carried
    client = app.test_client()
    key = start_evening(client)
    for number, made in ((1, 3), (2, 2)):
        assert post_hand(client, key, number, 0, {1: "three"}, made).status_code == 302
        assert app.test_client().get(f"/e/{key}").status_code == 200  # a viewer's page at each revision
    # EventSource opened at revision 0, reconnecting after it was told 1: Last-Event-ID wins
    again = Stream(server.port, key, headers={"Last-Event-ID": "1"}, query="?shown=en/viewer&since=0")
    odd = [Stream(server.port, key, query=query) for query in (
        "?shown=xx/viewer&since=1", "?shown=en/viewer&since=abc", "?shown=en/viewer", "?since=1",
        "?shown=en/viewer&since=%C2%B2",
        "?shown=en/viewer&since=99999999999999999999999")]
    try:
        opened = json.loads(again.event())
        asked = client.get(f"/e/{key}/changes?shown=en/viewer&since=1").get_json()
        assert opened == {"revision": 2, "since": 1, "changes": asked} and list(asked["rows"]) == ["2"]
        assert [o.event() for o in odd] == ['{"revision": 2}'] * 6
        assert fetch.asked == 1
    finally:
        for stream in (again, *odd):
            stream.close()


def test_an_app_that_does_not_answer_leaves_the_revision_alone(sqlite_url: str) -> None:
    with socket.socket() as closed:  # a port nobody listens on
        closed.bind(("127.0.0.1", 0))
        nobody = closed.getsockname()[1]
    fetch = live_changes.AppChanges([f"127.0.0.1:{nobody}"], timeout=2)
    with one_viewer(sqlite_url, fetch) as (client, key, server, viewer):
        assert post_hand(client, key, 1, 0, {1: "three"}, 3).status_code == 302
        assert viewer.event() == '{"revision": 1}'  # the phone asks itself, as before
        assert fetch.asked == 1 and server.hub.carried == 0


def test_the_stream_knows_the_apps_languages() -> None:
    from scorer.web.i18n import LANGUAGES

    assert live_changes.LANGUAGES == tuple(LANGUAGES)
    assert [live_changes.viewer_shown(s) for s in ("pt_BR/viewer", "ru/viewer", "en/scorer", "de/viewer", "")] == [
        "pt_BR/viewer", "ru/viewer", None, None, None]


def test_the_worker_asked_is_the_one_nginx_sends_the_table_to(tmp_path: Path) -> None:
    """Three workers behind deploy/nginx.conf (``hash $nap_table``): for each of 60 tables, the
    worker nginx sent its ``/changes`` to is :func:`live_changes.worker_of`'s."""
    import http.client
    import ssl

    from flask import Flask
    from test_proxy import PUBLIC_NAME, behind_nginx

    def worker(number: int) -> Flask:
        app = Flask(f"worker{number}")
        app.add_url_rule("/e/<key>/changes", "changes", lambda key: str(number))
        return app

    apps = [worker(n) for n in range(3)]
    with behind_nginx(tmp_path, apps[0], others=tuple(apps[1:])) as (port, cafile):
        context = ssl.create_default_context(cafile=str(cafile))
        conn = http.client.HTTPSConnection("127.0.0.1", port, context=context, timeout=30)
        sent = {}
        for n in range(60):
            key = f"table{n}x{n * 7919}"
            conn.request("GET", f"/e/{key}/changes", headers={"Host": f"{PUBLIC_NAME}:{port}"})
            answer = conn.getresponse()
            assert answer.status == 200
            sent[key] = int(answer.read())
        conn.close()
    assert sent == {key: live_changes.worker_of(f"e/{key}", 3) for key in sent}
    assert set(sent.values()) == {0, 1, 2}  # spread over the three


def test_made_up_revisions_cannot_make_the_stream_server_ask_the_app_more_than_four_times_a_change(
        sqlite_url: str) -> None:
    """Streams of one table opened with six different revisions shown, and one 20 behind: at
    the table's next change the app is asked four questions at most (``MAX_ASKS``), never for
    a page more than 16 revisions behind; the other streams get the revision alone (their
    phones ask through the proxy and its limits)."""
    from conftest import _dispose, make_app

    app = make_app(sqlite_url)
    client = app.test_client()
    key = start_evening(client, opt_hands_per_dealer="6")  # 24 hands
    for number in range(1, 22):
        assert post_hand(client, key, number, (number - 1) // 6 % 4, {2: "three"}, 3).status_code == 302
    assert client.get(f"/e/{key}/revision").get_json() == {"revision": 21}
    try:
        with served(app) as port:
            fetch = live_changes.AppChanges([f"127.0.0.1:{port}"])
            server = StreamServer(sqlite_url, changes=fetch)
            streams = []
            try:
                for since in (15, 16, 17, 18, 19, 20, 1):  # opened one after another
                    streams.append(Stream(server.port, key, query=f"?shown=en/viewer&since={since}"))
                    streams[-1].first = json.loads(streams[-1].event())  # type: ignore[attr-defined]
                firsts = [s.first for s in streams]  # type: ignore[attr-defined]
                assert [f["revision"] for f in firsts] == [21] * 7
                assert [f.get("since") for f in firsts] == [15, 16, 17, 18, None, None, None]
                assert all("changes" in f for f in firsts[:4]) and fetch.asked == 4
            finally:
                for stream in streams:
                    stream.close()
                server.close()
    finally:
        _dispose(app)


def test_an_app_too_slow_to_answer_leaves_the_phones_to_ask_at_once_and_is_then_left_alone(sqlite_url: str) -> None:
    """An app that takes the question and never answers: the viewers' event goes with the
    revision alone once the deadline passes, while the question is still waiting (for its 60 s
    here, far past any delay of a busy machine), and for the rest period the stream server asks
    nothing more (the phones ask, as before), so an app that is away is not asked twice for each
    change."""
    with socket.socket() as silent:  # takes connections, never answers
        silent.bind(("127.0.0.1", 0))
        silent.listen(16)
        fetch = live_changes.AppChanges([f"127.0.0.1:{silent.getsockname()[1]}"], deadline=0.5, timeout=60)
        with one_viewer(sqlite_url, fetch) as (client, key, server, viewer):
            assert post_hand(client, key, 1, 0, {1: "three"}, 3).status_code == 302
            assert viewer.event() == '{"revision": 1}'
            assert fetch.waiting == 1  # told at the deadline: the question has not ended yet
            assert post_hand(client, key, 2, 0, {1: "three"}, 2).status_code == 302
            assert viewer.event() == '{"revision": 2}'
            assert fetch.asked == 1 and server.hub.carried == 0  # resting: nothing asked the second time


def test_the_answers_kept_stay_within_their_bytes(monkeypatch: pytest.MonkeyPatch) -> None:
    """Answers of 10 KB each against a budget of 35 KB: the oldest go, the bytes counted are
    the bytes kept, and an answer forgotten while it was asked counts nothing."""
    monkeypatch.setattr(live_changes, "KEPT_BYTES", 35_000)

    class Canned(live_changes.AppChanges):
        async def _ask(self, key: str, shown: str, since: int) -> tuple[int, bytes] | None:
            await asyncio.sleep(0)
            return since + 1, b"x" * 10_000

    async def scenario() -> tuple[int, int, list[str]]:
        fetch = Canned(["127.0.0.1:1"])
        for n in range(8):
            assert await fetch(f"table{n}", "en/viewer", 4, 5) == (5, b"x" * 10_000)
        kept = [asked[0] for asked in fetch._kept]  # noqa: SLF001 - what is kept, read by the test
        return fetch.kept_bytes, sum(len(t.result()[1]) for t in fetch._kept.values()), kept  # noqa: SLF001

    counted, held, kept = asyncio.run(scenario())
    assert counted == held <= 40_000 and kept == ["table4", "table5", "table6", "table7"]
