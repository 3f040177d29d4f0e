"""Quiet requests (scorer/web/quiet.py, issue 25 item 5): the service worker's warm-ups
(X-Nap-Warm), live.js's fresh copy (X-Nap-Live) and a browser's prefetch neither take nor
leave a message in the session, and write no session cookie when nothing else changed.
The stray message: the worker warms an evening's undo page while it has no hand; the
undo page flashes "There is no hand to undo." and redirects; the first hand's form then
greeted the table with it."""

from __future__ import annotations

import re
from typing import Any

import pytest

from scorer.web import quiet
from tests.webhelpers import start_evening

NO_HAND = "There is no hand to undo."
WARM = {"X-Nap-Warm": "1"}


def _session_cookies(response: Any) -> list[str]:
    return [h for h in response.headers.getlist("Set-Cookie") if h.startswith("session=")]


def test_without_the_header_the_undo_page_of_an_evening_with_no_hand_leaves_its_message(client: Any) -> None:
    key = start_evening(client)
    assert client.get(f"/e/{key}/undo").status_code == 302
    assert NO_HAND in client.get(f"/e/{key}/hand").get_data(as_text=True)


@pytest.mark.parametrize("headers", [WARM, {"X-Nap-Live": "1"}, {"Sec-Purpose": "prefetch"},
                                     {"Sec-Purpose": "prefetch;prerender"}, {"Purpose": "prefetch"}])
def test_a_warm_up_of_the_undo_page_leaves_no_message_and_no_cookie(client: Any, headers: dict[str, str]) -> None:
    key = start_evening(client)
    client.get(f"/e/{key}/hand")  # the session as a scorer's phone has it (its CSRF secret made)
    warmed = client.get(f"/e/{key}/undo", headers=headers)
    assert warmed.status_code == 302
    assert _session_cookies(warmed) == []
    page = client.get(f"/e/{key}/hand").get_data(as_text=True)
    assert "Record hand 1" in page or "hand 1" in page.lower()
    assert NO_HAND not in page


def test_a_warm_up_does_not_take_a_message_that_waits_for_the_table(client: Any) -> None:
    key = start_evening(client)
    assert client.get(f"/e/{key}/undo").status_code == 302  # a real tap: the message waits
    for path in (f"/e/{key}", f"/e/{key}/hand", f"/e/{key}/quick", f"/e/{key}/big"):
        kept = client.get(path, headers=WARM)
        assert kept.status_code == 200
        assert NO_HAND not in kept.get_data(as_text=True), path  # not in a page kept for later
        assert _session_cookies(kept) == [], path
    assert NO_HAND in client.get(f"/e/{key}").get_data(as_text=True)  # still there for the table
    assert NO_HAND not in client.get(f"/e/{key}").get_data(as_text=True)  # shown once


def test_a_first_csrf_secret_made_by_a_warm_up_is_kept(app: Any, client: Any) -> None:
    """The form of a page kept for later needs the CSRF secret its token was signed with:
    the one session change a warm-up writes."""
    key = start_evening(client)
    app.config["WTF_CSRF_ENABLED"] = True
    with client.session_transaction() as sess:
        sess.pop("csrf_token", None)
    warmed = client.get(f"/e/{key}/hand", headers=WARM)
    assert warmed.status_code == 200
    assert len(_session_cookies(warmed)) == 1
    with client.session_transaction() as sess:
        assert "csrf_token" in sess
        assert sess["_flashes"] == [("message", "The evening has started. Good luck!")]  # still waiting
    token = re.search(r'name="csrf_token" type="hidden" value="([^"]+)"', warmed.get_data(as_text=True))
    assert token is not None
    data = {"csrf_token": token.group(1), "number": "1", "dealer": "0", "call_1": "pass", "call_2": "pass",
            "call_3": "three", "call_0": "pass", "tricks": "3", "save": "1"}
    assert client.post(f"/e/{key}/hand", data=data).status_code == 302  # the kept form's token is good


def test_the_warm_up_in_one_answer_takes_no_message_and_keeps_the_first_csrf_secret(app: Any, client: Any) -> None:
    """GET /e/<key>/kept (the table's pages in one answer, static/sw.js) is quiet as each page
    was: no page in it shows the message that waits for the table, which still waits; a
    first CSRF secret made for its forms is the one its cookie keeps, so a kept form posts."""
    key = start_evening(client)
    app.config["WTF_CSRF_ENABLED"] = True
    assert client.get(f"/e/{key}/undo").status_code == 302  # a real tap: the message waits
    with client.session_transaction() as sess:
        sess.pop("csrf_token", None)
    warmed = client.get(f"/e/{key}/kept", headers=WARM)
    assert warmed.status_code == 200
    pages = {p["path"]: p["html"] for p in warmed.get_json()["pages"]}
    assert list(pages) == [f"/e/{key}/quick", f"/e/{key}/big", f"/e/{key}/hand"]  # undo: no hand, a redirect
    assert not [path for path, html in pages.items() if NO_HAND in html]
    assert len(_session_cookies(warmed)) == 1
    with client.session_transaction() as sess:
        assert "csrf_token" in sess
        assert ("message", NO_HAND) in sess["_flashes"]  # still waiting
    token = re.search(r'name="csrf_token" type="hidden" value="([^"]+)"', pages[f"/e/{key}/hand"])
    assert token is not None
    data = {"csrf_token": token.group(1), "number": "1", "dealer": "0", "call_1": "pass", "call_2": "pass",
            "call_3": "three", "call_0": "pass", "tricks": "3", "save": "1"}
    assert client.post(f"/e/{key}/hand", data=data).status_code == 302  # the kept form's token is good


@pytest.mark.parametrize(("method", "headers", "expected"), [
    ("GET", WARM, True), ("HEAD", WARM, True), ("POST", WARM, False), ("GET", {"X-Nap-Warm": "0"}, False),
    ("GET", {}, False), ("GET", {"Sec-Purpose": "prefetch"}, True), ("GET", {"X-Moz": "prefetch"}, True),
    ("GET", {"X-Nap-Live": "1"}, True), ("GET", {"X-Nap-Live": "yes"}, False), ("GET", {"Purpose": "Prefetch"}, True),
    ("GET", {"Sec-Purpose": "prefetch;prerender"}, True), ("GET", {"X-Purpose": "PRERENDER"}, True),
    ("GET", {"Sec-Purpose": ""}, False), ("GET", {"X-Purpose": "preview"}, False),
    ("POST", {"Purpose": "prefetch"}, False),
])
def test_which_requests_are_quiet(app: Any, method: str, headers: dict[str, str], expected: bool) -> None:
    with app.test_request_context("/", method=method, headers=headers):
        assert quiet.is_quiet() is expected
