"""Two phones in a real browser (Playwright driving Debian's Chromium, 390×844).

Phone A starts a table and shares it; phone B joins by the link, watches a hand
appear without reloading, becomes a scorer with the PIN, both race the same hand,
A undoes it, and B switches language. Skipped when Chromium is not installed,
unless ``NAP_REQUIRE_BROWSER=1`` (CI installs it and sets that).
"""

from __future__ import annotations

import os
import re
import shutil
import threading
from collections.abc import Iterator
from typing import Any

import pytest
from waitress.server import create_server

from scorer.storage import evenings, hand_writes, units
from tests.conftest import make_app
from tests.webhelpers import free_port

CHROMIUM = os.environ.get("NAP_CHROMIUM", "/usr/bin/chromium")
REQUIRE = os.environ.get("NAP_REQUIRE_BROWSER") == "1"
ARGS = ["--no-sandbox", "--disable-gpu", "--disable-background-networking", "--disable-component-update"]
PHONE = {"width": 390, "height": 844}


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    try:
        from playwright.sync_api import sync_playwright
    except ImportError:
        if REQUIRE:
            pytest.fail("playwright is not installed and NAP_REQUIRE_BROWSER=1")
        pytest.skip("playwright is not installed")
    if not (os.path.exists(CHROMIUM) or shutil.which(CHROMIUM)):
        if REQUIRE:
            pytest.fail(f"no Chromium at {CHROMIUM} and NAP_REQUIRE_BROWSER=1")
        pytest.skip(f"no Chromium at {CHROMIUM} (apt-get install chromium)")
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, args=ARGS)
        yield browser
        browser.close()


@pytest.fixture
def site(tmp_path: Any) -> Iterator[tuple[Any, str]]:
    app = make_app(f"sqlite:///{tmp_path / 'browser.sqlite3'}", WTF_CSRF_ENABLED=True)
    port = free_port()
    server = create_server(app, host="127.0.0.1", port=port, threads=4)

    def run() -> None:
        try:
            server.run()
        except OSError:  # the socket closed under waitress's loop at teardown (EBADF)
            pass

    thread = threading.Thread(target=run, daemon=True)
    thread.start()
    yield app, f"http://127.0.0.1:{port}"
    server.close()
    thread.join(timeout=5)


def _phone(browser: Any, **extra: Any) -> Any:
    context = browser.new_context(viewport=PHONE, locale="en-GB", **extra)
    return context, context.new_page()


def _start_table(page: Any, base: str, variant: str = "pagat",
                 names: tuple[str, ...] = ("Ann", "Bob", "Cat", "Dan")) -> str:
    """Start a table of ``variant`` from the new-evening form; its key."""
    page.goto(f"{base}/new/{variant}")
    for i, name in enumerate(names):
        page.fill(f"input[name='players-{i}']", name)
    page.locator("form button[type=submit]").last.click()
    page.wait_for_url(re.compile(r"/e/[A-Za-z0-9_-]+$"))
    return page.url.rsplit("/", 1)[-1]


def _min_target(page: Any, selector: str) -> float:
    return min(min(b["width"], b["height"]) for b in
               (page.locator(selector).nth(i).bounding_box() for i in range(page.locator(selector).count())) if b)


def test_two_phones_share_watch_race_undo_and_switch_language(browser: Any, site: tuple[Any, str]) -> None:
    app, base = site
    ctx_a, a = _phone(browser)
    ctx_b, b = _phone(browser, color_scheme="dark")
    try:
        key = _start_table(a, base)

        # A shares: the link on the share page is the table's link, with a QR code
        a.click("text=Share")
        link = a.locator(".share .link code").first.inner_text().strip()
        pin = a.locator(".pin").inner_text().strip()
        assert link == f"{base}/e/{key}" and re.fullmatch(r"\d{6}", pin)
        assert a.locator("img.qr").first.evaluate("img => img.naturalWidth") > 100

        # B joins by the link: a viewer, no Record button
        b.goto(link)
        assert b.locator("#record-hand").count() == 0
        assert b.locator("text=Become a scorer").count() >= 1

        # A enters the common hand from the scoresheet, counting taps: at most 5
        a.goto(f"{base}/e/{key}")
        taps: list[str] = []

        def tap(locator: Any) -> None:
            locator.click()
            taps.append(str(locator))

        tap(a.locator("#record-hand"))
        assert _min_target(a, "label.pill span") >= 48 and _min_target(a, "button[name=tricks]") >= 48
        tap(a.locator("fieldset").nth(0).locator("label.pill:has-text('Bob')"))  # Bob won the auction
        tap(a.locator("fieldset").nth(1).locator("label.pill:has-text('Three')"))
        tap(a.locator("button[name=tricks][value='4']"))  # four tricks: this tap saves
        assert len(taps) <= 5
        a.wait_for_url(f"{base}/e/{key}")  # the top of the scoresheet: the totals and "Hand 1 saved · Undo"
        assert "Hand 1 saved" in a.locator(".flash.saved").inner_text()

        # B sees it without reloading (live.js polls every 1.5 s): Bob +9 (P-12: 3 from each of 3)
        b.locator(".total:has-text('Bob') .pts").filter(has_text="+9").wait_for(timeout=60000)

        # B becomes a scorer with the PIN
        b.goto(f"{base}/e/{key}/join")
        b.fill("input[name=pin]", pin)
        b.locator("form button[type=submit]").last.click()
        b.wait_for_url(f"{base}/e/{key}")
        assert b.locator("#record-hand").count() == 1

        # both open hand 2 and save different hands at the same moment: exactly one is kept
        for page, who in ((a, "Cat"), (b, "Dan")):
            page.goto(f"{base}/e/{key}/quick")
            page.locator("fieldset").nth(0).locator(f"label.pill:has-text('{who}')").click()
            page.locator("fieldset").nth(1).locator("label.pill:has-text('Three')").click()
        a.evaluate("document.querySelector(\"button[name=tricks][value='3']\").click()")
        b.evaluate("document.querySelector(\"button[name=tricks][value='3']\").click()")
        a.wait_for_load_state()
        b.wait_for_load_state()
        a.wait_for_timeout(500)
        with app.app_context():
            evening = units.get_evening(key)
            assert evening is not None and len(evening.hands) == 2
            winner = evenings.ledger_of(evening).rows[1].ruling.declarer
        loser_page = b if winner == 2 else a
        loser_page.wait_for_url(re.compile(r"/hand/2"))  # shown the saved hand …
        loser_page.locator("text=already been recorded").first.wait_for(timeout=60000)  # … and told

        # A undoes hand 2; B's sheet follows
        a.goto(f"{base}/e/{key}/undo")
        a.locator("form button[type=submit]").first.click()
        a.wait_for_url(f"{base}/e/{key}")
        b.goto(f"{base}/e/{key}")
        assert b.locator("#record-hand").inner_text().strip() == "Record hand 2"
        b.goto(f"{base}/e/{key}/history")
        assert "Hand undone" in b.content()

        # B switches to Russian: the page and its lang follow, A stays in English
        b.goto(f"{base}/e/{key}")
        b.click("text=Русский")
        b.wait_for_load_state()
        assert b.locator("html").get_attribute("lang") == "ru"
        assert "Record hand" not in b.content()
        a.reload()
        assert a.locator("html").get_attribute("lang") == "en"
        assert "Record hand" in a.content()
    finally:
        ctx_a.close()
        ctx_b.close()


def test_a_failed_fetch_of_the_fresh_page_is_retried_until_the_new_score_shows(
        browser: Any, site: tuple[Any, str]) -> None:
    """live.js stored the new revision before the fresh page arrived: one failed fetch
    left the old score on screen until the next change. Now the revision shown is the
    swapped-in page's, and a failed fetch is tried again (with backoff)."""
    app, base = site
    ctx, page = _phone(browser, service_workers="block")  # the page's own fetches, where page.route sees them
    try:
        key = _start_table(page, base)
        with app.app_context():
            evening = units.get_evening(key)
            assert evening is not None
            failed: list[str] = []

            def fail_once(route: Any) -> None:
                if not failed:
                    failed.append(route.request.url)
                    route.fulfill(status=503, body="busy")
                else:
                    route.continue_()

            page.route(f"{base}/e/{key}", fail_once)  # the scoresheet itself, not its revision poll
            from scorer.rules import HandFacts

            hand_writes.record_hand(evening, 1, HandFacts(0, ("three", "pass", "pass", "pass"), 3))
        # Bob (eldest) made Three: +9 (P-12), shown although the first fetch of the page failed
        page.locator(".total:has-text('Bob') .pts").filter(has_text="+9").wait_for(timeout=60000)
        assert failed  # the failure really happened
    finally:
        ctx.close()


# Bob (eldest) bids Four with hearts; he leads AH, KH, QH, JH and wins them (Cat, Dan and Ann follow
# low or discard), then 2D to Cat's AD. Four made (P-12): Bob +12, each other −4; decided after trick 4.
PLAY = [["AH", "2H", "6H", "10H"], ["KH", "3H", "7H", "2C"], ["QH", "4H", "8H", "3C"], ["JH", "5H", "9H", "4C"],
        ["2D", "AD", "KD", "QD"]]


def _table_with_a_four(page: Any, app: Any, base: str) -> str:
    key = _start_table(page, base)
    with app.app_context():
        from scorer.rules import HandFacts

        evening = units.get_evening(key)
        assert evening is not None
        hand_writes.record_hand(evening, 1, HandFacts(0, ("four", "pass", "pass", "pass"), 4))
    return key


def _recorded(app: Any, key: str) -> tuple[Any, Any]:
    with app.app_context():
        evening = units.get_evening(key)
        assert evening is not None
        row = evenings.ledger_of(evening).rows[0]
        return row.facts.record, row.ruling


def test_a_full_record_of_play_is_built_in_the_page_and_posted_once(browser: Any, site: tuple[Any, str]) -> None:
    app, base = site
    ctx, page = _phone(browser)
    try:
        key = _table_with_a_four(page, app, base)
        page.goto(f"{base}/e/{key}/hand/1/play")
        posts: list[str] = []
        page.on("request", lambda r: posts.append(r.url) if r.method == "POST" else None)
        page.evaluate("window.samePage = true")
        page.click("button[name=card][value='AS']")  # a wrong card, taken back in the page
        assert page.locator("button[name=card][value='AS']").is_hidden()
        page.click("button[name=undo]")
        assert page.locator("button[name=card][value='AS']").is_visible()
        for trick in PLAY:
            for card in trick:
                page.click(f"button[name=card][value='{card}']")
        assert page.evaluate("window.samePage") is True and posts == []  # no page load, no post per card
        assert page.input_value("input[name=record]") == "|".join(" ".join(t) for t in PLAY)
        tricks = page.locator("#play-tricks li")
        assert tricks.count() == 5 and tricks.nth(0).inner_text().endswith("→ Bob")
        assert tricks.nth(4).inner_text() == "Bob 2D · Cat AD · Dan KD · Ann QD → Cat"
        assert page.locator("#play-cards").is_hidden()  # all five tricks in: no card left to play
        page.click("button[name=save]")
        page.wait_for_url(re.compile(r"/hand/1$"))
        assert len(posts) == 1 and posts[0].endswith("/hand/1/play")
        record, ruling = _recorded(app, key)
        assert [list(t) for t in record] == PLAY
        assert ruling.tricks == 4 and ruling.units == (-4, 12, -4, -4)
    finally:
        ctx.close()


def test_the_record_of_play_still_works_without_javascript(browser: Any, site: tuple[Any, str]) -> None:
    app, base = site
    ctx, page = _phone(browser, java_script_enabled=False)
    try:
        key = _table_with_a_four(page, app, base)
        page.goto(f"{base}/e/{key}/hand/1/play")
        for trick in PLAY[:4]:  # the result is certain after trick 4 (H-10): the table may stop there
            for card in trick:
                with page.expect_navigation():
                    page.click(f"button[name=card][value='{card}']")
        assert page.locator("ol.said li").count() == 4
        with page.expect_navigation():
            page.click("button[name=save]")
        assert page.url.endswith("/hand/1")
        record, ruling = _recorded(app, key)
        assert [list(t) for t in record] == PLAY[:4]
        assert ruling.tricks == 4 and ruling.units == (-4, 12, -4, -4)
    finally:
        ctx.close()
