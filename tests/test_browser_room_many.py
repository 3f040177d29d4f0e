"""The room screen of a big club night in a real browser (issue 22 items 4 and 5): every
player of a night of 15 and of 40 is on the wall at 1920×1080 (one column, then two; smaller
rows as there are more), and a referee call's banner leaves the tie-break line on screen.
Screenshots go to ``NAP_ROOM_SHOTS`` when set (to look at). Skipped when Chromium is not
installed, unless ``NAP_REQUIRE_BROWSER=1``."""

from __future__ import annotations

import json
import os
from typing import Any

import pytest

from tests import test_browser as shared

browser, site = shared.browser, shared.site


def post(client: Any, url: str, body: Any) -> Any:
    answer = client.post(url, data=json.dumps(body), content_type="application/json")
    assert answer.status_code in (200, 201), answer.get_data(as_text=True)
    return answer.get_json()


def local(url: str) -> str:
    return "/" + url.split("://", 1)[-1].split("/", 1)[-1]


def big_night(app: Any, players: int) -> tuple[Any, str, list[dict[str, Any]]]:
    owner = app.test_client()
    group = post(owner, "/api/groups", {"name": f"The Crown {players}", "token": f"g-{players}"})["group"]["key"]
    names = [f"Player {i:02d}" for i in range(1, players + 1)]
    event = post(owner, f"/api/g/{group}/events", {"name": "Thursday club night", "variant": "pagat",
                                                   "players": names, "rounds": 3, "length": "hands", "amount": 10,
                                                   "token": f"ev-{players}"})["event"]
    key = event["key"]
    post(owner, f"/api/ev/{key}/seat", {"how": "draw", "seed": "pub"})
    tables = post(owner, f"/api/ev/{key}/start", {})["event"]["tables"]
    return owner, key, tables


def box(page: Any, selector: str) -> dict[str, float]:
    found = page.locator(selector).bounding_box()
    assert found is not None, selector
    return found


@pytest.mark.parametrize(("players", "columns", "smallest"), [(15, 1, 34), (40, 2, 26)])
def test_every_player_is_on_the_wall_and_a_call_leaves_the_tie_break(browser: Any, site: tuple[Any, str],
                                                                      players: int, columns: int,
                                                                      smallest: float) -> None:
    app, base = site
    owner, key, tables = big_night(app, players)
    assert sum(len(t["players"]) for t in tables) == players
    shots = os.environ.get("NAP_ROOM_SHOTS")
    context = browser.new_context(viewport={"width": 1920, "height": 1080}, locale="en-GB")
    page = context.new_page()
    try:
        page.goto(f"{base}/ev/{key}/room")
        shown = [page.locator(".room-rank li").nth(i).inner_text().split()[1:3] for i in range(players)]
        assert page.locator(".room-rank li").count() == players  # all of them: no "and 1 more"
        assert sorted(" ".join(s) for s in shown) == [f"Player {i:02d}" for i in range(1, players + 1)]
        assert page.locator(".room-more").count() == 0
        # every line inside the screen, in `columns` columns
        lefts = page.evaluate("() => [...document.querySelectorAll('.room-rank li')].map(li => "
                              "[Math.round(li.getBoundingClientRect().left), li.getBoundingClientRect().bottom])")
        assert len({left for left, _ in lefts}) == columns
        assert max(bottom for _, bottom in lefts) <= 1080
        size = page.evaluate("() => parseFloat(getComputedStyle(document.querySelector('.room-rank li')).fontSize)")
        assert size >= smallest, size  # 40 players: still 1/40 of the screen's height
        tie = box(page, ".room-tie")
        assert tie["y"] + tie["height"] <= 1080
        if shots:
            page.screenshot(path=os.path.join(shots, f"room-{players}.png"))
        # a referee call: its banner takes a band of the screen, the tie-break stays on it
        t1 = tables[0]
        assert owner.get(local(t1["scorers_link"])).status_code == 302
        post(owner, f"/api/e/{t1['evening']}/referee", {"note": "revoke?", "token": f"call-{players}"})
        page.wait_for_selector(".room-call", timeout=15000)
        assert page.locator(".room-call").first.inner_text() == "Table 1 calls the referee"
        assert page.locator(".room-rank li").count() == players
        tie = box(page, ".room-tie")
        assert tie["y"] + tie["height"] <= 1080, tie
        last = page.evaluate("() => Math.max(...[...document.querySelectorAll('.room-rank li')].map("
                             "li => li.getBoundingClientRect().bottom))")
        assert last <= tie["y"]
        if shots:
            page.screenshot(path=os.path.join(shots, f"room-{players}-call.png"))
    finally:
        context.close()


def test_call_the_referee_on_a_phone_keeps_the_totals_on_the_first_screen(browser: Any,
                                                                           site: tuple[Any, str]) -> None:
    """At 390×844 (a phone), a table of five: "Call the referee" is a 44 px target and the
    totals are whole on the first screen, above the bottom bar, for a scorer and a watcher; once
    the table has played its round, "Finish this table" is that bar's button."""
    app, base = site
    owner, key, tables = big_night(app, 15)
    t1 = tables[0]
    shots = os.environ.get("NAP_ROOM_SHOTS")
    for who in ("scorer", "watcher"):
        context = browser.new_context(viewport={"width": 390, "height": 844}, locale="en-GB", has_touch=True,
                                      is_mobile=True, device_scale_factor=2)
        page = context.new_page()
        try:
            if who == "scorer":
                page.goto(base + local(t1["scorers_link"]))
            page.goto(f"{base}/e/{t1['evening']}")
            button = box(page, "#call-referee")
            assert button["height"] >= 44 and button["width"] >= 44, button
            assert button["y"] + button["height"] <= 844
            totals = box(page, ".totals")
            bar = page.locator(".recordbar:visible")
            floor = box(page, ".recordbar:visible")["y"] if bar.count() else 844
            assert totals["y"] + totals["height"] <= floor, (totals, floor)
            if shots:
                page.screenshot(path=os.path.join(shots, f"sheet-390-{who}.png"))
        finally:
            context.close()

    # ten hands played (the round's length): the scorer's bar offers to finish the table
    seated = t1["players"]
    assert owner.get(local(t1["scorers_link"])).status_code == 302
    def played(number: int) -> None:
        post(owner, f"/api/e/{t1['evening']}/hands", {"number": number, "token": f"t1-{number}", "facts": {
            "dealer": seated[(number - 1) % 5], "auction": ["pass"] * 5}})

    for number in range(1, 10):
        played(number)
    context = browser.new_context(viewport={"width": 390, "height": 844}, locale="en-GB", has_touch=True,
                                  is_mobile=True, device_scale_factor=2)
    page = context.new_page()
    try:
        page.goto(base + local(t1["scorers_link"]))
        page.goto(f"{base}/e/{t1['evening']}")
        # nine of the round's ten hands: the table counts the round, not pagat's end point (P-14)
        assert page.locator("#round-left").inner_text() == "Round 1: 10 hands a table, 1 still to play here."
        assert page.locator(".status .remaining").count() == 0 and page.locator(".status .to-deal").count() == 0
        assert page.locator("#record-hand").inner_text() == "Record hand 10"
        played(10)  # saved by another phone: this page learns it live, without a reload
        page.wait_for_selector("#round-over", timeout=15000)
        page.wait_for_function("!document.querySelector('.status p.next')"
                               " || document.querySelector('.status p.next').textContent.startsWith('Hand 11')")
        assert page.locator(".status p.next").is_hidden() and page.locator("#record-hand").is_hidden()
        assert page.locator(".status .remaining").is_hidden()
        assert page.locator(".recordbar:visible").count() == 1
        assert page.locator(".recordbar:visible button").inner_text() == "Finish this table"
        assert page.locator("#record-hand").is_hidden()
        assert page.locator("#round-over strong").inner_text() == \
            "Round 1 is over at this table: its 10 hands are played."
        if shots:
            page.screenshot(path=os.path.join(shots, "sheet-390-round-over.png"))
        page.locator("#finish-table").click()
        page.wait_for_selector("text=The evening is finished.")
        assert owner.get(f"/api/e/{t1['evening']}").get_json()["finished"] is True
    finally:
        context.close()
