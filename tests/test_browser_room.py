"""The room screen of a club night in a real browser (issue 22 item 4): Playwright driving
Debian's Chromium at 1920×1080 (a TV) and 1280×800 (a tablet). Its type is big enough to read
across a pub, it needs no login, it shows no PIN or table link, and it follows a hand played
at a table without being reloaded. Screenshots go to ``NAP_ROOM_SHOTS`` when set (to look at).
Skipped when Chromium is not installed, unless ``NAP_REQUIRE_BROWSER=1``."""

from __future__ import annotations

import json
import os
from typing import Any

from tests import test_browser as shared

browser, site = shared.browser, shared.site

P14 = ["Ann", "Bob", "Cat", "Dan", "Eve", "Fay", "Gus", "Hal", "Ivy", "Jon", "Kit", "Len", "Max", "Ned"]


def post(client: Any, url: str, body: Any) -> Any:
    answer = client.post(url, data=json.dumps(body), content_type="application/json")
    assert answer.status_code in (200, 201), answer.get_data(as_text=True)
    return answer.get_json()


def test_the_room_screen_is_readable_and_follows_the_tables(browser: Any, site: tuple[Any, str]) -> None:
    app, base = site
    owner = app.test_client()
    group = post(owner, "/api/groups", {"name": "The Crown", "token": "g-1"})["group"]["key"]
    event = post(owner, f"/api/g/{group}/events", {"name": "Thursday club night", "variant": "pagat",
                                                   "options": {"hands_per_dealer": 1}, "players": P14, "rounds": 3,
                                                   "length": "hands", "amount": 10, "token": "ev-room"})["event"]
    key = event["key"]
    post(owner, f"/api/ev/{key}/seat", {"how": "typed", "tables": [P14[:5], P14[5:10], P14[10:]]})
    tables = post(owner, f"/api/ev/{key}/start", {})["event"]["tables"]
    t1 = tables[0]
    assert owner.get(t1["scorers_link"].split("127.0.0.1", 1)[-1].split("localhost", 1)[-1]).status_code == 302
    # table 1: Bob (eldest) bids Four and makes it: +16; the four others −4
    post(owner, f"/api/e/{t1['evening']}/hands", {"number": 1, "token": "h-1", "facts": {
        "dealer": "Ann", "auction": ["four", "pass", "pass", "pass", "pass"], "tricks": 4}})

    shots = os.environ.get("NAP_ROOM_SHOTS")
    context = browser.new_context(viewport={"width": 1920, "height": 1080}, locale="en-GB")
    page = context.new_page()
    try:
        page.goto(f"{base}/ev/{key}/room")
        assert page.locator(".room-rank li").first.inner_text().split() == ["1", "Bob", "+16"]
        html = page.content()
        assert not [s for t in tables for s in (t["evening"], t["pin"], t["scorers_link"].rsplit("/", 1)[-1])
                    if s in html]
        # readable across a room: a standings line at least 36 px high at 1080 (about 1/30 of the screen)
        size = page.evaluate("() => parseFloat(getComputedStyle(document.querySelector('.room-rank li')).fontSize)")
        assert size >= 36, size
        # everything fits on a TV: the tie-break, under the last line of the standings, is on screen
        assert page.locator(".room-tie").bounding_box()["y"] + page.locator(".room-tie").bounding_box()["height"] \
            <= 1080
        if shots:
            page.screenshot(path=os.path.join(shots, "room-1920.png"))
        # a hand at table 3 reaches the room screen by itself (its poll), no reload
        t3 = tables[2]
        assert owner.get(t3["scorers_link"].split("127.0.0.1", 1)[-1].split("localhost", 1)[-1]).status_code == 302
        post(owner, f"/api/e/{t3['evening']}/hands", {"number": 1, "token": "h-3", "facts": {
            "dealer": "Kit", "auction": ["pass", "nap", "pass", "pass"], "tricks": 5}})  # Max: +15
        page.wait_for_function("() => document.querySelectorAll('.room-seating .hands')[2].textContent.trim() "
                               "=== '1 hand'", timeout=15000)
        assert page.locator(".room-rank li").nth(1).inner_text().split() == ["2", "Max", "+15"]
        page.set_viewport_size({"width": 1280, "height": 800})  # a tablet on its side
        size = page.evaluate("() => parseFloat(getComputedStyle(document.querySelector('.room-rank li')).fontSize)")
        assert size >= 28, size
        if shots:
            page.screenshot(path=os.path.join(shots, "room-1280.png"))
    finally:
        context.close()
