"""Making an evening as a command (scorer/storage/evening_writes.py): NewEvening and
ImportEvening through the runner (made, a retry, refusals that save nothing) and the
same refusal through both adapters (the JSON command and the HTML form)."""

from __future__ import annotations

import io
import json
from pathlib import Path
from typing import Any

import sqlalchemy as sa

from scorer.storage.commands import AlreadySaved, Refused, Saved, execute
from scorer.storage.evening_writes import ImportEvening, NewEvening
from scorer.storage.groups import NewGroup
from scorer.storage.models import Evening, Submission, db

ROOT = Path(__file__).resolve().parent.parent
PLAYERS = ("Ann", "Bob", "Cat", "Dan")
#: A file whose second hand is refused by the rules: Bob bids lower than Ann's three.
BAD_HAND = {"format": "nap-evening", "version": 1, "variant": "pagat", "players": list(PLAYERS),
            "hands": [{"auction": ["pass"] * 4}, {"auction": ["three", "two", "pass", "pass"], "tricks": 3}]}


def _evenings() -> int:
    return db.session.scalar(sa.select(sa.func.count()).select_from(Evening))


def test_a_new_evening_is_made_once_per_token(app: Any) -> None:
    with app.app_context():
        made = execute(NewEvening("pagat", PLAYERS, 1, {}, name="Thursday", token="n-1"))
        assert isinstance(made, Saved) and made.key
        again = execute(NewEvening("pagat", PLAYERS, 1, {}, name="Thursday", token="n-1"))
        assert isinstance(again, AlreadySaved) and again.key == made.key
        assert _evenings() == 1
        evening = db.session.scalar(sa.select(Evening).where(Evening.key == made.key))
        assert evening.name == "Thursday" and evening.first_dealer == 1
        assert db.session.scalar(sa.select(Submission.command).where(Submission.token == "n-1")) == "start"


def test_a_new_evening_the_variant_refuses_saves_nothing(app: Any) -> None:
    with app.app_context():
        refused = execute(NewEvening("pagat", ("Ann",), 0, {}, token="n-2"))
        assert isinstance(refused, Refused) and refused.rule and not refused.finished
        assert _evenings() == 0 and db.session.scalar(sa.select(Submission).where(Submission.token == "n-2")) is None


def test_a_token_another_creation_used_is_refused(app: Any) -> None:
    with app.app_context():
        assert isinstance(execute(NewGroup("Club", "shared-1")), Saved)
        assert isinstance(execute(NewEvening("pagat", PLAYERS, 0, {}, token="shared-1")), Refused)
        assert isinstance(execute(ImportEvening(json.dumps(BAD_HAND), token="shared-1")), Refused)
        assert _evenings() == 0


def test_an_import_reads_the_file_in_the_command(app: Any) -> None:
    body = (ROOT / "examples" / "pagat-thursday.json").read_bytes()
    with app.app_context():
        made = execute(ImportEvening(body, token="i-1"))  # the uploaded bytes, as the form sends them
        assert isinstance(made, Saved)
        again = execute(ImportEvening(body, token="i-1"))
        assert isinstance(again, AlreadySaved) and again.key == made.key
        refused = execute(ImportEvening(json.dumps(BAD_HAND), token="i-2"))
        assert isinstance(refused, Refused) and refused.rule
        assert str(refused.message).startswith("hands[1]: ")
        assert isinstance(execute(ImportEvening(b"\xff not json", token="i-3")), Refused)
        assert _evenings() == 1


def test_an_unreadable_file_is_refused_alike_through_both_adapters(app: Any, client: Any) -> None:
    answer = client.post("/api/evenings/import", data=json.dumps({"evening": BAD_HAND, "token": "j-1"}),
                         content_type="application/json")
    assert answer.status_code == 422
    error = answer.get_json()["error"]
    assert error["code"] == "refused" and error["rule"] and error["message"].startswith("hands[1]: ")
    page = client.post("/import", data={"token": "f-1", "file": (io.BytesIO(json.dumps(BAD_HAND).encode()),
                                                                   "e.json")}, content_type="multipart/form-data")
    assert page.status_code == 422 and error["message"] in page.get_data(as_text=True)
    with app.app_context():
        assert _evenings() == 0


def test_the_creating_phone_is_the_scorer_after_a_retry_too(app: Any) -> None:
    first, second = app.test_client(), app.test_client()
    body = {"variant": "pagat", "players": list(PLAYERS), "first_dealer": "Ann", "token": "e-1"}
    made = first.post("/api/evenings", data=json.dumps(body), content_type="application/json")
    assert made.status_code == 201
    retry = second.post("/api/evenings", data=json.dumps(body), content_type="application/json")
    assert retry.status_code == 200 and retry.get_json()["key"] == made.get_json()["key"]
    key = made.get_json()["key"]
    hand = {"number": 1, "facts": {"dealer": "Ann", "auction": ["pass"] * 4}, "token": "h-1"}
    stranger = app.test_client().post(f"/api/e/{key}/hands", data=json.dumps(hand), content_type="application/json")
    assert stranger.status_code == 403  # only the phones that made it (or joined) score
    assert second.post(f"/api/e/{key}/hands", data=json.dumps(hand),
                       content_type="application/json").status_code == 201
