"""The offline copy keeps up with what the page shows (static/sw.js, static/live.js; found
by the table-chaos test, tests/test_chaos.py: a phone's revision went backwards).

A scoresheet shows another phone's hand as live.js swaps in the fresh page; with no
network (or the server down) a reload then comes from the service worker's kept copy,
which was the one of the last navigation, without that hand: the score went back. The
fresh page live.js fetches now goes through the worker, which keeps it as the page's
offline copy before the page shows it. A real browser, as in tests/test_offline.py.
"""

from __future__ import annotations

from typing import Any

from scorer.rules import HandFacts
from scorer.storage import units
from tests import test_offline as offline

browser, site = offline.browser, offline.site


def _revision(app: Any, key: str) -> int:
    with app.app_context():
        evening = units.get_evening(key, fresh=True)
        assert evening is not None
        return int(evening.revision)


def _shown(page: Any) -> int:
    return int(page.locator("[data-live][data-revision]").get_attribute("data-revision"))


def test_a_reload_offline_shows_the_hand_the_live_score_showed(browser: Any, site: tuple[Any, str]) -> None:
    app, base = site
    context, page = offline._phone(browser)
    try:
        key = offline._start_table(page, base)
        offline._ready_offline(page, base, key)
        before = _shown(page)
        # another phone: Ann deals, Bob (eldest) bids Three and makes it
        offline._record(app, key, HandFacts(0, ("three", "pass", "pass", "pass"), 3))
        now = _revision(app, key)
        assert now > before
        page.wait_for_function(f"() => document.querySelector('[data-live]').getAttribute('data-revision') == '{now}'",
                               timeout=60000)
        assert page.locator("#hand-1").count() == 1  # swapped in by live.js
        context.set_offline(True)
        page.reload()
        page.locator("#netstate.offline").wait_for(timeout=60000)
        assert _shown(page) == now  # was the navigation's copy: revision `before`, no hand 1
        assert page.locator("#hand-1").count() == 1
    finally:
        context.close()


def test_a_reload_offline_shows_the_changes_live_placed(browser: Any, site: tuple[Any, str]) -> None:
    """Hands after the first come as changes (GET /e/<key>/changes), not as the page: the
    kept copy gets them too (live.js places them in it before the page shows them), so a
    reload offline shows the new hand and a correction of an old one, not the copy of the
    last page fetched."""
    from scorer.storage import hand_writes

    app, base = site
    context, page = offline._phone(browser)
    try:
        key = offline._start_table(page, base)
        offline._record(app, key, HandFacts(0, ("three", "pass", "pass", "pass"), 3))  # Bob Three made: +9
        offline._ready_offline(page, base, key)
        fetched: list[str] = []
        context.on("request", lambda r: fetched.append(r.url.removeprefix(base)))
        offline._record(app, key, HandFacts(1, ("pass", "pass", "four", "pass"), 4))  # Ann Four made: +12
        with app.app_context():  # hand 1 corrected: Bob took two, defeated
            evening = units.get_evening(key)
            assert evening is not None
            hand_writes.correct_hand(evening, 1, 1, HandFacts(0, ("three", "pass", "pass", "pass"), 2))
        now = _revision(app, key)
        page.wait_for_function(f"() => document.querySelector('[data-live]').getAttribute('data-revision') == '{now}'",
                               timeout=60000)
        assert f"/e/{key}" not in fetched  # placed from the changes, the page not fetched
        shown = page.locator("[data-live]").inner_text()
        context.set_offline(True)
        page.reload()
        page.locator("#netstate.offline").wait_for(timeout=60000)
        assert _shown(page) == now
        assert page.locator("#hand-2").count() == 1
        assert page.locator(".total:has-text('Bob') .pts").inner_text() == "−13"  # −9 (corrected) −4
        assert page.locator("[data-live]").inner_text() == shown
    finally:
        context.close()
