"""Ruling on a dispute is one unit of work (issue "One command, one path, one layout"):
the correction command carries the dispute, and the correction and the dispute's close
are saved together or not at all, from the correction form ("Rule on it"), the JSON
rule command and the JSON claims command alike."""

from __future__ import annotations

import dataclasses
import json
from typing import Any

import pytest

from scorer.rules import Claim
from scorer.storage import disputes, evenings, hand_writes, units
from scorer.storage.commands import CorrectHand, Device, Saved, execute
from scorer.storage.models import Dispute, db
from webhelpers import post_hand, start_evening


def _disputed_table(app: Any) -> tuple[Any, str, int, int]:
    """A pagat table whose hand 1 (Bob bids Three, takes two) a viewer disputes: Cat revoked in trick 2."""
    scorer = app.test_client()
    key = start_evening(scorer)
    assert post_hand(scorer, key, 1, 0, {1: "three"}, tricks=2).status_code == 302
    with app.app_context():
        evening = units.get_evening(key)
        assert evening is not None
        hand_id = evening.hands[0].id
        dispute = disputes.raise_dispute(evening, 1, hand_id=hand_id, kind="revoke", accused=2, raised_by=1,
                                         trick=2, device="viewer")
        return scorer, key, hand_id, dispute.id


def _saved(app: Any, key: str, dispute_id: int) -> tuple[int, int, bool]:
    """The hand's current version, the table's revision and whether the dispute is open, as committed."""
    with app.app_context():
        evening = units.get_evening(key)
        assert evening is not None
        dispute = db.session.get(Dispute, dispute_id)
        assert dispute is not None
        return evening.hands[0].current.version, evening.revision, dispute.resolved_at is None


@pytest.mark.parametrize("broken", ["the close", "the correction"])
def test_a_failure_between_the_correction_and_the_close_saves_neither(any_db_app: Any, broken: str,
                                                                     monkeypatch: pytest.MonkeyPatch) -> None:
    """The history line of either step fails (the other one's rows already in the
    session): nothing of the ruling is saved, on SQLite and PostgreSQL."""
    app = any_db_app
    _scorer, key, hand_id, dispute_id = _disputed_table(app)
    before = _saved(app, key, dispute_id)
    assert before[0] == 1 and before[2]

    def broken_log(*args: Any, **kwargs: Any) -> None:
        raise RuntimeError("the disk is full")

    if broken == "the close":
        monkeypatch.setattr(disputes, "_log", broken_log)
    else:
        monkeypatch.setattr(hand_writes, "log", broken_log)
    with app.app_context():
        evening = units.get_evening(key)
        assert evening is not None
        ruled = evening.hands[0]
        facts = evenings.facts_of(ruled.current, 4)
        claim = Claim("revoke", 2, True, by=1, trick=2)
        ruling = CorrectHand(key, hand_id, 1, None, 1, facts=dataclasses.replace(facts, claims=(claim,)),
                             dispute_id=dispute_id)
        with pytest.raises(RuntimeError):
            execute(ruling, device=Device("scorer"))
    assert _saved(app, key, dispute_id) == before  # no new version, same revision, the dispute still open

    monkeypatch.undo()  # the same ruling, nothing broken: both saved at once
    with app.app_context():
        assert isinstance(execute(ruling, device=Device("scorer")), Saved)
    version, revision, still_open = _saved(app, key, dispute_id)
    assert (version, still_open) == (2, False) and revision > before[1]


def test_the_json_claims_command_closes_the_dispute_it_rules_on(app: Any) -> None:
    scorer, key, hand_id, dispute_id = _disputed_table(app)
    body = {"version": 1, "token": "rule-1",
            "claims": [{"kind": "revoke", "accused": "Cat", "by": "Bob", "trick": 2, "upheld": True}]}
    answer = scorer.post(f"/api/e/{key}/hands/{hand_id}/claims", data=json.dumps(body),
                         content_type="application/json")
    assert answer.status_code == 201, answer.get_data(as_text=True)
    assert _saved(app, key, dispute_id)[::2] == (2, False)
    assert answer.get_json()["totals"] == {"Ann": -3, "Bob": 9, "Cat": -3, "Dan": -3}  # P-16: scored as made
    history = scorer.get(f"/e/{key}/history").get_data(as_text=True)
    assert "Dispute ruled on" in history


def test_a_claim_of_another_player_leaves_the_dispute_open(app: Any) -> None:
    scorer, key, hand_id, dispute_id = _disputed_table(app)
    body = {"version": 1, "token": "rule-2",
            "claims": [{"kind": "revoke", "accused": "Ann", "by": "Bob", "trick": 2, "upheld": False}]}
    answer = scorer.post(f"/api/e/{key}/hands/{hand_id}/claims", data=json.dumps(body),
                         content_type="application/json")
    assert answer.status_code == 201, answer.get_data(as_text=True)
    assert _saved(app, key, dispute_id)[::2] == (2, True)
    named = dict(body, version=2, token="rule-3", dispute=dispute_id)  # naming the dispute closes it
    answer = scorer.post(f"/api/e/{key}/hands/{hand_id}/claims", data=json.dumps(named),
                         content_type="application/json")
    assert answer.status_code == 200, answer.get_data(as_text=True)  # same claims: no new version
    assert _saved(app, key, dispute_id)[::2] == (2, False)
