"""Disputes the way a table has them (issue 12): any phone, a viewer's included, disputes
a hand; it shows as disputed on every phone until a scorer rules on it (the referee's
ruling, citing the rule) or dismisses it; a table may ask another phone to confirm each
new hand. Values worked out by hand from shared/rules/pagat.md (P-12, P-16; the
Norwegian seed is silent on revokes, P-16 adopts "revoke by an opponent: scored as made").
"""

from __future__ import annotations

import re
from typing import Any

from scorer.storage import units
from tests.test_entry import checked
from tests.webhelpers import post_hand, start_evening, totals_on_page


def _hand_id(app: Any, key: str, number: int) -> int:
    with app.app_context():
        evening = units.get_evening(key)
        assert evening is not None
        return evening.hands[number - 1].id


def _viewer(app: Any, key: str) -> Any:
    """A phone watching the table, known to the server (back with its cookie: its row is made)."""
    phone = app.test_client()
    assert phone.get(f"/e/{key}").status_code == 200
    assert phone.get(f"/e/{key}").status_code == 200
    return phone


def test_a_viewer_disputes_a_revoke_and_a_scorer_rules_on_it_by_p16(app: Any) -> None:
    scorer = app.test_client()
    key = start_evening(scorer)  # pagat: Ann, Bob, Cat, Dan; Ann deals
    # Hand 1: Bob bids Three and takes two: defeated, Bob pays 3 to each (P-12)
    assert post_hand(scorer, key, 1, 0, {1: "three"}, tricks=2).status_code == 302
    assert totals_on_page(scorer.get(f"/e/{key}").get_data(as_text=True)) == {
        "Ann": "+3", "Bob": "−9", "Cat": "+3", "Dan": "+3"}
    viewer = _viewer(app, key)
    assert "Become a scorer" in viewer.get(f"/e/{key}").get_data(as_text=True)
    form = viewer.get(f"/e/{key}/hand/1/dispute").get_data(as_text=True)
    assert "Revoke" in form and "The score is wrong" in form and "Out of turn" not in form  # pagat claims: revoke
    revision = viewer.get(f"/e/{key}/revision").get_json()["revision"]
    # Bob says Cat revoked in trick 2
    raised = viewer.post(f"/e/{key}/hand/1/dispute", data={
        "hand_id": str(_hand_id(app, key, 1)), "kind": "revoke", "accused": "2", "raised_by": "1", "trick": "2"})
    assert raised.status_code == 302
    assert viewer.get(f"/e/{key}/revision").get_json()["revision"] == revision + 1  # live: every phone sees it
    for phone in (viewer, scorer):
        sheet = phone.get(f"/e/{key}").get_data(as_text=True)
        assert 'class="badge disputed"' in sheet
        assert "Hand 1 is disputed: a scorer rules on it." in sheet  # a banner at the top, not only the row
    hand = scorer.get(f"/e/{key}/hand/1").get_data(as_text=True)
    assert "Revoke (did not follow suit): <bdi>Cat</bdi> · trick 2 · raised by <bdi>Bob</bdi>" in " ".join(hand.split())
    dispute_id = int(re.search(r"/hand/1/edit\?dispute=(\d+)", hand).group(1))  # type: ignore[union-attr]
    assert "Rule on it" not in viewer.get(f"/e/{key}/hand/1").get_data(as_text=True)  # a viewer cannot rule

    # "Rule on it": the correction form comes with the claim filled in
    edit = scorer.get(f"/e/{key}/hand/1/edit?dispute={dispute_id}").get_data(as_text=True)
    assert checked(edit, "claim_kind") == ["revoke"] and checked(edit, "claim_accused") == ["2"]
    assert checked(edit, "claim_by") == ["1"] and checked(edit, "claim_trick") == ["2"]
    ruled = scorer.post(f"/e/{key}/hand/1/edit", data={
        "number": "1", "version": "1", "hand_id": str(_hand_id(app, key, 1)), "dealer": "0", "call_1": "three",
        "tricks": "2", "claim_kind": "revoke", "claim_accused": "2", "claim_by": "1", "claim_trick": "2",
        "claim_upheld": "yes", "dispute": str(dispute_id), "save": "1"})
    assert ruled.status_code == 302, ruled.get_data(as_text=True)
    # P-16 (adopted): a revoke by an opponent scores the contract as made: Bob +3 from each
    sheet = scorer.get(f"/e/{key}").get_data(as_text=True)
    assert totals_on_page(sheet) == {"Ann": "−3", "Bob": "+9", "Cat": "−3", "Dan": "−3"}
    assert 'class="badge disputed"' not in sheet
    hand = scorer.get(f"/e/{key}/hand/1").get_data(as_text=True)
    assert "P-16" in hand
    # ruled: the hand page says so quietly, no red "disputed" flag left (issue 25, item 6)
    assert 'class="disputed"' not in hand and 'class="badge disputed"' not in hand
    assert '<span class="ruled">⚑ claim ruled</span>' in hand
    history = scorer.get(f"/e/{key}/history").get_data(as_text=True)
    assert "Hand disputed" in history and "Dispute ruled on" in history


def test_a_dispute_asks_only_what_its_kind_needs_and_bad_input_changes_nothing(app: Any) -> None:
    scorer = app.test_client()
    key = start_evening(scorer)
    assert post_hand(scorer, key, 1, 0, {1: "three"}, tricks=3).status_code == 302
    viewer = _viewer(app, key)
    hand_id = str(_hand_id(app, key, 1))
    revision = viewer.get(f"/e/{key}/revision").get_json()["revision"]
    for bad in ({"kind": ""}, {"kind": "revoke"}, {"kind": "revoke", "accused": "9"}, {"kind": "<b>"},
                {"kind": "score", "trick": "7"}, {"kind": "score", "raised_by": "x1"}):
        response = viewer.post(f"/e/{key}/hand/1/dispute", data={"hand_id": hand_id, **bad})
        assert response.status_code == 422, bad
    assert viewer.get(f"/e/{key}/revision").get_json()["revision"] == revision
    # "the score is wrong" names nobody; a scorer dismisses it and the hand stands
    assert viewer.post(f"/e/{key}/hand/1/dispute", data={"hand_id": hand_id, "kind": "score",
                                                          "note": "Bob had four"}).status_code == 302
    hand = scorer.get(f"/e/{key}/hand/1").get_data(as_text=True)
    assert "The score is wrong · raised by someone watching" in " ".join(hand.split()) and "Bob had four" in hand
    dispute_id = re.search(r"/dispute/(\d+)/dismiss", hand).group(1)  # type: ignore[union-attr]
    assert viewer.post(f"/e/{key}/dispute/{dispute_id}/dismiss").status_code in (302, 403)
    assert 'class="badge disputed"' in scorer.get(f"/e/{key}").get_data(as_text=True)  # a viewer cannot dismiss
    assert scorer.post(f"/e/{key}/dispute/{dispute_id}/dismiss").status_code == 302
    sheet = scorer.get(f"/e/{key}").get_data(as_text=True)
    assert 'class="badge disputed"' not in sheet
    assert totals_on_page(sheet) == {"Ann": "−3", "Bob": "+9", "Cat": "−3", "Dan": "−3"}  # P-12, unchanged


def test_confirmation_waits_for_another_phone(app: Any) -> None:
    scorer = app.test_client()
    key = start_evening(scorer)
    assert post_hand(scorer, key, 1, 0, {1: "three"}, tricks=3).status_code == 302  # before: counts as confirmed
    assert scorer.post(f"/e/{key}/confirmation", data={"on": "1"}).status_code == 302
    viewer = _viewer(app, key)  # at the table before hand 2 is entered
    assert post_hand(scorer, key, 2, 0, {2: "three"}, tricks=3).status_code == 302
    sheet = scorer.get(f"/e/{key}").get_data(as_text=True)
    assert "Hand 2 waits for another phone" in sheet and 'class="badge waiting"' in sheet
    hand_id = str(_hand_id(app, key, 2))
    # the phone that entered it cannot accept it
    scorer.post(f"/e/{key}/hand/2/confirm", data={"hand_id": hand_id})
    assert "another phone must confirm it" in scorer.get(f"/e/{key}").get_data(as_text=True)
    assert "Accept hand 2" in viewer.get(f"/e/{key}/hand/2").get_data(as_text=True)
    assert viewer.post(f"/e/{key}/hand/2/confirm", data={"hand_id": hand_id}).status_code == 302
    sheet = scorer.get(f"/e/{key}").get_data(as_text=True)
    assert "waits for another phone" not in sheet and 'class="badge waiting"' not in sheet
    assert "Hand confirmed" in scorer.get(f"/e/{key}/history").get_data(as_text=True)
    # a hand another phone disputes is no longer waiting either
    assert post_hand(scorer, key, 3, 1, {3: "three"}, tricks=3).status_code == 302
    assert viewer.post(f"/e/{key}/hand/3/dispute", data={"hand_id": str(_hand_id(app, key, 3)),
                                                          "kind": "misdeal"}).status_code == 302
    sheet = scorer.get(f"/e/{key}").get_data(as_text=True)
    assert 'class="badge waiting"' not in sheet and 'class="badge disputed"' in sheet
    # each hand's own page says the same (its disputes read with the hand's, in one query)
    pages = {n: viewer.get(f"/e/{key}/hand/{n}").get_data(as_text=True) for n in (1, 2, 3)}
    assert not any('id="confirm"' in pages[n] for n in (1, 2, 3))
    assert 'id="disputes"' in pages[3] and not any('id="disputes"' in pages[n] for n in (1, 2))
    assert post_hand(scorer, key, 4, 2, {0: "three"}, tricks=3).status_code == 302
    page = viewer.get(f"/e/{key}/hand/4").get_data(as_text=True)
    assert 'id="confirm"' in page and "Accept hand 4" in page and 'id="disputes"' not in page


def test_a_phone_cannot_flood_a_hand_with_disputes_or_dispute_a_finished_evening(app: Any) -> None:
    scorer = app.test_client()
    key = start_evening(scorer)
    assert post_hand(scorer, key, 1, 0, {1: "three"}, tricks=3).status_code == 302
    viewer = _viewer(app, key)
    data = {"hand_id": str(_hand_id(app, key, 1)), "kind": "score"}
    assert viewer.post(f"/e/{key}/hand/1/dispute", data=data).status_code == 302
    revision = viewer.get(f"/e/{key}/revision").get_json()["revision"]
    again = viewer.post(f"/e/{key}/hand/1/dispute", data=data)
    assert again.status_code == 422 and "already disputed for that" in again.get_data(as_text=True)
    assert viewer.get(f"/e/{key}/revision").get_json()["revision"] == revision  # nothing pushed to the phones
    hand = scorer.get(f"/e/{key}/hand/1").get_data(as_text=True)
    assert hand.count("/dismiss") == 1
    # a different complaint about the same hand is still heard
    assert viewer.post(f"/e/{key}/hand/1/dispute", data={**data, "kind": "misdeal"}).status_code == 302
    # finished: no dispute until a scorer reopens the evening
    assert scorer.post(f"/e/{key}/finish").status_code == 302
    assert "Dispute this hand" not in viewer.get(f"/e/{key}/hand/1").get_data(as_text=True)
    late = viewer.post(f"/e/{key}/hand/1/dispute", data={**data, "kind": "revoke", "accused": "2"})
    assert late.status_code == 422 and "This evening is finished" in late.get_data(as_text=True)
    # a dispute id no database row can have is refused, not a server error
    assert scorer.post(f"/e/{key}/dispute/99999999999999999999/dismiss").status_code in (302, 404)


def test_junk_in_a_hand_id_is_refused_as_stale_not_ignored(app: Any) -> None:
    client = app.test_client()
    key = start_evening(client)
    assert post_hand(client, key, 1, 0, {1: "three"}, tricks=3).status_code == 302
    for junk in ("abc", "99999999999999999999", "-5"):
        client.post(f"/e/{key}/undo", data={"number": "1", "version": "1", "hand_id": junk})
        with app.app_context():
            evening = units.get_evening(key)
            assert evening is not None and len(evening.hands) == 1, junk  # nothing undone
    # the API answers 404 (not 500) for a hand id no row can have
    for huge in ("9223372036854775808", "99999999999999999999999"):
        answer = client.post(f"/api/e/{key}/hands/{huge}/versions", json={"version": 1, "token": "t-" + huge[:8],
                                                                           "facts": {"dealer": "Ann"}})
        assert answer.status_code == 404, answer.get_data(as_text=True)


def test_a_fresh_cookie_cannot_confirm_a_hand(app: Any) -> None:
    """The phone that entered a hand dropped its cookie and confirmed the hand itself, as
    "another phone" (issue 21 item 16). A hand is confirmed only by a phone the server
    knew before the hand was entered."""
    scorer = app.test_client()
    key = start_evening(scorer)
    assert scorer.post(f"/e/{key}/confirmation", data={"on": "1"}).status_code == 302
    earlier = _viewer(app, key)
    assert post_hand(scorer, key, 1, 0, {1: "three"}, tricks=3).status_code == 302
    data = {"hand_id": str(_hand_id(app, key, 1))}
    for fresh in (app.test_client(), _viewer(app, key)):  # no row at all; a row made after the hand
        answer = fresh.post(f"/e/{key}/hand/1/confirm", data=data, follow_redirects=True).get_data(as_text=True)
        assert "must be confirmed by a phone that was at the table before it was entered" in answer
        assert "Hand 1 waits for another phone" in scorer.get(f"/e/{key}").get_data(as_text=True)
    assert earlier.post(f"/e/{key}/hand/1/confirm", data=data).status_code == 302
    sheet = scorer.get(f"/e/{key}").get_data(as_text=True)
    assert "waits for another phone" not in sheet and "Hand confirmed" in scorer.get(f"/e/{key}/history").get_data(
        as_text=True)


def test_one_rule_says_which_hands_wait_for_another_phone() -> None:
    """``disputes.waiting_ids`` is the rule both the scoresheet's marks and the hand page
    ask: confirmation on (the unconfirmed set is filled only then), not accepted, never
    disputed (a resolved dispute too: the hand waited for its ruling, not a confirmation)."""
    from types import SimpleNamespace

    from scorer.storage import disputes
    from scorer.storage.fingerprints import HandMarks

    known = HandMarks(open=frozenset({12}), disputed=frozenset({12, 13}), unconfirmed=frozenset({11, 12, 13, 14}))
    assert disputes.waiting_ids(known) == frozenset({11, 14})
    # the scoresheet: the same rule, by hand number (hand rows 11..14 are hands 1..4)
    assert disputes.marks(1, [11, 12, 13, 14], known=known) == ({2}, {1, 4})
    # the hand page: one hand row, its disputes and the evening's setting
    hand = SimpleNamespace(id=21, confirmed_at=None)
    resolved = SimpleNamespace(hand_id=21, resolved_at="2026-12-07")
    assert disputes.waiting_ids(disputes.hand_marks(True, hand, [])) == frozenset({21})
    assert disputes.waiting_ids(disputes.hand_marks(False, hand, [])) == frozenset()
    assert disputes.waiting_ids(disputes.hand_marks(True, hand, [resolved])) == frozenset()
    confirmed = SimpleNamespace(id=21, confirmed_at="2026-12-07")
    assert disputes.waiting_ids(disputes.hand_marks(True, confirmed, [])) == frozenset()
    assert disputes.hand_marks(True, hand, [resolved]).open == frozenset()
