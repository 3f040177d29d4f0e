"""The phone's engine in Chromium: a scorer's phone offline settles the hands that wait with the
server's engine (Pyodide in a worker, static/phone.js) and shows them marked provisional; once the
network is back and the hands are in, the server's totals are the same.

Skipped without Chromium unless NAP_REQUIRE_BROWSER=1, and without Pyodide (./scripts/setup)
unless NAP_REQUIRE_NODE=1."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import pytest

from tests import test_browser as shared
from tests.test_offline import _folded_below_the_totals, _hands, _quick_offline, _ready_offline, site  # noqa: F401  (fixture)

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
