"""The JSON commands that make evenings and those of groups (api_evenings.py,
api_groups.py): start an evening, import one, start a group, add and remove an evening,
merge and unmerge two spellings; each with a refusal and a retry with the same token."""

from __future__ import annotations

import json
from typing import Any

from conftest import ROOT

PAGAT = {"variant": "pagat", "options": {"hands_per_dealer": 2}}


def post(client: Any, url: str, body: Any) -> Any:
    return client.post(url, data=json.dumps(body), content_type="application/json")


def _start(client: Any, players: list[str], token: str, **more: Any) -> Any:
    return post(client, "/api/evenings", {**PAGAT, "players": players, "first_dealer": players[0], "token": token,
                                          **more})


def test_start_an_evening_and_a_retry_makes_no_second_one(app: Any) -> None:
    phone = app.test_client()
    answer = _start(phone, ["Ann", "Bob", "Cat", "Dan"], "e-1", name="Thursday")
    assert answer.status_code == 201, answer.get_data(as_text=True)
    key = answer.get_json()["key"]
    state = phone.get(f"/api/e/{key}").get_json()
    assert state["players"] == ["Ann", "Bob", "Cat", "Dan"] and state["name"] == "Thursday"
    assert post(phone, f"/api/e/{key}/hands", {"number": 1, "token": "h-1", "facts": {
        "dealer": "Ann", "auction": ["three", "pass", "pass", "pass"], "tricks": 3}}).status_code == 201  # a scorer
    again = _start(phone, ["Ann", "Bob", "Cat", "Dan"], "e-1", name="Thursday")
    assert again.status_code == 200 and again.get_json()["key"] == key
    refused = _start(phone, ["Ann", "Bob"], "e-2")  # pagat needs more players
    assert refused.status_code == 422 and refused.get_json()["error"]["message"]
    assert _start(phone, ["Ann", "Bob", "Cat", "Dan"], "e-3", variant="bridge").status_code == 422
    assert phone.post("/api/evenings", data={"variant": "pagat"}).status_code == 415


def test_import_an_evening_file(app: Any) -> None:
    phone = app.test_client()
    file = json.loads((ROOT / "examples" / "hoyle-five.json").read_text("utf-8"))
    answer = post(phone, "/api/evenings/import", {"evening": file, "token": "i-1"})
    assert answer.status_code == 201, answer.get_data(as_text=True)
    key = answer.get_json()["key"]
    assert len(phone.get(f"/api/e/{key}").get_json()["hands"]) == len(file["hands"])
    assert post(phone, "/api/evenings/import", {"evening": file, "token": "i-1"}).get_json()["key"] == key
    broken = post(phone, "/api/evenings/import", {"evening": dict(file, players=["Alice"]), "token": "i-2"})
    assert broken.status_code == 422


def test_a_group_collects_evenings_and_merges_spellings(app: Any) -> None:
    phone = app.test_client()
    made = post(phone, "/api/groups", {"name": "Thursday club", "token": "g-1"})
    assert made.status_code == 201
    group = made.get_json()["group"]
    assert group["name"] == "Thursday club" and group["evenings"] == [] and group["merges"] == []
    assert post(phone, "/api/groups", {"name": "Thursday club", "token": "g-1"}).get_json()["group"]["key"] == \
        group["key"]
    assert post(phone, "/api/groups", {"name": " ", "token": "g-2"}).status_code == 422
    base = f"/api/g/{group['key']}"
    first = _start(phone, ["Ann", "Bob", "Cat", "Dan"], "e-1").get_json()["key"]
    second = _start(phone, ["Ann", "Bobby", "Cat", "Dan"], "e-2", group=group["key"]).get_json()["key"]
    added = post(phone, f"{base}/evenings", {"evening": f"http://192.168.1.20:5000/e/{first}#hand-1",
                                             "token": "a-1"})
    assert added.status_code == 201 and sorted(added.get_json()["group"]["evenings"]) == sorted([first, second])
    assert post(phone, f"{base}/evenings", {"evening": first, "token": "a-1"}).status_code == 200  # a retry
    twice = post(phone, f"{base}/evenings", {"evening": first, "token": "a-2"})
    assert twice.status_code == 422 and "already" in twice.get_json()["error"]["message"]

    merged = post(phone, f"{base}/merges", {"alias": "Bobby", "canonical": "Bob", "token": "m-1"})
    assert merged.status_code == 201, merged.get_data(as_text=True)
    merges = merged.get_json()["group"]["merges"]
    assert [(m["alias"], m["canonical"]) for m in merges] == [("bobby", "bob")]
    assert post(phone, f"{base}/merges", {"alias": "Bobby", "canonical": "Bob", "token": "m-1"}).status_code == 200
    assert post(phone, f"{base}/merges", {"alias": "Ann", "canonical": "Cat", "token": "m-2"}).status_code == 422

    unmerge = f"{base}/merges/{merges[0]['id']}/unmerge"
    assert post(phone, unmerge, {"token": "u-1"}).get_json()["group"]["merges"] == []
    assert post(phone, unmerge, {"token": "u-1"}).status_code == 200  # a retry
    assert post(phone, unmerge, {"token": "u-2"}).status_code == 422  # undone already

    removed = post(phone, f"{base}/evenings/remove", {"evening": second, "token": "r-1"})
    assert removed.status_code == 200 and removed.get_json()["group"]["evenings"] == [first]
    assert post(phone, f"{base}/evenings/remove", {"evening": second, "token": "r-1"}).status_code == 200
    assert post(phone, f"{base}/evenings/remove", {"evening": second, "token": "r-2"}).status_code == 422
    assert post(phone, "/api/g/nosuchgroup/evenings", {"evening": first, "token": "a-9"}).status_code == 404
