"""The browser's modules in a real browser (Playwright driving Debian's Chromium at
390×844, as tests/test_browser.py): online, recording, correcting and undoing a hand
each send exactly one POST (the JSON command; the form post is only the path without
JavaScript), and a correction with a revoke claim saves the same facts offline as
online (the claim's card picker, its evidence and the evidence's trick included).
Skipped when Chromium is not installed, unless ``NAP_REQUIRE_BROWSER=1``.
"""

from __future__ import annotations

import re
import threading
import time
from collections.abc import Iterator
from typing import Any

import pytest
from waitress.server import create_server

from scorer.evening.codec import encode_hand
from scorer.rules import HandFacts
from scorer.storage import evenings, units
from tests import test_browser as shared
from tests import test_offline as offline
from tests.conftest import make_app
from tests.webhelpers import free_port

browser = shared.browser
_phone, _start_table = shared._phone, shared._start_table


@pytest.fixture
def site(tmp_path: Any) -> Iterator[tuple[Any, str, list[str]]]:
    """A waitress server as in test_offline.py, and the list of the POSTs it received
    (method and path), in order."""
    app = make_app(f"sqlite:///{tmp_path / 'js.sqlite3'}", WTF_CSRF_ENABLED=True)
    received: list[str] = []
    inner = app.wsgi_app

    def counting(environ: dict[str, Any], start_response: Any) -> Any:
        if environ["REQUEST_METHOD"] == "POST":
            received.append(f"POST {environ['PATH_INFO']}")
        return inner(environ, start_response)

    app.wsgi_app = counting  # type: ignore[method-assign]
    port = free_port()
    server = create_server(app, host="127.0.0.1", port=port, threads=4)
    threading.Thread(target=server.run, daemon=True).start()
    yield app, f"http://127.0.0.1:{port}", received
    deadline = time.monotonic() + 10
    while time.monotonic() < deadline and (server.task_dispatcher.queue or server.task_dispatcher.active_count):
        time.sleep(0.05)
    time.sleep(0.2)
    server.close()


def _settled(page: Any) -> None:
    """The outbox is empty (a command kept until its answer, or a backup copy, is sent and
    forgotten) and the page has nothing more under way."""
    assert page.evaluate(offline.OUTBOX_EMPTIED)
    page.wait_for_load_state("networkidle")


def test_online_a_hand_a_correction_and_an_undo_each_send_exactly_one_post(
        browser: Any, site: tuple[Any, str, list[str]]) -> None:
    app, base, received = site
    ctx, a = _phone(browser)
    posts: list[str] = []
    a.on("request", lambda r: posts.append(f"POST {r.url.removeprefix(base)}") if r.method == "POST" else None)
    try:
        key = _start_table(a, base)
        _settled(a)

        # record: quick entry, Bob bids Three and makes 3
        posts.clear()
        received.clear()
        a.click("#record-hand")
        a.wait_for_url(re.compile(r"/quick$"))
        a.locator("fieldset").nth(0).locator("label.pill:has-text('Bob')").click()
        a.locator("fieldset").nth(1).locator("label.pill:has-text('Three')").click()
        a.locator("button[name=tricks][value='3']").click()
        a.locator(".flash.saved:has-text('Hand 1 saved')").wait_for(timeout=60000)
        assert a.url == f"{base}/e/{key}"
        _settled(a)
        recorded = (list(posts), list(received))

        # correct: 2 tricks instead of 3
        posts.clear()
        received.clear()
        a.goto(f"{base}/e/{key}/hand/1/edit")
        a.locator("label.pill:has(input[name=tricks][value='2'])").click()
        a.locator("button[name=save]").first.click()
        a.wait_for_url(re.compile(r"/hand/1$"))
        a.locator(".flash:has-text('Hand 1 corrected')").wait_for(timeout=60000)
        _settled(a)
        corrected = (list(posts), list(received))

        # undo: from the confirmation page
        posts.clear()
        received.clear()
        a.goto(f"{base}/e/{key}/undo")
        a.click("button:has-text('Undo hand 1')")
        a.locator(".flash:has-text('Hand 1 is undone')").wait_for(timeout=60000)
        assert a.url == f"{base}/e/{key}"
        _settled(a)
        undone = (list(posts), list(received))

        assert recorded == ([f"POST /api/e/{key}/hands"], [f"POST /api/e/{key}/hands"])
        with app.app_context():
            evening = units.get_evening(key, fresh=True)
            assert evening is not None and len(evening.hands) == 0  # undone: out of play
        assert len(corrected[0]) == 1 and len(corrected[1]) == 1, corrected
        assert re.fullmatch(rf"POST /api/e/{key}/hands/\d+/versions", corrected[1][0]), corrected
        assert undone == ([f"POST /api/e/{key}/undo"], [f"POST /api/e/{key}/undo"])
    finally:
        ctx.close()


#: the claim both corrections enter: Cat (seat 2) revoked in trick 1, playing 2♥ when
#: hearts were led; the 5♠ she showed in trick 3 proves it; upheld
def _enter_revoke(page: Any) -> None:
    page.locator("details.more summary:has-text('A claim')").click()
    for name, value in (("claim_kind", "revoke"), ("claim_accused", "2"), ("claim_by", "3"), ("claim_trick", "1"),
                        ("claim_suit", "H"), ("claim_card_suit", "H"), ("claim_card_rank", "2"),
                        ("claim_evidence_trick", "3"), ("claim_evidence_suit", "S"), ("claim_evidence_rank", "5"),
                        ("claim_upheld", "yes")):
        page.locator(f"label.pill:has(input[name={name}][value='{value}'])").click()
    page.locator("button[name=save]").last.click()


def test_a_revoke_claim_in_a_correction_saves_the_same_facts_offline_as_online(
        browser: Any, site: tuple[Any, str, list[str]]) -> None:
    app, base, _ = site
    ctx, a = _phone(browser)
    try:
        key = _start_table(a, base)
        offline._record(app, key, HandFacts(0, ("three", "pass", "pass", "pass"), 3),
                        HandFacts(1, ("pass", "three", "pass", "pass"), 3))
        offline._ready_offline(a, base, key, "/hand/2/edit")

        a.goto(f"{base}/e/{key}/hand/1/edit")  # online
        _enter_revoke(a)
        a.wait_for_url(re.compile(r"/hand/1$"))

        ctx.set_offline(True)
        a.goto(f"{base}/e/{key}/hand/2/edit")  # the kept correction form
        _enter_revoke(a)
        a.wait_for_url(re.compile(r"/e/[A-Za-z0-9_-]+$"))
        a.locator(".outbox-entry.waiting").first.wait_for(state="attached", timeout=60000)
        ctx.set_offline(False)
        assert a.evaluate(offline.OUTBOX_EMPTIED)

        with app.app_context():
            evening = units.get_evening(key, fresh=True)
            assert evening is not None
            ledger = evenings.ledger_of(evening)
            names = ledger.setup.players
            claims = [encode_hand(row.facts, names).get("claims") for row in ledger.rows]
            versions = [h.current.version for h in evening.hands]
        want = [{"kind": "revoke", "accused": "Cat", "upheld": True, "by": "Dan", "trick": 1, "suit_led": "H",
                 "card": "2H", "evidence": "5S", "evidence_trick": 3}]
        assert claims == [want, want]
        assert versions == [2, 2]
    finally:
        ctx.close()
