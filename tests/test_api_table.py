"""The JSON commands of the table's access (scorer/web/views/api_table.py): revoke a
scorer, renew the PIN and scorers' link, join by PIN, name this phone; each with a
refusal and a retry with the same token, and the forms' permissions."""

from __future__ import annotations

import json
from typing import Any

import sqlalchemy as sa

from scorer.storage.models import Evening, TableAccess, db
from webhelpers import second_scorer, start_evening


def post(client: Any, url: str, body: Any) -> Any:
    return client.post(url, data=json.dumps(body), content_type="application/json")


def _pin(app: Any, key: str) -> str:
    with app.app_context():
        return db.session.scalar(sa.select(Evening.pin).where(Evening.key == key)) or ""


def _rows(app: Any, key: str) -> list[int]:
    with app.app_context():
        return list(db.session.scalars(sa.select(TableAccess.id).join(Evening).where(
            Evening.key == key, TableAccess.via != "").order_by(TableAccess.id)))


def _can_score(phone: Any, key: str) -> bool:
    return post(phone, f"/api/e/{key}/undo", {"hand_id": 1, "version": 1}).status_code != 403


def test_a_phone_joins_by_pin(app: Any) -> None:
    owner = app.test_client()
    key = start_evening(owner)
    phone = app.test_client()
    url = f"/api/e/{key}/join"
    wrong = post(phone, url, {"pin": "0000000", "token": "j-0"})
    assert wrong.status_code == 422 and wrong.get_json()["error"]["rule"] == "pin"
    assert not _can_score(phone, key)
    assert post(phone, url, {"pin": _pin(app, key), "token": "j-1"}).get_json() == {"scorer": True}
    assert _can_score(phone, key)
    assert post(phone, url, {"pin": _pin(app, key), "token": "j-1"}).status_code == 200  # a retry
    assert post(phone, url, {"pin": 1234, "token": "j-2"}).status_code == 422


def test_a_manager_revokes_a_scorer_and_a_viewer_cannot(app: Any) -> None:
    owner = app.test_client()
    key = start_evening(owner)
    phone = second_scorer(app, key)
    mine, theirs = _rows(app, key)
    assert post(app.test_client(), f"/api/e/{key}/scorers/{theirs}/revoke", {"token": "v-0"}).status_code == 403
    self_revoke = post(owner, f"/api/e/{key}/scorers/{mine}/revoke", {"token": "v-1"})
    assert self_revoke.status_code == 422  # not this phone itself
    answer = post(owner, f"/api/e/{key}/scorers/{theirs}/revoke", {"token": "v-2"})
    assert answer.status_code == 200 and answer.get_json()["revoked"]["id"] == theirs
    assert not _can_score(phone, key) and _can_score(owner, key)
    again = post(owner, f"/api/e/{key}/scorers/{theirs}/revoke", {"token": "v-2"})
    assert again.status_code == 200 and again.get_json() == answer.get_json()
    history = owner.get(f"/e/{key}/history").get_data(as_text=True)
    assert history.count("can no longer") <= 1  # one revoke in the history, not two


def test_a_manager_renews_the_credentials_and_a_retry_keeps_them(app: Any) -> None:
    owner = app.test_client()
    key = start_evening(owner)
    phone = second_scorer(app, key)
    old = _pin(app, key)
    assert post(phone, f"/api/e/{key}/credentials", {"token": 5}).status_code == 422  # a bad token
    answer = post(owner, f"/api/e/{key}/credentials", {"token": "n-1"})
    assert answer.status_code == 201
    got = answer.get_json()
    assert got["pin"] == _pin(app, key) != old and f"/e/{key}/scorer/" in got["scorer_link"]
    assert not _can_score(phone, key) and _can_score(owner, key)  # the old link's phone only watches
    assert post(phone, f"/api/e/{key}/credentials", {"token": "n-2"}).status_code == 403
    again = post(owner, f"/api/e/{key}/credentials", {"token": "n-1"})
    assert again.status_code == 200 and again.get_json() == got  # not renewed twice


def test_a_phone_names_itself(app: Any) -> None:
    phone = app.test_client()
    answer = post(phone, "/api/device", {"name": "Kitchen  phone", "token": "p-1"})
    assert answer.status_code == 200 and answer.get_json() == {"name": "Kitchen phone"}
    assert post(phone, "/api/device", {"name": "Kitchen phone", "token": "p-1"}).get_json() == {
        "name": "Kitchen phone"}
    refused = post(phone, "/api/device", {"name": "x" * 41, "token": "p-2"})
    assert refused.status_code == 422
    assert post(phone, "/api/device", {"name": "Hall", "token": "p-3"}).get_json() == {"name": "Hall"}
