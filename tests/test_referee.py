"""The referee of a club night (issue 22 item 5), on SQLite and PostgreSQL: the event's
owner names referees (each with a PIN and a link of their own), a phone at a table calls
the referee, the call reaches every referee's phone and the room (the event's revision
moves), a referee takes it and rules on the table's dispute as a scorer does (the ruling
names the referee), and every refusal changes nothing: a call on a finished table, for
a table of another event, a non-referee or a revoked referee ruling, two referees at once."""

from __future__ import annotations

import json
import threading
from typing import Any

import sqlalchemy as sa

from scorer.rules import HandFacts
from scorer.storage import evening_writes, events, groups, hand_writes, units
from scorer.storage.models import Change, Device, Dispute, HandVersion, db
from scorer.storage.referee_models import Referee, RefereeCall, RefereePhone

TABLES = [["Ann", "Bob", "Cat", "Dan"], ["Eve", "Fay", "Gus", "Hal"]]


def post(client: Any, url: str, body: Any) -> Any:
    return client.post(url, data=json.dumps(body), content_type="application/json")


def phone(app: Any, name: str) -> tuple[Any, int]:
    """A browser with a device row of its own, named ``name``."""
    client = app.test_client()
    assert client.post("/device", data={"device": name, "next": "/"}).status_code == 302
    with app.app_context():
        found = db.session.scalar(sa.select(Device.id).where(Device.name == name))
    assert found is not None
    return client, found


def night(app: Any, owner_id: int, name: str = "Club night") -> tuple[str, list[str]]:
    """An event of two tables of pagat (round 1 typed), owned by ``owner_id``; at table 1
    Bob bids Three and takes 2 tricks (beaten: Bob −9, the others +3 each)."""
    with app.app_context():
        group = groups.create_group("Thursday club")
        event = events.create_event(group, name=name, variant="pagat", options={}, stake=None,
                                    players=[p for t in TABLES for p in t], rounds=2, length="hands", amount=10,
                                    device=db.session.get(Device, owner_id))
        key = event.key
        events.seat_first_round(event, how="typed", tables=TABLES)
        made = [e.key for e in events.start_round(events.get_event(key))]
        table = units.get_evening(made[0])
        assert table is not None
        hand_writes.record_hand(table, 1, HandFacts(0, ("three", "pass", "pass", "pass"), 2))
    return key, made


def revisions(app: Any, event_key: str, table_key: str) -> tuple[int, int]:
    with app.app_context():
        event = events.get_event(event_key)
        assert event is not None
        return event.revision, units.evening_revision(table_key) or 0


def count(app: Any, model: Any) -> int:
    with app.app_context():
        return db.session.scalar(sa.select(sa.func.count()).select_from(model)) or 0


def referees_named(app: Any, owner: Any, key: str) -> dict[str, dict[str, Any]]:
    made = {}
    for i, name in enumerate(("Mary", "Olu")):
        answer = post(owner, f"/api/ev/{key}/referees", {"name": name, "token": f"ref-{i}"})
        assert answer.status_code == 201, answer.get_data(as_text=True)
        made[name] = answer.get_json()["referee"]
    return made


def test_a_call_reaches_every_referee_and_a_referee_rules(any_db_app: Any) -> None:
    app = any_db_app
    owner, owner_id = phone(app, "Owner")
    key, tables = night(app, owner_id)
    named = referees_named(app, owner, key)
    assert named["Mary"]["pin"] != named["Olu"]["pin"] and named["Mary"]["phones"] == 0
    mary, _ = phone(app, "Mary's phone")
    olu, _ = phone(app, "Olu's phone")
    link = named["Mary"]["link"].split("localhost", 1)[1]
    assert mary.get(link).status_code == 302  # her own link: this phone is the referee Mary
    joined = post(olu, f"/api/ev/{key}/referee/join", {"pin": named["Olu"]["pin"]})
    assert joined.status_code == 200 and joined.get_json()["referee"]["name"] == "Olu"

    table = app.test_client()  # a phone watching table 1: not a scorer
    with app.app_context():
        hand_id = units.get_evening(tables[0]).hands[0].id  # type: ignore[union-attr]
    dispute = post(table, f"/api/e/{tables[0]}/hands/{hand_id}/disputes",
                   {"kind": "revoke", "accused": "Cat", "raised_by": "Dan", "trick": 2, "token": "d-1"})
    assert dispute.status_code == 201
    dispute_id = dispute.get_json()["dispute"]["id"]
    before = revisions(app, key, tables[0])
    called = post(table, f"/api/e/{tables[0]}/referee", {"hand": 1, "note": "Cat revoked in trick 2", "token": "c-1"})
    assert called.status_code == 201, called.get_data(as_text=True)
    got = called.get_json()
    assert got["call"]["table"] == 1 and got["call"]["hand"] == 1 and got["call"]["state"] == "open"
    # both revisions move: the referees' phones and the room screen (the event's), the table's phones (its own)
    assert revisions(app, key, tables[0]) == (before[0] + 1, before[1] + 1) == (got["revision"], got["table_revision"])
    assert mary.get(f"/ev/{key}/calls/revision").get_json() == {"revision": before[0] + 1}
    for referee in (mary, olu):
        listed = referee.get(f"/api/ev/{key}/calls").get_json()
        assert [(c["table"], c["hand"], c["note"], c["state"]) for c in listed["calls"]] == [
            (1, 1, "Cat revoked in trick 2", "open")]
        page = referee.get(f"/ev/{key}/calls").get_data(as_text=True)
        assert "Table 1: dispute on hand 1" in page and "Uphold the claim" in page
    call_id = got["call"]["id"]

    taken = post(mary, f"/api/ev/{key}/calls/{call_id}/take", {})
    assert taken.status_code == 200 and taken.get_json()["call"]["taken_by"] == "Mary"
    second = post(olu, f"/api/ev/{key}/calls/{call_id}/take", {})  # Mary has it
    assert second.status_code == 409 and second.get_json()["error"]["message"] == (
        "Mary has taken this call; nothing was changed.")
    olu_rules = post(olu, f"/api/ev/{key}/calls/{call_id}/rule",
                     {"dispute": dispute_id, "version": 1, "upheld": True, "token": "o-1"})
    assert olu_rules.status_code == 409 and count(app, HandVersion) == 1  # nothing of Olu's ruling saved
    ruled = post(mary, f"/api/ev/{key}/calls/{call_id}/rule",
                 {"dispute": dispute_id, "version": 1, "upheld": True, "token": "m-1"})
    assert ruled.status_code == 201, ruled.get_data(as_text=True)
    answer = ruled.get_json()
    assert answer["call"]["state"] == "closed" and answer["call"]["closed_by"] == "Mary"
    assert answer["call"]["outcome"] == "ruled" and answer["dispute"]["resolution"] == "ruled"
    state = table.get(f"/api/e/{tables[0]}").get_json()
    assert state["totals"] == {"Ann": -3, "Bob": 9, "Cat": -3, "Dan": -3}  # P-16: a revoke by an opponent
    assert state["hands"][0]["facts"]["claims"][0]["accused"] == "Cat"
    with app.app_context():
        ruled_row = db.session.scalar(sa.select(Change).where(Change.kind == "ruled"))
        assert ruled_row is not None and ruled_row.after == {"kind": "revoke", "referee": "Mary"}
    history = table.get(f"/e/{tables[0]}/history").get_data(as_text=True)
    assert "by the referee <bdi>Mary</bdi>" in history and "Referee called" in history
    page = olu.get(f"/ev/{key}/calls").get_data(as_text=True)
    assert "No table is calling the referee." in page and "ruled by <bdi>Mary</bdi>" in page  # the history keeps it


def test_refusals_change_nothing(any_db_app: Any) -> None:
    app = any_db_app
    owner, owner_id = phone(app, "Owner")
    key, tables = night(app, owner_id)
    other_key, other_tables = night(app, owner_id, "Other night")
    named = referees_named(app, owner, key)
    mary, _ = phone(app, "Mary's phone")
    assert post(mary, f"/api/ev/{key}/referee/join", {"pin": named["Mary"]["pin"]}).status_code == 200
    table = app.test_client()
    stranger, _ = phone(app, "Stranger")

    # only the owner names referees; a wrong PIN makes nobody a referee
    assert post(stranger, f"/api/ev/{key}/referees", {"name": "Zed", "token": "z-1"}).status_code == 403
    assert post(mary, f"/api/ev/{key}/referees", {"name": "Zed", "token": "z-2"}).status_code == 403
    assert post(owner, f"/api/ev/{key}/referees", {"name": "mary", "token": "z-3"}).status_code == 422  # named
    wrong = post(stranger, f"/api/ev/{key}/referee/join", {"pin": "not-a-pin"})
    assert wrong.status_code == 422 and wrong.get_json()["error"]["code"] == "pin"
    assert count(app, Referee) == 2 and count(app, RefereePhone) == 1

    start = revisions(app, key, tables[0]), count(app, RefereeCall)
    # a table of another event
    other = post(table, f"/api/e/{other_tables[0]}/referee", {"event": key, "token": "x-1"})
    assert other.status_code == 422 and other.get_json()["error"]["message"] == (
        "That table is not a table of this event; nothing was changed.")
    # a hand the table does not have; an ordinary evening (no event) has no referee
    assert post(table, f"/api/e/{tables[0]}/referee", {"hand": 9, "token": "x-2"}).status_code == 422
    with app.app_context():
        lone = evening_writes.create_evening(variant="pagat", players=["A", "B", "C"], first_dealer=0, options={},
                                             stake=None).key
    assert post(table, f"/api/e/{lone}/referee", {"token": "x-3"}).status_code == 422
    # a finished table
    with app.app_context():
        evening_writes.set_finished(units.get_evening(tables[1]), True)  # type: ignore[arg-type]
    finished_start = revisions(app, key, tables[1])
    done = post(table, f"/api/e/{tables[1]}/referee", {"token": "x-4"})
    assert done.status_code == 409 and done.get_json()["error"]["message"] == (
        "This table is finished: the referee can no longer be called to it.")
    assert revisions(app, key, tables[1]) == finished_start
    assert (revisions(app, key, tables[0]), count(app, RefereeCall)) == start

    called = post(table, f"/api/e/{tables[0]}/referee", {"token": "x-5"})
    assert called.status_code == 201
    call_id = called.get_json()["call"]["id"]
    assert post(table, f"/api/e/{tables[0]}/referee", {"token": "x-6"}).status_code == 422  # called already
    # a non-referee: refused at the door; a referee of this event for a call of another: no such call
    assert post(stranger, f"/api/ev/{key}/calls/{call_id}/take", {}).status_code == 403
    assert stranger.get(f"/api/ev/{key}/calls").status_code == 403
    assert stranger.get(f"/ev/{key}/calls").status_code == 302  # to the referee's PIN page
    assert post(mary, f"/api/ev/{other_key}/calls/{call_id}/take", {}).status_code == 403
    # revoked: Mary's phone can no longer take, close or rule, and her PIN makes nobody a referee
    mary_id = next(r["id"] for r in owner.get(f"/api/ev/{key}/referees").get_json()["referees"]
                   if r["name"] == "Mary")
    assert post(mary, f"/api/ev/{key}/referees/{mary_id}/revoke", {}).status_code == 403  # not the owner
    revoked = post(owner, f"/api/ev/{key}/referees/{mary_id}/revoke", {})
    assert revoked.status_code == 200 and revoked.get_json()["referee"]["revoked"] is True
    before = revisions(app, key, tables[0])
    assert post(mary, f"/api/ev/{key}/calls/{call_id}/take", {}).status_code == 403
    assert post(mary, f"/api/ev/{key}/calls/{call_id}/close", {}).status_code == 403
    again = post(stranger, f"/api/ev/{key}/referee/join", {"pin": named["Mary"]["pin"]})
    assert again.status_code == 422
    assert revisions(app, key, tables[0]) == before
    with app.app_context():
        row = db.session.get(RefereeCall, call_id)
        assert row is not None and (row.taken_by, row.closed_at) == (None, None)


def test_a_revoked_referee_cannot_rule_even_if_the_page_was_open(any_db_app: Any) -> None:
    """The door lets nobody revoked in; the command checks again under the table's lock."""
    app = any_db_app
    owner, owner_id = phone(app, "Owner")
    key, tables = night(app, owner_id)
    named = referees_named(app, owner, key)
    olu, olu_id = phone(app, "Olu's phone")
    assert post(olu, f"/api/ev/{key}/referee/join", {"pin": named["Olu"]["pin"]}).status_code == 200
    table = app.test_client()
    with app.app_context():
        hand_id = units.get_evening(tables[0]).hands[0].id  # type: ignore[union-attr]
    dispute_id = post(table, f"/api/e/{tables[0]}/hands/{hand_id}/disputes",
                      {"kind": "revoke", "accused": "Ann", "token": "d-1"}).get_json()["dispute"]["id"]
    call_id = post(table, f"/api/e/{tables[0]}/referee", {"hand": 1, "token": "c-1"}).get_json()["call"]["id"]
    assert post(owner, f"/api/ev/{key}/referees/{named['Olu']['id']}/revoke", {}).status_code == 200
    from scorer.storage.commands import Device as Sender
    from scorer.storage.commands import Refused, execute
    from scorer.storage.referees import RefereeDismiss, RefereeRule

    with app.app_context():
        evening = units.get_evening(tables[0])
        assert evening is not None
        facts = HandFacts(0, ("three", "pass", "pass", "pass"), 2)
        outcome = execute(RefereeRule(tables[0], hand_id, 1, "t-1", None, facts=facts, dispute_id=dispute_id,
                                      call_id=call_id), device=Sender("Olu's phone", olu_id))
        assert isinstance(outcome, Refused) and outcome.forbidden
        outcome = execute(RefereeDismiss(tables[0], dispute_id, call_id, "t-2"), device=Sender("Olu", olu_id))
        assert isinstance(outcome, Refused) and outcome.forbidden
        assert db.session.get(Dispute, dispute_id).resolved_at is None  # type: ignore[union-attr]
    assert count(app, HandVersion) == 1


def test_two_referees_ruling_at_once_one_is_refused(any_db_app: Any) -> None:
    app = any_db_app
    owner, owner_id = phone(app, "Owner")
    key, tables = night(app, owner_id)
    named = referees_named(app, owner, key)
    mary, _ = phone(app, "Mary's phone")
    olu, _ = phone(app, "Olu's phone")
    assert post(mary, f"/api/ev/{key}/referee/join", {"pin": named["Mary"]["pin"]}).status_code == 200
    assert post(olu, f"/api/ev/{key}/referee/join", {"pin": named["Olu"]["pin"]}).status_code == 200
    table = app.test_client()
    with app.app_context():
        hand_id = units.get_evening(tables[0]).hands[0].id  # type: ignore[union-attr]
    dispute_id = post(table, f"/api/e/{tables[0]}/hands/{hand_id}/disputes",
                      {"kind": "revoke", "accused": "Cat", "token": "d-1"}).get_json()["dispute"]["id"]
    call_id = post(table, f"/api/e/{tables[0]}/referee", {"hand": 1, "token": "c-1"}).get_json()["call"]["id"]
    barrier = threading.Barrier(2)
    answers: dict[str, Any] = {}

    def rule(name: str, client: Any, upheld: bool) -> None:
        barrier.wait()
        answer = post(client, f"/api/ev/{key}/calls/{call_id}/rule",
                      {"dispute": dispute_id, "version": 1, "upheld": upheld, "token": f"r-{name}"})
        answers[name] = (answer.status_code, answer.get_json())

    threads = [threading.Thread(target=rule, args=("Mary", mary, True)),
               threading.Thread(target=rule, args=("Olu", olu, False))]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(60)
    codes = sorted(code for code, _ in answers.values())
    assert codes == [201, 409], answers
    winner = next(name for name, (code, _) in answers.items() if code == 201)
    loser = next(name for name, (code, _) in answers.items() if code == 409)
    assert answers[loser][1]["error"]["code"] == "conflict"
    assert count(app, HandVersion) == 2  # one ruling saved, not two
    with app.app_context():
        row = db.session.get(RefereeCall, call_id)
        assert row is not None and row.outcome == "ruled"
        assert db.session.get(Referee, row.closed_by).name == winner  # type: ignore[union-attr]
        ruled = list(db.session.scalars(sa.select(Change).where(Change.kind == "ruled")))
        assert [c.after["referee"] for c in ruled] == [winner]
    totals = table.get(f"/api/e/{tables[0]}").get_json()["totals"]
    # Mary upholds the revoke by Cat (Bob, the declarer, is paid as if he won: +9); Olu rejects it (Bob −9)
    assert totals == ({"Ann": -3, "Bob": 9, "Cat": -3, "Dan": -3} if winner == "Mary"
                      else {"Ann": 3, "Bob": -9, "Cat": 3, "Dan": 3})


def test_the_pages_call_name_join_and_rule(app: Any) -> None:
    owner, owner_id = phone(app, "Owner")
    key, tables = night(app, owner_id)
    assert app.test_client().get(f"/ev/{key}/referees").status_code == 302  # not the owner
    page = owner.get(f"/ev/{key}/referees")
    assert page.status_code == 200 and "No referee yet." in page.get_data(as_text=True)
    named = owner.post(f"/ev/{key}/referees", data={"name": "  Mary  ", "token": "n-1"})
    assert named.status_code == 302
    with app.app_context():
        mary_row = db.session.scalar(sa.select(Referee))
        assert mary_row is not None and mary_row.name == "Mary"
        pin = mary_row.pin
    listed = owner.get(f"/ev/{key}/referees").get_data(as_text=True)
    assert f'<code class="pin">{pin}</code>' in listed and "Revoke <bdi>Mary</bdi>" in listed
    mary, _ = phone(app, "Mary's phone")
    assert mary.post(f"/ev/{key}/referee/join", data={"pin": "000000" if pin != "000000" else "111111"}
                     ).status_code == 422
    assert mary.post(f"/ev/{key}/referee/join", data={"pin": pin}).headers["Location"].endswith(f"/ev/{key}/calls")

    table = app.test_client()
    room = app.test_client()  # the room screen: no login
    quiet = room.get(f"/api/ev/{key}/version").get_json()["version"]
    assert "calls the referee" not in room.get(f"/ev/{key}/room").get_data(as_text=True)
    form = table.get(f"/e/{tables[0]}/referee?hand=1").get_data(as_text=True)
    assert "Table 1 of round 1" in form and '<option selected value="1">hand 1</option>' in form
    assert table.get(f"/e/{tables[0]}/hand/1").get_data(as_text=True).count("Call the referee") == 1
    assert table.post(f"/e/{tables[0]}/referee", data={"hand": "1", "note": "Cat revoked"}).status_code == 302
    assert "Waiting for a referee." in table.get(f"/e/{tables[0]}/referee").get_data(as_text=True)
    assert room.get(f"/api/ev/{key}/version").get_json()["version"] != quiet  # the room screen reloads
    shown = room.get(f"/ev/{key}/room").get_data(as_text=True)
    assert '<p class="room-call">Table 1: dispute on hand 1</p>' in shown
    assert "Cat revoked" not in shown and pin not in shown  # the note is the table's; no PIN on the wall
    table.post(f"/e/{tables[0]}/hand/1/dispute", data={"hand_id": "", "kind": "revoke", "accused": "2",
                                                       "raised_by": "3", "trick": "", "note": ""})
    desk = mary.get(f"/ev/{key}/calls").get_data(as_text=True)
    assert "Table 1: dispute on hand 1" in desk and "<q><bdi>Cat revoked</bdi></q>" in desk
    with app.app_context():
        call = db.session.scalar(sa.select(RefereeCall))
        dispute = db.session.scalar(sa.select(Dispute))
        assert call is not None and dispute is not None
        call_id, dispute_id, hand_id = call.id, dispute.id, dispute.hand_id
    assert mary.post(f"/ev/{key}/calls/{call_id}/take").status_code == 302
    assert "Mary</bdi> is coming." in table.get(f"/e/{tables[0]}/referee").get_data(as_text=True)
    assert '<p class="room-call">Table 1: dispute on hand 1 · Mary is coming.</p>' in room.get(
        f"/ev/{key}/room").get_data(as_text=True)
    ruled = mary.post(f"/ev/{key}/calls/{call_id}/rule/{dispute_id}",
                      data={"upheld": "0", "version": "1", "hand_id": str(hand_id), "token": "p-1"})
    assert ruled.status_code == 302 and ruled.headers["Location"].endswith(f"/e/{tables[0]}/hand/1")
    totals = table.get(f"/api/e/{tables[0]}").get_json()["totals"]
    assert totals == {"Ann": 3, "Bob": -9, "Cat": 3, "Dan": 3}  # rejected: the hand as played (Bob beaten)
    desk = mary.get(f"/ev/{key}/calls").get_data(as_text=True)
    assert "ruled by <bdi>Mary</bdi>" in desk
    assert 'class="room-call"' not in room.get(f"/ev/{key}/room").get_data(as_text=True)  # closed: off the wall


def test_a_referee_who_plays_at_the_table_does_not_rule_there(app: Any) -> None:
    owner, owner_id = phone(app, "Owner")
    key, tables = night(app, owner_id)
    cat = post(owner, f"/api/ev/{key}/referees", {"name": "Cat", "token": "n-1"}).get_json()["referee"]
    referee, _ = phone(app, "Cat's phone")
    assert post(referee, f"/api/ev/{key}/referee/join", {"pin": cat["pin"]}).status_code == 200
    table = app.test_client()
    with app.app_context():
        hand_id = units.get_evening(tables[0]).hands[0].id  # type: ignore[union-attr]
    dispute_id = post(table, f"/api/e/{tables[0]}/hands/{hand_id}/disputes",
                      {"kind": "revoke", "accused": "Ann", "token": "d-1"}).get_json()["dispute"]["id"]
    call_id = post(table, f"/api/e/{tables[0]}/referee", {"hand": 1, "token": "c-1"}).get_json()["call"]["id"]
    before = revisions(app, key, tables[0])
    ruled = post(referee, f"/api/ev/{key}/calls/{call_id}/rule",
                 {"dispute": dispute_id, "version": 1, "upheld": True, "token": "r-1"})
    assert ruled.status_code == 422 and ruled.get_json()["error"]["message"] == (
        "Cat plays at this table: another referee rules here.")
    assert revisions(app, key, tables[0]) == before and count(app, HandVersion) == 1


def test_the_referees_migration_goes_down_and_up(any_db_app: Any) -> None:
    """0022 can be undone on a database holding referees, their phones and a call (the event
    and its tables stay), and redone."""
    from flask_migrate import downgrade, upgrade

    app = any_db_app
    owner, owner_id = phone(app, "Owner")
    key, tables = night(app, owner_id)
    named = referees_named(app, owner, key)
    mary, _ = phone(app, "Mary's phone")
    assert post(mary, f"/api/ev/{key}/referee/join", {"pin": named["Mary"]["pin"]}).status_code == 200
    assert post(app.test_client(), f"/api/e/{tables[0]}/referee", {"hand": 1, "token": "c-1"}).status_code == 201
    mine = {"event_referee", "referee_phone", "referee_call", "referee_pin_miss"}
    with app.app_context():
        db.session.remove()
        downgrade(revision="0021_events")
        assert not mine & set(sa.inspect(db.engine).get_table_names())
        assert events.get_event(key) is not None and units.get_evening(tables[0]) is not None
        db.session.remove()
        upgrade()
        db.session.remove()
        assert mine <= set(sa.inspect(db.engine).get_table_names())
        assert db.session.scalar(sa.select(sa.func.count()).select_from(RefereeCall)) == 0
