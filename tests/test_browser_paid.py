"""Money after the night in a real browser at 390×844 (issue 22 item 7): a scorer's phone
opens Payments under the settle-up, reads why each payment is owed, marks one paid with one
tap and takes it back; a player's phone, from the player's own link, marks its own payment;
the text of the result card is copied with one tap (the screenshot is looked at by hand:
/tmp/t22-money/payments-390.png when NAP_SCREENSHOTS is set). Skipped without Chromium."""

from __future__ import annotations

import os
import re
from typing import Any

import sqlalchemy as sa

from scorer.rules import HandFacts, Stake
from scorer.storage import evening_writes, hand_writes, units
from scorer.storage.models import Evening, PaidTransfer, db
from tests.test_browser import _phone, browser, site  # noqa: F401 - the fixtures

__all__ = ["browser", "site"]


def _money_evening(app: Any) -> tuple[str, str]:
    """tests/test_paid_transfers.py's evening, finished: Di pays Ann £1.00 (hands 3 and 4),
    Bob £0.60 (hands 1 and 4), Cy £0.60 (hands 2 and 4)."""
    with app.app_context():
        evening = evening_writes.create_evening(variant="pagat", players=["Ann", "Bob", "Cy", "Di"], first_dealer=0,
                                                options={"hands_per_dealer": 2}, stake=Stake(10, "£"),
                                                name="Thursday")
        key = evening.key
        for number, dealer, bid, tricks in ((1, 0, "four", 4), (2, 1, "four", 4), (3, 2, "three", 2),
                                            (4, 3, "nap", 5)):
            auction = tuple(bid if i == 0 else "pass" for i in range(4))
            evening = units.get_evening(key)
            assert evening is not None
            hand_writes.record_hand(evening, number, HandFacts(dealer, auction, tricks))
        evening = units.get_evening(key)
        assert evening is not None
        evening_writes.set_finished(evening, True)
        return key, db.session.scalar(sa.select(Evening.edit_key).where(Evening.key == key)) or ""


def test_mark_paid_undo_and_a_players_own_phone(browser: Any, site: tuple[Any, str]) -> None:  # noqa: F811
    app, base = site
    key, edit_key = _money_evening(app)
    ctx_a, a = _phone(browser)
    ctx_b, b = _phone(browser)
    try:
        ctx_a.grant_permissions(["clipboard-read", "clipboard-write"], origin=base)
        a.goto(f"{base}/e/{key}/scorer/{edit_key}")
        a.wait_for_url(f"{base}/e/{key}")
        assert a.locator("section.settle li").all_inner_texts() == [
            "Di pays Ann £1.00: hands 3 and 4", "Di pays Bob £0.60: hands 1 and 4", "Di pays Cy £0.60: hands 2 and 4"]
        if os.environ.get("NAP_SCREENSHOTS"):
            os.makedirs("/tmp/t22-money", exist_ok=True)
            a.screenshot(path="/tmp/t22-money/sheet-390.png")
        a.click("#payments-link")
        a.wait_for_url(f"{base}/e/{key}/payments")
        first = a.locator("#payments > li").first
        first.locator("summary").click()
        assert first.locator("details li").all_inner_texts() == ["hand 3: £0.90", "hand 4: £0.10 of the £0.50 Di lost"]
        button = first.locator("button")
        box = button.bounding_box()
        assert box is not None and box["height"] >= 44
        button.click()  # one tap: marked paid
        a.wait_for_url(f"{base}/e/{key}/payments")
        assert a.locator(".flash").first.inner_text() == "Marked paid."
        assert a.locator("#payments > li.paid .pay-line").inner_text() == "✓ Di pays Ann £1.00"
        if os.environ.get("NAP_SCREENSHOTS"):
            os.makedirs("/tmp/t22-money", exist_ok=True)
            a.screenshot(path="/tmp/t22-money/payments-390.png")
            a.screenshot(path="/tmp/t22-money/payments-390-full.png", full_page=True)
        # the text of the result card, copied with one tap
        a.click("[data-card-copy]")
        a.locator("[data-card-said]", has_text="Copied.").wait_for()
        copied = a.evaluate("navigator.clipboard.readText()")
        assert copied.splitlines()[-3:] == ["✓ Di pays Ann £1.00: hands 3 and 4", "Di pays Bob £0.60: hands 1 and 4",
                                            "Di pays Cy £0.60: hands 2 and 4"]
        assert a.locator("img.result-card").evaluate("i => i.naturalWidth") == 1080
        # Bob's own link, sent by the scorer: Bob's phone marks his payment, and only his
        link = a.locator("#player-links input").nth(1).input_value()
        assert re.fullmatch(rf"{re.escape(base)}/e/{key}/player/1/[A-Za-z0-9_-]{{16}}", link)
        b.goto(link)
        b.wait_for_url(f"{base}/e/{key}/payments")
        assert b.locator("#party").inner_text() == "This phone is Bob’s."
        assert b.locator("#payments > li").nth(0).locator("button").count() == 0  # Di → Ann: not Bob's
        b.locator("#payments > li").nth(1).locator("button").click()
        b.wait_for_url(f"{base}/e/{key}/payments")
        assert b.locator("#payments > li.paid").count() == 2
        # the scorer takes Ann's mark back: nothing is lost
        a.reload()
        a.locator("#payments > li").first.locator("button", has_text="Undo: not paid").click()
        a.wait_for_url(f"{base}/e/{key}/payments")
        with app.app_context():
            rows = [(m.payer, m.payee, m.amount, m.undone_at is None)
                    for m in db.session.scalars(sa.select(PaidTransfer).order_by(PaidTransfer.id))]
        assert rows == [(3, 0, 100, False), (3, 1, 60, True)]
    finally:
        ctx_a.close()
        ctx_b.close()
