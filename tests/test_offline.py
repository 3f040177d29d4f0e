"""Offline: no tap is ever lost (a real browser, as in test_browser.py: Playwright
driving Debian's Chromium at 390×844 against a waitress server on loopback).

The service worker (static/sw.js) keeps the table's pages; quick entry saved with no
network waits in the outbox (static/outbox-*.js, IndexedDB), survives a reload, and is
sent by itself, once and in order, when the network is back; a hand another phone
saved meanwhile is shown as "not saved", never dropped; a double tap sends once.
Skipped when Chromium is not installed, unless ``NAP_REQUIRE_BROWSER=1``.
"""

from __future__ import annotations

import os
import re
import shutil
import threading
import time
from collections.abc import Iterator
from typing import Any

import pytest
from waitress.server import create_server

from scorer.rules import HandFacts
from scorer.storage import evenings, hand_writes, units
from tests import test_browser as shared
from tests.conftest import make_app
from tests.webhelpers import PAGES_CACHE, QUEUE, free_port, wait_for_promise

# the same browser fixture as test_browser.py: the same Chromium and skip/require logic
browser = shared.browser
_phone, _start_table = shared._phone, shared._start_table


@pytest.fixture
def site(tmp_path: Any) -> Iterator[tuple[Any, str]]:
    """test_browser.py's server, closed only once its requests are answered: the service
    worker and the outbox may still have one under way when the phone is closed, and
    closing waitress under it breaks its thread."""
    app = make_app(f"sqlite:///{tmp_path / 'offline.sqlite3'}", WTF_CSRF_ENABLED=True)
    port = free_port()
    server = create_server(app, host="127.0.0.1", port=port, threads=4)

    def run() -> None:
        try:
            server.run()
        except OSError:  # the socket closed under waitress's loop at teardown (EBADF), as in test_browser.py
            pass

    thread = threading.Thread(target=run, daemon=True)
    thread.start()
    yield app, f"http://127.0.0.1:{port}"
    deadline = time.monotonic() + 10
    while time.monotonic() < deadline and (server.task_dispatcher.queue or server.task_dispatcher.active_count):
        time.sleep(0.05)
    time.sleep(0.2)
    server.close()
    thread.join(timeout=5)


def _ready_offline(page: Any, base: str, key: str, *more: str) -> None:
    """Wait until the service worker controls the page and keeps the table's
    scoresheet, quick entry, Big totals and full form (and ``more``: tails such as
    ``/undo`` or ``/hand/2/edit``)."""
    page.evaluate("navigator.serviceWorker.ready.then(() => true)")
    page.goto(f"{base}/e/{key}")  # now through the service worker: kept, and the other pages warmed
    page.wait_for_function("() => navigator.serviceWorker.controller !== null")
    wanted = [f"{base}/e/{key}{tail}" for tail in ("", "/quick", "/big", "/hand", *more)]
    wait_for_promise(
        page, "wanted => " + PAGES_CACHE + """.then(c => c.keys())
             .then(keys => wanted.every(u => keys.some(k => k.url === u)))""", wanted)


def test_the_wait_for_kept_pages_waits(browser: Any) -> None:
    """Playwright's wait_for_function takes a promise for a true value: a wait on the Cache
    API through it returned at once, and tests went offline before the page they opened
    was kept (net::ERR_FAILED under load). wait_for_promise awaits the value."""
    ctx, page = _phone(browser)
    try:
        page.set_content("<p>x</p>")
        page.wait_for_function("() => Promise.resolve(false)", timeout=2000)  # the trap: no wait at all
        with pytest.raises(TimeoutError):
            wait_for_promise(page, "() => Promise.resolve(false)", timeout=0.5)
        page.evaluate("() => { window.napPolls = 0; }")
        assert wait_for_promise(page, "n => Promise.resolve(++window.napPolls >= n)", 3, timeout=30) is True
        assert page.evaluate("window.napPolls") == 3
    finally:
        ctx.close()


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


def _folded_below_the_totals(page: Any, line: str) -> None:
    """The hands that wait are one folded line below the totals, and the totals are on the first
    screen (390×844): a tap opens the list, another folds it."""
    page.evaluate("window.scrollTo(0, 0)")
    tiles = page.locator(".totals .total")
    summary = page.locator(".outbox summary")
    assert summary.inner_text().strip() == line
    last_tile = tiles.nth(tiles.count() - 1).bounding_box()
    folded = summary.bounding_box()
    assert last_tile["y"] + last_tile["height"] <= 844, last_tile  # every tile on the first screen
    assert folded["y"] >= last_tile["y"] + last_tile["height"], (folded, last_tile)  # the line below them
    assert folded["height"] < 100, folded  # one line
    assert not page.locator(".outbox-entry").first.is_visible()
    shots = os.environ.get("NAP_SHOTS")  # a folder for screenshots of the first screen, folded and open
    if shots:
        page.screenshot(path=os.path.join(shots, f"outbox-folded-{len(line)}.png"))
    summary.click()
    assert page.locator(".outbox-entry").first.is_visible()
    if shots:
        page.screenshot(path=os.path.join(shots, f"outbox-open-{len(line)}.png"))
    summary.click()
    assert not page.locator(".outbox-entry").first.is_visible()


def _hands(app: Any, key: str) -> list[tuple[int, int | None, int | None]]:
    """(number, declarer seat, tricks) of each hand in play, from the server."""
    with app.app_context():
        evening = units.get_evening(key, fresh=True)
        assert evening is not None
        ledger = evenings.ledger_of(evening)
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
            a.locator(".outbox-entry.waiting").nth(i - 1).wait_for(state="attached", timeout=60000)
            assert _waiting(a) == i
            assert f"Hand {i} · {who} · {bid} · {tricks}" in a.locator(".outbox").text_content()
        assert _hands(app, key) == []  # nothing reached the server

        # a reload with no network: the page comes from the service worker, the outbox from IndexedDB
        a.reload()
        a.locator(".outbox-entry.waiting").nth(2).wait_for(state="attached", timeout=60000)
        assert _waiting(a) == 3
        banner = a.locator("#netstate").inner_text()
        assert re.search(r"Offline since \d\d:\d\d", banner) and "3" in banner, banner
        assert a.locator(".outbox-entry .outbox-state").first.text_content() == "waiting to send"
        assert a.locator(".tablebar .button").first.bounding_box()["height"] >= 48
        _folded_below_the_totals(a, "3 hands waiting to send")
        # Big totals too: the last known score, and the banner
        a.goto(f"{base}/e/{key}/big")
        assert a.locator(".bigtotals li").count() == 4
        a.locator("#netstate.offline").wait_for(timeout=60000)
        a.goto(f"{base}/e/{key}")
        a.locator(".outbox-entry.waiting").nth(2).wait_for(state="attached", timeout=60000)

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
            evening = units.get_evening(key, fresh=True)
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
        a.locator(".outbox-entry.waiting").first.wait_for(state="attached", timeout=60000)
        assert _waiting(a) == 1
        # meanwhile another phone records hand 1: Cat's Four, made
        with app.app_context():
            evening = units.get_evening(key)
            assert evening is not None
            hand_writes.record_hand(evening, 1, HandFacts(0, ("pass", "four", "pass", "pass"), 4))
        ctx.set_offline(False)
        refused = a.locator(".outbox-entry.refused")
        refused.wait_for(timeout=60000)
        text = refused.inner_text()
        assert "Hand 1 · Bob · Three · 3" in text and "not saved:" in text and "already been recorded" in text, text
        # beside it, the hand the server has under that number (Ann dealt; Cat's Four, 4 tricks)
        assert "Hand 1: Ann · pass, four, pass, pass · 4" in text, text
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
        a.locator(".outbox-entry.waiting").first.wait_for(state="attached", timeout=60000)
        a.wait_for_timeout(300)
        assert _waiting(a) == 1
        ctx.set_offline(False)
        a.wait_for_function("() => document.querySelectorAll('.outbox-entry').length === 0", timeout=60000)
        assert _hands(app, key) == [(1, 1, 3)]
        # online, the double tap is sent once as the JSON command too
        _quick_offline(a, "Cat", "Three", 4, double=True)
        assert "Hand 2 saved" in a.content()
        assert a.evaluate(OUTBOX_EMPTIED)
        assert _hands(app, key) == [(1, 1, 3), (2, 2, 4)]
    finally:
        ctx.close()


#: true once the outbox (IndexedDB) is empty, false if it is not within 60 s; page.evaluate
#: awaits it (wait_for_function would take the promise itself for a true value: see
#: tests.webhelpers.wait_for_promise)
OUTBOX_EMPTIED = """async () => {
  const count = () => new Promise(resolve => {
    const open = indexedDB.open("nap-outbox", 1);
    open.onsuccess = () => {
      const req = open.result.transaction("outbox").objectStore("outbox").count();
      req.onsuccess = () => { open.result.close(); resolve(req.result); };
    };
  });
  for (let i = 0; i < 600; i++) {
    if (await count() === 0) return true;
    await new Promise(resolve => setTimeout(resolve, 100));
  }
  return false;
}"""



def test_twenty_queued_hands_drain_in_order(browser: Any, site: tuple[Any, str]) -> None:
    """How long it takes is benchmarks/outbox_drain.py's to say (against online saves)."""
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
        a.evaluate(QUEUE, [f"/api/e/{key}/hands", key, 20, "bench-"])
        a.reload()
        a.locator(".outbox-entry.waiting").nth(19).wait_for(state="attached", timeout=60000)
        ctx.set_offline(False)
        a.wait_for_function("() => document.querySelectorAll('.outbox-entry').length === 0", timeout=60000)
        hands = _hands(app, key)
        assert [h[0] for h in hands] == list(range(1, 21))
        assert [h[1] for h in hands] == [i % 4 for i in range(1, 21)]
    finally:
        ctx.close()


def test_the_running_totals_chart_is_shown_offline(browser: Any, site: tuple[Any, str]) -> None:
    """Offline, the scoresheet's chart was a broken picture: it is kept like the page."""
    from scorer.rules import HandFacts
    from scorer.storage import hand_writes, units

    app, base = site
    ctx, page = _phone(browser)
    try:
        key = _start_table(page, base)
        with app.app_context():
            hand_writes.record_hand(units.get_evening(key), 1, HandFacts(0, ("three", "pass", "pass", "pass"), 3))
        _ready_offline(page, base, key)
        wait_for_promise(page, "() => " + PAGES_CACHE + """.then(c => c.keys())
                 .then(keys => keys.some(k => k.url.includes("/chart.svg")))""")
        ctx.set_offline(True)
        page.reload()
        chart = page.locator("section.chart img")
        chart.wait_for(timeout=60000)
        page.wait_for_function("img => img.complete", arg=chart.element_handle(), timeout=60000)
        assert chart.evaluate("img => img.naturalWidth") > 0
    finally:
        ctx.set_offline(False)
        ctx.close()


# --------------------------------------------------------------------------- the full form, corrections, undo
def _record(app: Any, key: str, *hands: HandFacts) -> None:
    """Hands saved by another phone (straight through the services)."""
    with app.app_context():
        for facts in hands:
            evening = units.get_evening(key)
            assert evening is not None
            hand_writes.record_hand(evening, len(evening.hands) + 1, facts)


def _entries(page: Any) -> list[str]:
    return [t.strip() for t in page.locator(".outbox-entry").all_text_contents()]


def _correct_tricks(page: Any, base: str, key: str, number: int, tricks: int) -> None:
    """The kept correction form of hand ``number``: the declarer's tricks changed, saved."""
    page.goto(f"{base}/e/{key}/hand/{number}/edit")
    page.locator(f"label.pill:has(input[name=tricks][value='{tricks}'])").click()
    page.locator("button[name=save]").first.click()
    page.wait_for_url(re.compile(r"/e/[A-Za-z0-9_-]+$"))


def test_a_correction_an_undo_and_a_hand_made_offline_arrive_once_and_in_order(
        browser: Any, site: tuple[Any, str]) -> None:
    """Offline: hand 1 corrected (Bob's Three now 2 tricks), hand 2 undone, a new hand 2
    entered. Sent in any other order the undo or the new hand would be refused."""
    app, base = site
    ctx_a, a = _phone(browser)
    ctx_b, b = _phone(browser)
    try:
        key = _start_table(a, base)
        # Ann deals, Bob (eldest) bids Three and makes it; Bob deals, Cat (eldest) bids Three and makes it
        _record(app, key, HandFacts(0, ("three", "pass", "pass", "pass"), 3),
                HandFacts(1, ("three", "pass", "pass", "pass"), 3))
        _ready_offline(a, base, key, "/undo", "/hand/2", "/hand/2/edit")
        a.goto(f"{base}/e/{key}/hand/1/edit")  # an older hand's form is kept once it was opened
        ctx_a.set_offline(True)
        a.goto(f"{base}/e/{key}")
        a.locator("#netstate.offline").wait_for(timeout=60000)

        _correct_tricks(a, base, key, 1, 2)
        a.locator(".outbox-entry.waiting").first.wait_for(state="attached", timeout=60000)
        _correct_tricks(a, base, key, 1, 1)  # again, from the same kept form: based on what the first saves
        a.locator(".outbox-entry.waiting").nth(1).wait_for(state="attached", timeout=60000)
        a.click("a:has-text('Undo last hand')")
        assert "Undo hand 2?" in a.locator("h1").inner_text()
        a.click("button:has-text('Undo hand 2')")
        a.wait_for_url(re.compile(r"/e/[A-Za-z0-9_-]+$"))
        a.locator(".outbox-entry.waiting").nth(2).wait_for(state="attached", timeout=60000)
        _quick_offline(a, "Dan", "Four", 4)  # after the undo that waits, it is hand 2 again
        a.locator(".outbox-entry.waiting").nth(3).wait_for(state="attached", timeout=60000)
        assert _entries(a) == ["Correct hand 1 · Bob · Three · 2 — waiting to send",
                               "Correct hand 1 · Bob · Three · 1 — waiting to send",
                               "Undo hand 2 — waiting to send",
                               "Hand 2 · Dan · Four · 4 — waiting to send"]
        assert _hands(app, key) == [(1, 1, 3), (2, 2, 3)]  # nothing reached the server

        ctx_a.set_offline(False)
        a.wait_for_function("() => document.querySelectorAll('.outbox-entry').length === 0", timeout=60000)
        # hand 1: Bob's Three defeated (1 trick), 3 to each other player (P-12); hand 2 now Bob
        # deals, Dan bids Four and makes it, 4 from each other player (P-12)
        assert _hands(app, key) == [(1, 1, 1), (2, 3, 4)]
        with app.app_context():
            evening = units.get_evening(key, fresh=True)
            assert evening is not None
            assert [[v.version for v in h.versions] for h in evening.hands] == [[1, 2, 3], [1]]  # each sent once
            assert [v.facts["tricks"] for v in evening.hands[0].versions] == [3, 2, 1]  # in the order typed
        b.goto(f"{base}/e/{key}")
        totals = {n: b.locator(f".total:has-text('{n}') .pts").inner_text() for n in ("Ann", "Bob", "Cat", "Dan")}
        assert totals == {"Ann": "−1", "Bob": "−13", "Cat": "−1", "Dan": "+15"}, totals
        assert b.locator("#hand-3").count() == 0
    finally:
        ctx_a.close()
        ctx_b.close()


def test_a_queued_correction_another_phone_beat_is_shown_with_the_servers_version(
        browser: Any, site: tuple[Any, str]) -> None:
    app, base = site
    ctx, a = _phone(browser)
    try:
        key = _start_table(a, base)
        _record(app, key, HandFacts(0, ("three", "pass", "pass", "pass"), 3))
        _ready_offline(a, base, key, "/hand/1/edit")
        ctx.set_offline(True)
        _correct_tricks(a, base, key, 1, 2)
        a.locator(".outbox-entry.waiting").first.wait_for(state="attached", timeout=60000)
        # meanwhile another phone corrects hand 1: Bob won 4 tricks
        with app.app_context():
            evening = units.get_evening(key)
            assert evening is not None
            hand_writes.correct_hand(evening, 1, 1, HandFacts(0, ("three", "pass", "pass", "pass"), 4))
        ctx.set_offline(False)
        refused = a.locator(".outbox-entry.refused")
        refused.wait_for(timeout=60000)
        text = refused.inner_text()
        assert "Correct hand 1 · Bob · Three · 2" in text and "not saved:" in text, text
        assert "corrected on another phone" in text, text
        assert "on the server now, version 2: Hand 1: Ann · three, pass, pass, pass · 4" in text, text
        assert refused.locator("a").get_attribute("href").endswith(f"/e/{key}/hand/1")
        with app.app_context():
            evening = units.get_evening(key, fresh=True)
            assert evening is not None and [v.version for v in evening.hands[0].versions] == [1, 2]
        assert _hands(app, key) == [(1, 1, 4)]
        a.reload()  # kept until the table dismisses it
        a.locator(".outbox-entry.refused").wait_for(timeout=60000)
    finally:
        ctx.close()


def test_a_new_version_of_the_worker_keeps_the_correction_form_kept_for_offline(
        browser: Any, site: tuple[Any, str], tmp_path: Any) -> None:
    """A deploy changes the static files: a new worker takes over and deletes the old
    version's caches. What they kept is carried into its own first: with no network
    right after, the correction form of hand 1 is still there (it was net::ERR_FAILED)."""
    app, base = site
    static = tmp_path / "static"
    shutil.copytree(app.static_folder, static)
    app.static_folder = str(static)
    ctx, a = _phone(browser)
    try:
        key = _start_table(a, base)
        _record(app, key, HandFacts(0, ("three", "pass", "pass", "pass"), 3))
        _ready_offline(a, base, key, "/hand/1/edit")
        old = a.evaluate("caches.keys().then(names => names.filter(n => n.startsWith('nap-')))")
        assert len(old) == 2, old
        (static / "sw.js").write_text((static / "sw.js").read_text(encoding="utf-8") + "\n// a deploy\n",
                                      encoding="utf-8")
        a.evaluate("navigator.serviceWorker.getRegistration().then(r => r.update()).then(() => true)")
        # the new worker has taken over once the old version's caches are gone
        wait_for_promise(a, "old => caches.keys().then(names => names.some(n => n.startsWith('nap-static-'))"
                            " && !names.some(n => old.includes(n)))", old)
        ctx.set_offline(True)
        a.goto(f"{base}/e/{key}/hand/1/edit")
        assert a.locator("label.pill:has(input[name=tricks][value='2'])").count() == 1
        assert a.locator("button[name=save]").count() >= 1
    finally:
        ctx.set_offline(False)
        ctx.close()


GAP_WATCH = """() => {
  window.napGap = false;
  window.napWatch = setInterval(() => {
    const row = document.querySelector(".outbox-entry[data-number='2']");
    if (!row && !document.getElementById("hand-2")) window.napGap = true;
  }, 10);
}"""


def test_the_full_form_with_a_claim_offline_follows_the_hands_that_wait(browser: Any, site: tuple[Any, str]) -> None:
    """Offline, after a quick hand 1 (Ann deals): the full form is hand 2, Bob deals; Cat
    bids Three, makes 3, but her revoke is upheld: the hand is scored as defeated (P-16).
    The scoresheet's next-dealer line follows the hands that wait; once sent, the greyed
    row stays until the fresh scoresheet shows the hand."""
    app, base = site
    ctx, a = _phone(browser)
    try:
        key = _start_table(a, base)
        _ready_offline(a, base, key)
        ctx.set_offline(True)
        a.goto(f"{base}/e/{key}")
        assert a.locator(".status p.next").inner_text() == "Hand 1: Ann deals, Bob is eldest hand."
        _quick_offline(a, "Bob", "Three", 3)
        a.locator(".outbox-entry.waiting").first.wait_for(state="attached", timeout=60000)
        assert a.locator(".status p.next").inner_text() == "Hand 2: Bob deals, Cat is eldest hand."
        a.goto(f"{base}/e/{key}/quick")  # the kept quick entry was made for hand 1, Ann dealing
        a.locator("h1:has-text('Hand 2')").wait_for(timeout=60000)
        assert a.locator("[data-dealer-line]").inner_text() == "Bob deals · Cat is eldest hand"

        a.goto(f"{base}/e/{key}/hand")
        a.locator("h1:has-text('Hand 2')").wait_for(timeout=60000)
        assert a.locator("input[name=dealer][value='1']").is_checked()  # Bob deals hand 2
        a.locator(".call:has(span.label:has-text('Cat')) label.pill:has(input[value=three])").click()
        a.locator("label.pill:has(input[name=tricks][value='3'])").click()
        a.locator("details.more summary:has-text('A claim')").click()
        a.locator("label.pill:has(input[name=claim_kind][value='revoke'])").click()
        a.locator("label.pill:has(input[name=claim_accused][value='2'])").click()
        a.locator("label.pill:has(input[name=claim_by][value='3'])").click()
        a.click("button:has-text('Save hand 2 with the claim')")
        a.wait_for_url(re.compile(r"/e/[A-Za-z0-9_-]+$"))
        a.locator(".outbox-entry.waiting").nth(1).wait_for(state="attached", timeout=60000)
        assert _entries(a) == ["Hand 1 · Bob · Three · 3 — waiting to send",
                               "Hand 2 · Cat · Three · 3 · ⚑ Revoke — waiting to send"]
        assert a.locator(".status p.next").inner_text() == "Hand 3: Cat deals, Dan is eldest hand."
        assert a.locator("#record-hand").inner_text() == "Record hand 3"

        a.evaluate(GAP_WATCH)
        ctx.set_offline(False)
        a.locator("#hand-2").wait_for(timeout=60000)
        a.wait_for_function("() => document.querySelectorAll('.outbox-entry').length === 0", timeout=60000)
        assert a.evaluate("() => { clearInterval(window.napWatch); return window.napGap; }") is False
        assert _hands(app, key) == [(1, 1, 3), (2, 2, 3)]
        # Bob's Three made: +9, the others −3; Cat's Three with her revoke upheld: −9, the others +3
        totals = {n: a.locator(f".total:has-text('{n}') .pts").inner_text() for n in ("Ann", "Bob", "Cat", "Dan")}
        assert totals == {"Ann": "0", "Bob": "+12", "Cat": "−12", "Dan": "0"}, totals
        assert a.locator(".status p.next").inner_text() == "Hand 3: Cat deals, Dan is eldest hand."
    finally:
        ctx.close()


def test_online_the_full_form_a_correction_and_undo_are_each_saved_once_through_the_outbox(
        browser: Any, site: tuple[Any, str]) -> None:
    """Online, the full form, a correction and undo are each sent once as their JSON
    command and kept in the outbox only until the answer; the page then goes on as the
    form's post does (tests/test_browser_js.py counts the POSTs)."""
    app, base = site
    ctx, a = _phone(browser)
    try:
        key = _start_table(a, base)
        _record(app, key, HandFacts(0, ("three", "pass", "pass", "pass"), 3))
        _ready_offline(a, base, key)
        a.goto(f"{base}/e/{key}/hand/1/edit")
        a.locator("label.pill:has(input[name=tricks][value='2'])").click()
        a.locator("button[name=save]").first.click()
        a.wait_for_url(re.compile(r"/hand/1$"))
        assert "Hand 1 corrected" in a.content()
        assert a.evaluate(OUTBOX_EMPTIED)

        a.goto(f"{base}/e/{key}/hand")
        a.locator(".call:has(span.label:has-text('Cat')) label.pill:has(input[value=three])").click()
        a.locator("label.pill:has(input[name=tricks][value='3'])").click()
        a.click("button:has-text('Save hand 2')")
        a.wait_for_url(re.compile(r"/e/[A-Za-z0-9_-]+(#hand-\d+)?$"))
        assert a.evaluate(OUTBOX_EMPTIED)
        assert _hands(app, key) == [(1, 1, 2), (2, 2, 3)]

        a.click("a:has-text('Undo last hand')")
        a.click("button:has-text('Undo hand 2')")
        a.wait_for_url(re.compile(r"/e/[A-Za-z0-9_-]+$"))
        assert "Hand 2 is undone" in a.content()
        assert a.evaluate(OUTBOX_EMPTIED)
        assert a.locator(".outbox-entry").count() == 0
        assert _hands(app, key) == [(1, 1, 2)]  # one undo: hand 1 stays
        with app.app_context():
            evening = units.get_evening(key, fresh=True)
            assert evening is not None
            assert [[v.version for v in h.versions] for h in evening.hands] == [[1, 2]]
    finally:
        ctx.close()


def test_undo_offline_takes_back_a_hand_that_waits(browser: Any, site: tuple[Any, str]) -> None:
    """The last hand is one that waits on this phone: undo takes it out of the outbox
    (it was never sent), and nothing reaches the server."""
    app, base = site
    ctx, a = _phone(browser)
    try:
        key = _start_table(a, base)
        _record(app, key, HandFacts(0, ("three", "pass", "pass", "pass"), 3))
        _ready_offline(a, base, key, "/undo")
        ctx.set_offline(True)
        _quick_offline(a, "Cat", "Four", 4)
        a.locator(".outbox-entry.waiting").first.wait_for(state="attached", timeout=60000)
        a.click("a:has-text('Undo last hand')")
        a.locator("h1:has-text('Undo hand 2?')").wait_for(timeout=60000)
        assert a.locator("[data-undo-what]").inner_text() == "Cat · Four · 4"
        a.click("button:has-text('Undo hand 2')")
        a.wait_for_url(re.compile(r"/e/[A-Za-z0-9_-]+$"))
        assert "Hand 2 is taken back: it had not been sent yet." in a.content()
        assert a.evaluate(OUTBOX_EMPTIED)
        assert a.locator("#record-hand").inner_text() == "Record hand 2"
        ctx.set_offline(False)
        a.locator("#netstate.online").wait_for(timeout=60000)
        assert _hands(app, key) == [(1, 1, 3)]
    finally:
        ctx.close()


IPHONE_SAFARI = ("Mozilla/5.0 (iPhone; CPU iPhone OS 17_5 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) "
                 "Version/17.5 Mobile/15E148 Safari/604.1")


def test_safari_on_an_iphone_is_told_once_how_to_keep_the_app_and_may_dismiss_it(
        browser: Any, site: tuple[Any, str]) -> None:
    """A scorer's page in Safari on an iPhone says how to add the app to the Home Screen (Safari
    deletes a site's storage after 7 days unused unless installed); dismissed, it is not said
    again; not opened from the Home Screen (navigator.standalone) only; never to a viewer, nor
    in another browser."""
    app, base = site
    ctx, a = _phone(browser, user_agent=IPHONE_SAFARI)
    ctx_home, home = _phone(browser, user_agent=IPHONE_SAFARI)
    ctx_home.add_init_script("Object.defineProperty(navigator, 'standalone', { value: true })")
    ctx_other, other = _phone(browser)  # Chromium's own user agent
    ctx_viewer, viewer = _phone(browser, user_agent=IPHONE_SAFARI)
    try:
        key = _start_table(a, base)
        note = a.locator(".ios-install")
        note.wait_for(timeout=60000)
        assert note.inner_text().startswith("On an iPhone or iPad, Safari deletes what this site keeps")
        assert "Add to Home Screen" in note.inner_text()
        assert a.locator(".ios-install").count() == 1
        # not in the way of the score: the totals are still on the first screen
        tiles = a.locator(".totals .total")
        last = tiles.nth(tiles.count() - 1).bounding_box()
        assert last["y"] + last["height"] <= 844, last
        if os.environ.get("NAP_SHOTS"):
            a.screenshot(path=os.path.join(os.environ["NAP_SHOTS"], "ios-install.png"))
        note.locator("button").click()
        assert a.locator(".ios-install").count() == 0
        a.reload()
        a.locator(".totals").wait_for(timeout=60000)
        a.wait_for_timeout(500)  # the module has run (it shows the line at once when it does)
        assert a.locator(".ios-install").count() == 0  # dismissed: not said again on this phone

        # a scorer on an iPhone opened from the Home Screen, and one in Chromium: not said
        for page in (home, other):
            _start_table(page, base)
            page.locator(".totals").wait_for(timeout=60000)
            assert page.locator("script[src*='/static/ios-install.']").count() == 1  # a scorer's page
            page.wait_for_timeout(500)
            assert page.locator(".ios-install").count() == 0
        # a viewer of the first table, in Safari on an iPhone: nothing
        viewer.goto(f"{base}/e/{key}")
        viewer.locator(".totals").wait_for(timeout=60000)
        assert viewer.locator("script[src*='/static/ios-install.']").count() == 0
        assert viewer.locator(".ios-install").count() == 0
    finally:
        for c in (ctx, ctx_home, ctx_other, ctx_viewer):
            c.close()
