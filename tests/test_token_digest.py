"""A one-time token remembers what it saved (a digest of its command): the same token
sent again with other content is not a retry. It was answered as one (hand 2 sent with
hand 1's token answered 200 with hand 1, and hand 2 was never saved); now it is refused
(422 JSON, the form's error), nothing is saved, and a true retry is still answered with
what the first one saved. Tokens kept before migration 0015 have no digest: as before."""

from __future__ import annotations

import json
from typing import Any

import sqlalchemy as sa

from scorer.rules import HandFacts
from scorer.storage import evening_writes, groups
from scorer.storage.commands import AlreadySaved, CorrectHand, RecordHand, Refused, RestoreVersion, Saved, execute
from scorer.storage.disputes import RaiseDispute, SetConfirmation
from scorer.storage.evening_writes import NewEvening
from scorer.storage.groups import AddToGroup, NewGroup
from scorer.storage.models import Hand, Submission, db
from webhelpers import counts, start_evening

THREE = {"dealer": "Ann", "auction": ["three", "pass", "pass", "pass"], "tricks": 3}
FOUR = {"dealer": "Bob", "auction": ["pass", "four", "pass", "pass"], "tricks": 4}
REUSED = "This one-time token was used for another change"
PLAYERS = ["Ann", "Bob", "Cat", "Dan"]


def _post(client: Any, url: str, body: Any) -> Any:
    return client.post(url, data=json.dumps(body), content_type="application/json")


def test_the_same_token_with_another_hand_is_422_and_a_retry_is_still_200(any_db_app: Any) -> None:
    client = any_db_app.test_client()
    key = start_evening(client)
    first = _post(client, f"/api/e/{key}/hands", {"number": 1, "facts": THREE, "token": "outbox-1"})
    assert first.status_code == 201
    before = counts(any_db_app)
    other = _post(client, f"/api/e/{key}/hands", {"number": 2, "facts": FOUR, "token": "outbox-1"})
    assert other.status_code == 422, other.get_data(as_text=True)
    assert REUSED in other.get_json()["error"]["message"]
    assert counts(any_db_app) == before
    again = _post(client, f"/api/e/{key}/hands", {"number": 1, "facts": THREE, "token": "outbox-1"})
    assert again.status_code == 200 and again.get_json() == first.get_json()
    hand = first.get_json()["hand"]
    fix = {"version": 1, "facts": THREE | {"tricks": 2}, "token": "fix-1"}
    assert _post(client, f"/api/e/{key}/hands/{hand['id']}/versions", fix).status_code == 201
    other_fix = _post(client, f"/api/e/{key}/hands/{hand['id']}/versions", fix | {"facts": THREE | {"tricks": 4}})
    assert other_fix.status_code == 422 and REUSED in other_fix.get_json()["error"]["message"]
    assert _post(client, f"/api/e/{key}/hands/{hand['id']}/versions", fix).status_code == 200
    assert client.get(f"/api/e/{key}").get_json()["hands"][0]["version"] == 2


def test_a_retry_of_a_hand_without_a_dealer_is_still_a_retry(app: Any, client: Any) -> None:
    """The dealer a hand without one gets is its place's (not the next hand's): a retry
    after it was saved has the same content."""
    key = start_evening(client)
    body = {"number": 1, "facts": {k: v for k, v in THREE.items() if k != "dealer"}, "token": "no-dealer"}
    first = _post(client, f"/api/e/{key}/hands", body)
    assert first.status_code == 201
    again = _post(client, f"/api/e/{key}/hands", body)
    assert again.status_code == 200 and again.get_json() == first.get_json()


def test_the_form_shows_the_refusal_of_a_token_used_for_another_hand(app: Any, client: Any) -> None:
    key = start_evening(client)
    data = {"number": "1", "dealer": "0", "call_0": "three", "call_1": "pass", "call_2": "pass",
            "call_3": "pass", "tricks": "3", "save": "1", "token": "kept-form-token-000001"}
    assert client.post(f"/e/{key}/hand", data=data).status_code == 302
    twice = client.post(f"/e/{key}/hand", data=data, follow_redirects=True).get_data(as_text=True)
    assert "already saved" in twice
    other = client.post(f"/e/{key}/hand", data=data | {"number": "2", "dealer": "1", "call_0": "pass",
                                                       "call_1": "pass", "call_2": "four", "tricks": "4"})
    assert other.status_code == 422 and REUSED in other.get_data(as_text=True)
    with app.app_context():
        assert db.session.scalar(sa.select(sa.func.count()).select_from(Hand)) == 1


def test_a_double_tap_on_quick_entry_is_still_saved_once(app: Any, client: Any) -> None:
    key = start_evening(client)
    page = client.get(f"/e/{key}/quick").get_data(as_text=True)
    token = page.split('name="token"', 1)[1].split('value="', 1)[1].split('"', 1)[0]
    data = {"number": "1", "token": token, "declarer": "1", "contract": "three", "tricks": "3"}
    assert client.post(f"/e/{key}/quick", data=data).status_code == 302
    twice = client.post(f"/e/{key}/quick", data=data, follow_redirects=True).get_data(as_text=True)
    assert "already saved" in twice
    with app.app_context():
        assert db.session.scalar(sa.select(sa.func.count()).select_from(Hand)) == 1


def _commands(key: str, hand_id: int, other: str, group: str) -> list[tuple[Any, Any]]:
    """Pairs: a command with a token, and another with the same token (other content)."""
    return [
        (CorrectHand(key, hand_id, 1, "c", facts=HandFacts(0, ("three", "pass", "pass", "pass"), 2)),
         CorrectHand(key, hand_id, 1, "c", facts=HandFacts(0, ("three", "pass", "pass", "pass"), 4))),
        (RestoreVersion(key, hand_id, 2, "r", restore=1), RestoreVersion(key, hand_id, 2, "r", restore=2)),
        (RaiseDispute(key, hand_id, "score", token="d"), RaiseDispute(key, hand_id, "score", note="no", token="d")),
        (SetConfirmation(key, True, "s"), SetConfirmation(key, False, "s")),
        (NewEvening("pagat", tuple(PLAYERS), 0, {}, token="n"), NewEvening("pagat", tuple(PLAYERS), 1, {}, token="n")),
        (NewGroup("Klubben", "g"), NewGroup("Laget", "g")),
        (AddToGroup(group, key, "a"), AddToGroup(group, other, "a")),
    ]


def test_every_command_with_a_token_refuses_it_with_other_content(any_db_app: Any) -> None:
    with any_db_app.app_context():
        key = evening_writes.create_evening(variant="pagat", players=PLAYERS, first_dealer=0, options={},
                                           stake=None, token="start-a").key
        other = evening_writes.create_evening(variant="pagat", players=PLAYERS, first_dealer=0, options={},
                                             stake=None, token="start-b").key
        group = groups.create_group("Vi", token="group-v").key
        saved = execute(RecordHand(key, 1, HandFacts(0, ("three", "pass", "pass", "pass"), 3), "h"))
        assert isinstance(saved, Saved)
        for first, second in _commands(key, saved.hand_id, other, group):
            done = execute(first)
            assert isinstance(done, Saved), (first, done)
            rows = db.session.scalar(sa.select(sa.func.count()).select_from(Submission))
            refused = execute(second)
            assert isinstance(refused, Refused) and REUSED in str(refused.message), (second, refused)
            assert isinstance(execute(first), AlreadySaved), first
            assert db.session.scalar(sa.select(sa.func.count()).select_from(Submission)) == rows
        assert all(len(d) == 64 for d in db.session.scalars(sa.select(Submission.digest).where(
            Submission.token.in_(["h", "c", "r", "d", "s", "n", "g", "a"]))))


def test_the_digest_migration_goes_down_and_up_with_data(any_db_app: Any) -> None:
    """0015 is undone on a database holding a token with a digest, and redone: the
    token is kept without one, and is then answered as before (a retry, whatever it carries)."""
    from flask_migrate import downgrade, upgrade

    with any_db_app.app_context():
        key = evening_writes.create_evening(variant="pagat", players=PLAYERS, first_dealer=0, options={},
                                           stake=None, token="start-1").key
        execute(RecordHand(key, 1, HandFacts(0, ("three", "pass", "pass", "pass"), 3), "hand-1"))
        db.session.remove()
        downgrade(revision="0014_disputes")
        columns = [c["name"] for c in sa.inspect(db.engine).get_columns("submission")]
        assert "digest" not in columns
        assert db.session.scalar(sa.text("SELECT count(*) FROM submission")) == 2
        db.session.remove()
        upgrade()
        db.session.remove()
        assert db.session.scalar(sa.select(Submission.digest).where(Submission.token == "hand-1")) is None
        old = execute(RecordHand(key, 2, HandFacts(1, ("pass", "four", "pass", "pass"), 4), "hand-1"))
        assert isinstance(old, AlreadySaved) and old.number == 1
        assert db.session.scalar(sa.select(sa.func.count()).select_from(Hand)) == 1


def test_a_command_without_a_token_keeps_no_token(app: Any) -> None:
    with app.app_context():
        key = evening_writes.create_evening(variant="pagat", players=PLAYERS, first_dealer=0, options={},
                                           stake=None).key
        assert isinstance(execute(RecordHand(key, 1, HandFacts(0, ("three", "pass", "pass", "pass"), 3))), Saved)
        assert db.session.scalar(sa.select(sa.func.count()).select_from(Submission)) == 0
