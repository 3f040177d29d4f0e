"""Notes on a hand and on the evening, and the one-tap rematch (issue 25 items 7 and 8):
a hand's note is a fact of the hand (a new version; the ruling never changes), the
evening's is its own (allowed once finished); both go into the sheet, the hand page, the
history, the PDF's HTML and the evening file. A rematch copies the closed evening's table."""

from __future__ import annotations

import json
from typing import Any

import sqlalchemy as sa

from scorer.evening.file import dumps, load, loads
from scorer.evening.ledger import settle_evening
from scorer.storage.models import Evening, HandVersion, TableAccess, db
from webhelpers import hand_id, post_hand, second_scorer, start_evening

THREE = {"dealer": "Ann", "auction": ["three", "pass", "pass", "pass"], "tricks": 3}


def _post(client: Any, url: str, body: Any) -> Any:
    return client.post(url, data=json.dumps(body), content_type="application/json")


def _evening(app: Any, key: str) -> Evening:
    with app.app_context():
        evening = db.session.scalar(sa.select(Evening).where(Evening.key == key))
        db.session.expunge(evening)
        return evening


# --------------------------------------------------------------------------- a hand's note
def test_a_note_typed_on_the_full_form_is_kept_cleaned_and_shown(app: Any, client: Any) -> None:
    key = start_evening(client)
    # Bob (eldest, dealer Ann) bids three and makes it: +3 from each of the three others (P-12)
    response = client.post(f"/e/{key}/hand", data={
        "number": "1", "dealer": "0", "call_1": "three", "tricks": "3", "save": "1",
        "note": "  Bob's cards\nwere   marked\x07 "})
    assert response.status_code == 302, response.get_data(as_text=True)
    with app.app_context():
        facts = db.session.scalar(sa.select(HandVersion.facts))
    assert facts["note"] == "Bob's cards were marked"  # one line, the bell gone
    sheet = client.get(f"/e/{key}").get_data(as_text=True)
    assert '<tr class="note"><td colspan="4"><bdi>Bob&#39;s cards were marked</bdi></td></tr>' in sheet
    assert "+9" in sheet  # the ruling is the same: Bob +9
    page = client.get(f"/e/{key}/hand/1").get_data(as_text=True)
    assert '<dd class="note" id="hand-note"><bdi>Bob&#39;s cards were marked</bdi></dd>' in page
    history = client.get(f"/e/{key}/history").get_data(as_text=True)
    assert "note <q><bdi>Bob&#39;s cards were marked</bdi></q>" in history
    # the correction form starts from it
    edit = client.get(f"/e/{key}/hand/1/edit").get_data(as_text=True)
    assert 'value="Bob&#39;s cards were marked"' in edit


def test_a_misdeal_keeps_its_note(app: Any, client: Any) -> None:
    key = start_evening(client)
    response = client.post(f"/e/{key}/hand", data={"number": "1", "dealer": "0", "misdeal": "1",
                                                   "call_1": "three", "note": "a card face up"})
    assert response.status_code == 302, response.get_data(as_text=True)
    with app.app_context():
        assert db.session.scalar(sa.select(HandVersion.facts)) == {"dealer": 0, "misdeal": True,
                                                                  "note": "a card face up"}


def test_a_note_from_the_hand_page_is_a_new_version_and_nothing_is_lost(app: Any, client: Any) -> None:
    key = start_evening(client)
    post_hand(client, key, 1, 0, {1: "three"}, tricks=3)
    row = hand_id(app, key, 1)
    answer = client.post(f"/e/{key}/hand/1/note", data={"hand_id": row, "base": "1", "token": "n1",
                                                          "note": "replayed after a spilled drink"})
    assert answer.status_code == 302
    with app.app_context():
        versions = [v.facts for v in db.session.scalars(sa.select(HandVersion).order_by(HandVersion.version))]
    assert [v.get("note") for v in versions] == [None, "replayed after a spilled drink"]
    assert versions[0] == {k: v for k, v in versions[1].items() if k != "note"}  # nothing else moved
    page = client.get(f"/e/{key}/hand/1").get_data(as_text=True)
    assert "replayed after a spilled drink" in page and "version 2" in page
    history = client.get(f"/e/{key}/history").get_data(as_text=True)
    assert "Note on the hand written" in history
    # a stale page (version 1 again) is refused and changes nothing
    client.post(f"/e/{key}/hand/1/note", data={"hand_id": row, "base": "1", "token": "n2", "note": "other"})
    with app.app_context():
        assert db.session.scalar(sa.select(sa.func.count()).select_from(HandVersion)) == 2


def test_a_note_longer_than_280_characters_is_refused_and_nothing_changes(app: Any, client: Any) -> None:
    key = start_evening(client)
    post_hand(client, key, 1, 0, {1: "three"}, tricks=3)
    row = int(hand_id(app, key, 1))
    answer = _post(client, f"/api/e/{key}/hands/{row}/note", {"version": 1, "token": "t1", "note": "x" * 281})
    assert answer.status_code == 422
    assert "280" in answer.get_json()["error"]["message"]
    answer = _post(client, f"/api/e/{key}/hands/{row}/versions",
                   {"version": 1, "token": "t2", "facts": {**THREE, "dealer": "Ann", "note": "y" * 281}})
    assert answer.status_code == 422
    with app.app_context():
        assert db.session.scalar(sa.select(sa.func.count()).select_from(HandVersion)) == 1
    # 280 exactly is fine, and the JSON command answers the hand with its note
    answer = _post(client, f"/api/e/{key}/hands/{row}/note", {"version": 1, "token": "t3", "note": "z" * 280})
    assert answer.status_code == 201, answer.get_data(as_text=True)
    assert answer.get_json()["hand"]["version"] == 2


def test_a_json_hand_carries_its_note_and_the_evening_file_keeps_it(app: Any, client: Any) -> None:
    key = start_evening(client)
    answer = _post(client, f"/api/e/{key}/hands", {"number": 1, "token": "h1", "facts": {
        **THREE, "auction": ["pass", "three", "pass", "pass"], "note": "Bob dealt\tout of turn"}})
    assert answer.status_code == 201, answer.get_data(as_text=True)
    exported = json.loads(client.get(f"/e/{key}/evening.json").get_data(as_text=True))
    assert exported["hands"][0]["note"] == "Bob dealt out of turn"
    assert "note" not in exported  # no note on the evening: none written


def test_the_evening_file_with_notes_reads_and_settles_as_without() -> None:
    """Engine parity: a note changes no settlement; old files without notes read unchanged."""
    base = {"format": "nap-evening", "version": 1, "variant": "pagat", "options": {"hands_per_dealer": 2},
            "players": ["Ann", "Bob", "Cat", "Dan"], "first_dealer": "Ann",
            "hands": [{"auction": ["three", "pass", "pass", "pass"], "tricks": 3},
                      {"misdeal": True}]}
    noted = json.loads(json.dumps(base))
    noted["note"] = "Eve’s birthday"
    noted["hands"][0]["note"] = "Bob's cards were marked"
    noted["hands"][1]["note"] = "a card face up"
    plain, with_notes = load(base), load(noted)
    assert with_notes.note == "Eve’s birthday"
    assert [h.note for h in with_notes.hands] == ["Bob's cards were marked", "a card face up"]
    a = settle_evening(plain.setup, plain.hands)
    b = settle_evening(with_notes.setup, with_notes.hands)
    assert a.totals == b.totals == (-3, 9, -3, -3)  # Bob, eldest, made three: +3 from each (P-12)
    assert loads(dumps(with_notes)).hands == with_notes.hands  # written and read back the same
    assert "note" not in json.loads(dumps(plain))


# --------------------------------------------------------------------------- the evening's note
def test_the_evening_note_has_its_own_page_and_is_allowed_when_finished(app: Any, client: Any) -> None:
    key = start_evening(client)
    post_hand(client, key, 1, 0, {1: "three"}, tricks=3)
    assert client.post(f"/e/{key}/finish").status_code == 302
    assert client.get(f"/e/{key}/note").status_code == 200
    answer = client.post(f"/e/{key}/note", data={"note": "Eve’s\u202e birthday"})
    assert answer.status_code == 302
    assert _evening(app, key).note == "Eve’s birthday"  # the right-to-left override removed
    sheet = client.get(f"/e/{key}").get_data(as_text=True)
    assert '<p class="evening-note" id="evening-note"><bdi>Eve’s birthday</bdi>' in sheet
    exported = json.loads(client.get(f"/e/{key}/evening.json").get_data(as_text=True))
    assert exported["note"] == "Eve’s birthday"
    history = client.get(f"/e/{key}/history").get_data(as_text=True)
    assert "Note on the evening written" in history
    # and by JSON: too long is refused, nothing changes
    answer = _post(client, f"/api/e/{key}/note", {"note": "n" * 281})
    assert answer.status_code == 422
    # by the page's form: refused, and the refusal counts what was typed (it said 2000 for 10,000)
    answer = client.post(f"/e/{key}/note", data={"note": "n" * 10_000}, follow_redirects=True)
    assert "this one has 10000" in answer.get_data(as_text=True).replace(",", "").replace("\u00a0", "")
    assert _evening(app, key).note == "Eve’s birthday"
    stale = _evening(app, key).revision - 1  # another phone wrote since: a conflict, nothing changes
    answer = _post(client, f"/api/e/{key}/note", {"note": "other", "revision": stale})
    assert answer.status_code == 409 and answer.get_json()["state"]["note"] == "Eve’s birthday"
    answer = _post(client, f"/api/e/{key}/note", {"note": ""})
    assert answer.status_code == 200 and answer.get_json()["note"] == ""
    assert _evening(app, key).note == ""


def test_a_viewer_may_not_write_notes(app: Any, client: Any) -> None:
    key = start_evening(client)
    post_hand(client, key, 1, 0, {1: "three"}, tricks=3)
    viewer = app.test_client()
    assert _post(viewer, f"/api/e/{key}/note", {"note": "mine"}).status_code == 403
    refused = viewer.post(f"/e/{key}/note", data={"note": "mine"})  # sent to become a scorer first
    assert refused.status_code in (302, 403) and "/note" not in refused.headers.get("Location", "")
    assert _evening(app, key).note == ""


def test_the_pdf_shows_both_notes(app: Any, client: Any) -> None:
    from scorer.reports.pdf import evening_pdf_html
    from scorer.storage import evenings

    key = start_evening(client)
    client.post(f"/e/{key}/hand", data={"number": "1", "dealer": "0", "call_1": "three", "tricks": "3",
                                        "save": "1", "note": "replayed after a spilled drink"})
    client.post(f"/e/{key}/note", data={"note": "Eve’s birthday"})
    with app.test_request_context():
        evening = db.session.scalar(sa.select(Evening).where(Evening.key == key))
        html = evening_pdf_html(evening, evenings.ledger_of(evening))
    assert "<th>Note</th><td><bdi>Eve’s birthday</bdi></td>" in html
    assert "<em>Note: “<bdi>replayed after a spilled drink</bdi>”</em>" in html


# --------------------------------------------------------------------------- rematch
def _finished(client: Any, app: Any, **fields: Any) -> str:
    key = start_evening(client, **fields)
    post_hand(client, key, 1, 0, {1: "three"}, tricks=3)  # Ann deals: Bob deals next
    assert client.post(f"/e/{key}/finish").status_code == 302
    return key


def test_rematch_copies_the_table_and_the_next_dealer_deals_first(app: Any, client: Any) -> None:
    key = start_evening(client, scoring="money", stake="0.10", currency="NOK", opt_hands_per_dealer="3",
                       name="Thursday at the Crown")
    post_hand(client, key, 1, 0, {1: "three"}, tricks=3)
    sheet = client.get(f"/e/{key}").get_data(as_text=True)
    assert 'id="rematch"' not in sheet  # not before the end
    assert client.post(f"/e/{key}/rematch").status_code == 302
    assert _evening(app, key).rematch_of is None and _count(app) == 1  # refused: nothing made
    client.post(f"/e/{key}/finish")
    sheet = client.get(f"/e/{key}").get_data(as_text=True)
    assert 'id="rematch"' in sheet and "<bdi>Bob</bdi> deals first" in sheet
    answer = client.post(f"/e/{key}/rematch")
    assert answer.status_code == 302
    new_key = answer.headers["Location"].rsplit("/", 1)[-1]
    old, new = _evening(app, key), _evening(app, new_key)
    with app.app_context():
        names = list(db.session.scalars(sa.text(f"SELECT name FROM player WHERE evening_id = {new.id} ORDER BY seat")))
    assert names == ["Ann", "Bob", "Cat", "Dan"]
    assert (new.variant, new.options, new.stake_minor, new.currency, new.first_dealer, new.time_zone,
            new.group_id, new.name, new.rematch_of) == (
        "pagat", {"hands_per_dealer": 3, "all_pass_counts": old.options["all_pass_counts"]}, 10, "NOK", 1,
        old.time_zone, old.group_id, "Thursday at the Crown", old.id)
    assert new.finished_at is None
    # the tapping phone scores the new evening
    page = client.get(f"/e/{new_key}").get_data(as_text=True)
    assert "Rematch started: the same players, a new evening." in page and 'id="record-hand"' in page
    # a second tap opens the one made; the old sheet says where it is
    again = client.post(f"/e/{key}/rematch")
    assert again.headers["Location"].endswith(f"/e/{new_key}") and _count(app) == 2
    old_sheet = client.get(f"/e/{key}").get_data(as_text=True)
    assert f'id="open-rematch" href="/e/{new_key}"' in old_sheet and 'id="rematch"' not in old_sheet


def _count(app: Any) -> int:
    with app.app_context():
        return db.session.scalar(sa.select(sa.func.count()).select_from(Evening))


def test_rematch_by_json_is_made_once_and_other_scorers_keep_scoring(app: Any, client: Any) -> None:
    key = _finished(client, app)
    other = second_scorer(app, key)
    viewer = app.test_client()
    assert _post(viewer, f"/api/e/{key}/rematch", {}).status_code == 403
    first = _post(other, f"/api/e/{key}/rematch", {})
    assert first.status_code == 201, first.get_data(as_text=True)
    made = first.get_json()
    assert made["created"] is True and made["url"] == f"/e/{made['key']}"
    second = _post(client, f"/api/e/{key}/rematch", {})
    assert second.status_code == 200 and second.get_json() == {
        **made, "created": False, "message": "The rematch had already started: here it is."}
    assert made["message"] == "Rematch started: the same players, a new evening. Good luck!"
    assert _count(app) == 2
    state = client.get(f"/api/e/{key}").get_json()
    assert (state["closed"], state["rematch"], state["note"]) == (True, made["key"], "")
    new = _evening(app, made["key"])
    with app.app_context():
        grants = sorted(db.session.scalars(sa.select(TableAccess.via).where(TableAccess.evening_id == new.id)))
    assert grants == ["link", "start"]  # the phone that tapped owns it; the other scorer scores
    assert 'id="record-hand"' in client.get(f"/e/{made['key']}").get_data(as_text=True)


def test_rematch_is_offered_when_the_agreed_end_announced_the_winners(app: Any, client: Any) -> None:
    key = start_evening(client, opt_hands_per_dealer="1")  # four hands, one deal each (P-14)
    for number in range(1, 5):
        dealer = number - 1
        post_hand(client, key, number, dealer, {(dealer + 1) % 4: "three"}, tricks=3)
    sheet = client.get(f"/e/{key}").get_data(as_text=True)
    assert "Winner" in sheet and 'id="rematch"' in sheet
    assert "<bdi>Ann</bdi> deals first" in sheet  # the deal has gone round: Ann again
    answer = _post(client, f"/api/e/{key}/rematch", {})
    assert answer.status_code == 201
    assert _evening(app, answer.get_json()["key"]).first_dealer == 0


def test_the_rematch_form_carries_this_phones_csrf_token(sqlite_url: str) -> None:
    """The scoresheet's fragment is shared by every phone: the Rematch form gets the
    phone's own CSRF token where the page is made, so it posts without JavaScript."""
    import re

    from conftest import _dispose, make_app

    app = make_app(sqlite_url, WTF_CSRF_ENABLED=True)
    try:
        client = app.test_client()
        page = client.get("/new/pagat").get_data(as_text=True)
        token = re.search(r'name="csrf_token" type="hidden" value="([^"]+)"', page).group(1)
        key = start_evening(client, opt_hands_per_dealer="1", csrf_token=token)
        for number in range(1, 5):  # the agreed end: not finished, but over (P-14)
            dealer = number - 1
            answer = client.post(f"/e/{key}/hand", data={"number": str(number), "dealer": str(dealer),
                                                         f"call_{(dealer + 1) % 4}": "three", "tricks": "3",
                                                         "save": "1", "csrf_token": token})
            assert answer.status_code == 302
        sheet = client.get(f"/e/{key}").get_data(as_text=True)
        form = re.search(r'<form method="post" class="rematch".*?</form>', sheet, re.S).group(0)
        assert "<!--csrf-->" not in form
        posted = re.search(r'name="csrf_token" value="([^"]+)"', form).group(1)
        assert client.post(f"/e/{key}/rematch", data={}).status_code == 400  # no token: refused
        answer = client.post(f"/e/{key}/rematch", data={"csrf_token": posted})
        assert answer.status_code == 302 and answer.headers["Location"] != f"/e/{key}"
        # another phone gets the same shared fragment with no token of this phone's
        viewer = app.test_client().get(f"/e/{key}").get_data(as_text=True)
        assert posted not in viewer and "<!--csrf-->" not in viewer
    finally:
        _dispose(app)


def test_the_notes_migration_goes_down_and_up_with_data(any_db_app: Any) -> None:
    """0019 on SQLite and PostgreSQL: an evening from before has no note and no rematch;
    down and up again keeps its hands (a hand's note lives in its facts), and two
    rematches of one evening cannot both be kept (the unique index)."""
    import pytest
    from flask_migrate import downgrade, upgrade
    from sqlalchemy.exc import IntegrityError

    from scorer.storage import evening_writes

    with any_db_app.app_context():
        evening = evening_writes.create_evening(variant="pagat", players=["A", "B", "C"], first_dealer=0,
                                                options={}, stake=None)
        evening_id = evening.id
        db.session.remove()
        downgrade(revision="0018_currency_minor_unit")
        columns = {c["name"] for c in sa.inspect(db.engine).get_columns("evening")}
        assert "note" not in columns and "rematch_of" not in columns
        db.session.remove()
        upgrade()
        db.session.remove()
        stored = db.session.get(Evening, evening_id)
        assert (stored.note, stored.rematch_of) == ("", None)
        for _ in range(2):
            db.session.add(Evening(variant="pagat", rematch_of=evening_id))
        with pytest.raises(IntegrityError):
            db.session.flush()
        db.session.rollback()


def test_nap_settle_of_a_file_with_notes_prints_what_it_prints_without(tmp_path: Any, capsys: Any) -> None:
    """Engine parity through the command line: every hand of the example gets a note, the
    evening one too, and `nap settle --json` prints the same settlement."""
    from conftest import ROOT

    from scorer.cli.main import main

    plain = json.loads((ROOT / "examples" / "hoyle-five.json").read_text("utf-8"))
    noted = json.loads(json.dumps(plain))
    noted["note"] = "Eve’s birthday"
    for i, hand in enumerate(noted["hands"]):
        hand["note"] = f"hand {i + 1}: replayed after a spilled drink"
    printed = []
    for data, name in ((plain, "plain.json"), (noted, "noted.json")):
        (tmp_path / name).write_text(json.dumps(data), "utf-8")
        assert main(["settle", "--json", str(tmp_path / name)]) == 0
        printed.append(json.loads(capsys.readouterr().out))
    assert printed[0] == printed[1] and printed[0]["hands"]
