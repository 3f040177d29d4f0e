"""Every page and form, through Flask's test client (SQLite)."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import make_app
from tests.webhelpers import counts, hand_id, post_hand, start_evening, totals_on_page

EXAMPLES = Path(__file__).resolve().parent.parent / "examples"


def test_pages_render(client: Any) -> None:
    key = start_evening(client)
    assert post_hand(client, key, 1, 0, {2: "four"}, 4).status_code == 302
    for url in ("/", "/new", "/new/pagat", "/new/hoyle", f"/e/{key}", f"/e/{key}/hand", f"/e/{key}/hand/1",
                f"/e/{key}/hand/1/edit", f"/e/{key}/finish", f"/e/{key}/rules", "/import", "/healthz"):
        response = client.get(url)
        assert response.status_code == 200, url
    assert client.get(f"/e/{key}/evening.pdf").data.startswith(b"%PDF")
    exported = client.get(f"/e/{key}/evening.json")
    assert json.loads(exported.data)["players"] == ["Ann", "Bob", "Cat", "Dan"]
    assert exported.headers["Content-Disposition"].startswith('attachment; filename="nap-')


def test_new_evening_form_shows_only_the_variants_options(client: Any) -> None:
    pagat = client.get("/new/pagat").get_data(as_text=True)
    hoyle = client.get("/new/hoyle").get_data(as_text=True)
    assert "Hands each player deals" in pagat and "Lowest bid" not in pagat
    assert "Lowest bid" in hoyle and "Wellington and Blücher" in hoyle and "Hands each player deals" not in hoyle


def test_start_evening_and_record_a_hand(client: Any, app: Any) -> None:
    key = start_evening(client, "hoyle", ("Alice", "Boris", "Chloe"), first_dealer=2, scoring="money",
                        stake="0.10", currency="£")
    page = client.get(f"/e/{key}").get_data(as_text=True)
    assert "<strong><bdi>Chloe</bdi></strong> deals, <strong><bdi>Alice</bdi></strong> is eldest hand" in page
    # dealer Chloe: Alice speaks first. Alice Two, Boris Nap, Chloe pass; Boris takes 5 → +20, −10 each
    response = post_hand(client, key, 1, 2, {0: "two", 1: "nap"}, 5)
    assert response.status_code == 302
    page = client.get(f"/e/{key}").get_data(as_text=True)
    assert totals_on_page(page) == {"Alice": "−10", "Boris": "+20", "Chloe": "−10"}
    assert "£2.00" in page and "−£1.00" in page
    assert "<strong><bdi>Alice</bdi></strong> deals" in page  # the deal passed left


def test_all_pass_and_misdeal(client: Any) -> None:
    key = start_evening(client)
    assert post_hand(client, key, 1, 0, {}, None, misdeal=True).status_code == 302
    # the same dealer again
    assert "<strong><bdi>Ann</bdi></strong> deals" in client.get(f"/e/{key}").get_data(as_text=True)
    assert post_hand(client, key, 2, 0, {}).status_code == 302  # everyone passes
    page = client.get(f"/e/{key}").get_data(as_text=True)
    assert "<strong><bdi>Bob</bdi></strong> deals" in page and "misdeal" in page and "all passed" in page
    assert "P-4" in page and "Shuffle before this deal" in page  # the next dealer shuffles after all passed
    assert "8 hands to the agreed end" in page  # 2 × 4; neither hand counts


@pytest.mark.parametrize(
    ("calls", "tricks", "message"),
    [
        ({1: "two"}, 2, "(P-15)"),
        ({1: "wellington"}, 5, "(P-7)"),
        ({1: "four", 2: "four"}, 4, "(P-5)"),
        ({1: "four", 2: "three"}, 4, "(P-5)"),
        ({1: "∞"}, 3, "is not a bid"),
        ({1: "four"}, 7, "0 to 5 tricks"),
        ({1: "four"}, None, "how many tricks"),
        ({1: "four"}, "x", "0 to 5 tricks"),
        ({}, 3, "Nobody bid, but tricks were entered"),
    ],
)
def test_illegal_hands_are_refused_and_change_nothing(client: Any, app: Any, calls: dict[int, str], tricks: Any,
                                                      message: str) -> None:
    key = start_evening(client)
    before = counts(app)
    response = post_hand(client, key, 1, 0, calls, tricks)
    assert response.status_code == 422
    assert message in response.get_data(as_text=True)
    assert counts(app) == before


def test_hoyle_refusals_name_the_rule(client: Any) -> None:
    key = start_evening(client, "hoyle")
    response = post_hand(client, key, 1, 0, {1: "nap", 2: "blucher"}, 5)
    assert response.status_code == 422 and "(H-7)" in response.get_data(as_text=True)
    response = post_hand(client, key, 1, 0, {1: "three", 2: "two"}, 3)
    assert "(H-6)" in response.get_data(as_text=True)


def test_double_submit_records_the_hand_once(client: Any, app: Any) -> None:
    key = start_evening(client)
    first = post_hand(client, key, 1, 0, {2: "three"}, 3)
    second = post_hand(client, key, 1, 0, {2: "three"}, 3)
    assert first.status_code == 302 and second.status_code == 302
    assert second.headers["Location"].endswith(f"/e/{key}/hand/1")
    assert counts(app)[1:] == (1, 1)
    assert "already been recorded" in client.get(second.headers["Location"]).get_data(as_text=True)
    ahead = post_hand(client, key, 5, 1, {2: "three"}, 3)  # a form for a hand that is not next
    assert ahead.status_code == 302 and counts(app)[1:] == (1, 1)
    assert "the next hand is 2" in client.get(ahead.headers["Location"]).get_data(as_text=True)
    negative = post_hand(client, key, -1, 1, {2: "three"}, 3)
    assert negative.status_code == 422 and counts(app)[1:] == (1, 1)


def test_correct_an_earlier_hand_keeps_the_old_version(client: Any, app: Any) -> None:
    key = start_evening(client)
    post_hand(client, key, 1, 0, {2: "four"}, 4)  # Cat +12
    post_hand(client, key, 2, 1, {3: "nap"}, 5)  # dealer Bob: Cat, Dan, Ann, Bob → Dan Nap +15
    data = {"number": "1", "version": "1", "hand_id": hand_id(app, key, 1), "dealer": "0", "call_2": "four",
            "tricks": "3", "save": "1"}
    response = client.post(f"/e/{key}/hand/1/edit", data=data)
    assert response.status_code == 302
    page = client.get(f"/e/{key}").get_data(as_text=True)
    # hand 1 now defeated: Cat −12, others +4; hand 2 unchanged: Dan +15, others −5
    assert totals_on_page(page) == {"Ann": "−1", "Bob": "−1", "Cat": "−17", "Dan": "+19"}
    hand = client.get(f"/e/{key}/hand/1").get_data(as_text=True)
    assert "version 2" in hand and "version 1" in hand and "earlier" in hand
    assert counts(app)[1:] == (2, 3)
    # a correction from a page that still shows version 1 is refused
    stale = client.post(f"/e/{key}/hand/1/edit", data={**data, "tricks": "5"})
    assert stale.status_code == 302 and counts(app)[1:] == (2, 3)
    assert "corrected on another phone" in client.get(stale.headers["Location"]).get_data(as_text=True)


def test_finished_evening_refuses_hands_until_reopened(client: Any, app: Any) -> None:
    key = start_evening(client)
    assert client.post(f"/e/{key}/finish").status_code == 302
    before = counts(app)
    response = post_hand(client, key, 1, 0, {2: "four"}, 4)
    assert response.status_code == 302 and counts(app) == before
    assert "finished" in client.get(f"/e/{key}").get_data(as_text=True)
    client.post(f"/e/{key}/reopen")
    assert post_hand(client, key, 1, 0, {2: "four"}, 4).status_code == 302
    assert counts(app)[1] == before[1] + 1


def test_agreed_end_reached_refuses_more_hands(client: Any, app: Any) -> None:
    key = start_evening(client, players=("Ann", "Bob", "Cat"), opt_hands_per_dealer="1")
    for number in (1, 2, 3):
        assert post_hand(client, key, number, number - 1, {number % 3: "three"}, 3).status_code == 302
    page = client.get(f"/e/{key}").get_data(as_text=True)
    # each made a Three: all share
    assert "Every player has dealt the agreed 1 counted hand" in page and "Winners" in page
    before = counts(app)
    post_hand(client, key, 4, 0, {1: "three"}, 3)
    assert counts(app) == before


def test_p14_counts_deals_per_player_on_the_sheet(client: Any, app: Any) -> None:
    """The issue's evening: Bea's deal (hand 2) is passed out, so after hand 4 she still
    owes a counted deal and hand 5 is accepted; totals by hand: −18, +12, +6 (P-14)."""
    key = start_evening(client, players=("Ada", "Bea", "Cy"), opt_hands_per_dealer="1")
    assert post_hand(client, key, 1, 0, {1: "three"}, 3).status_code == 302
    assert post_hand(client, key, 2, 1, {}, None).status_code == 302
    assert post_hand(client, key, 3, 2, {1: "four"}, 4).status_code == 302
    assert post_hand(client, key, 4, 0, {0: "three"}, 2).status_code == 302
    page = client.get(f"/e/{key}").get_data(as_text=True)
    assert "Still to deal (counted hands): <strong><bdi>Bea</bdi></strong> (1)" in page
    assert "1 hand to the agreed end" in page
    assert post_hand(client, key, 5, 1, {2: "nap"}, 5).status_code == 302
    page = client.get(f"/e/{key}").get_data(as_text=True)
    assert totals_on_page(page) == {"Ada": "−18", "Bea": "+12", "Cy": "+6"}
    assert "Every player has dealt the agreed 1 counted hand" in page


@pytest.mark.parametrize(("variant", "message"), [
    ("pagat", "British Nap, basic (Pagat) needs 3 to 6 players (P-1); you entered 7."),
    ("hoyle", "Nap (Hoyle rules) needs 2 to 6 players (H-1); you entered 7."),
])
def test_seven_players_are_refused_citing_the_rule(client: Any, app: Any, variant: str, message: str) -> None:
    """The form has six rows; a seventh name posted anyway counts, and is refused with the
    variant's rule and range rather than dropped."""
    before = counts(app)
    data = {f"players-{i}": name for i, name in enumerate(("Ada", "Bea", "Cy", "Dov", "Eli", "Fay", "Gus"))}
    response = client.post(f"/new/{variant}", data={"scoring": "points", "first_dealer": "0", **data})
    assert response.status_code == 422 and message in response.get_data(as_text=True)
    assert counts(app) == before


def test_import_limit_is_said_in_the_phones_language(client: Any, app: Any) -> None:
    import io

    body = json.dumps({"format": "nap-evening", "version": 1, "variant": "pagat", "players": ["Ада", "Бея", "Сай"],
                       "hands": [{"auction": ["pass"] * 3}] * 2001}).encode()
    response = client.post("/import", data={"file": (io.BytesIO(body), "x.json")}, content_type="multipart/form-data",
                           headers={"Accept-Language": "ru"})
    assert response.status_code == 422
    assert "hands: В файле вечера максимум 2\u00a0000 сдач; в этом 2\u00a0001." in response.get_data(as_text=True)


def test_history_shows_tricks_only_when_there_are_some(client: Any) -> None:
    """An all-passed hand has no tricks: its line ends with the calls, not "· tricks"."""
    key = start_evening(client, players=("Ada", "Bea", "Cy"))
    assert post_hand(client, key, 1, 0, {1: "three"}, 3).status_code == 302
    assert post_hand(client, key, 2, 1, {}, None).status_code == 302
    page = client.get(f"/e/{key}/history").get_data(as_text=True)
    after = [re.sub(r"\s+", " ", a).strip() for a in re.findall(r'<span class="after">After: (.*?)</span>', page, re.S)]
    assert "dealer <bdi>Ada</bdi> · <bdi>Bea</bdi> Three, <bdi>Cy</bdi> Pass, <bdi>Ada</bdi> Pass · 3 tricks" in after
    assert "dealer <bdi>Bea</bdi> · <bdi>Cy</bdi> Pass, <bdi>Ada</bdi> Pass, <bdi>Bea</bdi> Pass" in after
    assert not any(a.endswith("tricks") and not a[-8].isdigit() for a in after) and "· tricks" not in page


@pytest.mark.parametrize(
    ("fields", "message"),
    [
        ({"players-0": "x" * 10_000}, "at most 40 characters"),
        ({"players-1": "ann"}, "same name"),
        ({"players-1": "", "players-2": "", "players-3": ""}, "3 to 6 players"),
        ({"first_dealer": "5"}, "first dealer must be one of the players"),
        ({"first_dealer": "abc"}, "Choose who deals first"),
        ({"scoring": "money", "stake": "∞"}, "stake must be a number"),
        ({"scoring": "money", "stake": ""}, "Enter the money value"),
        ({"scoring": "money", "stake": "0.001"}, "at most 2 decimal places for GBP"),  # the form suggests £
        ({"opt_hands_per_dealer": "-3"}, "From 1 to 50"),
        ({"opt_hands_per_dealer": "lots"}, "Hands each player deals: Enter a whole number.</li></ul>"),
        ({"opt_hands_per_dealer": "9" * 400}, "far too large"),
        ({"name": "n" * 200}, "At most 80 characters"),
    ],
)
def test_bad_new_evening_input(client: Any, app: Any, fields: dict[str, str], message: str) -> None:
    data = {"players-0": "Ann", "players-1": "Bob", "players-2": "Cat", "players-3": "Dan", "first_dealer": "0",
            "scoring": "points", "opt_hands_per_dealer": "2"}
    data.update(fields)
    response = client.post("/new/pagat", data=data)
    assert response.status_code == 422
    assert message in response.get_data(as_text=True)
    assert counts(app) == (0, 0, 0)


def test_unknown_things_are_404(client: Any) -> None:
    key = start_evening(client)
    for url in ("/e/does-not-exist", "/e/" + "x" * 500, "/new/whist", f"/e/{key}/hand/0",
                "/e/nope/evening.pdf", "/e/nope/evening.json"):
        assert client.get(url).status_code == 404, url
    # a hand past the last one (undone on another phone, an old link): back to the scoresheet, saying so
    for url in (f"/e/{key}/hand/99", f"/e/{key}/hand/99/edit"):
        response = client.get(url)
        assert response.status_code == 302 and response.headers["Location"].endswith(f"/e/{key}"), url
    assert "There is no hand 99 now" in client.get(f"/e/{key}").get_data(as_text=True)
    assert client.post("/e/nope/hand", data={}).status_code == 404
    assert client.delete("/healthz").status_code == 405


def test_import_and_export_round_trip(client: Any, app: Any) -> None:
    source = (EXAMPLES / "hoyle-five.json").read_bytes()
    response = client.post("/import", data={"file": (__import__("io").BytesIO(source), "evening.json")},
                           content_type="multipart/form-data")
    assert response.status_code == 302
    key = response.headers["Location"].rsplit("/", 1)[-1]
    page = client.get(f"/e/{key}").get_data(as_text=True)
    assert totals_on_page(page) == {"Alice": "+70", "Boris": "−125", "Chloe": "+55", "Dmitri": "−5", "Eve": "+5"}
    exported = json.loads(client.get(f"/e/{key}/evening.json").data)
    original = json.loads(source)
    assert exported["hands"] == original["hands"] and exported["players"] == original["players"]
    assert exported["stake"] == original["stake"]
    assert {k: exported["options"][k] for k in original["options"]} == original["options"]  # the rest: defaults


@pytest.mark.parametrize(
    ("body", "message"),
    [
        (b"not json", "not a JSON file"),
        (b'{"format": "nap-evening"}', "required"),
        (b'{"format":"nap-evening","version":1,"variant":"pagat","players":["A","B","C"],'
         b'"hands":[{"auction":["two","pass","pass"],"tricks":2}]}', "P-15"),
        (json.dumps({"format": "nap-evening", "version": 1, "variant": "hoyle", "players": list("ABCDEFG"),
                     "hands": []}).encode(), "players: Nap (Hoyle rules) is for 2 to 6 players, not 7. (H-1)"),
        (json.dumps({"format": "nap-evening", "version": 1, "variant": "pagat", "players": list("ABC"),
                     "hands": [{"auction": ["pass"] * 3}] * 2001}).encode(),
         "hands: An evening file holds at most 2000 hands; this one has 2001."),
    ],
)
def test_import_refuses_bad_files(client: Any, app: Any, body: bytes, message: str) -> None:
    import io

    response = client.post("/import", data={"file": (io.BytesIO(body), "x.json")}, content_type="multipart/form-data")
    assert response.status_code == 422 and message in response.get_data(as_text=True)
    assert counts(app) == (0, 0, 0)
    assert client.post("/import", data={}).status_code == 422


def test_csrf_token_required(sqlite_url: str) -> None:
    app = make_app(sqlite_url, WTF_CSRF_ENABLED=True)
    client = app.test_client()
    response = client.post("/new/pagat", data={"players-0": "Ann", "players-1": "Bob", "players-2": "Cat",
                                               "first_dealer": "0", "scoring": "points",
                                               "opt_hands_per_dealer": "2"})
    assert response.status_code == 400 and "expired" in response.get_data(as_text=True)
    assert counts(app) == (0, 0, 0)
    page = client.get("/new/pagat").get_data(as_text=True)
    assert 'name="csrf_token"' in page


def test_names_are_escaped(client: Any) -> None:
    key = start_evening(client, players=("<script>alert(1)</script>", "</td><img src=x onerror=alert(1)>", "Cat"))
    page = client.get(f"/e/{key}").get_data(as_text=True)
    assert "<script>alert(1)</script>" not in page and "&lt;script&gt;" in page
    assert "<img src=x" not in page


def test_security_headers(client: Any) -> None:
    response = client.get("/")
    assert "script-src 'self'" in response.headers["Content-Security-Policy"]
    assert response.headers["X-Content-Type-Options"] == "nosniff"


def test_csv_ledger_sums_match_the_ledger(client: Any, app: Any) -> None:
    import csv
    import io

    from scorer.evening.file import loads as load_file
    from scorer.storage import evening_writes

    with app.app_context():
        key = evening_writes.import_evening(load_file((EXAMPLES / "hoyle-five.json").read_bytes())).key
    response = client.get(f"/e/{key}/ledger.csv")
    assert response.status_code == 200 and response.mimetype == "text/csv"
    rows = list(csv.DictReader(io.StringIO(response.get_data(as_text=True))))
    assert len(rows) == 10 * 5  # one row per hand and player
    sums: dict[str, int] = {}
    for row in rows:
        sums[row["player"]] = sums.get(row["player"], 0) + int(row["units"])
    assert sums == {"Alice": 70, "Boris": -125, "Chloe": 55, "Dmitri": -5, "Eve": 5}
    last = {row["player"]: int(row["running_total"]) for row in rows if row["hand"] == "10"}
    assert last == sums
    assert sum(int(r["money_minor"]) for r in rows if r["player"] == "Boris") == -625


def test_a_stored_hand_the_rules_refuse_gives_a_clear_page_not_a_500(client: Any, app: Any) -> None:
    import sqlalchemy as sa

    from scorer.storage.models import HandVersion, db

    key = start_evening(client)
    post_hand(client, key, 1, 0, {2: "four"}, 4)
    with app.app_context():  # damage the stored facts behind the app's back
        broken = {"dealer": 0, "auction": ["two", "pass", "pass", "pass"]}
        db.session.execute(sa.update(HandVersion).values(facts=broken))
        db.session.execute(sa.text("UPDATE evening SET revision = revision + 1"))
        db.session.commit()
    # a saved version is never rewritten by the app, so a process keeps the ledger it folded
    # from it (scorer.storage.kept_ledgers); the damage is met by the next process that reads the evening
    from scorer.storage.kept_ledgers import ledgers

    ledgers.clear()
    response = client.get(f"/e/{key}")
    assert response.status_code == 409 and "Hand 1" in response.get_data(as_text=True)
    assert client.get(f"/e/{key}/evening.json").status_code == 200  # the facts can still be exported


def test_restore_an_earlier_version(client: Any, app: Any) -> None:
    key = start_evening(client)
    post_hand(client, key, 1, 0, {2: "four"}, 4)  # Cat +12
    client.post(f"/e/{key}/hand/1/edit", data={"number": "1", "version": "1", "hand_id": hand_id(app, key, 1),
                                               "dealer": "0", "call_2": "four", "tricks": "3", "save": "1"})
    page = client.get(f"/e/{key}/hand/1").get_data(as_text=True)  # corrected: Cat −12
    assert "Restore" in page
    row = re.search(r'name="hand_id" value="(\d+)"', page)
    assert row is not None and 'name="base" value="2"' in page  # the page names the hand and its version
    restore = {"hand_id": row.group(1), "base": "2"}
    assert client.post(f"/e/{key}/hand/1/restore/1", data=restore).status_code == 302
    assert totals_on_page(client.get(f"/e/{key}").get_data(as_text=True))["Cat"] == "+12"
    assert counts(app)[2] == 3  # three versions: nothing lost
    assert client.post(f"/e/{key}/hand/1/restore/9", data=restore).status_code == 404
