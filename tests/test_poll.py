"""The live poll (``/e/<key>/revision``): answered from memory between changes; a change
made in this process is seen at once; the connection stays open between polls."""

from __future__ import annotations

from typing import Any

from scorer import services
from webhelpers import post_hand, start_evening


def test_a_change_is_seen_at_once_by_the_next_poll(client: Any, app: Any) -> None:
    key = start_evening(client)
    first = client.get(f"/e/{key}/revision")
    assert first.status_code == 200 and first.get_json() == {"revision": 0}  # nothing changed since the start
    assert first.headers["Cache-Control"] == "no-store" and "ETag" not in first.headers
    post_hand(client, key, 1, 0, {1: "three"}, 3)
    assert client.get(f"/e/{key}/revision").get_json() == {"revision": 1}


def test_polls_between_changes_cost_no_query(app: Any, client: Any, monkeypatch: Any) -> None:
    key = start_evening(client)
    client.get(f"/e/{key}/revision")
    asked: list[str] = []
    real = services.evening_revision
    monkeypatch.setattr(services, "evening_revision", lambda k: asked.append(k) or real(k))
    for _ in range(5):
        assert client.get(f"/e/{key}/revision").get_json() == {"revision": 0}
    assert asked == []  # all five from memory (within services.POLL_TTL)
    monkeypatch.setattr(services, "POLL_TTL", 0.0)
    services._polled.clear()
    client.get(f"/e/{key}/revision")
    assert asked == [key]
    assert client.get("/e/nosuchtable/revision").status_code == 404
