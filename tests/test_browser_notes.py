"""Notes and the one-tap rematch in a real browser at 390×844 (issue 25 items 7 and 8): a
note typed in the full form goes with its JSON hand; a finished evening's scorer taps
Rematch once and is on the new evening; another phone on the finished evening is told
"Rematch started → open it" by the live update, without reloading, and opens it, still
a scorer. Skipped without Chromium, as tests/test_browser.py."""

from __future__ import annotations

import re
from typing import Any

import sqlalchemy as sa

from scorer.rules import HandFacts
from scorer.storage import hand_writes, units
from scorer.storage.models import Evening, db
from tests.test_browser import _phone, _start_table, browser, site  # noqa: F401 - the fixtures

__all__ = ["browser", "site"]


def test_one_tap_rematch_and_the_other_phone_is_told(browser: Any, site: tuple[Any, str]) -> None:  # noqa: F811
    app, base = site
    ctx_a, a = _phone(browser)
    ctx_b, b = _phone(browser)
    try:
        key = _start_table(a, base)
        with app.app_context():
            evening = units.get_evening(key)
            assert evening is not None
            # Ann deals, Bob (eldest) bids Three and makes it: Bob +9 (P-12); Bob deals next
            hand_writes.record_hand(evening, 1, HandFacts(0, ("three", "pass", "pass", "pass"), 3))
            edit_key = db.session.scalar(sa.select(Evening.edit_key).where(Evening.key == key))
        b.goto(f"{base}/e/{key}/scorer/{edit_key}")  # B scores at the table too
        b.wait_for_url(f"{base}/e/{key}")

        a.goto(f"{base}/e/{key}")
        a.click("text=Finish evening…")
        a.click("text=Yes, finish the evening")
        a.wait_for_url(f"{base}/e/{key}")
        button = a.locator("#rematch")
        box = button.bounding_box()
        assert box is not None and box["height"] >= 44 and box["width"] >= 44
        assert a.locator("form.rematch + p.help").inner_text() == (
            "The same players, seats, rules and stake; Bob deals first.")
        sent: list[str] = []
        a.on("request", lambda r: sent.append(f"{r.method} {r.url[len(base):]}") if r.method == "POST" else None)

        button.click()  # one tap
        a.wait_for_url(lambda url: bool(re.search(r"/e/[A-Za-z0-9_-]+$", url)) and not url.endswith(f"/e/{key}"))
        new_key = a.url.rsplit("/", 1)[-1]
        assert new_key != key
        assert sent == [f"POST /api/e/{key}/rematch"]  # the JSON command, once
        assert a.locator(".total .who").all_inner_texts() == ["Ann", "Bob", "Cat", "Dan"]
        assert a.locator(".status .next").inner_text().startswith("Hand 1: Bob deals")
        assert a.locator("#record-hand").is_visible()
        assert a.locator(".flash").first.inner_text() == "Rematch started: the same players, a new evening. Good luck!"

        # B, still on the finished evening, is told without reloading (live.js), and opens it
        b.locator("#open-rematch").wait_for(timeout=60000)
        assert "Rematch started" in b.locator(".rematch").inner_text()
        assert b.locator("#rematch").count() == 0
        b.click("#open-rematch")
        b.wait_for_url(f"{base}/e/{new_key}")
        assert b.locator("#record-hand").is_visible()  # a scorer of the old table scores the new one
        with app.app_context():
            assert db.session.scalar(sa.select(sa.func.count()).select_from(Evening)) == 2
    finally:
        ctx_a.close()
        ctx_b.close()


def test_a_note_typed_in_the_full_form_goes_with_the_json_hand(browser: Any, site: tuple[Any, str]) -> None:  # noqa: F811
    """With JavaScript the full form sends one JSON command (static/fullform.js, rules.factsOf):
    the note goes in the hand's facts, cleaned as the server cleans it, and the scoresheet
    shows it under the hand."""
    app, base = site
    ctx, page = _phone(browser)
    try:
        key = _start_table(page, base)
        page.goto(f"{base}/e/{key}/hand")
        sent: list[str] = []
        page.on("request", lambda r: sent.append(f"{r.method} {r.url[len(base):]}") if r.method == "POST" else None)
        page.locator("label.pill:has(input[name=call_1][value=three])").click()  # Bob, eldest, bids Three
        page.locator("label.pill:has(input[name=tricks][value='3'])").click()
        page.click("#note-part summary")
        page.fill("#note-part input[name=note]", "Bob's cards\twere marked")
        page.locator("#note-part button[type=submit]").click()
        page.wait_for_url(f"{base}/e/{key}")
        assert sent == [f"POST /api/e/{key}/hands"]
        page.locator("#hand-1 tr.note").wait_for()
        assert page.locator("#hand-1 tr.note").inner_text() == "Bob's cards were marked"
        assert page.locator(".total:has-text('Bob') .pts").inner_text() == "+9"
        with app.app_context():
            evening = units.get_evening(key)
            assert evening is not None and evening.hands[0].current.facts["note"] == "Bob's cards were marked"
    finally:
        ctx.close()
