"""Offline, a phone that cannot keep the hand says so at the tap (issue 21, item 8).

IndexedDB may refuse the outbox's write (storage full, private mode). Then nothing can
wait on this phone: the save is sent once directly; with no network either, the form
stays exactly as typed with a "Not saved" alert (never the scoresheet, as if the hand
were queued), and a tap once the network is back saves it once. A real browser, as in
tests/test_offline.py; IndexedDB is made to refuse by an init script that replaces
``indexedDB.open`` with one that fails. Skipped when Chromium is not installed, unless
``NAP_REQUIRE_BROWSER=1``.
"""

from __future__ import annotations

import re
from typing import Any

from scorer.rules import HandFacts
from scorer.storage import units
from tests import test_offline as offline

browser, site = offline.browser, offline.site
_phone, _start_table = offline._phone, offline._start_table
_ready_offline, _hands = offline._ready_offline, offline._hands

#: every page from now on: IndexedDB refuses to open (as Firefox's private mode did, or a
#: full disk); the real one stays reachable as window.napRealOpen, to look into the outbox
REFUSE_IDB = """(() => {
  const real = IDBFactory.prototype.open;
  window.napRealOpen = (name, version) => real.call(indexedDB, name, version);
  IDBFactory.prototype.open = function () {
    const req = { result: undefined, error: null, readyState: "pending",
                  onsuccess: null, onerror: null, onupgradeneeded: null, onblocked: null };
    setTimeout(() => {
      req.error = new DOMException("The quota has been exceeded.", "QuotaExceededError");
      req.readyState = "done";
      if (req.onerror) req.onerror({ target: req });
    }, 0);
    return req;
  };
})();"""

#: how many commands the real outbox holds (0 when it was never made)
OUTBOX_COUNT = """() => new Promise(resolve => {
  const open = window.napRealOpen("nap-outbox", 1);
  open.onupgradeneeded = () => open.result.createObjectStore("outbox", {keyPath: "id", autoIncrement: true});
  open.onsuccess = () => {
    const req = open.result.transaction("outbox").objectStore("outbox").count();
    req.onsuccess = () => { open.result.close(); resolve(req.result); };
  };
})"""


def _typed(page: Any) -> dict[str, str | None]:
    return page.evaluate("""() => ({
      declarer: (document.querySelector("input[name=declarer]:checked") || {}).value || null,
      contract: (document.querySelector("input[name=contract]:checked") || {}).value || null })""")


def test_a_tap_the_phone_cannot_keep_offline_says_so_and_keeps_the_form(browser: Any, site: tuple[Any, str]) -> None:
    app, base = site
    ctx, a = _phone(browser)
    try:
        key = _start_table(a, base)
        _ready_offline(a, base, key)
        ctx.add_init_script(REFUSE_IDB)
        ctx.set_offline(True)
        a.goto(f"{base}/e/{key}/quick")  # the kept copy, from the service worker
        a.locator("h1:has-text('Hand 1')").wait_for(timeout=60000)
        a.locator("fieldset").nth(0).locator("label.pill:has-text('Bob')").click()
        a.locator("fieldset").nth(1).locator("label.pill:has-text('Three')").click()
        typed = _typed(a)
        assert typed["declarer"] is not None and typed["contract"] == "three", typed
        a.locator("button[name=tricks][value='3']").click()

        alert = a.locator("form .outbox-error[role=alert]")
        alert.wait_for(timeout=60000)
        assert alert.inner_text() == ("Not saved: this phone could not keep the hand, and the server could not be "
                                      "reached. It is still here as typed: tap save again once the network is back.")
        a.wait_for_timeout(500)  # nothing goes anywhere meanwhile
        assert re.search(r"/e/[A-Za-z0-9_-]+/quick$", a.url), a.url  # not the scoresheet as if it waited
        assert _typed(a) == typed  # what was typed is still on the form
        assert a.locator(".outbox-entry").count() == 0
        assert a.evaluate(OUTBOX_COUNT) == 0  # nothing queued
        assert _hands(app, key) == []

        # the network is back: the same tap saves it, once
        ctx.set_offline(False)
        a.locator("button[name=tricks][value='3']").click()
        a.wait_for_url(re.compile(r"/e/[A-Za-z0-9_-]+(#hand-\d+)?$"), timeout=60000)
        assert "Hand 1 saved" in a.content()
        assert _hands(app, key) == [(1, 1, 3)]
        with app.app_context():
            evening = units.get_evening(key, fresh=True)
            assert evening is not None and [len(h.versions) for h in evening.hands] == [1]
        assert a.evaluate(OUTBOX_COUNT) == 0
    finally:
        ctx.close()


#: the quick form posted as it is without JavaScript (or as the page falls back to): Bob, Three, 3 tricks
NATIVE_POST = """() => {
  const form = document.querySelector("form[data-outbox]");
  form.querySelectorAll("fieldset")[0].querySelectorAll("input")[1].checked = true;
  form.querySelector("input[name=contract][value=three]").checked = true;
  const tricks = document.createElement("input");
  tricks.type = "hidden"; tricks.name = "tricks"; tricks.value = "3";
  form.appendChild(tricks);
  HTMLFormElement.prototype.submit.call(form);
}"""

#: a JSON command sent with no network: [status, body]
API_POST = """(api) => fetch(api, {method: "POST", headers: {"Content-Type": "application/json",
    "Accept": "application/json"}, body: JSON.stringify({number: 1, facts: {misdeal: true}, token: "sw-1"})})
  .then(r => r.json().then(body => [r.status, body]))"""


def test_offline_the_worker_answers_a_write_it_cannot_keep_not_saved_in_the_tables_language(
        browser: Any, site: tuple[Any, str]) -> None:
    """A write (POST) the network does not take: the worker never shows a kept page as if
    it were saved. A form's post gets its "Not saved" page, a JSON command 503
    {"kept": false}; a Russian phone's worker says it in Russian (/sw.js?lang=ru)."""
    app, base = site
    ctx, a = _phone(browser)
    ctx_ru = browser.new_context(viewport=offline.shared.PHONE, locale="ru-RU")
    ru = ctx_ru.new_page()
    try:
        keys = []
        for context, page, lang in ((ctx, a, "en"), (ctx_ru, ru, "ru")):
            key = _start_table(page, base)  # each phone its own table: quick entry is the table's phones'
            keys.append(key)
            _ready_offline(page, base, key)
            assert page.evaluate("() => navigator.serviceWorker.controller.scriptURL").endswith(f"/sw.js?lang={lang}")
            context.set_offline(True)
            page.goto(f"{base}/e/{key}/quick")
            page.locator("form[data-outbox]").wait_for(timeout=60000)

            status, body = page.evaluate(API_POST, f"/api/e/{key}/hands")
            assert status == 503 and body["kept"] is False and body["error"]["code"] == "offline", body
            assert body["error"]["message"] == {
                "en": "Not saved: there is no network, and this phone kept nothing. "
                      "Send it again once the network is back.",
                "ru": "Не сохранено: нет сети, и этот телефон ничего не сохранил у себя. "
                      "Отправьте ещё раз, когда сеть появится."}[lang]

            page.evaluate(NATIVE_POST)
            title = {"en": "Not saved", "ru": "Не сохранено"}[lang]
            page.locator(f"h1:has-text('{title}')").wait_for(timeout=60000)
            assert page.locator("[role=alert]").inner_text().startswith(
                {"en": "There is no network", "ru": "Нет сети"}[lang])
            assert page.locator(".outbox, .totals, #record-hand").count() == 0  # not the scoresheet, as if kept
            back = page.locator("a.button")
            assert back.inner_text() == {"en": "Back to the form", "ru": "Вернуться к форме"}[lang]
            back.click()
            page.locator("form[data-outbox]").wait_for(timeout=60000)
            assert re.search(r"/quick$", page.url), page.url
            context.set_offline(False)
        assert [_hands(app, key) for key in keys] == [[], []]  # nothing was saved, by either phone
    finally:
        ctx.close()
        ctx_ru.close()


def test_the_full_form_and_undo_the_phone_cannot_keep_offline_say_so_and_stay(
        browser: Any, site: tuple[Any, str]) -> None:
    """The same for the full form (a new hand: Cat's Three, 3 tricks, as typed) and the
    undo page: each stays where it was, with its "Not saved" / "Not undone" alert."""
    app, base = site
    ctx, a = _phone(browser)
    try:
        key = _start_table(a, base)
        offline._record(app, key, HandFacts(0, ("three", "pass", "pass", "pass"), 3))
        _ready_offline(a, base, key, "/undo")
        ctx.add_init_script(REFUSE_IDB)
        ctx.set_offline(True)

        a.goto(f"{base}/e/{key}/hand")
        a.locator("h1:has-text('Hand 2')").wait_for(timeout=60000)
        a.locator(".call:has(span.label:has-text('Cat')) label.pill:has(input[value=three])").click()
        a.locator("label.pill:has(input[name=tricks][value='3'])").click()
        a.click("button:has-text('Save hand 2')")
        alert = a.locator("form .outbox-error[role=alert]")
        alert.wait_for(timeout=60000)
        assert alert.inner_text().startswith("Not saved: this phone could not keep the hand")
        assert re.search(r"/e/[A-Za-z0-9_-]+/hand$", a.url), a.url
        assert a.locator("input[name=tricks][value='3']").is_checked()
        assert a.locator(".call:has(span.label:has-text('Cat')) input[value=three]").is_checked()

        a.goto(f"{base}/e/{key}/undo")
        a.click("button:has-text('Undo hand 1')")
        alert = a.locator("form .outbox-error[role=alert]")
        alert.wait_for(timeout=60000)
        assert alert.inner_text() == ("Not undone: this phone could not keep the undo, and the server could not "
                                      "be reached. Tap again once the network is back.")
        assert re.search(r"/undo$", a.url), a.url
        assert a.locator("button:has-text('Undo hand 1')").is_enabled()
        assert a.evaluate(OUTBOX_COUNT) == 0
        assert _hands(app, key) == [(1, 1, 3)]
    finally:
        ctx.close()
