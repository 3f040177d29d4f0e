"""The referee in a real browser (issue 22 item 5): a referee's phone (390×844) opens its
own link and waits on the desk; a phone at table 1 disputes hand 1 and calls the referee;
the call appears on the referee's phone without a reload (the desk follows the event's
revision), and the referee takes it and upholds the claim (P-16: the totals by hand)."""

from __future__ import annotations

import os
from typing import Any

from scorer.rules import HandFacts
from scorer.storage import events, groups, hand_writes, units
from scorer.storage.models import db
from scorer.storage.referee_models import Referee
from tests.test_browser import _phone, browser, site  # noqa: F401 - the fixtures

#: Where the referee's phone is photographed with a call open (set NAP_SHOTS to keep it elsewhere).
SHOT = os.path.join(os.environ.get("NAP_SHOTS", "/tmp"), "referee-phone-call.png")


def _night(app: Any) -> tuple[str, list[str], str]:
    with app.app_context():
        group = groups.create_group("Thursday club")
        event = events.create_event(group, name="Club night", variant="pagat", options={}, stake=None,
                                    players=["Ann", "Bob", "Cat", "Dan", "Eve", "Fay", "Gus", "Hal"], rounds=2,
                                    length="hands", amount=10)
        key = event.key
        events.seat_first_round(event, how="typed", tables=[["Ann", "Bob", "Cat", "Dan"], ["Eve", "Fay", "Gus", "Hal"]])
        tables = [e.key for e in events.start_round(events.get_event(key))]
        table = units.get_evening(tables[0])
        assert table is not None
        hand_writes.record_hand(table, 1, HandFacts(0, ("three", "pass", "pass", "pass"), 2))  # Bob beaten: −9
        referee = Referee(event_id=event.id, name="Mary")
        db.session.add(referee)
        db.session.commit()
        return key, tables, referee.link_key


def test_a_call_reaches_the_referees_phone_live(browser: Any, site: tuple[Any, str]) -> None:  # noqa: F811
    app, base = site
    key, tables, link_key = _night(app)
    ctx_r, referee = _phone(browser)
    ctx_t, table = _phone(browser)
    try:
        referee.goto(f"{base}/ev/{key}/referee/{link_key}")
        referee.wait_for_url(f"{base}/ev/{key}/calls")
        assert referee.locator(".referee-none").inner_text() == "No table is calling the referee."

        table.goto(f"{base}/e/{tables[0]}/hand/1")
        table.get_by_role("link", name="Dispute this hand").click()
        table.locator("label.pill[data-kind=revoke]").click()
        table.locator("fieldset.accusing").first.locator("label.pill", has_text="Cat").click()
        table.locator("fieldset.accusing").nth(1).locator("label.pill", has_text="2").click()
        table.locator("fieldset").nth(3).locator("label.pill", has_text="Dan").click()
        table.get_by_role("button", name="Dispute this hand").click()
        table.wait_for_url(f"{base}/e/{tables[0]}/hand/1")
        table.get_by_role("link", name="Call the referee").click()
        assert table.locator("#hand").input_value() == "1"
        table.fill("#note", "Cat did not follow hearts in trick 2")
        table.get_by_role("button", name="Call the referee").click()
        table.wait_for_url(f"{base}/e/{tables[0]}/referee")
        assert "Waiting for a referee." in table.content()

        # the referee's phone was not touched: the call arrives by itself
        title = referee.locator(".referee-call .referee-title")
        title.wait_for(timeout=15000)
        assert title.inner_text() == "Table 1: dispute on hand 1"
        assert referee.locator(".referee-disputes li").first.inner_text().startswith(
            "⚑ Hand 1: Revoke (did not follow suit): Cat · trick 2")
        referee.screenshot(path=SHOT)
        take = referee.get_by_role("button", name="Take this call")
        box = take.bounding_box()
        assert box is not None and box["height"] >= 44  # thumb-sized
        take.click()
        referee.wait_for_url(f"{base}/ev/{key}/calls#call-*")
        assert "taken by Mary" in referee.locator(".referee-call").inner_text()
        referee.get_by_role("button", name="Uphold the claim").click()
        referee.wait_for_url(f"{base}/e/{tables[0]}/hand/1")
        totals = table.request.get(f"{base}/api/e/{tables[0]}").json()["totals"]
        assert totals == {"Ann": -3, "Bob": 9, "Cat": -3, "Dan": -3}  # P-16: an opponent's revoke, Bob paid as won
        table.goto(f"{base}/e/{tables[0]}/history")
        assert "by the referee Mary" in table.locator("ol.history").inner_text()
    finally:
        ctx_r.close()
        ctx_t.close()
