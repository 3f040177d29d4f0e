"""The live poll (``/e/<key>/revision``): answered from memory between changes, before
Flask's request machinery; a change made in this process is seen at once, one made in
another process (on PostgreSQL) as soon as its notification arrives (scorer/live.py)."""

from __future__ import annotations

from typing import Any

from conftest import _dispose, make_app
from flask import request_started

from scorer.storage import live, units
from webhelpers import post_hand, start_evening, wait_until


def test_a_change_is_seen_at_once_by_the_next_poll(client: Any, app: Any) -> None:
    key = start_evening(client)
    first = client.get(f"/e/{key}/revision")
    assert first.status_code == 200 and first.get_json() == {"revision": 0}  # nothing changed since the start
    assert first.headers["Cache-Control"] == "no-store" and "ETag" not in first.headers
    assert client.get(f"/e/{key}/revision").get_json() == {"revision": 0}  # from memory now
    post_hand(client, key, 1, 0, {1: "three"}, 3)
    assert client.get(f"/e/{key}/revision").get_json() == {"revision": 1}


def test_polls_between_changes_cost_no_query(app: Any, client: Any, monkeypatch: Any) -> None:
    key = start_evening(client)
    client.get(f"/e/{key}/revision")
    asked: list[str] = []
    real = units.evening_revision
    monkeypatch.setattr(units, "evening_revision", lambda k: asked.append(k) or real(k))
    for _ in range(5):
        assert client.get(f"/e/{key}/revision").get_json() == {"revision": 0}
    assert asked == []  # all five from memory
    monkeypatch.setattr(live, "POLL_TTL", 0.0)
    monkeypatch.setattr(live, "LISTEN_TTL", 0.0)
    app.extensions["nap_revisions"].forget_all()
    client.get(f"/e/{key}/revision")
    assert asked == [key]
    assert client.get("/e/nosuchtable/revision").status_code == 404


def test_the_answer_from_memory_is_the_routes_answer(app: Any, client: Any) -> None:
    """The first poll goes through the Flask route (and fills the memory); the second is
    answered before Flask (no request is started) with the same status, body and headers."""
    key = start_evening(client)
    started: list[str] = []

    def count(sender: Any, **extra: Any) -> None:
        started.append("request")

    request_started.connect(count, app)
    try:
        routed = client.get(f"/e/{key}/revision")
        assert started == ["request"]
        remembered = client.get(f"/e/{key}/revision", headers={"X-Request-Id": "phone-7.poll"})
        assert started == ["request"]  # no second request reached Flask
    finally:
        request_started.disconnect(count, app)
    assert (routed.status_code, remembered.status_code) == (200, 200)
    assert routed.get_data() == remembered.get_data() == b'{"revision":0}\n'
    assert remembered.headers["X-Request-Id"] == "phone-7.poll"

    def comparable(response: Any) -> dict[str, str]:
        return {name: value for name, value in response.headers.items() if name not in ("X-Request-Id", "Date")}

    assert comparable(routed) == comparable(remembered)
    assert "Set-Cookie" not in remembered.headers
    # anything but a GET of a known table's revision goes to Flask
    assert client.post(f"/e/{key}/revision").status_code == 405
    assert client.get("/e/nosuchtable/revision").status_code == 404


def test_a_read_that_crossed_a_change_is_not_kept() -> None:
    """A poll that read the revision while a change to that table was committed answers
    what it read, but does not keep it: the next poll reads again."""
    revisions = live.Revisions()
    reads: list[int] = []

    def racing_read() -> int:
        reads.append(4)
        revisions.forget("abc")  # the change commits while the poll reads
        return 4

    assert revisions.fill("abc", racing_read) == 4
    assert revisions.cached("abc") is None
    assert revisions.fill("abc", lambda: reads.append(5) or 5) == 5
    assert revisions.cached("abc") == 5 and reads == [4, 5]
    assert revisions.fill("nosuch", lambda: None) is None and revisions.cached("nosuch") is None


def test_another_process_change_is_seen_from_its_notification(postgres_url: str, monkeypatch: Any) -> None:
    """Two apps on one PostgreSQL database (as two processes or boxes are): a hand saved
    through the second is seen by the first's next poll once the notification arrives,
    not after a time-out (the memory is kept for an hour here)."""
    monkeypatch.setattr(live, "LISTEN_TTL", 3600.0)
    first, second = make_app(postgres_url), make_app(postgres_url)
    try:
        watcher, scorer = first.test_client(), second.test_client()
        key = start_evening(scorer)
        revisions = first.extensions["nap_revisions"]
        def listening() -> bool:
            assert watcher.get(f"/e/{key}/revision").get_json() == {"revision": 0}
            return bool(revisions.listening)

        wait_until(listening, "the listener never connected")
        revisions.forget_all()
        assert watcher.get(f"/e/{key}/revision").get_json() == {"revision": 0}  # kept for the hour
        assert revisions.cached(key) == 0
        post_hand(scorer, key, 1, 0, {1: "three"}, 3)
        wait_until(lambda: watcher.get(f"/e/{key}/revision").get_json()["revision"] == 1,
                   "the other app's change never reached this one")
    finally:
        _dispose(first)
        _dispose(second)
