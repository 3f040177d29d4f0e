"""What one hand costs the server (issue 23 item 2), without changing what anyone sees: the
save's answer (POST /api/e/<key>/hands) comes from the kept ledger, not the evening loaded
again; the service worker's warm-up (GET /e/<key>/kept, scorer/web/views/offline.py) reads
the evening once for its six pages, and what it answers is still each page as its own route
makes it for this phone, after a correction as before it, for a scorer and for a viewer."""

from __future__ import annotations

import re
from typing import Any

import pytest

from scorer.storage import units
from tests.webhelpers import post_hand, start_evening, statements


def _hidden_blank(html: str) -> str:
    """``html`` with the value of every hidden field blanked (one-time tokens, CSRF)."""
    return re.sub(r'(type="hidden"[^>]*?value=")[^"]*', r"\1", html)


def _warm(app: Any, client: Any, path: str) -> tuple[dict[str, str], list[str]]:
    """The pages of ``path``'s answer by path, and the SQL statements it ran."""
    with statements(app) as seen:
        answer = client.get(path, headers={"X-Nap-Warm": "1"})
    assert answer.status_code == 200
    return {p["path"]: p["html"] for p in answer.get_json()["pages"]}, seen


def _same_as_routes(client: Any, pages: dict[str, str]) -> None:
    for path, html in pages.items():
        assert _hidden_blank(html) == _hidden_blank(client.get(path).get_data(as_text=True)), path


def test_the_warm_up_reads_the_evening_once_for_its_six_pages(app: Any) -> None:
    scorer = app.test_client()
    key = start_evening(scorer)
    assert post_hand(scorer, key, 1, 0, {1: "three"}, tricks=3).status_code == 302
    assert post_hand(scorer, key, 2, 1, {2: "three"}, tricks=3).status_code == 302
    scorer.get(f"/e/{key}")  # the "saved" message, once
    pages, statements = _warm(app, scorer, f"/e/{key}/kept?last=2")
    assert len(pages) == 6
    # the evening is read once, with its players and changes of seats, without its hands: the
    # ledger is the one the save handed over (no query), and the one hand the pages show (the
    # last: its page, its correction form, the undo page) is read alone, with its versions, once
    assert sum(1 for s in statements if re.match(r"SELECT evening\.id\b", s)) == 1
    assert not [s for s in statements if re.search(r"\bFROM evening AS evening_1 JOIN hand\b", s)]
    hands = [s for s in statements if re.search(r"\bFROM hand\b", s)]
    assert len(hands) == 1 and re.search(r"WHERE hand\.id = ", hands[0]) and "hand_version" in hands[0]
    assert not [s for s in statements if re.match(r"SELECT hand_version\.hand_id\b", s)]
    # who the phone is and whether it scores here: read once, in one query, not once per page
    phone = [s for s in statements if re.search(r"\bFROM device\b", s)]
    assert len(phone) == 1 and "table_access" in phone[0] and "WHERE device.token_hash" in phone[0]
    assert not [s for s in statements if re.match(r"SELECT table_access\.id\b", s)]
    # whether the table is an event's (the referee's desk link): with the evening
    assert not [s for s in statements if re.search(r"\bFROM event\b", s)]
    # four in all: the phone, the evening, its last hand, that hand's disputes
    assert len([s for s in statements if s.strip() != "BEGIN"]) == 4
    _same_as_routes(scorer, pages)


def test_a_warm_up_after_a_correction_has_the_corrected_hand(app: Any) -> None:
    scorer = app.test_client()
    key = start_evening(scorer)
    assert post_hand(scorer, key, 1, 0, {1: "three"}, tricks=3).status_code == 302
    scorer.get(f"/e/{key}")
    before, _ = _warm(app, scorer, f"/e/{key}/kept?last=1")
    hand = scorer.get(f"/api/e/{key}").get_json()["hands"][0]
    assert hand["version"] == 1
    corrected = scorer.post(f"/api/e/{key}/hands/{hand['id']}/versions",
                            json={"version": 1, "token": "fix-1", "facts": {**hand["facts"], "tricks": 2}})
    assert corrected.status_code == 201, corrected.get_data(as_text=True)
    after, _ = _warm(app, scorer, f"/e/{key}/kept?last=1")
    assert list(after) == list(before)
    # the hand's page and its correction form now show version 2 (made three, now lost)
    assert _hidden_blank(after[f"/e/{key}/hand/1"]) != _hidden_blank(before[f"/e/{key}/hand/1"])
    assert _hidden_blank(after[f"/e/{key}/big"]) != _hidden_blank(before[f"/e/{key}/big"])
    _same_as_routes(scorer, after)
    # the evening is shared only inside the warm-up: outside it each read is a read
    with app.test_request_context():
        assert units._SHARED.get() is None


def test_a_viewer_and_a_scorer_warm_up_each_their_own_pages(app: Any) -> None:
    scorer, viewer = app.test_client(), app.test_client()
    key = start_evening(scorer)
    assert post_hand(scorer, key, 1, 0, {1: "three"}, tricks=3).status_code == 302
    scorer.get(f"/e/{key}")
    mine, _ = _warm(app, scorer, f"/e/{key}/kept?last=1")
    theirs, _ = _warm(app, viewer, f"/e/{key}/kept?last=1")
    assert list(theirs) == [f"/e/{key}/big", f"/e/{key}/hand/1"]
    assert len(mine) == 6
    _same_as_routes(viewer, theirs)
    _same_as_routes(scorer, mine)
    assert theirs[f"/e/{key}/hand/1"] != mine[f"/e/{key}/hand/1"]  # the scorer's has its forms


def test_the_warm_up_settles_the_evening_once_for_its_pages(app: Any, monkeypatch: Any) -> None:
    from scorer.storage import evenings

    scorer = app.test_client()
    key = start_evening(scorer)
    assert post_hand(scorer, key, 1, 0, {1: "three"}, tricks=3).status_code == 302
    scorer.get(f"/e/{key}")
    settled: list[str] = []
    real = evenings._ledger_of

    def counted(evening: Any) -> Any:
        settled.append(evening.key)
        return real(evening)

    monkeypatch.setattr(evenings, "_ledger_of", counted)
    pages, _ = _warm(app, scorer, f"/e/{key}/kept?last=1")
    assert len(pages) == 6 and settled == [key]
    settled.clear()
    _same_as_routes(scorer, pages)
    assert len(settled) > 1  # asked one by one, each page settles it for itself


@pytest.mark.parametrize("kept", [True, False])
def test_the_warm_up_without_the_evenings_hands_has_each_page_as_its_route_makes_it(app: Any, kept: bool) -> None:
    """The warm-up reads the evening without its hands: its ledger (kept by this process, or
    settled from the database when not: another process saved the hand) and the hands its pages
    show are the same as each page reads for itself, a change of seats in play too (issue 12)."""
    from scorer.storage import kept_ledgers

    scorer = app.test_client()
    key = start_evening(scorer)
    for number, dealer in ((1, 0), (2, 1), (3, 2)):
        assert post_hand(scorer, key, number, dealer, {(dealer + 1) % 4: "three"}, tricks=3).status_code == 302
    for joined in (False, True):
        if joined:
            assert scorer.post(f"/e/{key}/seats", data={"action": "join", "name": "Eve", "left_of": "1"}
                               ).status_code == 302
            assert post_hand(scorer, key, 4, 3, {0: "three"}, tricks=2).status_code == 302
        scorer.get(f"/e/{key}")
        n = 4 if joined else 3
        for last in (1, n):
            if not kept:
                kept_ledgers.ledgers.clear()
            pages, statements = _warm(app, scorer, f"/e/{key}/kept?last={last}")
            assert len(pages) == 6
            _same_as_routes(scorer, pages)
            # hand 1 (its page and form) and the last (the undo page) are read alone, no other hand
            assert len([s for s in statements if re.search(r"WHERE hand\.id = ", s)]) == (2 if last == 1 else 1)


def test_the_warm_ups_forms_carry_one_token_signed_once_and_good(app: Any) -> None:
    """The forms' token (Flask-WTF's) is signed once for the warm-up's pages, as each page would
    sign it this second, and a form posted from a kept page with it is taken."""
    scorer = app.test_client()
    key = start_evening(scorer)
    assert post_hand(scorer, key, 1, 0, {1: "three"}, tricks=3).status_code == 302
    scorer.get(f"/e/{key}")
    app.config["WTF_CSRF_ENABLED"] = True
    pages, _ = _warm(app, scorer, f"/e/{key}/kept?last=1")
    token = re.compile(r'name="csrf_token" type="hidden" value="([^"]+)"')
    tokens = {found for html in pages.values() for found in token.findall(html)}
    assert len(tokens) == 1
    undo = pages[f"/e/{key}/undo"]
    fields = dict(re.findall(r'<input type="hidden" name="(\w+)" value="([^"]*)"', undo))
    assert scorer.post(f"/e/{key}/undo", data={"csrf_token": tokens.pop(), **fields}).status_code == 302
    assert scorer.get(f"/api/e/{key}").get_json()["hands"] == []  # undone: the token was good


# -- the save's answer (scorer/web/views/api.py: _kept_hand_saved) --------------------------
THREE = {"dealer": "Ann", "auction": ["three", "pass", "pass", "pass"], "tricks": 3}


def _post(app: Any, client: Any, url: str, body: Any) -> tuple[Any, list[str]]:
    with statements(app) as seen:
        return client.post(url, json=body), seen


def test_the_saves_answer_is_the_hand_as_the_table_now_has_it_without_loading_the_evening_again(
        any_db_app: Any) -> None:
    app = any_db_app
    client = app.test_client()
    key = start_evening(client)
    answer, statements = _post(app, client, f"/api/e/{key}/hands",
                               {"number": 1, "facts": THREE, "token": "s1", "played_at": "2026-12-06T20:15:00Z"})
    assert answer.status_code == 201, answer.get_data(as_text=True)
    # the answer, once the hand is written: the table's revision and the hand's first version's
    # time played (two small queries), not the evening loaded again (five, and all its hands)
    written = max(i for i, s in enumerate(statements) if s.startswith("INSERT INTO submission"))
    after = [s for s in statements[written + 1:] if s.strip() != "BEGIN"]
    assert len(after) == 2, after
    assert re.match(r"SELECT key, id, revision, group_id\s+FROM evening\s+WHERE key IN", after[0])
    assert re.match(r"SELECT hand_version\.played_at\s+FROM hand_version", after[1])
    body = answer.get_json()
    state = client.get(f"/api/e/{key}").get_json()
    assert body["revision"] == state["revision"]
    assert body["hand"] == state["hands"][0]
    assert body["hand"]["number"] == 1 and body["hand"]["version"] == 1
    assert body["hand"]["played_at"] == "2026-12-06T20:15:00+00:00"
    # Ann deals, Bob bids three and makes it: pagat pays 3 from each of the other three
    assert body["totals"] == state["totals"] == {"Ann": -3, "Bob": 9, "Cat": -3, "Dan": -3}
    second, _ = _post(app, client, f"/api/e/{key}/hands",
                      {"number": 2, "facts": {**THREE, "dealer": "Bob"}, "token": "s2"})
    assert second.status_code == 201
    assert "played_at" not in second.get_json()["hand"]
    # a correction of hand 1: version 2, its first version's time played, the new totals
    fixed, _ = _post(app, client, f"/api/e/{key}/hands/{body['hand']['id']}/versions",
                     {"version": 1, "token": "s3", "facts": {**THREE, "tricks": 2}})
    assert fixed.status_code == 201, fixed.get_data(as_text=True)
    state = client.get(f"/api/e/{key}").get_json()
    assert fixed.get_json() == {"revision": state["revision"], "hand": state["hands"][0], "totals": state["totals"]}
    assert fixed.get_json()["hand"]["version"] == 2
    assert fixed.get_json()["hand"]["played_at"] == "2026-12-06T20:15:00+00:00"
    # a retry of the first save answers what it saved (200), as the table has it now
    again, _ = _post(app, client, f"/api/e/{key}/hands", {"number": 1, "facts": THREE, "token": "s1"})
    assert again.status_code == 200 and again.get_json()["hand"] == state["hands"][0]
