"""Issue 22, the club night's loose ends: the event's page leads the owner to the referees'
page and a referee's phone to the desk; a table's scoresheet has "Call the referee" (any phone,
not a standalone evening); a table that has played its round (its hands, pagat's end point,
its minutes) says so and offers "Finish this table" to its scorers; the JSON command that makes
a club night takes a one-time token as the other creating commands do."""

from __future__ import annotations

import json
import re
from datetime import timedelta
from typing import Any

import sqlalchemy as sa

from scorer.evening import seating
from scorer.storage import events
from scorer.storage.models import Event, EventRound, db

FOUR = ["Ann", "Bob", "Cat", "Dan"]
EIGHT = FOUR + ["Eve", "Fay", "Gus", "Hal"]


def post(client: Any, url: str, body: Any) -> Any:
    return client.post(url, data=json.dumps(body), content_type="application/json")


def local(url: str) -> str:
    return "/" + url.split("://", 1)[-1].split("/", 1)[-1]


def night(client: Any, token: str, **more: Any) -> dict[str, Any]:
    """A club night of two tables of four (typed), begun; ``client`` is its owner and a
    scorer of both tables."""
    group = post(client, "/api/groups", {"name": "Thursday club", "token": f"g-{token}"}).get_json()["group"]["key"]
    setup = {"name": "Club night", "variant": "pagat", "players": EIGHT, "rounds": 2, "length": "hands",
             "amount": 2, "token": token, **more}
    made = post(client, f"/api/g/{group}/events", setup)
    assert made.status_code == 201, made.get_data(as_text=True)
    key = made.get_json()["event"]["key"]
    assert post(client, f"/api/ev/{key}/seat", {"how": "typed", "tables": [FOUR, EIGHT[4:]]}).status_code == 200
    tables = post(client, f"/api/ev/{key}/start", {}).get_json()["event"]["tables"]
    for table in tables:
        assert client.get(local(table["scorers_link"])).status_code == 302
    return {"key": key, "group": group, "tables": tables, "setup": setup}


def hand(client: Any, table: str, number: int, dealer: str) -> None:
    """Eldest bids Three and makes it (3 tricks): +3 from each of the three others."""
    answer = post(client, f"/api/e/{table}/hands", {"number": number, "token": f"{table}-{number}", "facts": {
        "dealer": dealer, "auction": ["three", "pass", "pass", "pass"], "tricks": 3}})
    assert answer.status_code == 201, answer.get_data(as_text=True)


def test_the_event_page_leads_the_owner_and_the_referee_where_they_look(app: Any) -> None:
    owner = app.test_client()
    key = night(owner, "ev-links")["key"]
    page = owner.get(f"/ev/{key}").get_data(as_text=True)
    assert f'id="referees-link" href="/ev/{key}/referees"' in page
    assert 'id="referee-desk"' not in page and 'id="referee-join"' not in page
    named = post(owner, f"/api/ev/{key}/referees", {"name": "Mary", "token": "ref-1"}).get_json()["referee"]

    mary = app.test_client()
    before = mary.get(f"/ev/{key}").get_data(as_text=True)
    assert f'id="referee-join" href="/ev/{key}/referee/join"' in before  # not one yet: where to type the PIN
    assert 'id="referees-link"' not in before and 'id="referee-desk"' not in before
    assert post(mary, f"/api/ev/{key}/referee/join", {"pin": named["pin"]}).status_code == 200
    after = mary.get(f"/ev/{key}").get_data(as_text=True)
    assert f'id="referee-desk" href="/ev/{key}/calls"' in after and "(Mary)" in after
    assert 'id="referees-link"' not in after and 'id="referee-join"' not in after
    assert mary.get(f"/ev/{key}/calls").status_code == 200  # the link opens the desk

    # an organiser (by the event's PIN) runs the night but is shown no referees' page
    organiser = app.test_client()
    with app.app_context():
        edit_key = db.session.scalar(sa.select(Event.edit_key).where(Event.key == key))
    assert organiser.get(f"/ev/{key}/organise/{edit_key}").status_code == 302
    assert 'id="run"' in organiser.get(f"/ev/{key}").get_data(as_text=True)  # an organiser now
    shown = organiser.get(f"/ev/{key}").get_data(as_text=True)
    assert 'id="referees-link"' not in shown


def test_the_scoresheet_of_a_table_calls_the_referee_a_standalone_evening_does_not(app: Any) -> None:
    owner = app.test_client()
    made = night(owner, "ev-call")
    t1 = made["tables"][0]["evening"]
    watcher = app.test_client()  # a phone that only watches table 1
    for client in (owner, watcher):
        sheet = client.get(f"/e/{t1}").get_data(as_text=True)
        assert f'class="button call-referee" id="call-referee" href="/e/{t1}/referee"' in sheet
    assert watcher.get(f"/e/{t1}/referee").status_code == 200  # where the button leads, for a watcher too
    # a standalone evening: no event, no referee to call
    alone = post(owner, "/api/evenings", {"variant": "pagat", "players": FOUR, "token": "alone-1"})
    assert alone.status_code == 201, alone.get_data(as_text=True)
    alone_key = alone.get_json()["key"]
    assert 'id="call-referee"' not in owner.get(f"/e/{alone_key}").get_data(as_text=True)
    # a finished table calls no one (a call there would be refused)
    revision = owner.get(f"/api/e/{t1}").get_json()["revision"]
    assert post(owner, f"/api/e/{t1}/finish", {"revision": revision}).status_code == 200
    assert 'id="call-referee"' not in owner.get(f"/e/{t1}").get_data(as_text=True)


def _finish_offer(client: Any, table: str) -> tuple[str | None, bool]:
    page = client.get(f"/e/{table}").get_data(as_text=True)
    said = re.search(r'id="round-over"><strong>([^<]+)</strong>', page)
    button = re.search(r'<form method="post" action="/e/' + table + r'/finish">.*?id="finish-table">Finish this table'
                       r"</button>", page)
    return (said.group(1) if said else None), button is not None


def test_a_table_that_played_its_hands_offers_to_finish(app: Any) -> None:
    owner = app.test_client()
    made = night(owner, "ev-hands")
    t1, t2 = (t["evening"] for t in made["tables"])
    watcher = app.test_client()
    hand(owner, t1, 1, "Ann")
    assert _finish_offer(owner, t1) == (None, False)  # one hand of two: it plays on
    hand(owner, t1, 2, "Bob")
    assert _finish_offer(owner, t1) == ("Round 1 is over at this table: its 2 hands are played.", True)
    assert _finish_offer(watcher, t1) == ("Round 1 is over at this table: its 2 hands are played.", False)
    assert _finish_offer(owner, t2) == (None, False)  # the other table has played none
    # not finished by itself: the last hand may still be corrected, and the table is open
    state = owner.get(f"/api/e/{t1}").get_json()
    assert state["finished"] is False
    # the button finishes the table (the form's post; the tests' app checks no CSRF token)
    assert owner.post(f"/e/{t1}/finish", data={}).status_code == 302
    assert owner.get(f"/api/e/{t1}").get_json()["finished"] is True
    assert _finish_offer(owner, t1) == (None, False)


def test_the_end_point_and_a_timed_round(app: Any) -> None:
    owner = app.test_client()
    # pagat's end point (P-14) with one hand a dealer: four players, four hands
    made = night(owner, "ev-end", length="end_point", amount=None, options={"hands_per_dealer": 1})
    t1 = made["tables"][0]["evening"]
    for number, dealer in enumerate(FOUR[:3], start=1):
        hand(owner, t1, number, dealer)
    assert _finish_offer(owner, t1) == (None, False)
    hand(owner, t1, 4, "Dan")
    assert _finish_offer(owner, t1) == ("Round 1 is over at this table: the agreed end point is reached (P-14).",
                                        True)

    timed = night(owner, "ev-time", length="minutes", amount=45)
    t2 = timed["tables"][1]["evening"]
    page = owner.get(f"/e/{t2}").get_data(as_text=True)
    assert _finish_offer(owner, t2) == (None, False)
    due = re.search(r'data-due="([^"]+)"', page)
    with app.app_context():
        row = db.session.scalar(sa.select(EventRound).join(Event).where(Event.key == timed["key"]))
        assert row is not None and due is not None
        from scorer.storage.evenings import as_utc

        assert due.group(1) == (as_utc(row.started_at) + timedelta(minutes=45)).isoformat()
        row.started_at = row.started_at - timedelta(minutes=46)  # the round began 46 minutes ago
        db.session.commit()
    assert _finish_offer(owner, t2) == ("Round 1 is over at this table: its 45 minutes are up.", True)
    assert 'data-due="' not in owner.get(f"/e/{t2}").get_data(as_text=True)


def test_making_a_club_night_again_with_its_token_makes_no_second_one(app: Any) -> None:
    owner = app.test_client()
    made = night(owner, "ev-once")
    with app.app_context():
        count = db.session.scalar(sa.select(sa.func.count()).select_from(Event))
    again = post(owner, f"/api/g/{made['group']}/events", made["setup"])  # the answer was lost: a retry
    assert again.status_code == 200 and again.get_json()["event"]["key"] == made["key"]
    other = post(owner, f"/api/g/{made['group']}/events", {**made["setup"], "name": "Another night"})
    assert other.status_code == 422
    assert "one-time token was used for another change" in other.get_json()["error"]["message"]
    missing = post(owner, f"/api/g/{made['group']}/events", {k: v for k, v in made["setup"].items() if k != "token"})
    assert missing.status_code == 422 and "token" in missing.get_data(as_text=True)
    fresh = post(owner, f"/api/g/{made['group']}/events", {**made["setup"], "token": "ev-once-2"})
    assert fresh.status_code == 201 and fresh.get_json()["event"]["key"] != made["key"]
    with app.app_context():
        assert db.session.scalar(sa.select(sa.func.count()).select_from(Event)) == count + 1
        assert events.get_event(made["key"]) is not None


def test_the_other_event_commands_sent_again_change_nothing(app: Any) -> None:
    """What docs/api.md says of the commands that take no token: sent again after they were
    saved, each is refused (422) and the event is as the first one left it."""
    owner = app.test_client()
    group = post(owner, "/api/groups", {"name": "Thursday club", "token": "g-again"}).get_json()["group"]["key"]
    key = post(owner, f"/api/g/{group}/events", {"variant": "pagat", "players": EIGHT[:7], "rounds": 2,
                                                 "length": "hands", "amount": 5, "token": "ev-again"}
               ).get_json()["event"]["key"]

    def twice(url: str, body: Any) -> dict[str, Any]:
        first = post(owner, url, body)
        assert first.status_code == 200, first.get_data(as_text=True)
        before = owner.get(f"/api/ev/{key}").get_json()["event"]
        again = post(owner, url, body)
        assert again.status_code == 422, again.get_data(as_text=True)
        after = owner.get(f"/api/ev/{key}").get_json()["event"]
        assert after == before
        return after

    assert twice(f"/api/ev/{key}/players", {"players": ["Hal"]})["players"] == EIGHT
    # a seating may be made again until the round begins: the same typed tables (or the same
    # seed) sent again seat the same tables again, one more line in the event's record
    for _ in range(2):
        seated = post(owner, f"/api/ev/{key}/seat", {"how": "typed", "tables": [FOUR, EIGHT[4:]]})
        assert seated.status_code == 200 and seated.get_json()["event"]["round"]["seating"] == [FOUR, EIGHT[4:]]
    for _ in range(2):
        drawn = post(owner, f"/api/ev/{key}/seat", {"how": "draw", "seed": "pub-7"}).get_json()["event"]["round"]
        assert drawn["seed"] == "pub-7" and drawn["seating"] == [list(t) for t in seating.draw(EIGHT, "pagat", "pub-7")]
    post(owner, f"/api/ev/{key}/seat", {"how": "typed", "tables": [FOUR, EIGHT[4:]]})
    assert len(twice(f"/api/ev/{key}/start", {})["tables"]) == 2
    arrived = twice(f"/api/ev/{key}/arrive", {"name": "Ivy"})
    assert sorted(len(t["players"]) for t in arrived["tables"]) == [4, 5]
    left = twice(f"/api/ev/{key}/leave", {"name": "Ivy"})
    assert "Ivy" not in left["players"]
    assert twice(f"/api/ev/{key}/finish", {})["finished"] is True


def test_a_table_plays_its_round_not_the_evenings_end(app: Any) -> None:
    """A round of 2 hands: the table's page counts the round's hands, never pagat's 8 hands (2 deals each) of
    the evening's own end (P-14); once the round is over it shows no next hand, only the finish."""
    owner = app.test_client()
    t1 = night(owner, "ev-round-end")["tables"][0]["evening"]
    alone = post(owner, "/api/evenings", {"variant": "pagat", "players": FOUR, "token": "alone-end"}).get_json()["key"]
    for key in (t1, alone):
        hand(owner, key, 1, "Ann")
    standalone = owner.get(f"/e/{alone}").get_data(as_text=True)  # the control: an evening of its own
    assert re.search(r'<p class="remaining">7 hands to the agreed end', standalone)
    assert '<p class="to-deal">' in standalone and 'id="round-left"' not in standalone
    page = owner.get(f"/e/{t1}").get_data(as_text=True)
    assert re.search(r'id="round-left">([^<]+)</p>', page).group(1) == \
        "Round 1: 2 hands a table, 1 still to play here."  # type: ignore[union-attr]
    assert '<p class="remaining">' not in page and '<p class="to-deal">' not in page
    assert "Hand 2: <strong>" in page and ">Record hand 2</a>" in page  # the round plays on
    hand(owner, t1, 2, "Bob")
    for client in (owner, app.test_client()):
        over = client.get(f"/e/{t1}").get_data(as_text=True)
        assert 'id="round-over"' in over and 'id="round-left"' not in over
        assert '<p class="next"' not in over and "Hand 3:" not in over
        assert 'id="record-hand"' not in over and "Record hand 3" not in over
    assert 'id="finish-table"' in owner.get(f"/e/{t1}").get_data(as_text=True)


def test_a_finished_table_of_a_club_night_offers_no_rematch(app: Any) -> None:
    owner = app.test_client()
    t1 = night(owner, "ev-rematch")["tables"][0]["evening"]
    alone = post(owner, "/api/evenings", {"variant": "pagat", "players": FOUR, "token": "alone-re"}).get_json()["key"]
    for key in (t1, alone):
        hand(owner, key, 1, "Ann")
        revision = owner.get(f"/api/e/{key}").get_json()["revision"]
        assert post(owner, f"/api/e/{key}/finish", {"revision": revision}).status_code == 200
    assert 'id="rematch"' in owner.get(f"/e/{alone}").get_data(as_text=True)  # the control
    page = owner.get(f"/e/{t1}").get_data(as_text=True)
    assert "The evening is finished." in page and 'id="rematch"' not in page
    assert "Rematch: same players" not in page
    before = owner.get(f"/api/e/{t1}").get_json()["revision"]
    refused = post(owner, f"/api/e/{t1}/rematch", {})
    assert refused.status_code == 422
    assert refused.get_json()["error"]["message"] == \
        "A table of a club night has no rematch: the club night seats the next round."
    assert owner.get(f"/api/e/{t1}").get_json()["revision"] == before  # nothing changed
    with app.app_context():
        from scorer.storage.models import Evening

        assert db.session.scalar(sa.select(sa.func.count()).select_from(Evening)
                                 .where(Evening.rematch_of.is_not(None))) == 0


def test_the_room_screen_names_the_seating_of_the_round_being_played(app: Any) -> None:
    owner = app.test_client()
    made = night(owner, "ev-room-label")
    room = f"/ev/{made['key']}/room"
    for table, dealer in zip((t["evening"] for t in made["tables"]), ("Ann", "Eve"), strict=True):
        hand(owner, table, 1, dealer)
        revision = owner.get(f"/api/e/{table}").get_json()["revision"]
        assert post(owner, f"/api/e/{table}/finish", {"revision": revision}).status_code == 200
    page = app.test_client().get(room).get_data(as_text=True)  # round 2 seated and begun, no hand yet
    assert re.search(r"<h2>([^<]+)</h2>\s*<ol class=\"room-seating", page).group(1) == "Round 2 seating"  # type: ignore[union-attr]
    assert "Next seating" not in page
