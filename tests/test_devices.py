"""A phone keeps its role: a device id cookie for 400 days, roles and wrong PINs in the
database, a small session cookie; scorers can revoke a phone or renew the PIN and link."""

from __future__ import annotations

import re
from typing import Any

import sqlalchemy as sa

from scorer.storage import units
from scorer.storage.models import Evening, db
from webhelpers import post_hand, start_evening


def _set_cookies(response: Any) -> dict[str, str]:
    return {c.split("=", 1)[0]: c for c in response.headers.getlist("Set-Cookie")}


def _credentials(app: Any, key: str) -> tuple[str, str]:
    with app.app_context():
        row = db.session.execute(sa.select(Evening.pin, Evening.edit_key).where(Evening.key == key)).one()
        return row.pin, row.edit_key


def test_the_role_survives_a_browser_restart(app: Any) -> None:
    """The session cookie had no expiry: a restarted browser lost its scorer role and its
    list of tables. The device cookie lasts 400 days; the session is not needed."""
    phone = app.test_client()
    answer = phone.post("/new/pagat", data={"name": "Thursday", "scoring": "points", "first": "0",
                                            **{f"players-{i}": n for i, n in enumerate(("Ann", "Bob", "Cat"))}})
    key = answer.headers["Location"].rsplit("/", 1)[-1]
    device = _set_cookies(answer)["nap_device"]
    assert "Max-Age=34560000" in device and "HttpOnly" in device
    phone.delete_cookie("session")  # the browser restarts: session cookies are gone
    assert phone.get(f"/e/{key}/quick").status_code == 200  # still a scorer
    assert key in phone.get("/").get_data(as_text=True)  # and the table is still listed


def test_two_hundred_tables_and_a_wrong_pin_at_each_keep_the_cookies_small(app: Any) -> None:
    """One wrong PIN at each of 110 tables made the session cookie too large (Chromium
    dropped it). Wrong PINs and roles are kept in the database now."""
    owner = app.test_client()
    keys = [start_evening(owner) for _ in range(200)]
    phone = app.test_client()
    for key in keys:
        assert phone.post(f"/e/{key}/join", data={"pin": "000000x"}).status_code == 422
    cookies = {c.key: c.value for c in phone._cookies.values()}  # noqa: SLF001 - the test client's jar
    size = sum(len(k) + len(v) for k, v in cookies.items())
    print(f"cookies after 200 tables with a wrong PIN each: {size} bytes")
    assert size < 600 and len(cookies.get("session", "")) < 400
    assert len(re.findall(r"/e/[A-Za-z0-9_-]{22}", phone.get("/").get_data(as_text=True))) >= 100


def test_wrong_pins_are_counted_per_phone_in_the_database(app: Any) -> None:
    owner = app.test_client()
    key = start_evening(owner)
    phone = app.test_client()
    for _ in range(5):
        assert phone.post(f"/e/{key}/join", data={"pin": "999999x"}).status_code == 422
    phone.delete_cookie("session")  # clearing the session does not reset the count
    locked = phone.post(f"/e/{key}/join", data={"pin": _credentials(app, key)[0]}).get_data(as_text=True)
    assert "Too many wrong PINs from this phone" in locked


def test_a_scorer_revokes_a_phone_and_renews_the_pin_and_link(app: Any) -> None:
    owner = app.test_client()
    key = start_evening(owner)
    pin, edit_key = _credentials(app, key)
    by_link, by_pin = app.test_client(), app.test_client()
    assert by_link.get(f"/e/{key}/scorer/{edit_key}").status_code == 302
    assert by_pin.post(f"/e/{key}/join", data={"pin": pin}).status_code == 302
    share = owner.get(f"/e/{key}/share").get_data(as_text=True)
    rows = re.findall(r'/e/[^/]+/scorers/(\d+)/revoke', share)
    assert len(rows) == 2 and "this phone" in share  # the owner cannot revoke itself
    assert owner.post(f"/e/{key}/scorers/{rows[-1]}/revoke").status_code == 302  # the oldest: by the link
    assert by_link.get(f"/e/{key}/quick").status_code == 302  # a viewer again
    assert by_pin.get(f"/e/{key}/quick").status_code == 200
    assert owner.post(f"/e/{key}/credentials").status_code == 302
    assert by_pin.get(f"/e/{key}/quick").status_code == 302  # the old PIN's phones only watch now
    assert owner.get(f"/e/{key}/quick").status_code == 200  # the creator stays a scorer
    new_pin, new_edit_key = _credentials(app, key)
    assert (new_pin, new_edit_key) != (pin, edit_key)
    assert by_link.get(f"/e/{key}/scorer/{edit_key}").status_code == 404  # the old link is dead
    assert by_link.get(f"/e/{key}/scorer/{new_edit_key}").status_code == 302
    assert by_link.get(f"/e/{key}/quick").status_code == 200
    history = owner.get(f"/e/{key}/history").get_data(as_text=True)
    assert "A phone may no longer score" in history and "New PIN and scorers’ link" in history


def test_a_viewer_cannot_revoke_or_renew(app: Any) -> None:
    owner = app.test_client()
    key = start_evening(owner)
    post_hand(owner, key, 1, 0, {1: "three"}, 3)
    viewer = app.test_client()
    before = _credentials(app, key)
    assert viewer.post(f"/e/{key}/credentials").headers["Location"].endswith(f"/e/{key}/join")
    assert _credentials(app, key) == before
    with app.app_context():
        assert units.evening_revision(key) is not None


def test_a_client_that_keeps_no_cookies_writes_nothing_by_reading(app: Any) -> None:
    """A script or a poll without cookies is given a device id, but no row is written
    until a phone comes back with it (so reading never fills the database)."""
    from scorer.storage.models import Device, TableAccess

    key = start_evening(app.test_client())
    with app.app_context():
        before = (db.session.scalar(sa.select(sa.func.count()).select_from(Device)),
                  db.session.scalar(sa.select(sa.func.count()).select_from(TableAccess)))
    for _ in range(5):
        fresh = app.test_client()
        answer = fresh.get(f"/e/{key}")
        assert answer.status_code == 200 and "nap_device" in _set_cookies(answer)
    with app.app_context():
        after = (db.session.scalar(sa.select(sa.func.count()).select_from(Device)),
                 db.session.scalar(sa.select(sa.func.count()).select_from(TableAccess)))
    assert after == before
    phone = app.test_client()
    phone.get(f"/e/{key}")
    phone.get(f"/e/{key}")  # back with its cookie: now the table is remembered
    assert key in phone.get("/").get_data(as_text=True)


def _scorer_rows(owner: Any, key: str) -> list[str]:
    return re.findall(r'/e/[^/]+/scorers/(\d+)/revoke', owner.get(f"/e/{key}/share").get_data(as_text=True))


def test_a_removed_phone_cannot_rejoin_with_the_pin_or_link_it_knows(app: Any) -> None:
    """A phone removed as a scorer typed the PIN (or opened the link) again and was a
    scorer at once. Now it waits for the owner's new ones."""
    owner = app.test_client()
    key = start_evening(owner)
    pin, edit_key = _credentials(app, key)
    by_link, by_pin = app.test_client(), app.test_client()
    assert by_link.get(f"/e/{key}/scorer/{edit_key}").status_code == 302
    assert by_pin.post(f"/e/{key}/join", data={"pin": pin}).status_code == 302
    for row in _scorer_rows(owner, key):
        assert owner.post(f"/e/{key}/scorers/{row}/revoke").status_code == 302
    answer = by_link.get(f"/e/{key}/scorer/{edit_key}", follow_redirects=True).get_data(as_text=True)
    assert "A scorer removed this phone as a scorer here" in answer
    assert by_link.get(f"/e/{key}/quick").status_code == 302  # still a viewer
    page = by_pin.post(f"/e/{key}/join", data={"pin": pin})
    assert page.status_code == 422 and "A scorer removed this phone" in page.get_data(as_text=True)
    assert by_pin.get(f"/e/{key}/quick").status_code == 302
    api = by_pin.post(f"/api/e/{key}/join", json={"pin": pin, "token": "retry-0000000000000001"}).get_json()
    assert api["error"]["rule"] == "removed", api
    # the owner renews: with the new ones they may score again
    assert owner.post(f"/e/{key}/credentials").status_code == 302
    new_pin, new_edit_key = _credentials(app, key)
    assert by_link.get(f"/e/{key}/scorer/{new_edit_key}").status_code == 302
    assert by_pin.post(f"/e/{key}/join", data={"pin": new_pin}).status_code == 302
    assert by_link.get(f"/e/{key}/quick").status_code == 200 and by_pin.get(f"/e/{key}/quick").status_code == 200


def test_remove_and_change_the_pin_is_one_action_of_the_owner(app: Any) -> None:
    owner = app.test_client()
    key = start_evening(owner)
    pin, edit_key = _credentials(app, key)
    other, helper = app.test_client(), app.test_client()
    assert other.post(f"/e/{key}/join", data={"pin": pin}).status_code == 302
    assert helper.get(f"/e/{key}/scorer/{edit_key}").status_code == 302
    assert "Remove and change the PIN" in owner.get(f"/e/{key}/share").get_data(as_text=True)
    assert "Remove and change the PIN" not in helper.get(f"/e/{key}/share").get_data(as_text=True)
    other_row, helper_row = _scorer_rows(owner, key)  # newest first
    # a scorer that is not the owner cannot renew: nothing is revoked either
    assert helper.post(f"/e/{key}/scorers/{other_row}/revoke", data={"renew": "1"}).status_code in (302, 403)
    assert other.get(f"/e/{key}/quick").status_code == 200 and _credentials(app, key) == (pin, edit_key)
    answer = owner.post(f"/e/{key}/scorers/{other_row}/revoke", data={"renew": "1"}, follow_redirects=True)
    assert "The table has a new PIN and a new scorers’ link" in answer.get_data(as_text=True)
    new_pin, new_edit_key = _credentials(app, key)
    assert new_pin != pin and new_edit_key != edit_key
    assert other.get(f"/e/{key}/quick").status_code == 302 and helper.get(f"/e/{key}/quick").status_code == 302
    assert owner.get(f"/e/{key}/quick").status_code == 200
    # the old PIN is worth nothing now, from any phone
    assert "not this table" in app.test_client().post(f"/e/{key}/join", data={"pin": pin}).get_data(as_text=True)
    history = owner.get(f"/e/{key}/history").get_data(as_text=True)
    assert "A phone may no longer score" in history and "New PIN and scorers’ link" in history


ANDROID_CHROME = ("Mozilla/5.0 (Linux; Android 10; K) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/120.0.0.0 "
                  "Mobile Safari/537.36")


def test_a_phone_is_named_by_its_browser_and_system_until_it_is_named() -> None:
    """Issue 25, item 6: an Android phone was "Linux PC a60"; ua-parser reads the string."""
    from scorer.web.devices import guess_device

    assert guess_device(ANDROID_CHROME) == "Chrome, Android"
    assert guess_device("Mozilla/5.0 (iPhone; CPU iPhone OS 17_1 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like "
                        "Gecko) Version/17.1 Mobile/15E148 Safari/604.1") == "Safari, iPhone"
    assert guess_device("Mozilla/5.0 (Linux; Android 13; SAMSUNG SM-A605FN) AppleWebKit/537.36 (KHTML, like Gecko) "
                        "SamsungBrowser/23.0 Chrome/115.0.0.0 Mobile Safari/537.36") == "Samsung, Android"
    assert guess_device("Mozilla/5.0 (Android 14; Mobile; rv:125.0) Gecko/125.0 Firefox/125.0") == "Firefox, Android"
    assert guess_device("Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) "
                        "Chrome/120.0.0.0 Safari/537.36 Edg/120.0.0.0") == "Edge, Windows"
    assert guess_device("Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) "
                        "HeadlessChrome/131.0.0.0 Safari/537.36") == "Chrome, Linux"
    assert guess_device("Werkzeug/3.1") == "a browser"
    assert guess_device("") == "unknown device"
    assert len(guess_device("Mozilla/5.0 (X11; CrOS x86_64 14541.0.0) AppleWebKit/537.36 (KHTML, like Gecko) "
                            "SamsungBrowser/23.0 Chrome/120.0.0.0 Safari/537.36")) <= 20  # the column's width


def test_the_share_page_lists_a_new_android_phone_as_chrome_android_and_its_tag(app: Any) -> None:
    phone = app.test_client()
    phone.environ_base["HTTP_USER_AGENT"] = ANDROID_CHROME
    key = start_evening(phone)
    page = phone.get(f"/e/{key}/share").get_data(as_text=True)
    assert re.search(r"<li><bdi>Chrome, Android \([0-9a-f]{3}\)</bdi> \(this phone\)", page), page
    assert "Linux PC" not in page
