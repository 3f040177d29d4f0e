"""The record's fingerprint in the app (issue 22 item 6): the scoresheet, ``GET /api/e/<key>``,
the PDF's HTML and the exported file show the same one, worked out by the engine from the
facts; corrections, restores, undos and the finish move it; the Verify page and
``POST /api/verify``; the same fingerprint on SQLite and PostgreSQL and from two app
instances over one database."""

from __future__ import annotations

import io
import json
import re
from typing import Any

import pytest
from conftest import _dispose, make_app

from scorer.evening import chain
from scorer.rules import EveningSetup, HandFacts, SeatChange
from webhelpers import start_evening

PLAYERS = ("Ann", "Bob", "Cat", "Dan")
SETUP = EveningSetup("pagat", PLAYERS, 0, {"hands_per_dealer": 2, "all_pass_counts": False})
#: Bob bids Three and makes it; then Cat (Bob deals) bids Four and makes it
HAND_1 = HandFacts(dealer=0, auction=("three", "pass", "pass", "pass"), tricks=3)
HAND_2 = HandFacts(dealer=1, auction=("pass", "four", "pass", "pass"), tricks=4)
HAND_1_DEFEATED = HandFacts(dealer=0, auction=("three", "pass", "pass", "pass"), tricks=2)


def expected(*hands: HandFacts, finished: bool = False) -> str:
    """The engine's fingerprint of the evening with ``hands``."""
    return chain.summary(chain.record(SETUP, hands, finished=finished))[0]


def record(client: Any, key: str) -> dict[str, Any]:
    return client.get(f"/api/e/{key}").get_json()["record"]  # type: ignore[no-any-return]


def on_sheet(client: Any, key: str) -> str:
    html = client.get(f"/e/{key}").get_data(as_text=True)
    found = re.findall(r'<strong class="fingerprint" translate="no">([0-9A-Z]{4}-[0-9A-Z]{4})</strong>', html)
    assert len(found) == 1, found
    return found[0]


def post(client: Any, url: str, body: dict[str, Any]) -> Any:
    response = client.post(url, json=body)
    assert response.status_code in (200, 201), response.get_data(as_text=True)
    return response.get_json()


def play_two_hands(client: Any) -> tuple[str, int]:
    key = start_evening(client)
    first = post(client, f"/api/e/{key}/hands", {"number": 1, "token": "t1", "facts": {
        "dealer": "Ann", "auction": ["three", "pass", "pass", "pass"], "tricks": 3}})
    post(client, f"/api/e/{key}/hands", {"number": 2, "token": "t2", "facts": {
        "dealer": "Bob", "auction": ["pass", "four", "pass", "pass"], "tricks": 4}})
    return key, first["hand"]["id"]


def test_every_view_shows_the_engines_fingerprint_and_changes_move_it(app: Any, client: Any) -> None:
    key = start_evening(client)
    assert record(client, key) == {"fingerprint": expected(), "changes": 1}
    key, hand_id = play_two_hands(client)
    two = expected(HAND_1, HAND_2)
    assert record(client, key) == {"fingerprint": two, "changes": 3}
    assert on_sheet(client, key) == two
    export = json.loads(client.get(f"/e/{key}/evening.json").get_data(as_text=True))
    assert export["fingerprint"] == two and len(export["chain"]) == 3
    # a correction of hand 1 moves it; restoring the first version brings the same facts, so the same fingerprint
    post(client, f"/api/e/{key}/hands/{hand_id}/versions", {"version": 1, "token": "t3", "facts": {
        "dealer": "Ann", "auction": ["three", "pass", "pass", "pass"], "tricks": 2}})
    assert record(client, key)["fingerprint"] == expected(HAND_1_DEFEATED, HAND_2) != two
    assert on_sheet(client, key) == expected(HAND_1_DEFEATED, HAND_2)
    post(client, f"/api/e/{key}/hands/{hand_id}/restore", {"version": 2, "restore": 1, "token": "t4"})
    assert record(client, key)["fingerprint"] == two == on_sheet(client, key)
    # the finish is a change; reopening takes it away again
    revision = client.get(f"/api/e/{key}").get_json()["revision"]
    post(client, f"/api/e/{key}/finish", {"revision": revision})
    assert record(client, key) == {"fingerprint": expected(HAND_1, HAND_2, finished=True), "changes": 4}
    assert on_sheet(client, key) == expected(HAND_1, HAND_2, finished=True)
    post(client, f"/api/e/{key}/reopen", {"revision": revision + 1})
    # undoing hand 2 gives the fingerprint the phones showed after hand 1
    state = client.get(f"/api/e/{key}").get_json()
    last = state["hands"][-1]
    post(client, f"/api/e/{key}/undo", {"hand_id": last["id"], "version": last["version"]})
    assert record(client, key) == {"fingerprint": expected(HAND_1), "changes": 2}
    assert on_sheet(client, key) == expected(HAND_1)


def test_the_pdf_prints_the_fingerprint_on_page_1_and_in_the_footer(app: Any, client: Any) -> None:
    from scorer.reports.pdf import evening_pdf_html
    from scorer.web.views.common import load_evening

    key, _ = play_two_hands(client)
    with app.test_request_context("/"):
        html = evening_pdf_html(*load_evening(key))
    two = expected(HAND_1, HAND_2)
    assert f'<strong class="fingerprint">{two}</strong> (3 changes;' in html
    footer = re.search(r'@bottom-left \{ content: "([^"]*)"; \}', html)
    assert footer is not None and footer.group(1).endswith(" \\b7  " + two.replace("-", "\\2d "))  # CSS-escaped


def test_verify_page_and_api(app: Any, client: Any) -> None:
    key, _ = play_two_hands(client)
    export = json.loads(client.get(f"/e/{key}/evening.json").get_data(as_text=True))
    answer = post(client, "/api/verify", {"evening": export})
    assert answer == {"whole": True, "chained": True, "fingerprint": expected(HAND_1, HAND_2),
                      "altered_from": None, "where": None}
    altered = json.loads(json.dumps(export))
    altered["hands"][1]["tricks"] = 3  # Cat's Four defeated in place of made
    answer = post(client, "/api/verify", {"evening": altered})
    defeated = HandFacts(dealer=1, auction=("pass", "four", "pass", "pass"), tricks=3)
    assert answer == {"whole": False, "chained": True, "fingerprint": expected(HAND_1, defeated),
                      "altered_from": 2, "where": "change 2 (hand 2)"}
    # import refuses it, saying where
    refused = client.post("/api/evenings/import", json={"evening": altered, "token": "imp"})
    assert refused.status_code == 422
    assert "altered from change 2 (hand 2)" in refused.get_json()["error"]["message"]
    # a file that is not an evening: 422 with where; no body: 422
    bad = client.post("/api/verify", json={"evening": {**export, "players": ["Ann"]}})
    assert bad.status_code == 422 and bad.get_json()["error"]["code"] == "refused"
    assert client.post("/api/verify", json={"evening": 3}).status_code == 422
    # the page, in Russian
    page = client.post("/verify", data={"file": (io.BytesIO(json.dumps(altered).encode()), "x.json")},
                       content_type="multipart/form-data", headers={"Accept-Language": "ru"})
    text = page.get_data(as_text=True)
    assert page.status_code == 200
    assert "изменение 2 (раздача 2)" in text and expected(HAND_1, defeated) in text
    assert client.get("/verify").status_code == 200
    assert client.post("/verify", data={}, content_type="multipart/form-data").status_code == 422


def test_the_same_fingerprint_on_sqlite_and_postgresql_and_two_instances(sqlite_url: str,
                                                                         postgres_url: str) -> None:
    seen = []
    for url in (sqlite_url, postgres_url):
        first, second = make_app(url), make_app(url)
        try:
            key, _ = play_two_hands(first.test_client())
            seen.append(record(first.test_client(), key)["fingerprint"])
            seen.append(record(second.test_client(), key)["fingerprint"])
            seen.append(on_sheet(second.test_client(), key))
        finally:
            _dispose(first)
            _dispose(second)
    assert seen == [expected(HAND_1, HAND_2)] * 6


@pytest.mark.parametrize("lang", ["en", "ru", "nb", "pt-BR"])
def test_the_sheet_says_what_the_fingerprint_is_in_each_language(app: Any, client: Any, lang: str) -> None:
    key, _ = play_two_hands(client)
    html = client.get(f"/e/{key}", headers={"Accept-Language": lang}).get_data(as_text=True)
    line = re.search(r'<p class="record help" id="record">(.*?)<strong', html)
    assert line is not None
    words = {"en": "Fingerprint of the record:", "ru": "Отпечаток записи:", "nb": "Fingeravtrykk for protokollen:",
             "pt-BR": "Impressão digital do registro:"}
    assert line.group(1).strip() == words[lang]


def test_a_phone_following_live_gets_the_new_fingerprint_in_its_record_part(app: Any, client: Any) -> None:
    key, _ = play_two_hands(client)
    html = client.get(f"/e/{key}").get_data(as_text=True)
    live = re.search(r'data-changes="([^"]*)" data-revision="(\d+)"', html)
    assert live is not None and expected(HAND_1, HAND_2) in html
    post(client, f"/api/e/{key}/hands", {"number": 3, "token": "t3", "facts": {
        "dealer": "Cat", "auction": ["three", "pass", "pass", "pass"], "tricks": 3}})
    answer = client.get(f"{live.group(1).replace('&amp;', '&')}&since={live.group(2)}").get_json()
    assert not answer.get("reload"), answer
    hand_3 = HandFacts(dealer=2, auction=("three", "pass", "pass", "pass"), tricks=3)
    assert expected(HAND_1, HAND_2, hand_3) in answer["parts"]["record"]
    assert "4 changes" in answer["parts"]["record"]


def test_export_and_import_keep_the_fingerprint_with_seat_changes_and_a_rename(app: Any, client: Any) -> None:
    key, _ = play_two_hands(client)
    revision = client.get(f"/api/e/{key}").get_json()["revision"]
    post(client, f"/api/e/{key}/seats", {"revision": revision, "join": "Eve", "left_of": "Cat"})
    post(client, f"/api/e/{key}/hands", {"number": 3, "token": "t5", "facts": {
        "lone_bid": {"declarer": "Eve", "contract": "nap"}, "tricks": 5}})
    post(client, f"/api/e/{key}/seats", {"revision": revision + 2, "leave": "Dan"})
    post(client, f"/api/e/{key}/seats", {"revision": revision + 3, "rename": "Eve", "to": "Evelyn"})
    shown = record(client, key)
    assert shown["changes"] == 1 + 3 + 3  # the set-up, three hands, join, leave and rename
    assert on_sheet(client, key) == shown["fingerprint"]
    # the engine's own record of the same facts, typed here: Eve seat 4 in the app, 4 in the file too
    setup = EveningSetup("pagat", (*PLAYERS, "Evelyn"), 0, {"hands_per_dealer": 2, "all_pass_counts": False},
                         None, (0, 1, 2, 3))
    nap = HandFacts(dealer=2, auction=("nap", "pass", "pass", "pass", "pass"), tricks=5)
    changes = [SeatChange(3, "join", 4, 2), SeatChange(4, "leave", 3), SeatChange(4, "rename", 4, name="Eve")]
    assert shown["fingerprint"] == chain.summary(chain.record(setup, [HAND_1, HAND_2, nap], changes))[0]
    exported = client.get(f"/e/{key}/evening.json").get_data(as_text=True)
    assert json.loads(exported)["fingerprint"] == shown["fingerprint"]
    made = client.post("/api/evenings/import", json={"evening": json.loads(exported), "token": "again"})
    assert made.status_code == 201, made.get_data(as_text=True)
    assert record(client, made.get_json()["key"]) == shown
