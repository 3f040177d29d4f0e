"""A write acts only on the state it was made from (issue: never wrong, never down):
every page names the hand's own row and version, or the evening's revision; a
finished evening is final until reopened. On SQLite and PostgreSQL."""

from __future__ import annotations

import re
from typing import Any

from scorer.storage import evening_writes, evenings, units
from webhelpers import counts, hand_id, post_hand, second_scorer, start_evening, totals_on_page


def _fields(html: str) -> dict[str, str]:
    """The hidden fields of the first hand form on a page."""
    return dict(re.findall(r'<input[^>]*name="(number|version|hand_id|token|base)"[^>]*value="([^"]*)"', html)
                + [(m[1], m[0]) for m in re.findall(r'<input[^>]*value="([^"]*)"[^>]*name="(hand_id|base)"', html)])


def _undo_and_replace(phone: Any, key: str, tricks: int) -> None:
    """Another phone undoes hand 1 and records a new hand 1: Bob bids Four."""
    page = phone.get(f"/e/{key}/undo").get_data(as_text=True)
    hidden = dict(re.findall(r'name="(number|version|hand_id)" value="([^"]*)"', page))
    assert phone.post(f"/e/{key}/undo", data=hidden).status_code == 302
    assert post_hand(phone, key, 1, 0, {1: "four"}, tricks).status_code == 302


def _facts(app: Any, key: str) -> list[Any]:
    with app.app_context():
        return evenings.current_facts(units.get_evening(key))  # type: ignore[arg-type]


def test_a_correction_from_a_page_made_before_an_undo_never_lands_on_the_new_hand(any_db_app: Any) -> None:
    """ABA: hand 1 undone and a new hand 1 recorded (version 1 again): the old page's
    correction was applied to the new hand. It names the hand's row now: refused."""
    a = any_db_app.test_client()
    key = start_evening(a)
    post_hand(a, key, 1, 0, {1: "three"}, 3)
    page = a.get(f"/e/{key}/hand/1/edit").get_data(as_text=True)
    stale = _fields(page)
    assert stale["number"] == "1" and stale["version"] == "1" and stale["hand_id"] and stale["token"]
    _undo_and_replace(second_scorer(any_db_app, key), key, 4)
    after = _facts(any_db_app, key)
    answer = a.post(f"/e/{key}/hand/1/edit", data={**stale, "dealer": "0", "call_1": "three", "tricks": "1",
                                                   "save": "1"}, follow_redirects=True)
    assert "no longer in play" in answer.get_data(as_text=True)
    assert _facts(any_db_app, key) == after and after[0].auction[0] == "four"


def test_an_undo_from_a_page_made_before_another_undo_is_refused(any_db_app: Any) -> None:
    a = any_db_app.test_client()
    key = start_evening(a)
    post_hand(a, key, 1, 0, {1: "three"}, 3)
    page = a.get(f"/e/{key}/undo").get_data(as_text=True)
    stale = dict(re.findall(r'name="(number|version|hand_id)" value="([^"]*)"', page))
    assert set(stale) == {"number", "version", "hand_id"}
    _undo_and_replace(second_scorer(any_db_app, key), key, 4)
    assert a.post(f"/e/{key}/undo", data=stale).status_code == 302
    assert len(_facts(any_db_app, key)) == 1 and _facts(any_db_app, key)[0].auction[0] == "four"


def test_a_restore_from_a_stale_page_does_not_replace_a_newer_correction(any_db_app: Any) -> None:
    """Restore carried no version at all and replaced another phone's newer correction."""
    a = any_db_app.test_client()
    key = start_evening(a)
    post_hand(a, key, 1, 0, {1: "three"}, 3)  # version 1: Bob made Three
    fix = {"number": "1", "version": "1", "hand_id": hand_id(any_db_app, key, 1), "dealer": "0", "call_1": "three",
           "tricks": "2", "save": "1"}
    assert a.post(f"/e/{key}/hand/1/edit", data=fix).status_code == 302  # version 2: defeated
    page = a.get(f"/e/{key}/hand/1").get_data(as_text=True)
    restore = re.search(r'action="(/e/[^"]+/restore/1)"', page)
    assert restore is not None
    stale = _fields(page[restore.start():])
    assert stale["base"] == "2"
    b = second_scorer(any_db_app, key)
    assert b.post(f"/e/{key}/hand/1/edit", data={**fix, "version": "2", "tricks": "5"}).status_code == 302  # v3
    answer = a.post(restore.group(1), data={"hand_id": stale["hand_id"], "base": stale["base"]},
                    follow_redirects=True)
    assert "corrected on another phone" in answer.get_data(as_text=True)
    assert _facts(any_db_app, key)[0].tricks == 5  # the newer correction stands


def test_the_full_form_sent_again_after_an_undo_does_not_bring_the_hand_back(any_db_app: Any) -> None:
    """The full hand form had no one-time token on the page: sent again after the hand
    was undone, it brought the undone hand back. Quick entry already refused it."""
    a = any_db_app.test_client()
    key = start_evening(a)
    page = a.get(f"/e/{key}/hand").get_data(as_text=True)
    hidden = _fields(page)
    assert len(hidden["token"]) >= 16
    form = {**hidden, "dealer": "0", "call_1": "three", "tricks": "3", "save": "1"}
    assert a.post(f"/e/{key}/hand", data=form).status_code == 302
    page = a.get(f"/e/{key}/undo").get_data(as_text=True)
    assert a.post(f"/e/{key}/undo", data=dict(re.findall(r'name="(number|version|hand_id)" value="([^"]*)"',
                                                         page))).status_code == 302
    before = counts(any_db_app)
    again = a.post(f"/e/{key}/hand", data=form, follow_redirects=True)
    assert "already saved" in again.get_data(as_text=True)
    assert counts(any_db_app) == before and _facts(any_db_app, key) == []


def test_a_finished_evening_refuses_new_settings_until_it_is_reopened(any_db_app: Any) -> None:
    """Switching the payment schedule of a finished hoyle evening changed its totals."""
    a = any_db_app.test_client()
    key = start_evening(a, variant="hoyle", players=("Ann", "Bob", "Cat"))
    post_hand(a, key, 1, 0, {1: "three"}, 3)  # H-11: Bob made Three, +3 from each: +6
    totals = totals_on_page(a.get(f"/e/{key}").get_data(as_text=True))
    assert totals["Bob"] == "+6"
    with any_db_app.app_context():
        evening = units.get_evening(key)
        evening_writes.set_finished(evening, True)  # type: ignore[arg-type]
        revision = units.evening_revision(key)
    assert a.get(f"/e/{key}/settings").status_code == 302
    refused = a.post(f"/e/{key}/settings", data={"revision": str(revision), "name": "Renamed",
                                                 "opt_payment": "double"}, follow_redirects=True)
    assert "reopen it to change its settings" in refused.get_data(as_text=True)
    with any_db_app.app_context():
        evening = units.get_evening(key)
        assert evening is not None and evening.name != "Renamed" and units.evening_revision(key) == revision
    assert totals_on_page(a.get(f"/e/{key}").get_data(as_text=True)) == totals


def _without_hand_id(fields: dict[str, str]) -> dict[str, str]:
    """A form as a phone kept it from before the forms named the hand's row."""
    return {name: value for name, value in fields.items() if name != "hand_id"}


def test_an_old_kept_correction_form_without_the_hands_row_never_lands_on_a_new_hand(any_db_app: Any) -> None:
    """Issue 21 item 14, ABA: a correction form kept from before the forms named the
    hand's row fell back to (number, version): after hand 1 was undone and a new hand 1
    recorded (version 1 again) it corrected the new hand. It is refused: 409, "reload"."""
    a = any_db_app.test_client()
    key = start_evening(a)
    post_hand(a, key, 1, 0, {1: "three"}, 3)
    old = _without_hand_id(_fields(a.get(f"/e/{key}/hand/1/edit").get_data(as_text=True)))
    assert old["number"] == "1" and old["version"] == "1"
    _undo_and_replace(second_scorer(any_db_app, key), key, 4)
    after, before = _facts(any_db_app, key), counts(any_db_app)
    answer = a.post(f"/e/{key}/hand/1/edit", data={**old, "dealer": "0", "call_1": "three", "tricks": "1",
                                                   "save": "1"})
    assert answer.status_code == 409 and "This page is out of date: reload it." in answer.get_data(as_text=True)
    assert _facts(any_db_app, key) == after and after[0].auction[0] == "four" and after[0].tricks == 4
    assert counts(any_db_app) == before


def test_every_hand_form_posted_without_the_hands_row_is_refused_and_changes_nothing(any_db_app: Any) -> None:
    """Issue 21 item 14: an undo, a restore, an override and the record of play without
    ``hand_id`` (an old kept page, a hand-made form) went ahead by the hand's number; each
    is now a 409 that changes nothing, as is a ``hand_id`` that is not a row id."""
    a = any_db_app.test_client()
    key = start_evening(a)
    post_hand(a, key, 1, 0, {1: "three"}, 3)
    fix = {"number": "1", "version": "1", "hand_id": hand_id(any_db_app, key, 1), "dealer": "0", "call_1": "three",
           "tricks": "2", "save": "1"}
    assert a.post(f"/e/{key}/hand/1/edit", data=fix).status_code == 302  # version 2: defeated
    facts, before = _facts(any_db_app, key), counts(any_db_app)
    undo = _fields(a.get(f"/e/{key}/undo").get_data(as_text=True))
    assert set(undo) == {"number", "version", "hand_id"}
    posts = {
        f"/e/{key}/undo": {"number": "1", "version": "2"},
        f"/e/{key}/hand/1/restore/1": {"base": "2"},
        f"/e/{key}/hand/1/override": {"version": "2", "units_0": "-2", "units_1": "6", "units_2": "-2",
                                      "units_3": "-2", "reason": "agreed", "apply": "1"},
        f"/e/{key}/hand/1/play": {"version": "2", "record": "AH 2H 3H 4H", "save": "1"},
        f"/e/{key}/hand/1/edit": {**_without_hand_id(fix), "version": "2", "tricks": "5"},
    }
    for path, data in posts.items():
        for row in ({}, {"hand_id": ""}, {"hand_id": "x1"}, {"hand_id": "0"}):
            answer = a.post(path, data={**data, **row})
            assert answer.status_code == 409, (path, row, answer.status_code)
            assert "This page is out of date: reload it." in answer.get_data(as_text=True)
    assert _facts(any_db_app, key) == facts and facts[0].tricks == 2
    assert counts(any_db_app) == before
    assert a.post(f"/e/{key}/undo", data=undo).status_code == 302  # the page's own form still works
    assert _facts(any_db_app, key) == []
