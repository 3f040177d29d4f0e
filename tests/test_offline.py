"""Offline: no tap is ever lost (a real browser, as in test_browser.py: Playwright
driving Debian's Chromium at 390×844 against a waitress server on loopback).

The service worker (static/sw.js) keeps the table's pages; quick entry saved with no
network waits in the outbox (static/outbox.js, IndexedDB), survives a reload, and is
sent by itself, once and in order, when the network is back; a hand another phone
saved meanwhile is shown as "not saved", never dropped; a double tap sends once.
Skipped when Chromium is not installed, unless ``NAP_REQUIRE_BROWSER=1``.
"""

from __future__ import annotations

import re
import socket
import threading
import time
from collections.abc import Iterator
from typing import Any

import pytest
from waitress.server import create_server

from scorer import services
from scorer.rules import HandFacts
from tests import test_browser as shared
from tests.conftest import make_app

# the same browser fixture as test_browser.py: the same Chromium and skip/require logic
browser = shared.browser
_phone, _start_table = shared._phone, shared._start_table


@pytest.fixture
def site(tmp_path: Any) -> Iterator[tuple[Any, str]]:
    """test_browser.py's server, closed only once its requests are answered: the service
    worker and the outbox may still have one under way when the phone is closed, and
    closing waitress under it breaks its thread."""
    app = make_app(f"sqlite:///{tmp_path / 'offline.sqlite3'}", WTF_CSRF_ENABLED=True)
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    server = create_server(app, host="127.0.0.1", port=port, threads=4)
    threading.Thread(target=server.run, daemon=True).start()
    yield app, f"http://127.0.0.1:{port}"
    deadline = time.monotonic() + 10
    while time.monotonic() < deadline and (server.task_dispatcher.queue or server.task_dispatcher.active_count):
        time.sleep(0.05)
    time.sleep(0.2)
    server.close()


def _ready_offline(page: Any, base: str, key: str) -> None:
    """Wait until the service worker controls the page and keeps the table's
    scoresheet, quick entry and Big totals."""
    page.evaluate("navigator.serviceWorker.ready.then(() => true)")
    page.goto(f"{base}/e/{key}")  # now through the service worker: kept, and quick/big warmed
    page.wait_for_function("() => navigator.serviceWorker.controller !== null")
    wanted = [f"{base}/e/{key}", f"{base}/e/{key}/quick", f"{base}/e/{key}/big"]
    page.wait_for_function(
        """wanted => caches.open("nap-pages-v1").then(c => c.keys())
             .then(keys => wanted.every(u => keys.some(k => k.url === u)))""", arg=wanted, timeout=60000)


def _quick_offline(page: Any, who: str, bid: str, tricks: int, *, double: bool = False) -> None:
    page.click("#record-hand")
    page.wait_for_url(re.compile(r"/quick$"))
    page.locator("fieldset").nth(0).locator(f"label.pill:has-text('{who}')").click()
    page.locator("fieldset").nth(1).locator(f"label.pill:has-text('{bid}')").click()
    button = page.locator(f"button[name=tricks][value='{tricks}']")
    if double:
        button.dblclick()
    else:
        button.click()
    page.wait_for_url(re.compile(r"/e/[A-Za-z0-9_-]+(#hand-\d+)?$"))


def _waiting(page: Any) -> int:
    return page.locator(".outbox-entry.waiting, .outbox-entry.sending").count()


def _hands(app: Any, key: str) -> list[tuple[int, int | None, int | None]]:
    """(number, declarer seat, tricks) of each hand in play, from the server."""
    with app.app_context():
        evening = services.get_evening(key, fresh=True)
        assert evening is not None
        ledger = services.ledger_of(evening)
        return [(row.number, row.ruling.declarer, row.ruling.tricks) for row in ledger.rows]


def test_three_hands_offline_survive_a_reload_and_arrive_once_in_order(browser: Any, site: tuple[Any, str]) -> None:
    app, base = site
    ctx_a, a = _phone(browser)
    ctx_b, b = _phone(browser)
    try:
        key = _start_table(a, base)
        _ready_offline(a, base, key)
        ctx_a.set_offline(True)
        a.locator("#netstate.offline").wait_for(timeout=60000)
        entered = [("Bob", "Three", 3), ("Cat", "Three", 4), ("Dan", "Four", 2)]
        for i, (who, bid, tricks) in enumerate(entered, start=1):
            _quick_offline(a, who, bid, tricks)
            a.locator(".outbox-entry.waiting").nth(i - 1).wait_for(timeout=60000)
            assert _waiting(a) == i
            assert f"Hand {i} · {who} · {bid} · {tricks}" in a.locator(".outbox").inner_text()
        assert _hands(app, key) == []  # nothing reached the server

        # a reload with no network: the page comes from the service worker, the outbox from IndexedDB
        a.reload()
        a.locator(".outbox-entry.waiting").nth(2).wait_for(timeout=60000)
        assert _waiting(a) == 3
        banner = a.locator("#netstate").inner_text()
        assert re.search(r"Offline since \d\d:\d\d", banner) and "3" in banner, banner
        assert a.locator(".outbox-entry .outbox-state").first.inner_text() == "waiting to send"
        assert a.locator(".tablebar .button").first.bounding_box()["height"] >= 48
        # Big totals too: the last known score, and the banner
        a.goto(f"{base}/e/{key}/big")
        assert a.locator(".bigtotals li").count() == 4
        a.locator("#netstate.offline").wait_for(timeout=60000)
        a.goto(f"{base}/e/{key}")
        a.locator(".outbox-entry.waiting").nth(2).wait_for(timeout=60000)

        # back online: all three are sent by themselves, once and in order
        ctx_a.set_offline(False)
        a.wait_for_function("() => document.querySelectorAll('.outbox-entry').length === 0", timeout=60000)
        assert _hands(app, key) == [(1, 1, 3), (2, 2, 4), (3, 3, 2)]
        a.locator("#netstate.online").wait_for(timeout=60000)

        # a second phone sees them
        b.goto(f"{base}/e/{key}")
        for n in (1, 2, 3):
            assert b.locator(f"#hand-{n}").count() == 1
        with app.app_context():
            evening = services.get_evening(key, fresh=True)
            assert evening is not None and len(evening.hands) == 3
            assert [len(h.versions) for h in evening.hands] == [1, 1, 1]  # each saved once
    finally:
        ctx_a.close()
        ctx_b.close()


def test_a_queued_hand_another_phone_saved_first_is_shown_not_dropped(browser: Any, site: tuple[Any, str]) -> None:
    app, base = site
    ctx, a = _phone(browser)
    try:
        key = _start_table(a, base)
        _ready_offline(a, base, key)
        ctx.set_offline(True)
        _quick_offline(a, "Bob", "Three", 3)
        a.locator(".outbox-entry.waiting").first.wait_for(timeout=60000)
        assert _waiting(a) == 1
        # meanwhile another phone records hand 1: Cat's Four, made
        with app.app_context():
            evening = services.get_evening(key)
            assert evening is not None
            services.record_hand(evening, 1, HandFacts(0, ("pass", "four", "pass", "pass"), 4))
        ctx.set_offline(False)
        refused = a.locator(".outbox-entry.refused")
        refused.wait_for(timeout=60000)
        text = refused.inner_text()
        assert "Hand 1 · Bob · Three · 3" in text and "not saved:" in text and "already been recorded" in text, text
        # the server's version is on the sheet (the live part follows the table)
        a.locator(".total:has-text('Cat') .pts").filter(has_text="+12").wait_for(timeout=60000)
        assert _hands(app, key) == [(1, 2, 4)]
        # kept after a reload, until the table dismisses it
        a.reload()
        a.locator(".outbox-entry.refused").wait_for(timeout=60000)
        dismiss = a.locator(".outbox-entry.refused button")
        assert dismiss.bounding_box()["height"] >= 48
        dismiss.click()
        a.wait_for_function("() => document.querySelectorAll('.outbox-entry').length === 0", timeout=60000)
    finally:
        ctx.close()


def test_a_double_tap_offline_sends_once(browser: Any, site: tuple[Any, str]) -> None:
    app, base = site
    ctx, a = _phone(browser)
    try:
        key = _start_table(a, base)
        _ready_offline(a, base, key)
        ctx.set_offline(True)
        _quick_offline(a, "Bob", "Three", 3, double=True)
        a.locator(".outbox-entry.waiting").first.wait_for(timeout=60000)
        a.wait_for_timeout(300)
        assert _waiting(a) == 1
        ctx.set_offline(False)
        a.wait_for_function("() => document.querySelectorAll('.outbox-entry').length === 0", timeout=60000)
        assert _hands(app, key) == [(1, 1, 3)]
        # online, the form posts as always; its backup in the outbox (the same token) saves nothing twice
        _quick_offline(a, "Cat", "Three", 4, double=True)
        assert "Hand 2 saved" in a.content()
        a.wait_for_function(COUNT_IS_ZERO, timeout=60000)
        assert _hands(app, key) == [(1, 1, 3), (2, 2, 4)]
    finally:
        ctx.close()


COUNT_IS_ZERO = """() => new Promise(resolve => {
  const open = indexedDB.open("nap-outbox", 1);
  open.onsuccess = () => {
    const req = open.result.transaction("outbox").objectStore("outbox").count();
    req.onsuccess = () => { open.result.close(); resolve(req.result === 0); };
  };
})"""

QUEUE = """([api, table, n]) => new Promise((resolve, reject) => {
  const open = indexedDB.open("nap-outbox", 1);
  open.onupgradeneeded = () => open.result.createObjectStore("outbox", {keyPath: "id", autoIncrement: true});
  open.onsuccess = () => {
    const tx = open.result.transaction("outbox", "readwrite");
    const players = ["Ann", "Bob", "Cat", "Dan"];
    for (let i = 1; i <= n; i++) {
      tx.objectStore("outbox").add({table, api, number: i, token: "bench-" + i, state: "waiting", at: Date.now(),
        facts: {lone_bid: {declarer: players[i % 4], contract: "three"}, tricks: 3}, label: "bench " + i});
    }
    tx.oncomplete = () => { open.result.close(); resolve(true); };
    tx.onerror = () => reject(tx.error);
  };
})"""


def test_twenty_queued_hands_drain_in_order_and_how_long_it_takes(browser: Any, site: tuple[Any, str],
                                                                  capsys: Any) -> None:
    app, base = site
    ctx, a = _phone(browser)
    try:
        a.goto(f"{base}/new/pagat")
        for i, name in enumerate(("Ann", "Bob", "Cat", "Dan")):
            a.fill(f"input[name='players-{i}']", name)
        a.fill("input[name='opt_hands_per_dealer']", "5")  # 20 hands to the agreed end
        a.locator("form button[type=submit]").last.click()
        a.wait_for_url(re.compile(r"/e/[A-Za-z0-9_-]+$"))
        key = a.url.rsplit("/", 1)[-1]
        _ready_offline(a, base, key)
        ctx.set_offline(True)
        a.evaluate(QUEUE, [f"/api/e/{key}/hands", key, 20])
        a.reload()
        a.locator(".outbox-entry.waiting").nth(19).wait_for(timeout=60000)
        started = time.perf_counter()
        ctx.set_offline(False)
        a.wait_for_function("() => document.querySelectorAll('.outbox-entry').length === 0", timeout=60000)
        took = time.perf_counter() - started
        hands = _hands(app, key)
        assert [h[0] for h in hands] == list(range(1, 21))
        assert [h[1] for h in hands] == [i % 4 for i in range(1, 21)]
        with capsys.disabled():  # shown in every run's output
            print(f"\noutbox drain: 20 queued hands sent and saved in {took * 1000:.0f} ms "
                  f"({took * 1000 / 20:.1f} ms a hand)")
    finally:
        ctx.close()


def test_the_running_totals_chart_is_shown_offline(browser: Any, site: tuple[Any, str]) -> None:
    """Offline, the scoresheet's chart was a broken picture: it is kept like the page."""
    from scorer import services
    from scorer.rules import HandFacts

    app, base = site
    ctx, page = _phone(browser)
    try:
        key = _start_table(page, base)
        with app.app_context():
            services.record_hand(services.get_evening(key), 1, HandFacts(0, ("three", "pass", "pass", "pass"), 3))
        _ready_offline(page, base, key)
        page.wait_for_function(
            """() => caches.open("nap-pages-v1").then(c => c.keys())
                 .then(keys => keys.some(k => k.url.includes("/chart.svg")))""", timeout=60000)
        ctx.set_offline(True)
        page.reload()
        chart = page.locator("section.chart img")
        chart.wait_for(timeout=60000)
        page.wait_for_function("img => img.complete", arg=chart.element_handle(), timeout=60000)
        assert chart.evaluate("img => img.naturalWidth") > 0
    finally:
        ctx.set_offline(False)
        ctx.close()
