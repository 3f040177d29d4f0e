"""Items of "Safe to host": a finished evening refuses a rename and the confirmation
setting as every other write (12); a hand built for the table before another phone
changed its seats is a conflict, not a rules refusal (13)."""

from __future__ import annotations

import json
from typing import Any

from webhelpers import counts, start_evening

THREE = {"dealer": "Ann", "auction": ["three", "pass", "pass", "pass"], "tricks": 3}


def _post(client: Any, url: str, body: Any) -> Any:
    return client.post(url, data=json.dumps(body), content_type="application/json")


def _revision(client: Any, key: str) -> int:
    return client.get(f"/api/e/{key}").get_json()["revision"]


def test_a_finished_evening_refuses_a_rename_and_the_confirmation_setting(any_db_app: Any) -> None:
    client = any_db_app.test_client()
    key = start_evening(client)
    assert _post(client, f"/api/e/{key}/finish", {"revision": _revision(client, key)}).status_code == 200
    before = counts(any_db_app), client.get(f"/api/e/{key}").get_json()
    rename = _post(client, f"/api/e/{key}/seats", {"rename": "Bob", "to": "Robert", "revision": before[1]["revision"]})
    assert rename.status_code == 409 and "reopen it" in rename.get_json()["error"]["message"]
    confirmation = _post(client, f"/api/e/{key}/confirmation", {"on": True, "token": "c-1"})
    assert confirmation.status_code == 409 and "reopen it" in confirmation.get_json()["error"]["message"]
    assert (counts(any_db_app), client.get(f"/api/e/{key}").get_json()) == before


def test_a_hand_for_the_table_before_a_change_of_seats_is_a_conflict(any_db_app: Any) -> None:
    """Another phone seats Eve (recorded first); this phone's hand 2 has the four calls
    of the table it saw: 409 with the table now (five seated), not P-5's refusal."""
    client = any_db_app.test_client()
    key = start_evening(client)
    assert _post(client, f"/api/e/{key}/hands", {"number": 1, "facts": THREE, "token": "h-1"}).status_code == 201
    seen = _revision(client, key)
    joined = _post(client, f"/api/e/{key}/seats", {"join": "Eve", "left_of": "Dan", "revision": seen})
    assert joined.status_code == 201
    four = {"dealer": "Bob", "auction": ["pass", "three", "pass", "pass"], "tricks": 3}
    answer = _post(client, f"/api/e/{key}/hands", {"number": 2, "facts": four, "token": "h-2"})
    assert answer.status_code == 409, answer.get_data(as_text=True)
    assert answer.get_json()["error"]["code"] == "conflict" and len(answer.get_json()["state"]["seated"]) == 5
    assert len(answer.get_json()["state"]["hands"]) == 1
    wrong = {"dealer": "Bob", "auction": ["pass", "three", "three"], "tricks": 3}  # wrong at either table
    assert _post(client, f"/api/e/{key}/hands", {"number": 2, "facts": wrong, "token": "h-3"}).status_code == 422
