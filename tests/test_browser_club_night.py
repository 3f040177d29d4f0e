"""A whole club night with a room screen and a referee's phone in a real browser (issue 22,
"Done means"): the night of tests/club_night.py (14 players of pagat at 5, 5 and 4, a late
arrival, 3 rounds, every hand worked out by hand there) has its hands entered through the
JSON commands, as the tables' phones send them; Chromium is used where a person looks: the
room screen on a 1920×1080 TV followed all night without a reload, and the referee Rita's
phone, which takes the call from round 2's table 1 and upholds the claim. Then the event's
PDF read page by page, and ``nap verify`` on an exported evening and on a copy with one hand
changed. Screenshots go to ``NAP_ROOM_SHOTS`` when set (to look at).
Skipped when Chromium is not installed, unless ``NAP_REQUIRE_BROWSER=1``."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path
from typing import Any

from tests import test_browser as shared
from tests.club_night import (
    AFTER_1,
    FINAL,
    HANDS_1,
    HANDS_2,
    HANDS_3,
    NOTE,
    SEATING_2,
    SEATING_3,
    Night,
    local,
)
from tests.test_event_pdf import needs_pdftotext, pdf_pages, standings_lines

browser, site = shared.browser, shared.site

#: How long the room screen may take to show a change: it polls every 3 s (static/room.js);
#: a hang guard on a loaded machine, not a speed check.
FOLLOW = 30_000


def room_lines(page: Any) -> list[tuple[int, str, int]]:
    """(place, name, total) of the room screen's standings."""
    out = []
    for text in page.locator(".room-rank li").all_inner_texts():
        place, name, total = text.split()
        out.append((int(place), name, int(total.replace("−", "-"))))
    return out


def wait_standings(page: Any, lines: list[tuple[int, str, int]]) -> None:
    """Wait until the room screen's standings are ``lines`` (it follows by its own poll)."""
    words = [f"{p} {n} {'+' if t > 0 else ''}{str(t).replace('-', '−')}" for p, n, t in lines]
    page.wait_for_function("(w) => JSON.stringify([...document.querySelectorAll('.room-rank li')]"
                           ".map(li => li.innerText.split(/\\s+/).join(' '))) === JSON.stringify(w)", arg=words,
                           timeout=FOLLOW)


def wait_round(page: Any, words: str) -> None:
    page.wait_for_function("(w) => document.querySelector('.room-round').textContent.trim() === w", arg=words,
                           timeout=FOLLOW)


def seating_on(page: Any) -> list[list[str]]:
    return [t.split(", ") for t in page.locator(".room-seating .who").all_inner_texts()]


@needs_pdftotext
def test_a_whole_club_night(browser: Any, site: tuple[Any, str], tmp_path: Path) -> None:
    app, base = site
    shots = os.environ.get("NAP_ROOM_SHOTS")
    owner = app.test_client()  # the organiser's phone (and, by the scorers' links, each table's)
    night = Night(app, owner)
    night.seat_and_start()
    assert night.arrive("Zoe")["round"]["seating"][2] == ["Kim", "Lee", "Max", "Ned", "Zoe"]

    tv = browser.new_context(viewport={"width": 1920, "height": 1080}, locale="en-GB")
    phone = browser.new_context(viewport={"width": 390, "height": 844}, locale="en-GB", is_mobile=True)
    try:
        room = tv.new_page()
        room.goto(f"{base}/ev/{night.key}/room")
        assert room.locator(".room-round").inner_text() == "Round 1 of 3"
        assert seating_on(room) == [["Ann", "Bob", "Cat", "Dan", "Eve"], ["Fay", "Gus", "Hal", "Ivy", "Jo"],
                                    ["Kim", "Lee", "Max", "Ned", "Zoe"]]
        # readable across a room: standings type at least 34 px on a 1080-line screen (rows shrink a
        # little so that all 15 players and the seating fit: 35.6 px here; 42 px when 14 did)
        night.play(1, HANDS_1)
        # every one of the 15 players is on the wall (one column up to 16 players)
        wait_standings(room, AFTER_1)
        assert room_lines(room) == AFTER_1 and room.locator(".room-more").count() == 0
        size = room.evaluate("() => parseFloat(getComputedStyle(document.querySelector('.room-rank li')).fontSize)")
        assert size >= 34, size
        hands = room.locator(".room-seating .hands").all_inner_texts()
        assert hands == ["2 hands", "1 hand", "2 hands"]
        if shots:
            room.screenshot(path=os.path.join(shots, "night-round1.png"))

        # the last table of round 1 finishes: round 2 seated by the standings, on the wall at once
        night.finish_round(1)
        wait_round(room, "Round 2 of 3")
        assert seating_on(room) == SEATING_2

        # the owner names Rita the referee; her phone opens her link
        rita = night.name_referee("Rita")
        desk = phone.new_page()
        desk.goto(base + local(rita["link"]))
        night.play(2, HANDS_2)
        _dispute, _call = night.dispute_and_call(night.rounds[1][0], NOTE)
        # the call reaches the room screen (no note, no PIN) and Rita's phone
        room.wait_for_selector(".room-call", timeout=FOLLOW)
        assert "Table 1: dispute on hand 1" in room.locator(".room-call").first.inner_text()
        assert NOTE not in room.content()
        if shots:
            room.screenshot(path=os.path.join(shots, "night-call.png"))
        desk.goto(f"{base}/ev/{night.key}/calls")
        call = desk.locator(".referee-call").first
        assert "Table 1: dispute on hand 1" in call.inner_text() and NOTE in call.inner_text()
        desk.get_by_role("button", name="Take this call").click()
        desk.wait_for_load_state()
        desk.get_by_role("button", name="Uphold the claim").click()
        desk.wait_for_load_state()  # the ruled hand's page, which says so
        assert "Ruled: the claim is in the hand and the ruling names you." in desk.content()
        if shots:
            desk.screenshot(path=os.path.join(shots, "night-ruled.png"), full_page=True)
        desk.goto(f"{base}/ev/{night.key}/calls")
        assert "ruled by Rita" in desk.locator(".referee-closed").inner_text()
        if shots:
            desk.screenshot(path=os.path.join(shots, "night-referee.png"), full_page=True)
        # P-16: Zoe's revoke scores Hal's Three as made: Hal +12, the four others −3 (tests/club_night.py)
        table = owner.get(f"/api/e/{night.rounds[1][0]}").get_json()
        assert table["totals"] == {"Bob": -3, "Hal": 12, "Zoe": -3, "Ned": -3, "Ann": -3}
        room.wait_for_function("() => !document.querySelector('.room-call')", timeout=FOLLOW)  # the call is closed

        night.finish_round(2)
        wait_round(room, "Round 3 of 3")
        assert seating_on(room) == SEATING_3
        night.play(3, HANDS_3)
        night.finish_round(3)
        wait_round(room, "Final standings")
        wait_standings(room, FINAL)
        assert room_lines(room) == FINAL
        tie = room.locator(".room-tie").bounding_box()
        assert tie is not None and tie["y"] + tie["height"] <= 1080  # all of it on the TV, no scrolling
        if shots:
            room.screenshot(path=os.path.join(shots, "night-final.png"))
    finally:
        phone.close()
        tv.close()

    # the event's PDF, page by page
    pages = pdf_pages(owner.get(f"/ev/{night.key}/event.pdf").data)
    fingerprint = night.state()["fingerprint"]
    assert standings_lines(pages[0]) == FINAL and fingerprint in pages[0]
    assert [bool(re.search(rf"^\s*Round {n}\b", p, re.M)) for n, p in enumerate(pages[1:4], start=1)] == [True] * 3
    assert "Round 2 · Table 1: dispute on hand 1 · claim upheld by Rita" in pages[4] and NOTE in pages[4]
    table_print = re.search(r"Table 1 · 1 hand · finished.*?Fingerprint of the record: (\S+)", pages[2], re.S)
    assert table_print is not None

    # nap verify: round 2's table 1 exported, whole; a copy with one hand changed is caught
    exported = owner.get(f"/e/{night.rounds[1][0]}/evening.json").data
    whole = tmp_path / "table.json"
    whole.write_bytes(exported)
    said = subprocess.run([sys.executable, "-m", "scorer", "verify", str(whole)], capture_output=True, text=True)
    assert said.returncode == 0, said.stdout + said.stderr
    assert f"whole — fingerprint {table_print.group(1)}" in said.stdout  # the one the PDF printed for the table
    data = json.loads(exported)
    hand = data["hands"][0]
    hand["tricks"] = 3 if hand.get("tricks") != 3 else 2  # one hand changed
    changed = tmp_path / "changed.json"
    changed.write_text(json.dumps(data))
    said = subprocess.run([sys.executable, "-m", "scorer", "verify", str(changed)], capture_output=True, text=True)
    assert said.returncode == 2 and "altered from" in said.stdout, said.stdout + said.stderr
    assert "hand 1" in said.stdout, said.stdout
