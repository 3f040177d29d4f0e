"""Live updates that send what changed, in a real browser (issue 23, item 1): two phones
(Playwright driving Debian's Chromium at 390×844, as tests/test_browser.py). The scorer
saves hands, corrects an old one and undoes the last; after each, the viewer's totals,
rows and parts are those of a fresh page at the same revision, its chart is the fresh
page's once it scrolls into view, and the viewer never fetched the page again (only
``/changes`` answers), nor the chart while it was off screen. Skipped when Chromium is
not installed, unless ``NAP_REQUIRE_BROWSER=1``.
"""

from __future__ import annotations

import re
from typing import Any
from urllib.parse import urlsplit

from scorer.storage import units
from tests import test_browser as shared

browser, site = shared.browser, shared.site
_phone, _start_table = shared._phone, shared._start_table

#: What the viewer shows, for comparing with a fresh page: the revision, each part but the
#: chart (the "fresh" marks of fresh.js taken off), each row of hands, the chart's image.
SHOWN = """() => {
  const live = document.querySelector("[data-live]").cloneNode(true);
  live.querySelectorAll(".fresh").forEach((n) => n.classList.remove("fresh"));
  const parts = {};
  live.querySelectorAll("[data-live-part]").forEach((p) => {
    if (p.dataset.livePart !== "hands" && p.dataset.livePart !== "chart") parts[p.dataset.livePart] = p.innerHTML;
  });
  const img = live.querySelector("[data-live-part=chart] img");
  return {revision: live.dataset.revision, parts: parts, head: live.querySelector("thead").outerHTML,
          rows: [...live.querySelectorAll("tbody")].filter((t) => !t.closest(".stats")).map((t) => t.outerHTML),
          chart: img && img.getAttribute("src")};
}"""


def _revision(app: Any, key: str) -> int:
    with app.app_context():
        revision = units.evening_revision(key)
        assert revision is not None
        return revision


def _quick(page: Any, base: str, key: str, declarer: str, tricks: int) -> None:
    page.goto(f"{base}/e/{key}")
    page.click("#record-hand")
    page.wait_for_url(re.compile(r"/quick$"))
    page.locator("fieldset").nth(0).locator(f"label.pill:has-text('{declarer}')").click()
    page.locator("fieldset").nth(1).locator("label.pill:has-text('Three')").click()
    page.locator(f"button[name=tricks][value='{tricks}']").click()
    page.wait_for_url(f"{base}/e/{key}")


def test_the_viewer_follows_saves_a_correction_and_an_undo_without_fetching_the_page(
        browser: Any, site: tuple[Any, str]) -> None:
    app, base = site
    ctx_s, scorer = _phone(browser)
    ctx_v, viewer = _phone(browser, service_workers="block")  # every fetch of the page seen by page.on
    try:
        key = _start_table(scorer, base)  # Ann, Bob, Cat, Dan; Ann deals
        _quick(scorer, base, key, "Bob", 3)  # Bob Three made: +9
        viewer.goto(f"{base}/e/{key}")
        viewer.wait_for_load_state("networkidle")
        fetched: list[str] = []
        viewer.on("request", lambda r: fetched.append(urlsplit(r.url).path))
        fresh = ctx_v.new_page()  # the same phone reloading, for comparison (its requests not counted)

        def follows(what: str) -> None:
            revision = _revision(app, key)
            viewer.wait_for_function("r => document.querySelector('[data-live]').dataset.revision === String(r)",
                                     arg=revision, timeout=60000)
            chart = viewer.locator("[data-live-part=chart]")
            assert chart.evaluate("c => c.getBoundingClientRect().top > innerHeight"), what  # off screen
            shown = viewer.evaluate(SHOWN)
            fresh.goto(f"{base}/e/{key}")
            expected = fresh.evaluate(SHOWN)
            assert shown["revision"] == expected["revision"] == str(revision), what
            assert shown["parts"] == expected["parts"], what
            assert shown["head"] == expected["head"], what
            assert shown["rows"] == expected["rows"], what
            assert f"/e/{key}/chart.svg" not in fetched, what  # nothing fetched for a chart off screen
            # scrolled into view, the chart is the fresh page's (fetched then, once)
            chart.scroll_into_view_if_needed()
            viewer.wait_for_function("src => document.querySelector('[data-live-part=chart] img').getAttribute('src')"
                                     " === src", arg=expected["chart"], timeout=60000)
            viewer.wait_for_function("() => document.querySelector('[data-live-part=chart] img').complete")
            assert fetched.count(f"/e/{key}/chart.svg") == 1, what
            viewer.evaluate("window.scrollTo(0, 0)")
            fetched.remove(f"/e/{key}/chart.svg")

        _quick(scorer, base, key, "Cat", 2)  # hand 2: Cat Three defeated
        follows("a new hand")
        _quick(scorer, base, key, "Dan", 3)  # hand 3: Dan Three made
        follows("another")
        assert viewer.locator(".total:has-text('Bob') .pts").inner_text() == "+9"  # +9 +3 −3 (P-12)

        # hand 1 corrected: Bob took two, defeated; every running total after it moves
        scorer.goto(f"{base}/e/{key}/hand/1/edit")
        scorer.locator("label.pill:has(input[name=tricks][value='2'])").click()
        scorer.locator("button[name=save]").first.click()
        scorer.wait_for_url(re.compile(r"/hand/1$"))
        follows("a correction of hand 1")
        assert viewer.locator(".total:has-text('Bob') .pts").inner_text() == "−9"  # −9 +3 −3

        # hand 3 undone: its row goes
        scorer.goto(f"{base}/e/{key}/undo")
        scorer.click("button:has-text('Undo hand 3')")
        scorer.locator(".flash:has-text('Hand 3 is undone')").wait_for(timeout=60000)
        follows("an undo")
        assert viewer.locator("tbody[id^=hand-]").count() == 2

        assert f"/e/{key}" not in fetched  # the page itself: never fetched again
        assert fetched.count(f"/e/{key}/changes") == 4  # one answer per change
        assert set(fetched) <= {f"/e/{key}/changes", f"/e/{key}/revision"}, set(fetched)
    finally:
        ctx_s.close()
        ctx_v.close()


def test_a_failed_fetch_of_the_changes_is_retried_until_they_show(browser: Any, site: tuple[Any, str]) -> None:
    """The revision shown is the one placed, never the one polled: when asking what changed
    fails, the old score stays with its revision, and the next tick asks again (with
    backoff) until the new hand is on screen."""
    from scorer.rules import HandFacts
    from scorer.storage import hand_writes

    app, base = site
    ctx, page = _phone(browser, service_workers="block")
    try:
        key = _start_table(page, base)
        with app.app_context():
            evening = units.get_evening(key)
            assert evening is not None
            hand_writes.record_hand(evening, 1, HandFacts(0, ("three", "pass", "pass", "pass"), 3))  # Bob +9
        page.goto(f"{base}/e/{key}")
        failed: list[str] = []

        def fail_once(route: Any) -> None:
            if not failed:
                failed.append(route.request.url)
                route.fulfill(status=503, body="busy")
            else:
                route.continue_()

        page.route(re.compile(r".*/changes\?.*"), fail_once)
        with app.app_context():
            evening = units.get_evening(key)
            assert evening is not None
            hand_writes.record_hand(evening, 2, HandFacts(1, ("four", "pass", "pass", "pass"), 4))  # Cat +12
        page.locator(".total:has-text('Cat') .pts").filter(has_text="+9").wait_for(timeout=60000)  # −3 + 12
        assert failed  # the failure really happened
        assert page.locator("[data-live]").get_attribute("data-revision") == str(_revision(app, key))
        assert page.locator("tbody#hand-2").count() == 1
    finally:
        ctx.close()


# ----------------------------------------------------------------- pushed: the live stream
def _behind_proxy(tmp_path: Any, streams: bool, carry: bool = False) -> Any:
    """(the app, a writer app on the same database, base URL, the stream server or None):
    the app behind deploy/nginx.conf with TLS, its pages opening the live stream; the
    stream server running (``streams``) or not (its path is then the app's 204); asking
    the app what changed for viewers' pages (``carry``) as ``nap serve``'s does."""
    import contextlib

    from conftest import _dispose, make_app
    from test_live_stream import StreamServer
    from test_proxy import behind_nginx

    @contextlib.contextmanager
    def run() -> Any:
        url = f"sqlite:///{tmp_path / 'live.sqlite3'}"
        app = make_app(url, WTF_CSRF_ENABLED=True, NAP_PROXY_HOPS=1, NAP_LIVE_EVENTS=True)
        writer = make_app(url)  # the scorer's saves, through the app's own form route
        live = StreamServer(url, hops=1) if streams else None
        ports: list[int] = []
        try:
            with behind_nginx(tmp_path, app, live=f"127.0.0.1:{live.port}" if live else None,
                              app_ports=ports) as (port, _ca):
                if carry and live is not None:
                    from scorer.web.live_changes import AppChanges

                    live.hub.changes = AppChanges([f"127.0.0.1:{p}" for p in ports])
                yield app, writer, f"https://127.0.0.1:{port}", live
        finally:
            if live is not None:
                live.close()
            _dispose(writer)
            _dispose(app)

    return run()


def _watch(browser: Any, base: str, key: str) -> tuple[Any, Any, list[str]]:
    ctx, viewer = _phone(browser, service_workers="block", ignore_https_errors=True)
    fetched: list[str] = []
    viewer.on("request", lambda r: fetched.append(urlsplit(r.url).path))
    viewer.goto(f"{base}/e/{key}")
    return ctx, viewer, fetched


def _shows(viewer: Any, revision: int) -> None:
    viewer.wait_for_function("r => document.querySelector('[data-live]').dataset.revision === String(r)",
                             arg=revision, timeout=60000)


def test_a_save_is_pushed_to_the_viewer_through_the_proxy_with_no_poll(browser: Any, tmp_path: Any) -> None:
    from webhelpers import post_hand, start_evening

    with _behind_proxy(tmp_path, streams=True) as (_app, writer, base, live):
        client = writer.test_client()
        key = start_evening(client)
        ctx, viewer, fetched = _watch(browser, base, key)
        try:
            wait_for = "() => document.querySelector('[data-live]') !== null"
            viewer.wait_for_function(wait_for)
            from webhelpers import wait_until
            wait_until(lambda: live.hub.open == 1, "the viewer never opened its stream")
            assert post_hand(client, key, 1, 0, {1: "three"}, 3).status_code == 302  # Bob Three made
            _shows(viewer, 1)
            assert viewer.locator("tbody#hand-1").count() == 1
            assert post_hand(client, key, 2, 0, {1: "three"}, 2).status_code == 302  # Bob Three lost
            _shows(viewer, 2)
            assert viewer.locator("tbody#hand-2").count() == 1
            assert fetched.count(f"/e/{key}/events") == 1  # one stream, kept open
            assert f"/e/{key}/revision" not in fetched  # never polled while it was open
            assert fetched.count(f"/e/{key}/changes") == 2  # then only what changed, once a save
        finally:
            ctx.close()


def test_a_viewers_stream_carries_what_changed_and_the_viewer_asks_for_nothing(browser: Any, tmp_path: Any) -> None:
    """As ``nap serve`` runs it, the stream server asks the app what changed once for the
    table's viewers and the event carries it: the viewer places it without a request of its
    own (no /changes, no page), and shows what a fresh page shows."""
    from webhelpers import post_hand, start_evening, wait_until

    with _behind_proxy(tmp_path, streams=True, carry=True) as (_app, writer, base, live):
        client = writer.test_client()
        key = start_evening(client)
        assert post_hand(client, key, 1, 0, {1: "three"}, 3).status_code == 302  # Bob Three made
        ctx, viewer, fetched = _watch(browser, base, key)
        try:
            _shows(viewer, 1)
            wait_until(lambda: live.hub.open == 1, "the viewer never opened its stream")
            assert post_hand(client, key, 2, 0, {1: "three"}, 2).status_code == 302  # Bob Three lost
            _shows(viewer, 2)
            assert post_hand(client, key, 3, 1, {2: "four"}, 4).status_code == 302  # Cat Four made
            _shows(viewer, 3)
            assert viewer.locator("tbody#hand-2").count() == 1 and viewer.locator("tbody#hand-3").count() == 1
            assert f"/e/{key}/changes" not in fetched  # carried by the stream, twice
            assert fetched.count(f"/e/{key}") == 1  # the first visit only: never fetched again
            assert live.hub.carried == 2
            fresh = ctx.new_page()
            fresh.goto(f"{base}/e/{key}")
            for name in ("totals", "hands"):
                part = f"[data-live-part='{name}']"
                assert viewer.locator(part).inner_text() == fresh.locator(part).inner_text()
        finally:
            ctx.close()


def test_without_the_stream_server_the_viewer_polls_and_without_javascript_a_reload_shows_the_score(
        browser: Any, tmp_path: Any) -> None:
    from webhelpers import post_hand, start_evening

    with _behind_proxy(tmp_path, streams=False) as (_app, writer, base, _live):
        client = writer.test_client()
        key = start_evening(client)
        ctx, viewer, fetched = _watch(browser, base, key)
        ctx_off, off = _phone(browser, java_script_enabled=False, ignore_https_errors=True)
        try:
            off.goto(f"{base}/e/{key}")
            assert off.locator("tbody#hand-1").count() == 0
            viewer.wait_for_function("() => document.querySelector('[data-live]') !== null")
            assert post_hand(client, key, 1, 0, {1: "three"}, 3).status_code == 302
            _shows(viewer, 1)
            assert fetched.count(f"/e/{key}/events") == 1  # answered 204: EventSource stopped for good
            assert f"/e/{key}/revision" in fetched  # and the page polled instead
            off.reload()
            assert off.locator("tbody#hand-1").count() == 1
        finally:
            ctx.close()
            ctx_off.close()
