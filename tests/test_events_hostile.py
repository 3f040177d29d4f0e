"""Hostile and careless input on the club night's forms (issue 22, attacked as a stranger
would): a name too long for the database, a control character in the currency or the
event's name, thousands of names pasted into the players box. Each is refused (or cleaned)
with a clear message and changes nothing; none answers 500 (PostgreSQL refuses a NUL byte
and a name over 40 characters, SQLite stores them: both are run)."""

from __future__ import annotations

import json
from typing import Any

import pytest

P14 = [f"P{i:02d}" for i in range(1, 15)]
BASE = {"name": "Friday", "variant": "pagat", "rounds": "3", "length": "hands", "amount": "8",
        "style": "together", "stake_minor": "", "currency": "GBP"}


def _group(client: Any) -> str:
    answer = client.post("/api/groups", data=json.dumps({"name": "Crown", "token": "g-h"}),
                         content_type="application/json")
    return answer.get_json()["group"]["key"]  # type: ignore[no-any-return]


def _events_of(app: Any, group: str) -> list[Any]:
    with app.app_context():
        from scorer.storage import events, groups

        found = groups.get_group(group)
        assert found is not None
        return [(e.name, e.currency, [p.name for p in e.players]) for e in events.events_of_group(found)]


@pytest.fixture
def made(any_db_app: Any) -> Any:
    any_db_app.config["PROPAGATE_EXCEPTIONS"] = False
    owner = any_db_app.test_client()
    return any_db_app, owner, _group(owner)


def test_a_name_over_40_characters_in_the_form_is_refused_not_a_500(made: Any) -> None:
    app, owner, group = made
    answer = owner.post(f"/g/{group}/events/new", data={**BASE, "players": "\n".join(P14[:-1] + ["x" * 41])})
    assert answer.status_code == 422
    assert "Give a name of 1 to 40 characters." in answer.get_data(as_text=True)
    assert _events_of(app, group) == []


def test_thousands_of_names_pasted_are_refused_as_the_json_command_refuses_them(made: Any) -> None:
    app, owner, group = made
    answer = owner.post(f"/g/{group}/events/new", data={**BASE, "players": "\n".join(f"N{i}" for i in range(401))})
    assert answer.status_code == 422
    assert "An event has at most 400 players." in answer.get_data(as_text=True)
    assert _events_of(app, group) == []
    # the players box of an event made: 387 more than its 14 is one too many, nothing added
    made_ = owner.post(f"/g/{group}/events/new", data={**BASE, "players": "\n".join(P14)})
    key = made_.headers["Location"].rsplit("/", 1)[-1]
    page = owner.post(f"/ev/{key}/players", data={"players": "\n".join(f"M{i}" for i in range(387))},
                      follow_redirects=True).get_data(as_text=True)
    assert "Nothing was changed: An event has at most 400 players." in page
    assert _events_of(app, group)[0][2] == P14
    # 386 more is 400: taken
    owner.post(f"/ev/{key}/players", data={"players": "\n".join(f"M{i}" for i in range(386))})
    assert len(_events_of(app, group)[0][2]) == 400


def test_control_characters_in_the_currency_and_the_name_are_cleaned(made: Any) -> None:
    app, owner, group = made
    answer = owner.post(f"/g/{group}/events/new", data={
        **BASE, "name": "Fri\x00day\u202e", "stake_minor": "5", "currency": "\x00G\x01BP", "players": "\n".join(P14)})
    assert answer.status_code == 302, answer.get_data(as_text=True)
    assert _events_of(app, group) == [("Friday", "GBP", P14)]
    # a currency of nothing but control characters is the default, GBP
    owner.post(f"/g/{group}/events/new", data={**BASE, "stake_minor": "5", "currency": "\x00\x01",
                                               "players": "\n".join(P14)})
    assert _events_of(app, group)[1][1] == "GBP"


TABLES = [["Ann", "Bob", "Cat", "Dan", "Eve"], ["Fay", "Gus", "Hal", "Ivy", "Jo"], ["Kim", "Lee", "Max", "Ned"]]


def _post(client: Any, url: str, body: Any) -> Any:
    answer = client.post(url, data=json.dumps(body), content_type="application/json")
    assert answer.status_code in (200, 201), answer.get_data(as_text=True)
    return answer.get_json()


def test_a_dispute_number_past_the_database_or_of_no_table_leaves_the_call_open(made: Any) -> None:
    """The referee's dismiss form carries the dispute's id in its address: an id past the
    database's integers (2**31 on PostgreSQL, 2**63 on SQLite) or of no dispute is "no such
    dispute", and the call stays open (it was closed before the dispute was looked up)."""
    app, owner, group = made
    key = _post(owner, f"/api/g/{group}/events", {
        "token": "hostile-dismiss", "name": "N", "variant": "pagat", "options": {"hands_per_dealer": 1}, "stake": None,
        "players": [p for t in TABLES for p in t], "rounds": 2, "length": "hands", "amount": 1})["event"]["key"]
    _post(owner, f"/api/ev/{key}/seat", {"how": "typed", "tables": TABLES})
    table = _post(owner, f"/api/ev/{key}/start", {})["event"]["tables"][0]["evening"]
    sam = _post(owner, f"/api/ev/{key}/referees", {"name": "Sam", "token": "r1"})["referee"]
    referee = app.test_client()
    _post(referee, f"/api/ev/{key}/referee/join", {"pin": sam["pin"]})
    call = _post(owner, f"/api/e/{table}/referee", {"note": "help", "token": "c1"})["call"]["id"]
    for dispute in (2**31, 2**63, 10**30, 999):
        answer = referee.post(f"/ev/{key}/calls/{call}/dismiss/{dispute}", data={}, follow_redirects=True)
        assert answer.status_code == 200, (dispute, answer.status_code)
        assert "There is no such dispute at this table." in answer.get_data(as_text=True)
    refused = referee.post(f"/api/ev/{key}/calls/{call}/dismiss", data=json.dumps({"dispute": 999, "token": "d1"}),
                           content_type="application/json")
    assert refused.status_code == 422
    assert refused.get_json()["error"]["message"] == "There is no such dispute at this table."
    calls = referee.get(f"/api/ev/{key}/calls").get_json()["calls"]
    assert [(c["id"], c["state"], c["outcome"], c["dispute"]) for c in calls] == [(call, "open", None, None)]


def test_a_payment_past_two_billion_minor_units_is_marked_paid(made: Any) -> None:
    """A stake of 1,000,000,000 minor units (the most a stake may be) and Bob's Three made
    at a table of five: each of the four others pays Bob 3 × 1,000,000,000 = 3,000,000,000,
    past a 32-bit column (2,147,483,647). Marking it paid, by the JSON command or the
    payments page's form, saves it (PostgreSQL refused it: 500; the JSON command refused
    the amount as not a number)."""
    app, owner, group = made
    key = _post(owner, f"/api/g/{group}/events", {
        "token": "hostile-high-stake", "name": "High", "variant": "pagat", "options": {"hands_per_dealer": 1},
        "stake": {"minor": 1_000_000_000, "currency": "GBP"}, "players": [p for t in TABLES for p in t],
        "rounds": 2, "length": "hands", "amount": 1})["event"]["key"]
    _post(owner, f"/api/ev/{key}/seat", {"how": "typed", "tables": TABLES})
    table = _post(owner, f"/api/ev/{key}/start", {})["event"]["tables"][0]
    assert owner.get(table["scorers_link"].split("localhost", 1)[-1]).status_code == 302
    key1 = table["evening"]
    _post(owner, f"/api/e/{key1}/hands", {"number": 1, "token": "h1", "facts": {
        "dealer": "Ann", "auction": ["three", "pass", "pass", "pass", "pass"], "tricks": 3}})
    _post(owner, f"/api/e/{key1}/finish", {"revision": owner.get(f"/api/e/{key1}").get_json()["revision"]})
    transfers = owner.get(f"/api/e/{key1}/transfers").get_json()["transfers"]
    assert [(t["payer"], t["payee"], t["amount"]) for t in transfers] == [
        ("Ann", "Bob", 3_000_000_000), ("Cat", "Bob", 3_000_000_000), ("Dan", "Bob", 3_000_000_000),
        ("Eve", "Bob", 3_000_000_000)]
    paid = _post(owner, f"/api/e/{key1}/transfers/paid", {"payer": "Ann", "payee": "Bob", "amount": 3_000_000_000})
    assert [t["paid"] is not None for t in paid["transfers"]] == [True, False, False, False]
    # the form: Cat (seat 2) pays Bob (seat 1)
    answer = owner.post(f"/e/{key1}/payments/mark", data={"payer": "2", "payee": "1", "amount": "3000000000"})
    assert answer.status_code == 302
    transfers = owner.get(f"/api/e/{key1}/transfers").get_json()["transfers"]
    assert [t["paid"] is not None for t in transfers] == [True, True, False, False]
