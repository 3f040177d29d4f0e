"""Quick entry's page is rendered once per revision of the table (issue 23 item 2): the service
worker's warm-up asks for it after every hand and the scorer opens it a moment later, and a
second scorer's phone may open it too. Each answer still carries its own phone's CSRF token
and a one-time token of its own (a token shared by two pages would make the second page's
hand look like the first's, sent again, and be dropped), and a page with a message waiting
shows it (scorer/web/quick_entry.py ``kept_page``)."""

from __future__ import annotations

import re
from typing import Any

from flask import template_rendered

from scorer.web import caches
from scorer.web.quick_entry import CSRF_SLOT, TOKEN_SLOT
from tests.webhelpers import second_scorer, start_evening

HIDDEN = re.compile(r'<input[^>]*name="(csrf_token|token|number)"[^>]*value="([^"]*)"')


def _fields(html: str) -> dict[str, str]:
    found = dict(HIDDEN.findall(html))
    assert {"token", "number"} <= set(found), found
    return found


def _quick_renders(app: Any) -> tuple[list[str], Any]:
    seen: list[str] = []

    def record(_sender: Any, template: Any, **_: Any) -> None:
        if template.name == "quick.html":
            seen.append(template.name)
    template_rendered.connect(record, app)
    return seen, record


def test_two_phones_share_one_render_and_each_gets_its_own_tokens_which_are_good(app: Any) -> None:
    caches.quick_cache.clear()
    first = app.test_client()
    key = start_evening(first)
    other = second_scorer(app, key)
    for client in (first, other):  # their messages ("Evening started", …) shown and gone
        client.get(f"/e/{key}")
    app.config["WTF_CSRF_ENABLED"] = True
    renders, record = _quick_renders(app)
    try:
        pages = [c.get(f"/e/{key}/quick").get_data(as_text=True) for c in (first, first, other)]
    finally:
        template_rendered.disconnect(record, app)
    assert renders == ["quick.html"]  # one render for the three answers
    fields = [_fields(page) for page in pages]
    assert all("csrf_token" in f for f in fields)
    assert [f["number"] for f in fields] == ["1", "1", "1"]
    assert len({f["token"] for f in fields}) == 3 and all(len(f["token"]) >= 20 for f in fields)
    assert fields[0]["csrf_token"] != fields[2]["csrf_token"]  # each phone's own session
    for page in pages:
        assert CSRF_SLOT not in page and TOKEN_SLOT not in page
    # apart from the two tokens, the three pages are one page
    blank = [HIDDEN.sub(lambda m: f'name="{m.group(1)}" value=""', page) for page in pages]
    assert blank[0] == blank[1] == blank[2]
    # the second scorer's page saves, with its own tokens; the first's, hand 1 again, is refused
    saved = other.post(f"/e/{key}/quick", data={**fields[2], "declarer": "1", "contract": "three", "tricks": "3"})
    assert saved.status_code == 302, saved.get_data(as_text=True)
    first.post(f"/e/{key}/quick", data={**fields[0], "declarer": "2", "contract": "three", "tricks": "1"})
    hands = first.get(f"/api/e/{key}").get_json()["hands"]
    assert len(hands) == 1 and hands[0]["facts"]["tricks"] == 3
    # the next revision is a new page: hand 2, rendered again
    assert _fields(first.get(f"/e/{key}/quick").get_data(as_text=True))["number"] == "2"


def test_the_warm_ups_copy_and_the_scorers_own_get_are_one_render(app: Any) -> None:
    caches.quick_cache.clear()
    scorer = app.test_client()
    key = start_evening(scorer)
    scorer.get(f"/e/{key}")
    renders, record = _quick_renders(app)
    try:
        kept = {p["path"]: p["html"] for p in scorer.get(f"/e/{key}/kept").get_json()["pages"]}
        own = scorer.get(f"/e/{key}/quick").get_data(as_text=True)
    finally:
        template_rendered.disconnect(record, app)
    assert renders == ["quick.html"]
    assert _fields(kept[f"/e/{key}/quick"])["token"] != _fields(own)["token"]


def test_a_page_with_a_message_waiting_shows_it_and_is_not_kept(app: Any) -> None:
    caches.quick_cache.clear()
    scorer = app.test_client()
    key = start_evening(scorer)
    with scorer.session_transaction() as session:
        session["_flashes"] = [("message", "Hello from the test")]
    page = scorer.get(f"/e/{key}/quick").get_data(as_text=True)
    assert "Hello from the test" in page
    assert "Hello from the test" not in scorer.get(f"/e/{key}/quick").get_data(as_text=True)
    assert not any("Hello from the test" in page for page in caches.quick_cache._data.values())
