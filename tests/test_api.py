"""The JSON commands (scorer/views/api.py): every example of docs/api.md, run in order
against a new evening, and the refusals: 409 conflicts, 422 with the rule, 415, 403,
404, retries with the same token, and garbage bodies that change nothing."""

from __future__ import annotations

import json
import logging
import re
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest
from conftest import ROOT, make_app

from scorer.evening.zones import in_zone
from scorer.rules import get_variant
from scorer.storage import errors, evenings, hand_writes, units
from scorer.storage.models import db
from scorer.web.json_body import played_at
from webhelpers import counts, second_scorer, start_evening

DOC = ROOT / "docs" / "api.md"
THREE = {"dealer": "Ann", "auction": ["three", "pass", "pass", "pass"], "tricks": 3}


# --------------------------------------------------------------------------- docs/api.md
def _split(block: str) -> tuple[str, dict[str, str], str]:
    head, _, body = block.partition("\n\n")
    first, *headers = head.strip().splitlines()
    return first, dict(h.split(": ", 1) for h in headers), body.strip()


def documented_examples() -> list[tuple[tuple[str, dict[str, str], str], tuple[str, dict[str, str], str]]]:
    """(request, answer) pairs: each ```http request block and the answer block after it."""
    blocks = [_split(b) for b in re.findall(r"```http\n(.*?)```", DOC.read_text("utf-8"), re.S)]
    pairs = []
    for i in range(0, len(blocks), 2):
        request, answer = blocks[i], blocks[i + 1]
        assert re.match(r"(GET|POST) /api/", request[0]), request[0]
        assert answer[0].startswith("HTTP/1.1 "), answer[0]
        pairs.append((request, answer))
    return pairs


def matches(expected: Any, actual: Any, where: str = "") -> None:
    """Every documented key is in the answer with the documented value; "…" is any text."""
    if expected == "…":
        assert isinstance(actual, str), where
    elif isinstance(expected, dict):
        assert isinstance(actual, dict), where
        for k, v in expected.items():
            assert k in actual, f"{where}.{k} missing from {actual}"
            matches(v, actual[k], f"{where}.{k}")
    elif isinstance(expected, list):
        assert isinstance(actual, list) and len(actual) == len(expected), f"{where}: {actual}"
        for i, (e, a) in enumerate(zip(expected, actual)):
            matches(e, a, f"{where}[{i}]")
    else:
        assert actual == expected, f"{where}: {actual!r} != {expected!r}"


def test_the_documented_examples_run_in_order(app: Any, client: Any) -> None:
    pairs = documented_examples()
    assert len(pairs) >= 20
    key = start_evening(client)
    ids: list[int] = []

    def fill(text: str) -> str:
        text = text.replace("<key>", key)
        return re.sub(r"<hand:(\d+)>", lambda m: str(ids[int(m.group(1)) - 1]), text)

    documented = set()
    for (line, headers, body), (status_line, _, answer_body) in pairs:
        method, path = line.split(" ", 1)
        documented.add((method, re.sub(r"<hand:\d+>", "<int:hand_id>", path)))
        answer = client.open(fill(path), method=method, data=fill(body).encode() if body else None,
                             headers={k: v for k, v in headers.items() if k == "Content-Type"})
        status = int(status_line.split()[1])
        assert answer.status_code == status, (line, body, answer.get_data(as_text=True))
        got = answer.get_json()
        hand = got.get("hand") if isinstance(got, dict) else None
        if hand and hand["id"] not in ids:
            ids.append(hand["id"])
        matches(json.loads(fill(answer_body)), got, line)
    # every command is documented with an example
    rules = {(m, r.rule) for r in app.url_map.iter_rules() if r.endpoint.startswith("api.")
             for m in r.methods - {"HEAD", "OPTIONS"}}
    assert rules <= documented, rules - documented


# --------------------------------------------------------------------------- helpers
def _post(client: Any, url: str, body: Any) -> Any:
    return client.post(url, data=json.dumps(body), content_type="application/json")


def _state(client: Any, key: str) -> dict[str, Any]:
    answer = client.get(f"/api/e/{key}")
    assert answer.status_code == 200
    return answer.get_json()


def _record(client: Any, key: str, number: int, facts: dict[str, Any], token: str) -> dict[str, Any]:
    answer = _post(client, f"/api/e/{key}/hands", {"number": number, "facts": facts, "token": token})
    assert answer.status_code == 201, answer.get_data(as_text=True)
    return answer.get_json()["hand"]


def _snapshot(app: Any, client: Any, key: str) -> Any:
    return counts(app), _state(client, key)


# --------------------------------------------------------------------------- conflicts
def test_a_stale_version_is_a_conflict_with_the_state(app: Any, client: Any) -> None:
    key = start_evening(client)
    hand = _record(client, key, 1, THREE, "t1")
    assert _post(client, f"/api/e/{key}/hands/{hand['id']}/versions",
                 {"version": 1, "facts": {**THREE, "tricks": 2}, "token": "t2"}).status_code == 201
    before = _snapshot(app, client, key)
    answer = _post(client, f"/api/e/{key}/hands/{hand['id']}/override",
                   {"version": 1, "override": None, "token": "t3"})
    assert answer.status_code == 409
    body = answer.get_json()
    assert body["error"]["code"] == "conflict" and "corrected on another phone" in body["error"]["message"]
    assert body["state"] == before[1]
    assert _snapshot(app, client, key) == before


def test_the_conflict_message_is_in_the_phones_language(app: Any, client: Any) -> None:
    key = start_evening(client)
    hand = _record(client, key, 1, THREE, "t1")
    _post(client, f"/api/e/{key}/hands/{hand['id']}/versions", {"version": 1, "facts": THREE | {"tricks": 4},
                                                               "token": "t2"})
    answer = client.post(f"/api/e/{key}/hands/{hand['id']}/versions", headers={"Accept-Language": "ru"},
                         data=json.dumps({"version": 1, "facts": THREE, "token": "t3"}),
                         content_type="application/json")
    assert answer.status_code == 409
    assert re.search("[а-я]", answer.get_json()["error"]["message"])


@pytest.mark.parametrize("command", ["versions", "restore", "override", "claims", "play", "undo"])
def test_a_hand_undone_on_another_phone_is_a_conflict_though_a_new_hand_has_its_number(
        any_db_app: Any, command: str) -> None:
    app = any_db_app
    phone = app.test_client()
    key = start_evening(phone)
    old = _record(phone, key, 1, THREE, "a1")
    other = second_scorer(app, key)
    assert _post(other, f"/api/e/{key}/undo", {"hand_id": old["id"], "version": 1}).status_code == 200
    new = _record(other, key, 1, THREE | {"tricks": 4}, "b1")
    assert (new["number"], new["version"]) == (old["number"], old["version"]) and new["id"] != old["id"]
    before = _snapshot(app, phone, key)
    body: dict[str, Any] = {"version": 1, "token": "a2"}
    url = f"/api/e/{key}/hands/{old['id']}/{command}"
    body.update({"versions": {"facts": THREE}, "restore": {"restore": 1}, "override": {"override": None},
                 "claims": {"claims": []}, "play": {"record": []}, "undo": {"hand_id": old["id"]}}[command])
    if command == "undo":
        url = f"/api/e/{key}/undo"
    answer = _post(phone, url, body)
    assert answer.status_code == 409, answer.get_data(as_text=True)
    assert answer.get_json()["state"]["hands"] == [new]
    assert _snapshot(app, phone, key) == before


def test_the_service_checks_the_row_id_under_its_lock(app: Any, client: Any) -> None:
    """A hand undone and replaced between the view's check and the service's lock is refused
    by the service itself (hand_id), not changed in the new hand's place."""
    from scorer.evening.codec import decode_hand
    from scorer.storage import units

    key = start_evening(client)
    old = _record(client, key, 1, THREE, "a1")
    three = decode_hand({"dealer": 0, "auction": ["three", "pass", "pass", "pass"], "tricks": 3}, 4)
    with app.test_request_context():
        hand_writes.undo_last_hand(units.get_evening(key), 1, 1, hand_id=old["id"])
        hand_writes.record_hand(units.get_evening(key), 1, three)
        with pytest.raises(errors.HandConflict):
            hand_writes.correct_hand(units.get_evening(key), 1, 1, three, hand_id=old["id"])
        with pytest.raises(errors.HandConflict):
            hand_writes.undo_last_hand(units.get_evening(key), 1, 1, hand_id=old["id"])
        evening = units.get_evening(key)
        assert [(h.number, h.current.version) for h in evening.hands] == [(1, 1)]
        assert evening.hands[0].id != old["id"]


def test_a_stale_revision_is_a_conflict_for_settings_finish_and_reopen(app: Any, client: Any) -> None:
    key = start_evening(client)
    _record(client, key, 1, THREE, "t1")
    before = _snapshot(app, client, key)
    stale = before[1]["revision"] - 1
    for url, body in ((f"/api/e/{key}/settings", {"revision": stale, "name": "X"}),
                      (f"/api/e/{key}/finish", {"revision": stale}), (f"/api/e/{key}/reopen", {"revision": stale})):
        answer = _post(client, url, body)
        assert answer.status_code == 409 and answer.get_json()["state"]["revision"] == before[1]["revision"], url
    assert _snapshot(app, client, key) == before


# --------------------------------------------------------------------------- refusals
def test_an_illegal_bid_is_refused_with_its_rule_and_nothing_is_saved(app: Any, client: Any) -> None:
    key = start_evening(client)
    before = _snapshot(app, client, key)
    answer = _post(client, f"/api/e/{key}/hands", {"number": 1, "token": "t", "facts": {
        "dealer": "Ann", "auction": ["wellington", "pass", "pass", "pass"], "tricks": 5}})
    assert answer.status_code == 422
    error = answer.get_json()["error"]
    assert error["code"] == "refused" and error["rule"] == "P-7" and "Wellington" in error["message"]
    assert _snapshot(app, client, key) == before


def test_a_post_that_is_not_json_is_415(app: Any, client: Any) -> None:
    key = start_evening(client)
    before = _snapshot(app, client, key)
    body = json.dumps({"number": 1, "facts": THREE, "token": "t"})
    for kwargs in ({"data": {"number": "1"}}, {"data": body, "content_type": "text/plain"}, {"data": body}):
        answer = client.post(f"/api/e/{key}/hands", **kwargs)
        assert answer.status_code == 415 and answer.get_json()["error"]["code"] == "unsupported_media_type"
    assert _snapshot(app, client, key) == before


def test_the_api_needs_no_csrf_token_but_the_forms_still_do(tmp_path: Any) -> None:
    app = make_app(f"sqlite:///{tmp_path / 'csrf.sqlite3'}", WTF_CSRF_ENABLED=True)
    client = app.test_client()
    page = client.get("/new/pagat").get_data(as_text=True)
    token = re.search(r'name="csrf_token" type="hidden" value="([^"]+)"', page)
    assert token is not None
    key = start_evening(client, csrf_token=token.group(1))
    form = client.post(f"/e/{key}/hand", data={"number": "1", "dealer": "0", "call_1": "three", "tricks": "3",
                                               "save": "1"})
    assert form.status_code == 400  # a form without its token
    assert _post(client, f"/api/e/{key}/hands", {"number": 1, "facts": THREE, "token": "t"}).status_code == 201
    with app.app_context():
        db.session.remove()
        db.engine.dispose()


def test_a_viewer_is_refused_with_403_json_and_an_unknown_table_is_404_json(app: Any, client: Any) -> None:
    key = start_evening(client)
    hand = _record(client, key, 1, THREE, "t1")
    viewer = app.test_client()
    before = _snapshot(app, client, key)
    assert viewer.get(f"/api/e/{key}").get_json() == before[1]  # a viewer reads
    for url, body in ((f"/api/e/{key}/hands", {"number": 2, "facts": THREE, "token": "v1"}),
                      (f"/api/e/{key}/hands/{hand['id']}/versions", {"version": 1, "facts": THREE, "token": "v2"}),
                      (f"/api/e/{key}/undo", {"hand_id": hand["id"], "version": 1}),
                      (f"/api/e/{key}/settings", {"revision": before[1]["revision"], "name": "Mine"}),
                      (f"/api/e/{key}/finish", {"revision": before[1]["revision"]})):
        answer = _post(viewer, url, body)
        assert answer.status_code == 403 and answer.get_json()["error"]["code"] == "forbidden", url
    assert _snapshot(app, client, key) == before
    for answer in (client.get("/api/e/nosuchtable"), _post(client, "/api/e/nosuchtable/hands", {}),
                   _post(client, "/api/e/nosuchtable/finish", {"revision": 0}),
                   _post(client, f"/api/e/{key}/hands/999999/versions", {"version": 1, "facts": THREE,
                                                                          "token": "x"})):
        assert answer.status_code == 404 and answer.get_json()["error"]["code"] == "not_found"


def test_a_retry_with_the_same_token_saves_once(app: Any, client: Any) -> None:
    key = start_evening(client)
    body = {"number": 1, "facts": THREE, "token": "same"}
    first = _post(client, f"/api/e/{key}/hands", body)
    assert first.status_code == 201
    before = _snapshot(app, client, key)
    again = _post(client, f"/api/e/{key}/hands", body)
    assert again.status_code == 200 and again.get_json() == first.get_json()
    hand = first.get_json()["hand"]
    fix = {"version": 1, "facts": THREE | {"tricks": 4}, "token": "fix"}
    corrected = _post(client, f"/api/e/{key}/hands/{hand['id']}/versions", fix)
    assert corrected.status_code == 201
    after = _snapshot(app, client, key)
    retry = _post(client, f"/api/e/{key}/hands/{hand['id']}/versions", fix)  # version 1 is stale by now
    assert retry.status_code == 200 and retry.get_json() == corrected.get_json()
    assert _snapshot(app, client, key) == after and after[0][2] == before[0][2] + 1


GARBAGE_HANDS = [
    "not json", "[1, 2]", '"a string"', "null", "1e999999", "[" * 100_000 + "]" * 100_000,
    {}, {"number": "1", "facts": THREE, "token": "g"}, {"number": True, "facts": THREE, "token": "g"},
    {"number": 10**30, "facts": THREE, "token": "g"}, {"number": -1, "facts": THREE, "token": "g"},
    {"number": 1.5, "facts": THREE, "token": "g"}, {"number": 1, "facts": THREE},
    {"number": 1, "facts": THREE, "token": 7}, {"number": 1, "facts": THREE, "token": "x" * 65},
    {"number": 1, "facts": [THREE], "token": "g"}, {"number": 1, "facts": "three", "token": "g"},
    {"number": 1, "facts": THREE | {"dealer": "Zed"}, "token": "g"},
    {"number": 1, "facts": THREE | {"dealer": 0}, "token": "g"},
    {"number": 1, "facts": THREE | {"tricks": 10**30}, "token": "g"},
    {"number": 1, "facts": THREE | {"tricks": "3"}, "token": "g"},
    {"number": 1, "facts": THREE | {"auction": "three"}, "token": "g"},
    {"number": 1, "facts": THREE | {"auction": ["three", 3, None, {}]}, "token": "g"},
    {"number": 1, "facts": THREE | {"auction": ["three"] * 1000}, "token": "g"},
    {"number": 1, "facts": THREE | {"peeks": ["Zed"]}, "token": "g"},
    {"number": 1, "facts": THREE | {"surprise": 1}, "token": "g"},
    {"number": 1, "facts": THREE | {"claims": [{"kind": "revoke", "accused": "Zed", "upheld": True}]},
     "token": "g"},
    {"number": 1, "facts": THREE | {"claims": [{"kind": "revoke", "accused": "Bob"}]}, "token": "g"},
    {"number": 1, "facts": THREE | {"override": {"entries": {"Zed": 1}, "reason": "r"}}, "token": "g"},
    {"number": 1, "facts": THREE | {"override": {"entries": {"Ann": 10**30}, "reason": "r"}}, "token": "g"},
    {"number": 1, "facts": THREE | {"record": [["ZZ"]]}, "token": "g"},
    {"number": 2, "facts": THREE, "token": "g"},  # (a conflict, not garbage: checked below)
]


@pytest.mark.parametrize("body", GARBAGE_HANDS, ids=range(len(GARBAGE_HANDS)))
def test_a_garbage_new_hand_is_422_and_changes_nothing(app: Any, client: Any, body: Any) -> None:
    key = start_evening(client)
    before = _snapshot(app, client, key)
    data = body if isinstance(body, str) else json.dumps(body)
    answer = client.post(f"/api/e/{key}/hands", data=data, content_type="application/json")
    expected = 409 if isinstance(body, dict) and body.get("number") == 2 else 422
    assert answer.status_code == expected, answer.get_data(as_text=True)
    assert answer.get_json()["error"]["code"] == ("conflict" if expected == 409 else "refused")
    assert _snapshot(app, client, key) == before


GARBAGE_CORRECTIONS = [
    ("versions", {"version": "1", "facts": THREE, "token": "g"}),
    ("versions", {"version": 1, "facts": None, "token": "g"}),
    ("versions", {"version": 1, "facts": THREE | {"dealer": "Zed"}, "token": "g"}),
    ("versions", {"version": 10**30, "facts": THREE, "token": "g"}),
    ("restore", {"version": 1, "restore": 7, "token": "g"}),
    ("restore", {"version": 1, "restore": "1", "token": "g"}),
    ("override", {"version": 1, "token": "g"}),
    ("override", {"version": 1, "override": None, "token": "g"}),  # there is none to remove
    ("override", {"version": 1, "override": [], "token": "g"}),
    ("override", {"version": 1, "override": {"entries": {"Zed": 3}, "reason": "r"}, "token": "g"}),
    ("override", {"version": 1, "override": {"entries": {"Ann": "3"}, "reason": "r"}, "token": "g"}),
    ("override", {"version": 1, "override": {"entries": {"Ann": 3}, "reason": ""}, "token": "g"}),
    ("override", {"version": 1, "override": {"entries": {"Ann": 3}, "reason": "r" * 501}, "token": "g"}),
    ("claims", {"version": 1, "claims": {"kind": "revoke"}, "token": "g"}),
    ("claims", {"version": 1, "claims": [{"kind": "revoke", "accused": "Zed", "upheld": True}], "token": "g"}),
    ("claims", {"version": 1, "claims": [{"kind": "nonsense", "accused": "Bob", "upheld": True}], "token": "g"}),
    ("claims", {"version": 1, "claims": ["revoke"], "token": "g"}),
    ("play", {"version": 1, "record": "AS 2S 3S 4S", "token": "g"}),
    ("play", {"version": 1, "record": [["AS", "AS", "3S", "4S"]], "token": "g"}),
    ("play", {"version": 1, "record": [["XX"]], "token": "g"}),
    ("play", {"version": 1, "record": [[1, 2, 3, 4]], "token": "g"}),
    ("play", {"version": 1, "record": [["AS", "2S", "3S", "4S"]] * 6, "token": "g"}),
    ("undo", {"hand_id": "1", "version": 1}),
    ("undo", {"version": 1}),
    ("settings", {"revision": "latest"}),
    ("settings", {"revision": None, "name": "x"}),
    ("settings", {"name": 7}),
    ("settings", {"name": "x" * 81}),
    ("settings", {"options": ["hands_per_dealer", 3]}),
    ("settings", {"options": {"hands_per_dealer": "many"}}),
    ("settings", {"options": {"hands_per_dealer": 10**30}}),
    ("settings", {"options": {"hands_per_dealer": 0}}),
    ("settings", {"options": {"no_such_option": True}}),
    ("finish", {"revision": "1"}),
    ("finish", {}),
    ("reopen", {"revision": -1}),
]


@pytest.mark.parametrize(("command", "body"), GARBAGE_CORRECTIONS, ids=range(len(GARBAGE_CORRECTIONS)))
def test_a_garbage_command_is_422_and_changes_nothing(app: Any, client: Any, command: str, body: Any) -> None:
    key = start_evening(client)
    hand = _record(client, key, 1, THREE, "t1")
    before = _snapshot(app, client, key)
    body = dict(body)
    if command == "settings" and "revision" not in body:  # a current revision: only the field is wrong
        body["revision"] = before[1]["revision"]
    url = (f"/api/e/{key}/{command}" if command in ("undo", "settings", "finish", "reopen")
           else f"/api/e/{key}/hands/{hand['id']}/{command}")
    answer = _post(client, url, body)
    assert answer.status_code == 422, answer.get_data(as_text=True)
    assert answer.get_json()["error"]["code"] == "refused"
    assert _snapshot(app, client, key) == before


def test_another_tables_hand_id_is_a_404_and_changes_neither_table(app: Any) -> None:
    alice, bob = app.test_client(), app.test_client()
    a, b = start_evening(alice), start_evening(bob)
    hand_a = _record(alice, a, 1, THREE, "a1")
    _record(bob, b, 1, THREE, "b1")
    before = _snapshot(app, alice, a), _snapshot(app, bob, b)
    for url, body in ((f"/api/e/{b}/hands/{hand_a['id']}/versions", {"version": 1, "facts": THREE, "token": "x1"}),
                      (f"/api/e/{b}/hands/{hand_a['id']}/override", {"version": 1, "override": None, "token": "x2"}),
                      (f"/api/e/{b}/undo", {"hand_id": hand_a["id"], "version": 1})):
        answer = _post(bob, url, body)
        assert answer.status_code == 404 and answer.get_json()["error"]["code"] == "not_found", url
    assert (_snapshot(app, alice, a), _snapshot(app, bob, b)) == before


# --------------------------------------------------------------------------- found by attacking the API
@pytest.mark.parametrize("token", ["\ud800", "a\u0000b", "with space", "é"])
def test_a_token_that_is_not_printable_ascii_is_422_on_both_databases(any_db_app: Any, token: str) -> None:
    """A lone surrogate or a NUL in a token gave 500 (UTF-8 encoding; PostgreSQL refuses NUL)."""
    client = any_db_app.test_client()
    key = start_evening(client)
    before = counts(any_db_app)
    answer = _post(client, f"/api/e/{key}/hands", {"number": 1, "facts": THREE, "token": token})
    assert answer.status_code == 422 and answer.get_json()["error"]["code"] == "refused"
    assert counts(any_db_app) == before


def test_text_is_cleaned_like_every_text_the_app_keeps(any_db_app: Any) -> None:
    """A lone surrogate in an override's reason was saved, then the history, the hand page
    and the exports answered 500 for good; NULs in a name reached PostgreSQL. Every text
    from a command goes through clean_text (control characters and surrogates removed)."""
    client = any_db_app.test_client()
    key = start_evening(client)
    hand = _record(client, key, 1, THREE, "t1")
    url = f"/api/e/{key}/hands/{hand['id']}/override"
    entries = {"Ann": 3, "Bob": -1, "Cat": -1, "Dan": -1}
    empty = _post(client, url, {"version": 1, "token": "o1", "override": {"entries": entries, "reason": "\udfff"}})
    assert empty.status_code == 422  # nothing left of the reason: the engine asks for one
    kept = _post(client, url, {"version": 1, "token": "o2",
                               "override": {"entries": entries, "reason": "agreed\udfff\u0000 here"}})
    assert kept.status_code == 201
    assert kept.get_json()["hand"]["facts"]["override"]["reason"] == "agreed here"
    for page in ("history", "hand/1", "evening.json", "ledger.csv"):
        assert client.get(f"/e/{key}/{page}").status_code == 200, page
    revision = _state(client, key)["revision"]
    named = _post(client, f"/api/e/{key}/settings", {"revision": revision, "name": "Thu\u0000rsday\ud800",
                                                     "place": "\udc00"})
    assert named.status_code == 200 and named.get_json()["name"] == "Thursday"
    assert client.get(f"/e/{key}").status_code == 200


def test_a_player_name_is_cleaned_like_every_other_text(any_db_app: Any) -> None:
    """A lone surrogate in a player's name of a new evening was a 500 with a traceback (the
    token's digest could not encode it; found by a fresh-user attack): the name is cleaned as
    every other text is; a name with nothing left is refused in words; nothing half-saved."""
    client = any_db_app.test_client()
    before = counts(any_db_app)
    start = {"variant": "pagat", "first_dealer": "Ann", "options": {}, "stake": None, "name": "n",
             "time_zone": "UTC", "group": None}
    kept = _post(client, "/api/evenings", {**start, "players": ["Ann", "B\ud800ob", "Cat\u0000"], "token": "s1"})
    assert kept.status_code == 201, kept.get_data(as_text=True)
    key = kept.get_json()["key"]
    assert _state(client, key)["players"] == ["Ann", "Bob", "Cat"]
    after_one = counts(any_db_app)
    empty = _post(client, "/api/evenings", {**start, "players": ["Ann", "Bob", "\ud800"], "token": "s2"})
    assert empty.status_code == 422 and empty.get_json()["error"]["code"] in ("refused", "bad_request")
    assert counts(any_db_app) == after_one != before


def test_a_token_is_the_same_commands_on_the_same_table_only(app: Any, client: Any) -> None:
    """A token used at another table, or by another command, is not a retry: it was
    answered 200 as if saved. Now 422, and nothing is saved."""
    key = start_evening(client)
    other = start_evening(client)
    hand = _record(client, key, 1, THREE, "shared-token")
    before = _snapshot(app, client, other)
    elsewhere = _post(client, f"/api/e/{other}/hands", {"number": 1, "facts": THREE, "token": "shared-token"})
    assert elsewhere.status_code == 422 and "new token" in elsewhere.get_json()["error"]["message"]
    assert _snapshot(app, client, other) == before
    fix = {"version": 1, "facts": THREE | {"tricks": 2}, "token": "shared-token"}
    reused = _post(client, f"/api/e/{key}/hands/{hand['id']}/versions", fix)
    assert reused.status_code == 422
    assert _state(client, key)["hands"][0]["version"] == 1


def test_a_retry_after_its_hand_was_undone_is_a_conflict_not_another_hands_answer(app: Any, client: Any) -> None:
    key = start_evening(client)
    body = {"number": 1, "facts": THREE, "token": "first-three"}
    hand = _post(client, f"/api/e/{key}/hands", body).get_json()["hand"]
    phone = second_scorer(app, key)
    assert _post(phone, f"/api/e/{key}/undo", {"hand_id": hand["id"], "version": 1}).status_code == 200
    four = {"dealer": "Ann", "auction": ["four", "pass", "pass", "pass"], "tricks": 4}
    _record(phone, key, 1, four, "their-four")
    retry = _post(client, f"/api/e/{key}/hands", body)
    assert retry.status_code == 409 and retry.get_json()["state"]["hands"][0]["facts"]["auction"][0] == "four"


def test_a_correction_that_changes_nothing_is_200_with_the_same_version(app: Any, client: Any) -> None:
    key = start_evening(client)
    hand = _record(client, key, 1, THREE, "t")
    same = _post(client, f"/api/e/{key}/hands/{hand['id']}/versions", {"version": 1, "facts": THREE, "token": "s"})
    assert same.status_code == 200 and same.get_json()["hand"]["version"] == 1


def test_a_damaged_form_token_is_refused_not_a_500_on_both_databases(any_db_app: Any) -> None:
    client = any_db_app.test_client()
    key = start_evening(client)
    before = counts(any_db_app)
    data = {"number": "1", "dealer": "0", "call_1": "three", "tricks": "3", "save": "1", "token": "a\u0000b"}
    assert client.post(f"/e/{key}/hand", data=data).status_code == 422
    assert counts(any_db_app) == before


@pytest.mark.parametrize("variant", ["pagat", "hoyle", "russian36", "napoleao"])
def test_lone_bid_makes_the_auction_quick_entry_makes(app: Any, client: Any, variant: str) -> None:
    """The outbox sends the common hand as {"lone_bid": …}: the server makes the same
    auction as quick entry (Variant.lone_bid_auction), in every variant's speaking order."""
    key = start_evening(client, variant)
    state = _state(client, key)
    names = state["players"]
    with app.app_context():
        evening = units.get_evening(key)
        assert evening is not None
        ledger = evenings.ledger_of(evening)
        v = get_variant(variant)
        bid = [b.id for b in v.ladder(ledger.setup.options) if b.id not in ("misere",)][0]
        expected = list(v.lone_bid_auction(ledger.setup, ledger.next_dealer, 2, bid))
    facts: dict[str, Any] = {"lone_bid": {"declarer": names[2], "contract": bid}, "tricks": 3}
    if v.names_trump:
        facts["trump"] = "S"
    hand = _record(client, key, 1, facts, f"lone-{variant}")
    assert hand["facts"]["auction"] == expected and hand["facts"]["dealer"] == state["next_dealer"]
    # everyone passed; and what is not the command is refused, nothing saved
    answer = _post(client, f"/api/e/{key}/hands", {"number": 2, "token": "lone-x", "facts": {
        "lone_bid": {"declarer": names[1]}, "tricks": 3}})
    assert answer.status_code == 422
    answer = _post(client, f"/api/e/{key}/hands", {"number": 2, "token": "lone-y", "facts": {
        "lone_bid": {"declarer": names[1], "contract": bid}, "auction": expected, "tricks": 3}})
    assert answer.status_code == 422
    assert len(_state(client, key)["hands"]) == 1


# --------------------------------------------------------------------------- played on the phone (issue 24)
def _expected_moment(when: Any, zone: str) -> str:
    return in_zone(when, zone).strftime("%Y-%m-%d %H:%M")


def test_a_hand_that_waited_on_the_phone_shows_when_it_was_played_and_when_it_arrived(app: Any, client: Any) -> None:
    key = start_evening(client, time_zone="Europe/Oslo")
    # played three hours before it was sent (the phone was offline), to the minute
    played = (datetime.now(UTC) - timedelta(hours=3)).replace(second=0, microsecond=0)
    answer = _post(client, f"/api/e/{key}/hands", {"number": 1, "facts": THREE, "token": "p1",
                                                    "played_at": played.isoformat().replace("+00:00", "Z")})
    assert answer.status_code == 201, answer.get_data(as_text=True)
    hand = answer.get_json()["hand"]
    assert hand["played_at"] == played.isoformat()
    assert _state(client, key)["hands"][0]["played_at"] == played.isoformat()
    shown = _expected_moment(played, "Europe/Oslo")  # the table's time (UTC+1 in winter, +2 in summer)
    assert shown[-5:] != played.strftime("%H:%M")  # the table's zone, not UTC
    line = f"played on the phone at {shown}"
    page = client.get(f"/e/{key}/hand/1").get_data(as_text=True)
    assert line in page and "reached the server at" in page
    history = client.get(f"/e/{key}/history").get_data(as_text=True)
    assert history.count(line) == 1
    # a retry of the same command saying another time is the same command: saved once, time as first said
    again = _post(client, f"/api/e/{key}/hands", {"number": 1, "facts": THREE, "token": "p1",
                                                   "played_at": (played - timedelta(hours=1)).isoformat()})
    assert again.status_code == 200 and again.get_json()["hand"]["played_at"] == played.isoformat()

    # played 30 seconds before it arrived: kept, not shown (the same minute as its arrival)
    soon = datetime.now(UTC) - timedelta(seconds=30)
    hand2 = _post(client, f"/api/e/{key}/hands", {"number": 2, "facts": {**THREE, "dealer": "Bob"}, "token": "p2",
                                                   "played_at": soon.isoformat()}).get_json()["hand"]
    assert hand2["played_at"] == soon.isoformat()
    assert "played on the phone" not in client.get(f"/e/{key}/hand/2").get_data(as_text=True)
    assert client.get(f"/e/{key}/history").get_data(as_text=True).count("played on the phone at") == 1


@pytest.mark.parametrize("said", [
    "in-the-future", "8-days-ago", "no-offset", "nonsense", 42, None, ["2026-12-06T20:00:00Z"], "x" * 200])
def test_a_played_at_out_of_bounds_or_unreadable_is_ignored_and_the_hand_saved(
        app: Any, client: Any, said: Any) -> None:
    now = datetime.now(UTC)
    value = {"in-the-future": (now + timedelta(hours=1)).isoformat(),
             "8-days-ago": (now - timedelta(days=8)).isoformat(),
             "no-offset": (now - timedelta(hours=2)).replace(tzinfo=None).isoformat()}.get(said, said) \
        if isinstance(said, str) else said
    key = start_evening(client)
    answer = _post(client, f"/api/e/{key}/hands", {"number": 1, "facts": THREE, "token": "q1", "played_at": value})
    assert answer.status_code == 201, answer.get_data(as_text=True)
    assert "played_at" not in answer.get_json()["hand"]
    assert [h["number"] for h in _state(client, key)["hands"]] == [1]
    assert "played on the phone" not in client.get(f"/e/{key}/hand/1").get_data(as_text=True)


def test_played_at_is_bounded_to_the_past_seven_days() -> None:
    now = datetime(2026, 12, 6, 21, 0, tzinfo=UTC)
    assert played_at({"played_at": "2026-12-06T21:00:00Z"}, now) == now  # now itself
    assert played_at({"played_at": "2026-12-06T21:00:01Z"}, now) is None  # a second ahead
    assert played_at({"played_at": "2026-11-29T21:00:00+00:00"}, now) == now - timedelta(days=7)
    assert played_at({"played_at": "2026-11-29T20:59:59+00:00"}, now) is None  # 7 days and a second
    # another offset: the same moment, given back in UTC
    assert played_at({"played_at": "2026-12-06T21:30:00+01:00"}, now) == datetime(2026, 12, 6, 20, 30, tzinfo=UTC)
    assert played_at({}, now) is None and played_at({"played_at": "2026-13-01T00:00:00Z"}, now) is None


# --------------------------------------------------------------------------- the provisional ruling differed (issue 24)
def _differs_logged(caplog: Any) -> list[str]:
    return [r.getMessage() for r in caplog.records if r.name == "scorer.provisional"]


def test_a_provisional_ruling_the_server_did_not_give_is_logged_once_with_both(
        app: Any, client: Any, caplog: Any) -> None:
    key = start_evening(client)
    _record(client, key, 1, THREE, "d1")
    provisional = {"count": 1, "totals": {"Ann": -3, "Bob": 9, "Cat": -3, "Dan": -3},
                   "hands": [{"number": 1, "entries": {"Ann": -3, "Bob": 9, "Cat": -3, "Dan": -3}, "rules": ["P-12"]}]}
    server = {"count": 1, "numbers": [1], "totals": {"Ann": -3, "Bob": 9, "Cat": -3, "Dan": -3}}
    before = _snapshot(app, client, key)
    with caplog.at_level(logging.WARNING, logger="scorer.provisional"):
        answer = _post(client, f"/api/e/{key}/differs", {"provisional": provisional, "server": server})
    assert answer.status_code == 202 and answer.get_json() == {"logged": True}
    (line,) = _differs_logged(caplog)
    assert key in line
    assert 'provisional={"count":1,"hands":[{"entries":{"Ann":-3,"Bob":9,"Cat":-3,"Dan":-3},"number":1,' in line
    assert 'server={"count":1,"numbers":[1],"totals":{"Ann":-3,"Bob":9,"Cat":-3,"Dan":-3}}' in line
    assert "\n" not in line
    assert _snapshot(app, client, key) == before  # nothing saved

    # a huge one: the line is bounded (2,000 characters of each)
    caplog.clear()
    with caplog.at_level(logging.WARNING, logger="scorer.provisional"):
        big = _post(client, f"/api/e/{key}/differs", {"provisional": {"x": "é\n" * 100_000}, "server": server})
    assert big.status_code == 202
    (line,) = _differs_logged(caplog)
    assert len(line) < 2 * 2000 + 150 and "\n" not in line


@pytest.mark.parametrize("body", [{}, {"provisional": [], "server": {}}, {"provisional": {}, "server": "x"},
                                  {"provisional": None, "server": None}])
def test_a_differs_report_that_is_not_two_objects_is_422_and_not_logged(
        app: Any, client: Any, caplog: Any, body: Any) -> None:
    key = start_evening(client)
    with caplog.at_level(logging.WARNING, logger="scorer.provisional"):
        answer = _post(client, f"/api/e/{key}/differs", body)
    assert answer.status_code == 422 and answer.get_json()["error"]["code"] != ""
    assert _differs_logged(caplog) == []


def test_a_viewer_cannot_post_a_differs_report(app: Any, client: Any, caplog: Any) -> None:
    key = start_evening(client)
    answer = _post(app.test_client(), f"/api/e/{key}/differs", {"provisional": {}, "server": {}})
    assert answer.status_code == 403 and answer.get_json()["error"]["code"] == "forbidden"
    assert _differs_logged(caplog) == []
    assert _post(client, "/api/e/nosuchtable/differs", {"provisional": {}, "server": {}}).status_code == 404
