"""The service worker's warm-up waits for a quieter moment (scorer.web.slots,
``too_busy_for_background``; issue 23 item 2): while a process has ``NAP_WARM_BUSY`` other page
requests in progress, ``GET /e/<key>/kept`` is answered at once 503 ``{"later": true}`` with
``Retry-After`` and makes nothing; the phone's worker keeps what it has and asks again at the
table's next change. Below that, the six pages as before. The count is every page request in
progress in the process (not static files, the poll or /healthz), given back however the
request ends."""

from __future__ import annotations

import threading
from collections.abc import Iterator
from typing import Any

import pytest
from conftest import _dispose, make_app
from test_page_slots import _with_slow_page

from scorer.web.slots import DEFAULT_WARM_BUSY, WARM_AT_LEAST_EVERY, InProgress, configured_warm_busy
from tests.webhelpers import post_hand, start_evening, statements, wait_until


@pytest.fixture
def watchful(sqlite_url: str) -> Iterator[Any]:
    app = make_app(sqlite_url, NAP_WARM_BUSY=2)
    yield app
    _dispose(app)


def _hold(app: Any, release: threading.Event, n: int) -> list[threading.Thread]:
    """``n`` slow pages (:func:`_with_slow_page`'s) in progress in ``app``, each on its thread,
    until ``release`` is set."""
    release.clear()
    held = [threading.Thread(target=lambda: app.test_client().get("/slow")) for _ in range(n)]
    for thread in held:
        thread.start()
    counted: InProgress = app.extensions["nap_in_progress"]
    wait_until(lambda: counted.count == n, f"the {n} slow pages never started")
    return held


def test_a_busy_process_puts_the_warm_up_off_and_a_quieter_one_makes_it(watchful: Any) -> None:
    release = _with_slow_page(watchful)
    scorer = watchful.test_client()
    key = start_evening(scorer)
    assert post_hand(scorer, key, 1, 0, {1: "three"}, tricks=3).status_code == 302
    scorer.get(f"/e/{key}")  # the "saved" message, once
    counted: InProgress = watchful.extensions["nap_in_progress"]
    held = _hold(watchful, release, 2)  # two other pages in progress: NAP_WARM_BUSY
    try:
        with statements(watchful) as seen:
            later = scorer.get(f"/e/{key}/kept?last=1", headers={"X-Nap-Warm": "1"})
        assert later.status_code == 503
        assert later.get_json() == {"later": True,
                                    "error": {"code": "busy", "message": "busy: the pages are kept later"}}
        assert later.headers["Retry-After"] == "10" and later.headers["Cache-Control"] == "no-store"
        # nothing made: not the pages, not who the phone is (the permission's one read of its role)
        assert len([s for s in seen if s.strip() != "BEGIN"]) <= 2
        # the poll and /healthz are answered as ever and are not counted
        assert scorer.get(f"/e/{key}/revision").status_code == 200
        assert scorer.get("/healthz").status_code == 200
        assert counted.count == 2
        # however busy, one warm-up a process is made at least every WARM_AT_LEAST_EVERY seconds
        # (no stream of requests puts every phone's off for good); the next is put off again
        counted.last_warm_up -= WARM_AT_LEAST_EVERY + 1
        assert scorer.get(f"/e/{key}/kept?last=1", headers={"X-Nap-Warm": "1"}).status_code == 200
        assert scorer.get(f"/e/{key}/kept?last=1", headers={"X-Nap-Warm": "1"}).status_code == 503
        assert counted.count == 2
    finally:
        release.set()
        for thread in held:
            thread.join()
    assert counted.count == 0
    held = _hold(watchful, release, 1)  # one other page: below the bound, the six pages
    try:
        kept = scorer.get(f"/e/{key}/kept?last=1", headers={"X-Nap-Warm": "1"})
        assert kept.status_code == 200
        assert sorted(p["path"] for p in kept.get_json()["pages"]) == sorted(
            [f"/e/{key}/quick", f"/e/{key}/big", f"/e/{key}/hand", f"/e/{key}/undo",
             f"/e/{key}/hand/1", f"/e/{key}/hand/1/edit"])
        assert counted.count == 1  # the warm-up's own six inner pages are not counted (nor left counted)
    finally:
        release.set()
        for thread in held:
            thread.join()
    assert counted.count == 0


def test_the_count_is_given_back_by_a_failing_or_unknown_page(watchful: Any) -> None:
    _with_slow_page(watchful)
    watchful.config["PROPAGATE_EXCEPTIONS"] = False
    client = watchful.test_client()
    for _ in range(3):
        assert client.get("/boom").status_code == 500
        assert client.get("/no/such/page").status_code == 404
    assert watchful.extensions["nap_in_progress"].count == 0


def test_the_bound_is_configured(sqlite_url: str, monkeypatch: pytest.MonkeyPatch) -> None:
    class Config:
        def __init__(self, testing: bool) -> None:
            self.config = {"TESTING": testing}

    monkeypatch.delenv("NAP_WARM_BUSY", raising=False)
    assert configured_warm_busy(Config(False), None) == DEFAULT_WARM_BUSY == 1  # type: ignore[arg-type]
    assert configured_warm_busy(Config(True), {}) == 0  # type: ignore[arg-type]
    assert configured_warm_busy(Config(True), {"NAP_WARM_BUSY": 3}) == 3  # type: ignore[arg-type]
    monkeypatch.setenv("NAP_WARM_BUSY", "0")
    assert configured_warm_busy(Config(False), None) == 0  # type: ignore[arg-type]
    monkeypatch.setenv("NAP_WARM_BUSY", "-2")
    with pytest.raises(ValueError):
        configured_warm_busy(Config(False), None)  # type: ignore[arg-type]
    app = make_app(sqlite_url)  # the tests' apps: never put off unless asked
    try:
        release = _with_slow_page(app)
        held = _hold(app, release, 8)
        try:
            key = start_evening(app.test_client())
            assert app.test_client().get(f"/e/{key}/kept").status_code == 200
        finally:
            release.set()
            for thread in held:
                thread.join()
    finally:
        _dispose(app)


# ---------------------------------------------------------------- the phone's worker asks again
from tests import test_offline as offline  # noqa: E402 - its browser, phone and helpers

browser = offline.browser


def test_the_phones_worker_asks_again_after_a_put_off_warm_up(browser: Any, tmp_path: Any,
                                                              monkeypatch: pytest.MonkeyPatch) -> None:
    """Real Chromium, service worker on: a hand saved while another page is in progress in the
    one process (NAP_WARM_BUSY 1, the default of ``nap serve``): the scoresheet's warm-up is put
    off (503), and once the other page is done the worker asks again after Retry-After and keeps
    the new hand's page and correction form for offline use."""
    from waitress.server import create_server

    from scorer.web.views import offline as views

    monkeypatch.setattr(views, "WARM_LATER", "1")  # a second, not ten: the test's wait
    app = make_app(f"sqlite:///{tmp_path / 'later.sqlite3'}", WTF_CSRF_ENABLED=True, NAP_WARM_BUSY=1)
    release = _with_slow_page(app)
    release.set()  # slow only while the test holds it
    warm_ups: list[tuple[str, int]] = []

    @app.after_request
    def seen(response: Any) -> Any:
        from flask import request

        if request.path.endswith("/kept"):
            warm_ups.append((request.full_path, response.status_code))
        return response

    port = offline.free_port()
    server = create_server(app, host="127.0.0.1", port=port, threads=4)
    threading.Thread(target=server.run, daemon=True).start()
    base = f"http://127.0.0.1:{port}"
    ctx, page = offline._phone(browser)
    held: list[threading.Thread] = []
    try:
        key = offline._start_table(page, base)
        offline._ready_offline(page, base, key)  # kept at the start (asked again if it was put off)
        held = _hold(app, release, 1)  # another page in progress while the hand is saved
        offline._quick_offline(page, "Bob", "Three", 3)
        wait_until(lambda: (f"/e/{key}/kept?last=1", 503) in warm_ups, "the warm-up was not put off")
        assert (f"/e/{key}/kept?last=1", 200) not in warm_ups
        release.set()
        for thread in held:
            thread.join()
        wanted = [f"{base}/e/{key}/hand/1", f"{base}/e/{key}/hand/1/edit"]
        offline.wait_for_promise(
            page, "wanted => " + offline.PAGES_CACHE + """.then(c => c.keys())
                 .then(keys => wanted.every(u => keys.some(k => k.url === u)))""", wanted, timeout=30)
        asked = [status for path, status in warm_ups if path == f"/e/{key}/kept?last=1"]
        assert asked[:1] == [503] and asked[-1] == 200 and len(asked) == 2
    finally:
        release.set()
        for thread in held:
            thread.join()
        ctx.close()
        server.close()
