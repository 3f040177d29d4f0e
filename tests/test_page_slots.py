"""Page slots (scorer.web.slots; issue 21, item 10): one client address holds at most
NAP_PAGE_SLOTS of the page threads; its next page is answered 503 at once, and every other
address is still served."""

from __future__ import annotations

import http.client
import threading
from collections.abc import Iterator
from typing import Any

import pytest
from conftest import _dispose, make_app

from scorer.cli.serve import server_settings
from scorer.web.permissions import permission
from scorer.web.slots import DEFAULT_SLOTS, Slots, configured_slots
from tests.webhelpers import running, start_evening, wait_until

BUSY = "Too many pages are being loaded from your address at once"


def _with_slow_page(app: Any) -> threading.Event:
    """Add ``GET /slow``, a page that holds its thread until the returned event is set."""
    release = threading.Event()

    def slow() -> str:
        release.wait(600)  # a hang guard: the test sets it
        return "slow page"

    def boom() -> str:
        raise RuntimeError("a page that fails")

    app.add_url_rule("/slow", "slow", permission("public")(slow))
    app.add_url_rule("/boom", "boom", permission("public")(boom))
    return release


@pytest.fixture
def slotted(sqlite_url: str) -> Iterator[Any]:
    app = make_app(sqlite_url, NAP_PAGE_SLOTS=4)
    yield app
    _dispose(app)


def _from(address: str) -> dict[str, Any]:
    return {"environ_base": {"REMOTE_ADDR": address}}


def test_an_address_over_its_slots_gets_503_at_once_and_others_are_served(slotted: Any) -> None:
    release = _with_slow_page(slotted)
    key = start_evening(slotted.test_client())
    slots: Slots = slotted.extensions["nap_page_slots"]
    greedy = [threading.Thread(target=lambda: slotted.test_client().get("/slow", **_from("10.0.0.1")))
              for _ in range(4)]
    for thread in greedy:
        thread.start()
    try:
        wait_until(lambda: slots.held("10.0.0.1") == 4, "the four slow pages never started")
        page = slotted.test_client().get(f"/e/{key}", **_from("10.0.0.1"))
        assert page.status_code == 503 and page.headers["Retry-After"] == "1"
        assert BUSY in page.get_data(as_text=True)
        api = slotted.test_client().get(f"/api/e/{key}", **_from("10.0.0.1"))
        assert api.status_code == 503 and api.get_json()["error"]["code"] == "busy"
        assert api.headers["Retry-After"] == "1"
        # the poll and the static files are never held back; other addresses have their own slots
        assert slotted.test_client().get(f"/e/{key}/revision", **_from("10.0.0.1")).status_code == 200
        static = slotted.test_client().get("/static/live.js", **_from("10.0.0.1"))
        static.close()
        assert static.status_code == 200
        assert slotted.test_client().get(f"/e/{key}", **_from("10.0.0.2")).status_code == 200
        assert slots.held("10.0.0.1") == 4 and slots.held("10.0.0.2") == 0
        # this machine is never capped (a benchmark, or a proxy the app does not trust)
        for local in ("127.0.0.1", "::1"):
            for _ in range(6):
                assert slotted.test_client().get(f"/e/{key}", **_from(local)).status_code == 200
        assert slots.held("127.0.0.1") == 0
    finally:
        release.set()
        for thread in greedy:
            thread.join()
    assert slots.held("10.0.0.1") == 0
    assert slotted.test_client().get(f"/e/{key}", **_from("10.0.0.1")).status_code == 200


def test_a_failing_page_gives_its_slot_back(slotted: Any) -> None:
    _with_slow_page(slotted)
    slotted.config["PROPAGATE_EXCEPTIONS"] = False
    for _ in range(6):
        assert slotted.test_client().get("/boom", **_from("10.0.0.3")).status_code == 500
    assert slotted.extensions["nap_page_slots"].held("10.0.0.3") == 0
    assert slotted.test_client().get("/", **_from("10.0.0.3")).status_code == 200


def test_one_client_cannot_take_every_thread_of_the_real_server(sqlite_url: str) -> None:
    """Through waitress (8 threads) behind a trusted proxy: a client with 12 slow pages in
    flight held every thread, and another table's page waited for them."""
    app = make_app(sqlite_url, NAP_PAGE_SLOTS=4, NAP_PROXY_HOPS=1)
    release = _with_slow_page(app)
    answers: list[int] = []

    def get(port: int, path: str, address: str) -> int:
        conn = http.client.HTTPConnection("127.0.0.1", port, timeout=120)  # a hang guard
        try:
            conn.request("GET", path, headers={"X-Forwarded-For": address, "X-Forwarded-Proto": "http"})
            response = conn.getresponse()
            response.read()
            return response.status
        finally:
            conn.close()

    try:
        with running(app, **server_settings(app)) as port:
            greedy = [threading.Thread(target=lambda: answers.append(get(port, "/slow", "198.51.100.7")))
                      for _ in range(12)]
            for thread in greedy:
                thread.start()
            try:
                wait_until(lambda: len(answers) == 8, "the greedy client's extra pages were never answered")
                assert answers == [503] * 8  # at once: 4 slow pages hold 4 threads, no more
                assert get(port, "/", "203.0.113.5") == 200  # another table is served meanwhile
            finally:
                release.set()
                for thread in greedy:
                    thread.join()
            assert sorted(answers) == [200] * 4 + [503] * 8
    finally:
        _dispose(app)


def test_the_slots_are_configured(sqlite_url: str, monkeypatch: pytest.MonkeyPatch) -> None:
    class Config:
        def __init__(self, testing: bool) -> None:
            self.config = {"TESTING": testing}

    monkeypatch.delenv("NAP_PAGE_SLOTS", raising=False)
    assert configured_slots(Config(False), None) == DEFAULT_SLOTS == 4  # type: ignore[arg-type]
    assert configured_slots(Config(True), {}) == 0  # type: ignore[arg-type]
    assert configured_slots(Config(True), {"NAP_PAGE_SLOTS": 2}) == 2  # type: ignore[arg-type]
    monkeypatch.setenv("NAP_PAGE_SLOTS", "6")
    assert configured_slots(Config(False), None) == 6  # type: ignore[arg-type]
    monkeypatch.setenv("NAP_PAGE_SLOTS", "-1")
    with pytest.raises(ValueError):
        configured_slots(Config(False), None)  # type: ignore[arg-type]
    app = make_app(sqlite_url)  # the tests' apps: off unless asked
    try:
        assert app.config["NAP_PAGE_SLOTS"] == 0 and "nap_page_slots" not in app.extensions
    finally:
        _dispose(app)
