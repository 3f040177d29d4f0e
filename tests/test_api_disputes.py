"""The JSON commands of disputes and confirmation (scorer/web/views/api_disputes.py):
each runs, refuses with 422 (or 409) saving nothing, and a retry with the same token
saves nothing twice; the permissions are those of the forms."""

from __future__ import annotations

import json
from typing import Any

from scorer.storage import units
from webhelpers import post_hand, second_scorer, start_evening


def post(client: Any, url: str, body: Any) -> Any:
    return client.post(url, data=json.dumps(body), content_type="application/json")


def _table(app: Any) -> tuple[Any, str, int]:
    scorer = app.test_client()
    key = start_evening(scorer)
    assert post_hand(scorer, key, 1, 0, {1: "three"}, tricks=2).status_code == 302
    with app.app_context():
        evening = units.get_evening(key)
        assert evening is not None
        return scorer, key, evening.hands[0].id


def _revision(client: Any, key: str) -> int:
    return client.get(f"/api/e/{key}").get_json()["revision"]


def test_a_viewer_raises_a_dispute_and_a_retry_raises_nothing_more(app: Any) -> None:
    scorer, key, hand_id = _table(app)
    viewer = app.test_client()
    url = f"/api/e/{key}/hands/{hand_id}/disputes"
    body = {"kind": "revoke", "accused": "Cat", "raised_by": "Bob", "trick": 2, "token": "d-1"}
    answer = post(viewer, url, body)
    assert answer.status_code == 201, answer.get_data(as_text=True)
    dispute = answer.get_json()["dispute"]
    assert dispute == {"id": dispute["id"], "hand_id": hand_id, "number": 1, "kind": "revoke", "accused": "Cat",
                       "raised_by": "Bob", "trick": 2, "note": "", "resolution": None}
    revision = _revision(scorer, key)
    again = post(viewer, url, body)
    assert again.status_code == 200 and again.get_json()["dispute"]["id"] == dispute["id"]
    assert _revision(scorer, key) == revision
    # refusals: no accused for a revoke; the same complaint twice; not JSON
    refused = post(viewer, url, {"kind": "revoke", "token": "d-2"})
    assert refused.status_code == 422 and refused.get_json()["error"]["message"] == "Choose who is accused."
    twice = post(viewer, url, dict(body, token="d-3"))
    assert twice.status_code == 422 and "already disputed" in twice.get_json()["error"]["message"]
    assert viewer.post(url, data=body).status_code == 415
    assert post(viewer, f"/api/e/{key}/hands/{hand_id + 99}/disputes", dict(body, token="d-4")).status_code == 404
    assert _revision(scorer, key) == revision


def test_a_scorer_rules_on_a_dispute_in_one_command(app: Any) -> None:
    scorer, key, hand_id = _table(app)
    dispute = post(scorer, f"/api/e/{key}/hands/{hand_id}/disputes",
                   {"kind": "revoke", "accused": "Cat", "raised_by": "Bob", "trick": 2, "token": "r-0"}
                   ).get_json()["dispute"]
    url = f"/api/e/{key}/disputes/{dispute['id']}/rule"
    viewer = app.test_client()
    assert post(viewer, url, {"version": 1, "upheld": True, "token": "r-v"}).status_code == 403
    refused = post(scorer, url, {"version": 1, "token": "r-1"})  # neither upheld nor facts
    assert refused.status_code == 422
    stale = post(scorer, url, {"version": 7, "upheld": True, "token": "r-2"})
    assert stale.status_code == 409 and stale.get_json()["state"]["hands"][0]["version"] == 1
    answer = post(scorer, url, {"version": 1, "upheld": True, "token": "r-3"})
    assert answer.status_code == 201, answer.get_data(as_text=True)
    got = answer.get_json()
    assert got["dispute"]["resolution"] == "ruled" and got["hand"]["version"] == 2
    state = scorer.get(f"/api/e/{key}").get_json()
    assert state["totals"] == {"Ann": -3, "Bob": 9, "Cat": -3, "Dan": -3}  # P-16: a revoke by an opponent
    assert state["hands"][0]["facts"]["claims"][0]["accused"] == "Cat"
    again = post(scorer, url, {"version": 1, "upheld": True, "token": "r-3"})
    assert again.status_code == 200 and again.get_json()["dispute"]["resolution"] == "ruled"
    assert _revision(scorer, key) == state["revision"]
    closed = post(scorer, url, {"version": 2, "upheld": False, "token": "r-4"})
    assert closed.status_code == 409  # ruled on already


def test_a_scorer_dismisses_a_dispute(app: Any) -> None:
    scorer, key, hand_id = _table(app)
    dispute = post(scorer, f"/api/e/{key}/hands/{hand_id}/disputes", {"kind": "score", "token": "x-0"}
                   ).get_json()["dispute"]
    url = f"/api/e/{key}/disputes/{dispute['id']}/dismiss"
    assert post(app.test_client(), url, {"token": "x-v"}).status_code == 403  # a viewer cannot
    answer = post(scorer, url, {"token": "x-1"})
    assert answer.status_code == 200 and answer.get_json()["dispute"]["resolution"] == "dismissed"
    revision = _revision(scorer, key)
    assert post(scorer, url, {"token": "x-1"}).status_code == 200  # a retry
    assert _revision(scorer, key) == revision
    assert post(scorer, url, {"token": "x-2"}).status_code == 409  # closed already, by another command
    assert post(scorer, url, {"token": "x-0"}).status_code == 422  # a token another command used
    assert post(scorer, f"/api/e/{key}/disputes/999/dismiss", {"token": "x-3"}).status_code == 404


def test_confirmation_is_set_by_a_manager_and_another_phone_confirms(app: Any) -> None:
    scorer, key, hand_id = _table(app)
    url = f"/api/e/{key}/confirmation"
    assert post(app.test_client(), url, {"on": True, "token": "c-v"}).status_code == 403
    assert post(scorer, url, {"on": "yes", "token": "c-0"}).status_code == 422
    answer = post(scorer, url, {"on": True, "token": "c-1"})
    assert answer.status_code == 200 and answer.get_json()["confirmation"] is True
    revision = answer.get_json()["revision"]
    assert post(scorer, url, {"on": True, "token": "c-1"}).get_json() == {"revision": revision,
                                                                        "confirmation": True}
    other = second_scorer(app, key)
    viewer = app.test_client()
    assert viewer.get(f"/e/{key}").status_code == 200 and viewer.get(f"/e/{key}").status_code == 200  # known
    assert post_hand(scorer, key, 2, 1, {2: "three"}, tricks=3).status_code == 302
    with app.app_context():
        evening = units.get_evening(key)
        assert evening is not None
        second = evening.hands[1].id
    confirm = f"/api/e/{key}/hands/{second}/confirm"
    mine = post(scorer, confirm, {"token": "k-1"})  # the phone that entered it cannot
    assert mine.status_code == 422 and "another phone must confirm" in mine.get_json()["error"]["message"]
    fresh = post(app.test_client(), confirm, {"token": "k-0"})  # nor a fresh cookie (issue 21 item 16)
    assert fresh.status_code == 422 and "at the table before it was entered" in fresh.get_json()["error"]["message"]
    answer = post(viewer, confirm, {"token": "k-2"})  # any phone, a viewer's included
    assert answer.status_code == 200 and answer.get_json()["hand"] == {"id": second, "number": 2,
                                                                       "confirmed": True}
    revision = answer.get_json()["revision"]
    assert post(viewer, confirm, {"token": "k-2"}).status_code == 200
    assert post(other, confirm, {"token": "k-3"}).get_json()["revision"] == revision  # nothing more to do
