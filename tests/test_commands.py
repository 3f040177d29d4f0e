"""The command framework (scorer/storage/commands.py): every outcome kind through the
runner and through both adapters (the JSON command and the HTML form answer the same
outcome), and one unit of work per command: a failure inside a command saves nothing,
and a write nested in another unit joins it (SQLite and PostgreSQL)."""

from __future__ import annotations

import json
from typing import Any

import pytest
import sqlalchemy as sa

from scorer.rules import HandFacts
from scorer.storage import evening_writes, hand_writes, units
from scorer.storage.commands import (
    AlreadySaved,
    Conflict,
    CorrectHand,
    Device,
    RecordHand,
    Refused,
    Saved,
    SetFinished,
    UndoHand,
    execute,
)
from scorer.storage.models import Change, Evening, Hand, Submission, db
from webhelpers import post_hand, start_evening

THREE = HandFacts(0, ("three", "pass", "pass", "pass"), 3)
#: Bob bids after Ann's three with a lower bid: the auction is refused (P-7 and kin).
ILLEGAL = {"dealer": "Ann", "auction": ["three", "two", "pass", "pass"], "tricks": 3}


def _evening() -> Evening:
    return evening_writes.create_evening(variant="pagat", players=["Ann", "Bob", "Cat", "Dan"], first_dealer=0,
                                         options={}, stake=None)


def _post(client: Any, url: str, body: Any) -> Any:
    return client.post(url, data=json.dumps(body), content_type="application/json")


def _rows(model: Any) -> int:
    return db.session.scalar(sa.select(sa.func.count()).select_from(model))


# --------------------------------------------------------------------------- the runner
def test_each_outcome_kind_from_the_runner(app: Any) -> None:
    with app.app_context():
        key = _evening().key
        saved = execute(RecordHand(key, 1, THREE, "tok-1"), device=Device("Ann's phone"))
        assert isinstance(saved, Saved) and saved.number == 1 and saved.version == 1 and saved.changed
        again = execute(RecordHand(key, 1, THREE, "tok-1"))
        assert again == AlreadySaved(again.message, 1, saved.hand_id)
        taken = execute(RecordHand(key, 1, THREE, "tok-2"))
        assert isinstance(taken, Conflict) and taken.number == 1
        stale = execute(CorrectHand(key, saved.hand_id, 7, "tok-3", facts=THREE))
        assert isinstance(stale, Conflict) and "corrected on another phone" in stale.message
        bad = HandFacts(1, ("three", "two", "pass", "pass"), 3)
        refused = execute(RecordHand(key, 2, bad, "tok-4"))
        assert isinstance(refused, Refused) and refused.rule is not None and not refused.finished
        assert isinstance(execute(SetFinished(key, True)), Saved)
        finished = execute(RecordHand(key, 2, HandFacts(1, ("pass",) * 4), "tok-5"))
        assert isinstance(finished, Refused) and finished.finished and "finished" in finished.message
        # nothing of the refused ones was kept: one hand, one token, and the history says so
        assert _rows(Hand) == 1 and _rows(Submission) == 1
        assert [c.kind for c in db.session.scalars(sa.select(Change).order_by(Change.id))] == ["start", "new",
                                                                                            "finish"]


def test_a_correction_with_the_same_facts_saves_nothing_and_keeps_no_token(app: Any) -> None:
    with app.app_context():
        key = _evening().key
        hand = execute(RecordHand(key, 1, THREE))
        assert isinstance(hand, Saved)
        same = execute(CorrectHand(key, hand.hand_id, 1, "same", facts=THREE))
        assert isinstance(same, Saved) and not same.changed and same.version == 1
        assert _rows(Submission) == 0 and units.evening_revision(key) == 1


def test_a_retry_is_answered_before_the_version_check(app: Any) -> None:
    """The first send made the command stale: its retry is AlreadySaved, not a conflict."""
    with app.app_context():
        key = _evening().key
        hand = execute(RecordHand(key, 1, THREE))
        command = CorrectHand(key, hand.hand_id, 1, "fix-1", facts=HandFacts(0, THREE.auction, 2))
        first = execute(command)
        assert isinstance(first, Saved) and first.version == 2
        assert execute(command) == AlreadySaved(execute(command).message, 1, hand.hand_id)


# --------------------------------------------------------------------------- one unit of work
@pytest.mark.parametrize("where", ["after the hand row", "after the token"])
def test_a_failure_inside_a_command_saves_nothing(any_db_app: Any, monkeypatch: pytest.MonkeyPatch,
                                                  where: str) -> None:
    with any_db_app.app_context():
        key = _evening().key

        def broken(*args: Any, **kwargs: Any) -> None:
            raise RuntimeError("the disk is full")

        if where == "after the hand row":
            monkeypatch.setattr(hand_writes, "log", broken)  # called once the hand's row is flushed
        else:
            from scorer.storage import tokens
            real = tokens.keep

            def keep_then_fail(*args: Any, **kwargs: Any) -> None:
                real(*args, **kwargs)
                db.session.flush()
                raise RuntimeError("the disk is full")

            monkeypatch.setattr(tokens, "keep", keep_then_fail)
        with pytest.raises(RuntimeError):
            execute(RecordHand(key, 1, THREE, "tok-1"))
        db.session.rollback()
        assert _rows(Hand) == 0 and _rows(Submission) == 0
        assert units.evening_revision(key) == 0
        monkeypatch.undo()
        assert isinstance(execute(RecordHand(key, 1, THREE, "tok-1")), Saved)  # the token was never kept


def test_a_write_nested_in_a_unit_joins_it(any_db_app: Any) -> None:
    """Two hands recorded inside one unit that then fails: neither is saved (each write
    joined the outer unit; none committed on its own)."""
    with any_db_app.app_context():
        evening = _evening()
        key = evening.key
        with pytest.raises(RuntimeError), units.writing():
            hand_writes.record_hand(evening, 1, THREE)
            hand_writes.record_hand(evening, 2, HandFacts(1, ("pass",) * 4))
            raise RuntimeError("stop")
        assert _rows(Hand) == 0 and units.evening_revision(key) == 0
        with units.writing():  # and without the failure both are saved, in one commit
            hand_writes.record_hand(evening, 1, THREE)
            hand_writes.record_hand(evening, 2, HandFacts(1, ("pass",) * 4))
        assert _rows(Hand) == 2 and units.evening_revision(key) == 2


def test_the_kept_ledger_is_remembered_only_once_committed(app: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    from scorer.storage import kept_ledgers
    remembered: list[Any] = []
    monkeypatch.setattr(kept_ledgers, "remember", lambda *kept: remembered.append(kept))
    with app.app_context():
        evening = _evening()
        with pytest.raises(RuntimeError), units.writing():
            hand_writes.record_hand(evening, 1, THREE)
            raise RuntimeError("stop")
        assert remembered == []
        assert isinstance(execute(RecordHand(evening.key, 1, THREE)), Saved)
        assert len(remembered) == 1



def test_a_save_kept_at_the_locked_revision_reads_no_hand_and_keeps_the_same_ledger(any_db_app: Any) -> None:
    """RecordHand under the evening's lock resumes the ledger this process keeps at the
    revision it read with the lock, without reading the hands; not kept (another process
    wrote, or a restart), it reads them as ever. Both save the same rows, and the ledger
    each keeps is the evening's settled in full."""
    from scorer.evening.ledger import settle_evening
    from scorer.storage import evenings, kept_ledgers

    def facts(number: int) -> HandFacts:
        return HandFacts((number - 1) % 4, ("three", "pass", "pass", "pass"), 3)

    with any_db_app.app_context():
        key = _evening().key
        assert isinstance(execute(RecordHand(key, 1, facts(1), "k-1")), Saved)
        seen: list[str] = []

        def count(_conn: Any, _cursor: Any, statement: str, *_: Any) -> None:
            seen.append(" ".join(statement.split()))

        sa.event.listen(db.engine, "before_cursor_execute", count)
        try:
            kept = execute(RecordHand(key, 2, facts(2), "k-2"))  # the first save left its ledger kept
            read_kept = [s for s in seen if "FROM hand" in s or "JOIN hand" in s]
            kept_ledgers.ledgers.clear()
            seen.clear()
            missed = execute(RecordHand(key, 3, facts(3), "k-3"))
            read_missed = [s for s in seen if "FROM hand" in s or "JOIN hand" in s]
        finally:
            sa.event.remove(db.engine, "before_cursor_execute", count)
        assert isinstance(kept, Saved) and isinstance(missed, Saved)
        assert read_kept == [] and read_missed != []
        remembered = kept_ledgers.ledgers.get((str(db.engine.url), key))
        evening = units.get_evening(key)
        assert evening is not None and remembered is not None
        assert remembered.ledger == settle_evening(evenings.setup_of(evening), evenings.current_facts(evening), [])
        assert remembered.fingerprint == tuple((h.id, 1) for h in evening.hands)
        assert remembered.revision == remembered.head.revision == evening.revision == 3
        assert remembered.head.players == ("Ann", "Bob", "Cat", "Dan")
        assert [h.number for h in evening.hands] == [1, 2, 3]
        assert [(c.kind, c.hand_number, c.after is not None) for c in evenings.history(evening)][:3] == [
            ("new", 3, True), ("new", 2, True), ("new", 1, True)]
        assert sorted(db.session.scalars(sa.select(Submission.token).where(Submission.evening_id == evening.id))) \
            == ["k-1", "k-2", "k-3"]
        again = execute(RecordHand(key, 2, facts(2), "k-2"))  # a retry of the kept one: answered as ever
        assert again == AlreadySaved(again.message, 2, kept.hand_id)


# --------------------------------------------------------------------------- both adapters
def _json_hand(client: Any, key: str, number: int, facts: dict[str, Any], token: str) -> Any:
    return _post(client, f"/api/e/{key}/hands", {"number": number, "facts": facts, "token": token})


def _form_hand(client: Any, key: str, token: str, calls: dict[int, str], number: int = 1) -> Any:
    dealer = str(number - 1)
    return client.post(f"/e/{key}/hand", data={"number": str(number), "dealer": dealer, "tricks": "3", "save": "1",
                                               "token": token, **{f"call_{s}": c for s, c in calls.items()}})


def test_saved_and_already_saved_through_both_adapters(app: Any, client: Any) -> None:
    key = start_evening(client)
    first = _json_hand(client, key, 1, {"dealer": "Ann", "auction": ["three", "pass", "pass", "pass"],
                                        "tricks": 3}, "j-1")
    assert first.status_code == 201
    retry = _json_hand(client, key, 1, {"dealer": "Ann", "auction": ["three", "pass", "pass", "pass"],
                                        "tricks": 3}, "j-1")
    assert retry.status_code == 200 and retry.get_json()["hand"] == first.get_json()["hand"]
    calls = {0: "pass", 1: "pass", 2: "three", 3: "pass"}
    saved = _form_hand(client, key, "f-2", calls, number=2)
    assert saved.status_code == 302 and saved.headers["Location"].endswith(f"/e/{key}")
    assert "Hand 2 saved." in client.get(f"/e/{key}").get_data(as_text=True)
    again = _form_hand(client, key, "f-2", calls, number=2)
    assert again.status_code == 302
    assert "already saved" in client.get(f"/e/{key}").get_data(as_text=True)
    with app.app_context():
        assert _rows(Hand) == 2


def test_conflict_through_both_adapters(app: Any, client: Any) -> None:
    key = start_evening(client)
    hand = _json_hand(client, key, 1, {"dealer": "Ann", "auction": ["three", "pass", "pass", "pass"],
                                       "tricks": 3}, "j-1").get_json()["hand"]
    fix = {"dealer": "Ann", "auction": ["three", "pass", "pass", "pass"], "tricks": 2}
    assert _post(client, f"/api/e/{key}/hands/{hand['id']}/versions",
                 {"version": 1, "facts": fix, "token": "j-2"}).status_code == 201
    stale = _post(client, f"/api/e/{key}/hands/{hand['id']}/versions",
                  {"version": 1, "facts": {**fix, "tricks": 4}, "token": "j-3"})
    assert stale.status_code == 409 and stale.get_json()["error"]["code"] == "conflict"
    assert stale.get_json()["state"]["hands"][0]["version"] == 2
    page = client.post(f"/e/{key}/hand/1/edit", data={
        "number": "1", "version": "1", "hand_id": str(hand["id"]), "token": "f-3", "dealer": "0", "tricks": "4",
        "save": "1", "call_0": "three", "call_1": "pass", "call_2": "pass", "call_3": "pass"})
    assert page.status_code == 302 and page.headers["Location"].endswith(f"/e/{key}/hand/1")
    assert "corrected on another phone" in client.get(page.headers["Location"]).get_data(as_text=True)
    with app.app_context():
        assert len(db.session.get(Hand, hand["id"]).versions) == 2


def test_refused_with_the_rule_through_both_adapters(app: Any, client: Any) -> None:
    key = start_evening(client)
    refused = _json_hand(client, key, 1, ILLEGAL, "j-1")
    assert refused.status_code == 422
    error = refused.get_json()["error"]
    assert error["code"] == "refused" and error["rule"]
    page = _form_hand(client, key, "f-1", {0: "pass", 1: "three", 2: "two", 3: "pass"})
    assert page.status_code == 422 and f"({error['rule']})" in page.get_data(as_text=True)
    with app.app_context():
        assert _rows(Hand) == 0 and _rows(Submission) == 0


def test_refused_when_the_evening_is_finished_through_both_adapters(app: Any, client: Any) -> None:
    key = start_evening(client)
    assert client.post(f"/e/{key}/finish").status_code == 302
    refused = _json_hand(client, key, 1, {"dealer": "Ann", "auction": ["three", "pass", "pass", "pass"],
                                          "tricks": 3}, "j-1")
    assert refused.status_code == 409 and refused.get_json()["state"]["finished"] is True
    assert "finished" in refused.get_json()["error"]["message"]
    page = post_hand(client, key, 1, 0, {0: "three", 1: "pass", 2: "pass", 3: "pass"}, tricks=3)
    assert page.status_code == 302 and page.headers["Location"].endswith(f"/e/{key}")
    assert "This evening is finished" in client.get(f"/e/{key}").get_data(as_text=True)
    quick = client.post(f"/e/{key}/quick", data={"number": "1", "declarer": "0", "contract": "three",
                                                 "tricks": "3", "token": "q-1"})
    assert quick.status_code == 302
    with app.app_context():
        assert _rows(Hand) == 0


def test_undo_through_both_adapters(app: Any, client: Any) -> None:
    key = start_evening(client)
    for number, token in ((1, "j-1"), (2, "j-2")):
        dealer = ("Ann", "Bob")[number - 1]
        assert _json_hand(client, key, number, {"dealer": dealer, "auction": ["pass"] * 4},
                          token).status_code == 201
    with app.app_context():
        last = db.session.scalar(sa.select(Hand).where(Hand.number == 2))
        first = db.session.scalar(sa.select(Hand).where(Hand.number == 1))
        last_id, first_id = last.id, first.id
    undone = _post(client, f"/api/e/{key}/undo", {"hand_id": last_id, "version": 1})
    assert undone.status_code == 200 and undone.get_json()["undone"] == {"id": last_id, "number": 2}
    again = _post(client, f"/api/e/{key}/undo", {"hand_id": last_id, "version": 1})
    assert again.status_code == 409
    page = client.post(f"/e/{key}/undo", data={"number": "1", "version": "1", "hand_id": str(first_id)})
    assert page.status_code == 302
    assert "Hand 1 is undone" in client.get(f"/e/{key}").get_data(as_text=True)
    with app.app_context():
        assert isinstance(execute(UndoHand(key, None, 1, first_id)), Conflict)  # nothing left to undo


def test_quick_entry_and_the_json_lone_bid_make_the_same_auction(app: Any, client: Any) -> None:
    key = start_evening(client)
    assert _json_hand(client, key, 1, {"lone_bid": {"declarer": "Bob", "contract": "three"}, "tricks": 3},
                      "j-1").status_code == 201
    quick = client.post(f"/e/{key}/quick", data={"number": "2", "declarer": "2", "contract": "three",
                                                 "tricks": "3", "token": "q-2"})
    assert quick.status_code == 302, quick.get_data(as_text=True)
    state = client.get(f"/api/e/{key}").get_json()  # the declarer speaks first both times (Bob, then Cat)
    assert [h["facts"]["auction"] for h in state["hands"]] == [["three", "pass", "pass", "pass"]] * 2
