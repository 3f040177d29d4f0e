"""The phone's engine in Chromium: a scorer's phone offline settles the hands that wait with the
server's engine (Pyodide in a worker, static/phone.js) and shows them marked provisional; once the
network is back and the hands are in, the server's totals are the same.

Skipped without Chromium unless NAP_REQUIRE_BROWSER=1, and without Pyodide (./scripts/setup)
unless NAP_REQUIRE_NODE=1."""

from __future__ import annotations

import os
import re
from pathlib import Path
from typing import Any

import pytest

from scorer.rules import HandFacts
from tests import test_browser as shared
from tests.test_offline import (  # noqa: F401  (site: a fixture)
    _folded_below_the_totals,
    _hands,
    _quick_offline,
    _ready_offline,
    _record,
    site,
)

browser = shared.browser
_phone, _start_table = shared._phone, shared._start_table
PYODIDE = Path(__file__).resolve().parent.parent / "static" / "vendor" / "pyodide" / "pyodide.asm.wasm"
SHOTS = os.environ.get("NAP_SHOTS")  # a folder for the screenshot of the provisional state


@pytest.fixture(autouse=True)
def _pyodide_there() -> None:
    if not PYODIDE.is_file():
        if os.environ.get("NAP_REQUIRE_NODE") == "1":
            pytest.fail("Pyodide is not under static/vendor/pyodide and NAP_REQUIRE_NODE=1")
        pytest.skip("Pyodide is not under static/vendor/pyodide (./scripts/setup puts it there)")


def _totals(page: Any) -> list[str]:
    return [t.strip() for t in page.locator(".totals .total:not(.pool) .pts").all_inner_texts()]


def test_an_evening_played_offline_is_settled_provisionally_as_the_server_settles_it(
        browser: Any, site: tuple[Any, str]) -> None:  # noqa: F811
    app, base = site
    ctx, a = _phone(browser)
    logs: list[str] = []
    a.on("console", lambda m: logs.append(m.text))
    try:
        key = _start_table(a, base)
        _ready_offline(a, base, key)
        # a first outage finds no engine kept (nothing was fetched for it): hands only wait
        ctx.set_offline(True)
        a.locator("#netstate.offline").wait_for(timeout=60000)
        ctx.set_offline(False)
        a.locator("#netstate.online").wait_for(timeout=60000)
        # back online, the phone that lost the network keeps the evening and starts the engine
        try:
            a.locator("html[data-engine=ready]").wait_for(state="attached", timeout=180000)
        except Exception:
            print("console:", logs[-30:])
            raise

        ctx.set_offline(True)
        a.locator("#netstate.offline").wait_for(timeout=60000)
        _quick_offline(a, "Bob", "Three", 3)  # Bob makes Three: +3 from each (P-6)
        _quick_offline(a, "Cat", "Four", 2)  # Cat fails Four: pays 4 to each
        a.locator(".outbox-entry.waiting").nth(1).wait_for(state="attached", timeout=60000)
        a.reload()  # the scoresheet as the service worker kept it, the engine started again from its cache
        try:
            a.locator(".totals.provisional").wait_for(timeout=180000)
        except Exception:
            print("console:", logs[-30:])  # what the engine said
            raise
        provisional = _totals(a)
        assert provisional == ["+1", "+13", "\u221215", "+1"], provisional
        assert a.locator(".provisional-note").inner_text().startswith("Provisional")
        rulings = a.locator(".outbox-entry .provisional-ruling").all_text_contents()
        assert len(rulings) == 2 and rulings[0].startswith("provisional: Ann \u22123, Bob +9"), rulings
        _folded_below_the_totals(a, "2 hands waiting · provisional")
        if SHOTS:
            a.screenshot(path=str(Path(SHOTS) / "provisional.png"), full_page=True)
        assert _hands(app, key) == []  # nothing reached the server

        ctx.set_offline(False)
        a.wait_for_function("() => document.querySelectorAll('.outbox-entry').length === 0", timeout=60000)
        a.wait_for_function("() => !document.querySelector('.totals.provisional')", timeout=60000)
        assert _hands(app, key) == [(1, 1, 3), (2, 2, 2)]
        a.reload()
        assert _totals(a) == provisional  # the server's totals, as the phone had them
    finally:
        ctx.close()


def test_without_webassembly_a_scorer_is_as_before_and_a_viewer_never_loads_the_engine(
        browser: Any, site: tuple[Any, str]) -> None:  # noqa: F811
    app, base = site
    ctx, a = _phone(browser)
    ctx.add_init_script("delete globalThis.WebAssembly")
    ctx_b, b = _phone(browser)
    count_persist = """if (navigator.storage) {
      navigator.storage.persisted = () => Promise.resolve(false);
      navigator.storage.persist = () => {
        window.__persist = (window.__persist || 0) + 1;
        return Promise.resolve(true);
      };
    }"""
    ctx.add_init_script(count_persist)
    ctx_b.add_init_script(count_persist)
    asked: list[str] = []
    for context in (ctx, ctx_b):
        context.on("request", lambda r: asked.append(r.url))
    try:
        key = _start_table(a, base)
        _ready_offline(a, base, key)
        for offline in (True, False, True):  # lost, back, lost again: with WebAssembly the engine would start
            ctx.set_offline(offline)
            a.locator("#netstate.offline" if offline else "#netstate.online").wait_for(timeout=60000)
        _quick_offline(a, "Bob", "Three", 3)
        a.locator(".outbox-entry.waiting").first.wait_for(state="attached", timeout=60000)
        assert a.locator(".outbox-entry .outbox-state").first.text_content() == "waiting to send"
        assert a.locator(".totals.provisional, .provisional-ruling, .provisional-note").count() == 0
        # said once, above the totals
        assert a.locator(".later-note").all_inner_texts() == ["Rulings will come when the network is back."]
        assert a.locator("html[data-engine]").count() == 0
        b.goto(f"{base}/e/{key}")  # a viewer: the page has no phone.js at all
        assert b.locator("script[src*='/static/phone.']").count() == 0
        assert a.locator("script[src*='/static/phone.']").count() == 1  # (the scorer's page has it)
        # the scorer's phone asks to keep its storage (navigator.storage.persist), the viewer's never
        a.wait_for_function("() => window.__persist === 1", timeout=30000)
        assert b.evaluate("window.__persist || 0") == 0
        ctx.set_offline(False)
        a.wait_for_function("() => document.querySelectorAll('.outbox-entry').length === 0", timeout=60000)
        assert _hands(app, key) == [(1, 1, 3)]
        assert a.locator(".later-note").count() == 0
        assert not [u for u in asked if "/static/vendor/pyodide/" in u or "/engine/" in u]
    finally:
        ctx.close()
        ctx_b.close()


def _engine_ready_offline(ctx: Any, a: Any, base: str, key: str, logs: list[str]) -> None:
    """A phone that lost the network once (a first outage has no engine) and is back: it keeps the
    evening and starts the engine; then the network drops again."""
    _ready_offline(a, base, key)
    ctx.set_offline(True)
    a.locator("#netstate.offline").wait_for(timeout=60000)
    ctx.set_offline(False)
    a.locator("#netstate.online").wait_for(timeout=60000)
    try:
        a.locator("html[data-engine=ready]").wait_for(state="attached", timeout=180000)
        a.wait_for_function(f"() => localStorage.getItem('nap.evening.{key}')", timeout=60000)
    except Exception:
        print("console:", logs[-30:])
        raise
    ctx.set_offline(True)
    a.locator("#netstate.offline").wait_for(timeout=60000)


def _tap_in_place(a: Any, declarer: int, contract: str, tricks: int) -> None:
    """Quick entry by seat and bid id (words-free: the page may be in any language)."""
    a.click("#record-hand")
    a.wait_for_url(re.compile(r"/quick$"))
    a.locator(f"label.pill:has(input[name=declarer][value='{declarer}'])").click()
    a.locator(f"label.pill:has(input[name=contract][value='{contract}'])").click()
    a.locator(f"button[name=tricks][value='{tricks}']").click()


def test_offline_a_refused_hand_is_refused_at_the_tap_in_the_servers_words_and_the_engine_serves_every_tap(
        browser: Any, site: tuple[Any, str]) -> None:  # noqa: F811
    """Item 3 and the tap's budget: offline, quick entry opens in the scoresheet's own page (no new
    page: the worker started once serves every tap); a Wellington with no Nap before it is refused
    at the tap with the rule and the server's own Russian words, and nothing is kept; a good hand
    then shows provisional totals at once."""
    app, base = site
    ctx = browser.new_context(viewport=shared.PHONE, locale="ru-RU")
    a = ctx.new_page()
    logs: list[str] = []
    a.on("console", lambda m: logs.append(m.text))
    try:
        key = _start_table(a, base)
        assert a.evaluate("document.documentElement.lang") == "ru"
        _engine_ready_offline(ctx, a, base, key, logs)
        a.evaluate("window.__samePage = 'yes'")
        # quick entry in place, and its "← evening" link back to the scoresheet kept aside
        a.click("#record-hand")
        a.wait_for_url(re.compile(r"/quick$"))
        a.locator(f"main a[href='/e/{key}']").first.click()
        a.wait_for_url(re.compile(r"/e/[A-Za-z0-9_-]+$"))
        a.locator("#record-hand").wait_for()
        assert a.evaluate("window.__samePage") == "yes"
        # Bob (seat 1) speaks first after Ann deals: nobody bid Nap before his Wellington (P-7)
        _tap_in_place(a, 1, "wellington", 5)
        error = a.locator("form.quick .outbox-error")
        error.wait_for(timeout=30000)
        assert error.inner_text() == ("не сохранено: Bob: заявка «Веллингтон», но «Веллингтон» можно заявить только "
                                      "после чьей-то заявки «Нап». (P-7)")
        if SHOTS:
            a.screenshot(path=str(Path(SHOTS) / "refused-at-the-tap.png"))
        assert a.evaluate("window.__samePage") == "yes"  # the same page: quick entry in place
        assert a.locator(".outbox-entry").count() == 0
        assert a.evaluate("""() => new Promise(ok => { const r = indexedDB.open('nap-outbox');
            r.onsuccess = () => { const db = r.result; const names = Array.from(db.objectStoreNames);
              if (!names.length) { ok(0); return; }
              const c = db.transaction(names[0]).objectStore(names[0]).count(); c.onsuccess = () => ok(c.result); };
            r.onerror = () => ok(-1); })""") == 0  # nothing kept
        # a good hand, tapped on the same form: the provisional totals at once, on the same page
        a.locator("label.pill:has(input[name=contract][value='three'])").click()
        a.locator("button[name=tricks][value='3']").click()
        a.wait_for_url(re.compile(r"/e/[A-Za-z0-9_-]+$"))
        a.locator(".totals.provisional").wait_for(timeout=60000)
        assert _totals(a) == ["\u22123", "+9", "\u22123", "\u22123"]  # Bob made Three: 3 from each (P-6)
        assert a.evaluate("window.__samePage") == "yes"
        # a second hand, the same worker: Cat fails Four, pays 4 to each
        _tap_in_place(a, 2, "four", 2)
        a.wait_for_url(re.compile(r"/e/[A-Za-z0-9_-]+$"))
        a.wait_for_function("() => document.querySelectorAll('.outbox-entry[data-kind=hand]').length === 2")
        a.wait_for_function("() => [...document.querySelectorAll('.totals .total:not(.pool) .pts')]"
                            ".map(e => e.textContent.trim()).join(' ') === '+1 +13 \u221215 +1'", timeout=60000)
        assert a.evaluate("window.__samePage") == "yes"
        assert _hands(app, key) == []
        assert a.locator("#record-hand").inner_text() == "Записать сдачу 3"  # after the two that wait
        if SHOTS:
            a.evaluate("window.scrollTo(0, 0)")
            a.screenshot(path=str(Path(SHOTS) / "provisional-in-place.png"))
        # the server says the same words of the refused hand (online, the JSON command)
        ctx.set_offline(False)
        a.wait_for_function("() => document.querySelectorAll('.outbox-entry').length === 0", timeout=60000)
        assert _hands(app, key) == [(1, 1, 3), (2, 2, 2)]
        said = a.evaluate("""key => fetch('/api/e/' + key + '/hands', {method: 'POST', credentials: 'same-origin',
            headers: {'Content-Type': 'application/json', Accept: 'application/json'},
            body: JSON.stringify({number: 3, token: 'w-3', facts: {lone_bid: {declarer: 'Ann', contract: 'wellington'},
                                  tricks: 5}})}).then(r => r.json())""", key)
        assert said["error"]["rule"] == "P-7"
        assert said["error"]["message"].startswith("Ann: заявка «Веллингтон», но «Веллингтон» можно заявить только")
    finally:
        ctx.close()


def test_the_phone_says_once_when_the_servers_ruling_differs_from_its_own(
        browser: Any, site: tuple[Any, str]) -> None:  # noqa: F811
    """The "differs" line: the server's totals, once it has every hand the phone ruled on, are not
    the provisional ones (here another phone's hand reached the server first, so the waiting hand
    came after it): the server's stand, the phone says so in one line and posts both to
    /api/e/<key>/differs."""
    app, base = site
    ctx, a = _phone(browser)
    logs: list[str] = []
    a.on("console", lambda m: logs.append(m.text))
    posted: list[str] = []
    a.on("request", lambda r: posted.append(r.url) if r.method == "POST" and r.url.endswith("/differs") else None)
    try:
        key = _start_table(a, base)
        _engine_ready_offline(ctx, a, base, key, logs)
        _tap_in_place(a, 1, "three", 3)  # Bob makes Three: provisionally −3 +9 −3 −3
        a.locator(".totals.provisional").wait_for(timeout=60000)
        assert _totals(a) == ["\u22123", "+9", "\u22123", "\u22123"]
        # meanwhile, on the server (another scorer's phone), Dan goes home before hand 1: the phone's
        # kept evening still seats him, so its ruling shares Bob's Three among four, the server's
        # among three (Bob +6, Ann −3, Cat −3, Dan 0)
        with app.app_context():
            from scorer.storage.commands import ChangeSeats, Saved, execute

            assert isinstance(execute(ChangeSeats(key, "leave", seat=3)), Saved)
        ctx.set_offline(False)
        note = a.locator(".differs-note")
        note.wait_for(timeout=60000)
        assert note.all_inner_texts() == ["The server ruled differently from this phone: the server’s ruling stands."]
        a.wait_for_function("() => !document.querySelector('.totals.provisional')", timeout=60000)
        a.wait_for_function("() => [...document.querySelectorAll('.totals .total:not(.pool) .pts')]"
                            ".map(e => e.textContent.trim()).join(' ') === '−3 +6 −3 0'", timeout=60000)
        for _ in range(100):  # the report is posted just after the line is shown
            if posted:
                break
            a.wait_for_timeout(100)
        assert len(posted) == 1  # both rulings told to the server, once
        assert _hands(app, key) == [(1, 1, 3)]
    finally:
        ctx.close()


def test_with_webassembly_switched_off_in_chromium_the_phone_is_as_before(
        browser: Any, site: tuple[Any, str]) -> None:  # noqa: F811
    """Item 4 with V8's own switch: --js-flags=--jitless (no WebAssembly object at all; this
    Chromium keeps WebAssembly under --js-flags=--noexpose_wasm, which Blink exposes again): the
    phone fetches nothing of the engine, quick entry is its own page as before, the hand waits
    ("waiting to send"), the phone says once that rulings come with the network, and entry is
    never blocked; back online, the hand is delivered."""
    app, base = site
    no_wasm = browser.browser_type.launch(executable_path=shared.CHROMIUM,
                                          args=[*shared.ARGS, "--js-flags=--jitless"])
    try:
        ctx, a = _phone(no_wasm)
        asked: list[str] = []
        ctx.on("request", lambda r: asked.append(r.url))
        key = _start_table(a, base)
        assert a.evaluate("typeof WebAssembly") == "undefined"
        _ready_offline(a, base, key)
        for offline in (True, False, True):  # lost, back, lost again: with WebAssembly the engine would start
            ctx.set_offline(offline)
            a.locator("#netstate.offline" if offline else "#netstate.online").wait_for(timeout=60000)
        a.evaluate("window.__samePage = 'yes'")
        _quick_offline(a, "Bob", "Three", 3)
        assert a.evaluate("window.__samePage || 'new'") == "new"  # quick entry was its own page, as before
        _quick_offline(a, "Cat", "Four", 2)
        a.locator(".outbox-entry.waiting").nth(1).wait_for(state="attached", timeout=60000)
        assert a.locator(".outbox-entry .outbox-state").all_text_contents() == ["waiting to send"] * 2
        assert a.locator(".totals.provisional, .provisional-ruling, .provisional-note").count() == 0
        assert a.locator(".later-note").all_inner_texts() == ["Rulings will come when the network is back."]
        assert a.locator("html[data-engine]").count() == 0
        ctx.set_offline(False)
        a.wait_for_function("() => document.querySelectorAll('.outbox-entry').length === 0", timeout=60000)
        assert _hands(app, key) == [(1, 1, 3), (2, 2, 2)]
        assert a.locator(".later-note").count() == 0
        assert not [u for u in asked if "/static/vendor/pyodide/" in u or "/engine/" in u]
        ctx.close()
    finally:
        no_wasm.close()


def test_a_worker_that_never_answers_leaves_the_phone_as_before(browser: Any, site: tuple[Any, str]) -> None:  # noqa: F811
    """Item 4: a worker that starts but never answers (its script here swallows every message) is a
    slow engine: the tap is not blocked past a few seconds, the hand waits as before, and the phone
    says once that rulings will come when the network is back."""
    app, base = site
    ctx, a = _phone(browser)
    ctx.route("**/static/engine/worker*.js", lambda route: route.fulfill(
        status=200, content_type="text/javascript",
        body="self.onmessage = (e) => { if (e.data && e.data.id === 0) self.postMessage({id: 0, ready: true}); };"))
    try:
        key = _start_table(a, base)
        _ready_offline(a, base, key)
        ctx.set_offline(True)
        a.locator("#netstate.offline").wait_for(timeout=60000)
        ctx.set_offline(False)
        a.locator("#netstate.online").wait_for(timeout=60000)
        a.locator("html[data-engine=ready]").wait_for(state="attached", timeout=60000)
        a.wait_for_function(f"() => localStorage.getItem('nap.evening.{key}')", timeout=60000)
        ctx.set_offline(True)
        a.locator("#netstate.offline").wait_for(timeout=60000)
        _tap_in_place(a, 1, "three", 3)  # the check at the tap is never answered: given up, the hand kept
        a.wait_for_url(re.compile(r"/e/[A-Za-z0-9_-]+$"), timeout=30000)
        a.locator(".outbox-entry.waiting").first.wait_for(state="attached", timeout=60000)
        assert a.locator(".outbox-entry .outbox-state").all_text_contents() == ["waiting to send"]
        assert a.locator(".later-note").all_inner_texts() == ["Rulings will come when the network is back."]
        assert a.locator(".totals.provisional").count() == 0
        ctx.set_offline(False)
        a.wait_for_function("() => document.querySelectorAll('.outbox-entry').length === 0", timeout=60000)
        assert _hands(app, key) == [(1, 1, 3)]
    finally:
        ctx.close()


REFUSED_WELLINGTON = {  # the server's words (scorer/evening/said.py): the rule's message, "not saved", the rule id
    "ru-RU": ("не сохранено: Bob: заявка «Веллингтон», но «Веллингтон» можно заявить только после чьей-то заявки "
              "«Нап». (P-7)"),
    "nb-NO": "ikke lagret: Bob meldte Wellington, men Wellington kan bare meldes etter at noen har meldt Nap. (P-7)",
}


@pytest.mark.parametrize("locale", sorted(REFUSED_WELLINGTON))
def test_offline_a_correction_the_rules_refuse_is_refused_at_the_tap_and_an_accepted_one_moves_the_totals(
        browser: Any, site: tuple[Any, str], locale: str) -> None:  # noqa: F811
    """Issue 24 item 3 for a correction: offline, with the engine running on the scoresheet, the
    hand's page and its correction form open in the scoresheet's own page; hand 1 corrected to a
    Wellington nobody bid Nap before is refused at the tap in the server's words and the page's
    language, and nothing is kept; corrected to Bob failing his Three, it waits and the totals
    show it at once, provisionally; back online the server's totals are those."""
    app, base = site
    ctx = browser.new_context(viewport=shared.PHONE, locale=locale)
    a = ctx.new_page()
    logs: list[str] = []
    a.on("console", lambda m: logs.append(m.text))
    try:
        key = _start_table(a, base)
        # hand 1 on the server: Ann deals, Bob (eldest) bids Three and makes it: −3 +9 −3 −3 (P-6)
        _record(app, key, HandFacts(0, ("three", "pass", "pass", "pass"), 3))
        _ready_offline(a, base, key, "/hand/1", "/hand/1/edit")
        _engine_ready_offline(ctx, a, base, key, logs)
        assert _totals(a) == ["\u22123", "+9", "\u22123", "\u22123"]
        a.evaluate("window.__samePage = 'yes'")
        a.locator(f"a[href='/e/{key}/hand/1']").first.click()  # the hand's page, in place
        a.wait_for_url(re.compile(r"/hand/1$"))
        a.locator(f"main a[href='/e/{key}/hand/1/edit']").click()  # "Correct this hand", in place
        a.wait_for_url(re.compile(r"/hand/1/edit$"))
        try:
            a.locator("form[data-full-form][data-in-place]").wait_for(timeout=20000)
        except Exception:
            print("console:", logs[-30:])
            raise
        # Bob speaks first: nobody bid Nap before his Wellington (P-7)
        a.locator("label.pill:has(input[name=call_1][value=wellington])").click()
        a.locator("label.pill:has(input[name=tricks][value='5'])").click()
        a.locator("button[name=save]").first.click()
        error = a.locator("form[data-full-form] .outbox-error")
        try:
            error.wait_for(timeout=30000)
        except Exception:
            print("console:", logs[-30:])
            raise
        assert error.inner_text() == REFUSED_WELLINGTON[locale]
        if SHOTS:
            a.screenshot(path=str(Path(SHOTS) / f"correction-refused-{locale}.png"))
        assert a.evaluate("window.__samePage") == "yes"
        assert a.locator(".outbox-entry").count() == 0
        assert a.evaluate("""() => new Promise(ok => { const r = indexedDB.open('nap-outbox');
            r.onsuccess = () => { const db = r.result; const names = Array.from(db.objectStoreNames);
              if (!names.length) { ok(0); return; }
              const c = db.transaction(names[0]).objectStore(names[0]).count(); c.onsuccess = () => ok(c.result); };
            r.onerror = () => ok(-1); })""") == 0  # nothing kept
        # corrected on the same form: Bob's Three with 2 tricks, defeated: he pays 3 to each (P-6)
        a.locator("label.pill:has(input[name=call_1][value=three])").click()
        a.locator("label.pill:has(input[name=tricks][value='2'])").click()
        a.locator("button[name=save]").first.click()
        a.wait_for_url(re.compile(r"/e/[A-Za-z0-9_-]+$"))
        a.locator(".totals.provisional").wait_for(timeout=60000)
        assert _totals(a) == ["+3", "\u22129", "+3", "+3"]
        assert a.evaluate("window.__samePage") == "yes"
        assert a.locator(".outbox-entry[data-kind=correct][data-number='1'] .provisional-ruling").count() == 1
        assert _hands(app, key) == [(1, 1, 3)]  # nothing reached the server
        if SHOTS:
            a.evaluate("window.scrollTo(0, 0)")
            a.screenshot(path=str(Path(SHOTS) / f"correction-provisional-{locale}.png"))
        ctx.set_offline(False)
        a.wait_for_function("() => document.querySelectorAll('.outbox-entry').length === 0", timeout=60000)
        a.wait_for_function("() => !document.querySelector('.totals.provisional')", timeout=60000)
        assert _hands(app, key) == [(1, 1, 2)]
        a.reload()
        assert _totals(a) == ["+3", "\u22129", "+3", "+3"]  # the server's, as the phone had them
    finally:
        ctx.close()
