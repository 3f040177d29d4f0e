"""One table, many phones: roles, PIN budgets, isolation between tables, undo,
history, one-time tokens, quick entry, live revision, hostile names, the PDF fetcher."""

from __future__ import annotations

import http.server
import re
import threading
from typing import Any

import pytest
import sqlalchemy as sa

from scorer.reports.pdf import render_html_pdf
from scorer.storage import errors, evenings, hand_writes, pin_budget, units
from scorer.storage.db import db
from scorer.storage.models import Change, Evening, Hand, PinAttempt
from tests.webhelpers import hand_id, start_evening


def _evening(app: Any, key: str) -> Evening:
    with app.app_context():
        evening = units.get_evening(key)
        assert evening is not None
        db.session.expunge_all()
        return evening


def _quick(client: Any, key: str, number: int, declarer: int, contract: str, tricks: int, **extra: str) -> Any:
    data = {"number": str(number), "declarer": str(declarer), "contract": contract, "tricks": str(tricks), **extra}
    return client.post(f"/e/{key}/quick", data=data)


def _hand_count(app: Any, key: str) -> int:
    with app.app_context():
        evening = units.get_evening(key)
        assert evening is not None
        return len(evening.hands)


# --- roles -------------------------------------------------------------------------

def test_the_creator_scores_and_a_stranger_only_watches(app: Any) -> None:
    creator, stranger = app.test_client(), app.test_client()
    key = start_evening(creator)
    assert _quick(creator, key, 1, 1, "three", 3).status_code == 302
    assert _hand_count(app, key) == 1
    assert stranger.get(f"/e/{key}").status_code == 200
    response = _quick(stranger, key, 2, 2, "three", 3)
    assert response.status_code == 302 and response.headers["Location"].endswith(f"/e/{key}/join")
    assert _hand_count(app, key) == 1
    sheet = stranger.get(f"/e/{key}").get_data(as_text=True)
    assert "Record hand 2" not in sheet and "Become a scorer" in sheet
    assert "Record hand 2" in creator.get(f"/e/{key}").get_data(as_text=True)


def test_scorers_link_and_pin_make_a_scorer(app: Any) -> None:
    creator, by_link, by_pin = app.test_client(), app.test_client(), app.test_client()
    key = start_evening(creator)
    evening = _evening(app, key)
    assert by_link.get(f"/e/{key}/scorer/not-the-key").status_code == 404
    assert by_link.get(f"/e/{key}/scorer/{evening.edit_key}").status_code == 302
    assert _quick(by_link, key, 1, 1, "three", 3).status_code == 302
    assert _hand_count(app, key) == 1
    wrong = "000000" if evening.pin != "000000" else "111111"
    page = by_pin.post(f"/e/{key}/join", data={"pin": wrong})
    assert page.status_code == 422 and "not this table" in page.get_data(as_text=True)
    assert "(pin)" not in page.get_data(as_text=True)  # the JSON refusal's code, not a rule a person can look up
    assert by_pin.post(f"/e/{key}/join", data={"pin": f" {evening.pin} "}).status_code == 302
    assert _quick(by_pin, key, 2, 2, "three", 3).status_code == 302
    assert _hand_count(app, key) == 2
    # the share page shows the PIN and the scorers' link to scorers only
    assert evening.pin in by_pin.get(f"/e/{key}/share").get_data(as_text=True)
    viewer_page = app.test_client().get(f"/e/{key}/share").get_data(as_text=True)
    assert evening.pin not in viewer_page and evening.edit_key not in viewer_page
    assert app.test_client().get(f"/e/{key}/qr.svg?for=edit").status_code == 404
    assert by_pin.get(f"/e/{key}/qr.svg?for=edit").mimetype == "image/svg+xml"


def test_pin_guessing_is_bounded_per_phone_and_per_network(app: Any) -> None:
    key = start_evening(app.test_client())
    evening = _evening(app, key)
    wrong = "000000" if evening.pin != "000000" else "111111"
    guesser = app.test_client()
    for _ in range(pin_budget.PHONE_TRIES):
        assert "not this table" in guesser.post(f"/e/{key}/join", data={"pin": wrong}).get_data(as_text=True)
    # this phone is out of tries: even the right PIN is not checked now
    page = guesser.post(f"/e/{key}/join", data={"pin": evening.pin}).get_data(as_text=True)
    assert "Too many wrong PINs from this phone" in page
    assert "Record hand" not in guesser.get(f"/e/{key}").get_data(as_text=True)
    # another phone at the same table (same IP) still may: the lock-out is per phone
    friend = app.test_client()
    assert friend.post(f"/e/{key}/join", data={"pin": evening.pin}).status_code == 302
    # but the network as a whole has a budget too: 10 wrong PINs, whatever the cookies
    for _ in range(pin_budget.NETWORK_TRIES - pin_budget.PHONE_TRIES):
        app.test_client().post(f"/e/{key}/join", data={"pin": wrong})
    late = app.test_client().post(f"/e/{key}/join", data={"pin": evening.pin}).get_data(as_text=True)
    assert "Too many wrong PINs from this network" in late
    with app.app_context():
        assert db.session.scalar(sa.select(sa.func.count()).select_from(PinAttempt)) == pin_budget.NETWORK_TRIES


def _urls(app: Any, key: str, edit_key: str) -> list[tuple[str, str]]:
    """Every route that takes an evening key, as (method, url) for table ``key``."""
    out = []
    for rule in app.url_map.iter_rules():
        if "key" not in rule.arguments or rule.endpoint.startswith(("groups.", "api_groups.")):
            continue
        values = {"key": key, "number": 1, "version": 1, "edit_key": edit_key,
                  "hand_id": 1, "access_id": 1, "dispute_id": 1,  # table A's first hand, phone and dispute
                  "call_id": 1, "referee_id": 1, "link_key": edit_key,  # the referee's routes (issue 22 item 5)
                  "seat": 0, "sig": edit_key}  # a player's own link (issue 22 item 7), signed with A's key
        url = rule.build({k: values[k] for k in rule.arguments if k in values}, append_unknown=False)[1]
        for method in sorted((rule.methods or set()) - {"HEAD", "OPTIONS"}):
            out.append((method, url))
    return out


def test_one_tables_links_never_read_or_change_another_table(app: Any) -> None:
    """A scorer of table A, using A's edit link and hand numbers on table B's URLs,
    changes nothing at B and never sees A's data there; every route is tried."""
    alice, bob = app.test_client(), app.test_client()
    a = start_evening(alice, players=("Ann", "Abe", "Amy", "Art"), name="Alpha table")
    b = start_evening(bob, players=("Bea", "Ben", "Bo", "Bud"), name="Beta table")
    assert _quick(alice, a, 1, 1, "three", 3).status_code == 302
    assert _quick(bob, b, 1, 2, "four", 4).status_code == 302
    assert alice.post(f"/e/{a}/hand/1/dispute", data={"kind": "score", "hand_id": str(_evening(app, a).hands[0].id),
                                                      "note": "Abe counted wrong"}).status_code == 302
    a_edit = _evening(app, a).edit_key
    before = _evening(app, b).revision
    form = {"number": "2", "version": "1", "dealer": "1", "declarer": "1", "contract": "three", "tricks": "3",
            "call_2": "three", "save": "1", "pin": "123456", "units_0": "1", "units_1": "-1", "units_2": "0",
            "units_3": "0", "reason": "x", "card": "AS"}
    tried = 0
    for method, url in _urls(app, b, a_edit):
        response = alice.open(url, method=method, data=form if method == "POST" else None)
        tried += 1
        assert response.status_code < 500, (method, url)
        body = response.get_data(as_text=True) if response.mimetype.startswith(("text/", "application/json")) else ""
        assert "Alpha table" not in body and "Abe" not in body, (method, url)
    assert tried >= 25
    after = _evening(app, b)
    assert after.revision == before and len(after.hands) == 1
    assert not alice.get(f"/e/{b}").get_data(as_text=True).count("Record hand")
    # and B's own scorer still scores
    assert _quick(bob, b, 2, 3, "three", 3).status_code == 302 and _hand_count(app, b) == 2


# --- undo, history, tokens ------------------------------------------------------------

def test_undo_the_last_hand_keeps_it_in_the_history(app: Any) -> None:
    client = app.test_client()
    key = start_evening(client)
    client.post("/device", data={"device": "Cat's phone", "next": f"/e/{key}"})
    assert _quick(client, key, 1, 1, "three", 3).status_code == 302  # Bob +9
    assert _quick(client, key, 2, 2, "four", 2).status_code == 302  # Cat defeated: −12, others +4
    with app.app_context():
        evening = units.get_evening(key)
        assert evening is not None
        assert evenings.ledger_of(evening).totals == (1, 13, -15, 1)
    # an undo from a page that showed hand 1 as the last hand is refused
    stale = client.post(f"/e/{key}/undo", data={"number": "1", "version": "1", "hand_id": hand_id(app, key, 1)})
    assert stale.status_code == 302 and _hand_count(app, key) == 2
    assert client.post(f"/e/{key}/undo", data={"number": "2", "version": "1",
                                               "hand_id": hand_id(app, key, 2)}).status_code == 302
    with app.app_context():
        evening = units.get_evening(key)
        assert evening is not None
        assert evenings.ledger_of(evening).totals == (-3, 9, -3, -3)
        assert db.session.scalar(sa.select(sa.func.count()).select_from(Hand)) == 2  # nothing deleted
    # the place is free: the next hand is hand 2 again
    assert _quick(client, key, 2, 3, "three", 5).status_code == 302
    history = client.get(f"/e/{key}/history").get_data(as_text=True)
    assert "Hand undone" in history and "Cat&#39;s phone" in history
    assert re.search(r"Before:.*Four", history)
    with app.app_context():
        kinds = db.session.scalars(sa.select(Change.kind).order_by(Change.id)).all()
        assert kinds == ["start", "new", "new", "undo", "new"]
        devices = set(db.session.scalars(sa.select(Change.device).where(Change.kind != "start")).all())
        assert devices == {"Cat's phone"}


def test_the_same_form_twice_saves_one_hand(app: Any) -> None:
    client = app.test_client()
    key = start_evening(client)
    page = client.get(f"/e/{key}/quick").get_data(as_text=True)
    token = re.search(r'name="token" type="hidden" value="([^"]+)"', page)
    assert token is not None
    first = _quick(client, key, 1, 1, "three", 3, token=token.group(1))
    again = _quick(client, key, 1, 1, "three", 3, token=token.group(1))
    assert first.status_code == again.status_code == 302
    assert _hand_count(app, key) == 1
    assert "already saved" in client.get(f"/e/{key}").get_data(as_text=True)


def test_the_revision_follows_every_change(app: Any) -> None:
    client = app.test_client()
    key = start_evening(client)
    assert client.get(f"/e/{key}/revision").get_json() == {"revision": 0}
    _quick(client, key, 1, 1, "three", 3)
    assert client.get(f"/e/{key}/revision").get_json() == {"revision": 1}
    assert client.get("/e/nope/revision").status_code == 404


# --- quick entry ---------------------------------------------------------------------

@pytest.mark.parametrize(("variant", "quick", "full", "expected"), [
    # pagat, 4 players, Ann deals, Bob eldest: Bob bids Three and makes it: 3 from each opponent (P-9)
    ("pagat", {"declarer": "1", "contract": "three", "tricks": "4"}, {"call_1": "three", "tricks": "4"},
     (-3, 9, -3, -3)),
    # hoyle: Cat's Nap fails with 3 tricks: she pays each opponent 5 (H-11: Nap wins 10, loses 5)
    ("hoyle", {"declarer": "2", "contract": "nap", "tricks": "3"}, {"call_2": "nap", "tricks": "3"},
     (5, 5, -15, 5)),
    # russian36 (stake 10 a trick, ante 5): everyone antes 5; Ann, Bob, Cat pass from the
    # dealer and Dan bids Three and makes it: each of 3 pays 10 × 3 = 30: Dan 90 − 5 = 85
    ("russian36", {"declarer": "3", "contract": "three", "tricks": "3"}, None, (-35, -35, -35, 85)),
    # napoleao: Bob names hearts and makes Three: he scores 3 points (B-11), nobody else scores
    ("napoleao", {"declarer": "1", "contract": "three", "tricks": "3", "trump": "H"}, None, (0, 3, 0, 0)),
])
def test_quick_entry_rules_like_the_full_form(app: Any, variant: str, quick: dict[str, str],
                                              full: dict[str, str] | None, expected: Any) -> None:
    client = app.test_client()
    key = start_evening(client, variant=variant)
    response = client.post(f"/e/{key}/quick", data={"number": "1", **quick})
    assert response.status_code == 302, response.get_data(as_text=True)
    with app.app_context():
        evening = units.get_evening(key)
        assert evening is not None
        ledger = evenings.ledger_of(evening)
        row = ledger.rows[0]
        assert row.ruling.declarer == int(quick["declarer"]) and row.ruling.contract is not None
        assert row.ruling.contract.id == quick["contract"] and row.facts.tricks == int(quick["tricks"])
        # everyone but the declarer passed
        assert [c for c in row.facts.auction if c != "pass"] == [quick["contract"]]
        quick_units = row.ruling.units
    assert quick_units == expected
    if full is not None:  # the same hand through the full form gives the same ruling
        other = app.test_client()
        key2 = start_evening(other, variant=variant)
        posted = {"number": "1", "dealer": "0", "save": "1", **full}
        assert other.post(f"/e/{key2}/hand", data=posted).status_code == 302
        with app.app_context():
            evening2 = units.get_evening(key2)
            assert evening2 is not None
            assert evenings.ledger_of(evening2).rows[0].ruling.units == quick_units


def test_quick_entry_refuses_half_a_hand(app: Any) -> None:
    client = app.test_client()
    key = start_evening(client, variant="napoleao")
    response = client.post(f"/e/{key}/quick", data={"number": "1", "declarer": "1", "contract": "three", "tricks": "3"})
    assert response.status_code == 422 and "Tap the trump suit" in response.get_data(as_text=True)
    for junk in ({"declarer": "9"}, {"contract": "<b>"}, {"tricks": "7"}, {"number": "x"}):
        data = {"number": "1", "declarer": "1", "contract": "three", "tricks": "3", "trump": "S", **junk}
        assert client.post(f"/e/{key}/quick", data=data).status_code == 422
    assert _hand_count(app, key) == 0
    assert client.post(f"/e/{key}/quick", data={"number": "1", "misdeal": "1"}).status_code == 302
    assert _hand_count(app, key) == 1


# --- hostile input -------------------------------------------------------------------

HOSTILE = ("<script>alert(1)</script>", "</td><img src=x onerror=alert(1)>", "Cat", "Dan")


def test_hostile_names_show_as_text_on_every_page_and_in_the_pdf(app: Any) -> None:
    client = app.test_client()
    key = start_evening(client, players=HOSTILE)
    assert _quick(client, key, 1, 1, "three", 3).status_code == 302
    pages = [f"/e/{key}", f"/e/{key}/hand/1", f"/e/{key}/hand/1/edit", f"/e/{key}/hand/1/play", f"/e/{key}/quick",
             f"/e/{key}/hand", f"/e/{key}/share", f"/e/{key}/history", f"/e/{key}/big", f"/e/{key}/undo",
             f"/e/{key}/rules", f"/e/{key}/finish", f"/e/{key}/settings", "/"]
    for page in pages:
        response = client.get(page)
        assert response.status_code == 200, page
        body = response.get_data(as_text=True)
        assert "<script>alert(1)" not in body and "<img src=x" not in body, page
        shown = "&lt;script&gt;alert(1)&lt;/script&gt;" in body or "&lt;/td&gt;&lt;img src=x" in body
        assert shown or page.endswith(("/rules", "/share", "/finish", "/settings")), page
    from tests.test_pdf import pdf_text

    text = pdf_text(client.get(f"/e/{key}/evening.pdf").data)
    assert "<script>alert(1)</script>" in text  # printed as the name it is
    csv_text = client.get(f"/e/{key}/ledger.csv").get_data(as_text=True)
    assert "<script>alert(1)</script>" in csv_text


def test_the_pdf_fetcher_makes_no_network_call_even_to_a_redirect(app: Any) -> None:
    hits: list[str] = []

    class Redirect(http.server.BaseHTTPRequestHandler):
        def do_GET(self) -> None:
            hits.append(self.path)
            self.send_response(302)
            self.send_header("Location", "file:///etc/passwd")
            self.end_headers()

        def log_message(self, *args: Any) -> None:
            pass

    server = http.server.HTTPServer(("127.0.0.1", 0), Redirect)
    port = server.server_address[1]
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        html = (f'<link rel="stylesheet" href="http://127.0.0.1:{port}/style.css">'
                f'<img src="http://127.0.0.1:{port}/to-passwd.png"><img src="file:///etc/passwd"><p>still here</p>')
        with app.app_context():
            from tests.test_pdf import pdf_text

            text = pdf_text(render_html_pdf(html))
    finally:
        server.shutdown()
        server.server_close()
    assert "still here" in text and "root:" not in text
    assert hits == []  # the fetcher refused before any request left the process


def test_settings_change_rules_every_hand_again_and_are_kept_in_the_history(app: Any) -> None:
    client = app.test_client()
    key = start_evening(client)  # pagat, 2 hands per dealer: 8 hands (P-14)
    for number in (1, 2, 3):
        assert _quick(client, key, number, number % 4, "three", 3).status_code == 302
    page = client.get(f"/e/{key}/settings").get_data(as_text=True)
    revision = re.search(r'name="revision" type="hidden" value="(\d+)"', page)
    assert revision is not None and revision.group(1) == "3"
    # 1 hand per dealer would have ended the evening after hand 4 of 4... still fine with 3 hands played
    ok = client.post(f"/e/{key}/settings", data={"name": "Crown", "place": "The Crown", "revision": "3",
                                                 "opt_hands_per_dealer": "1"})
    assert ok.status_code == 302
    evening = _evening(app, key)
    assert evening.name == "Crown" and evening.options["hands_per_dealer"] == 1 and evening.revision == 4
    with app.app_context():
        ledger = evenings.ledger_of(units.get_evening(key))  # type: ignore[arg-type]
        assert ledger.hands_remaining == 1  # 4 players × 1 − 3 played
    # a stale page is refused and changes nothing
    stale = client.post(f"/e/{key}/settings", data={"name": "Other", "revision": "3", "opt_hands_per_dealer": "3"})
    assert stale.status_code == 302 and _evening(app, key).name == "Crown"
    history = client.get(f"/e/{key}/history").get_data(as_text=True)
    assert "Settings changed" in history
    assert 'Hands each player deals: <span class="before">2</span> → <span class="after">1</span>' in history
    assert 'Name: <span class="before"><bdi>Nap ' in history
    assert '<span class="after"><bdi>Crown</bdi></span>' in history


def test_settings_that_would_end_the_evening_before_its_last_hand_are_refused(app: Any) -> None:
    client = app.test_client()
    key = start_evening(client, players=("Ann", "Bob", "Cat"))  # 3 players × 2 = 6 hands
    for number in range(1, 5):
        assert _quick(client, key, number, number % 3, "three", 3).status_code == 302
    refused = client.post(f"/e/{key}/settings", data={"name": "x", "revision": "4", "opt_hands_per_dealer": "1"})
    assert refused.status_code == 422 and "ended before hand 4" in refused.get_data(as_text=True)
    assert _evening(app, key).options["hands_per_dealer"] == 2
    viewer = app.test_client().post(f"/e/{key}/settings", data={"revision": "4", "opt_hands_per_dealer": "3"})
    assert viewer.status_code == 302 and _evening(app, key).options["hands_per_dealer"] == 2


def test_a_refused_setting_is_explained_in_the_phones_language(app: Any) -> None:
    client = app.test_client()
    key = start_evening(client, "hoyle")
    # Peep Nap without the pool: the engine refuses the set-up (H-18)
    refused = client.post(f"/e/{key}/settings", headers={"Accept-Language": "ru"}, data={
        "name": "x", "revision": "0", "opt_lowest_bid": "1", "opt_wellington_blucher": "y", "opt_all_pass": "redeal",
        "opt_widow": "peep"})
    page = refused.get_data(as_text=True)
    assert refused.status_code == 422
    assert "Пип-Нап играют с банком: включите банк. (H-18)" in page
    assert "Peep Nap is played with a pool" not in page
    assert _evening(app, key).options["widow"] != "peep"


def test_an_override_sent_twice_is_saved_once(app: Any) -> None:
    client = app.test_client()
    key = start_evening(client)
    assert _quick(client, key, 1, 1, "three", 3).status_code == 302  # Bob +9, others −3
    page = client.get(f"/e/{key}/hand/1").get_data(as_text=True)
    token = re.search(r'name="token" type="hidden" value="([^"]+)"', page)
    assert token is not None
    form = {"version": "1", "hand_id": hand_id(app, key, 1), "token": token.group(1), "units_0": "-2", "units_1": "6",
            "units_2": "-2", "units_3": "-2", "reason": "Agreed: Bob misdealt the first trick"}
    assert client.post(f"/e/{key}/hand/1/override", data=form).status_code == 302
    assert client.post(f"/e/{key}/hand/1/override", data=form).status_code == 302
    with app.app_context():
        evening = units.get_evening(key)
        assert evening is not None
        assert [v.version for v in evening.hands[0].versions] == [1, 2]
        assert evenings.ledger_of(evening).totals == (-2, 6, -2, -2)
    assert "already saved" in client.get(f"/e/{key}/hand/1").get_data(as_text=True)


@pytest.mark.parametrize("path", ["/e/%00", "/e/%00/hand", "/e/%00/quick", "/e/%00/join", "/e/%00/chart.svg",
                                  "/e/%00/evening.pdf", "/e/%00/evening.json", "/e/%00/revision", "/g/%00",
                                  "/e/a%20b", "/e/" + "x" * 40])
def test_keys_that_cannot_be_keys_are_404_on_both_databases(any_db_app: Any, path: str) -> None:
    assert any_db_app.test_client().get(path).status_code == 404


def test_the_csv_keeps_every_name_column_from_being_read_as_a_formula(app: Any) -> None:
    import csv
    import io

    client = app.test_client()
    key = start_evening(client, players=('=HYPERLINK("http://e.vil","x")', "+cmd", "@sum", "-1"))
    assert _quick(client, key, 1, 1, "three", 3).status_code == 302  # dealer "=HYPERLINK…", declarer "+cmd"
    rows = list(csv.DictReader(io.StringIO(client.get(f"/e/{key}/ledger.csv").get_data(as_text=True))))
    assert len(rows) == 4
    for row in rows:
        for column in ("dealer", "declarer", "player"):
            assert row[column][:1] not in ("=", "+", "-", "@"), (column, row[column])
    assert rows[0]["dealer"] == "'=HYPERLINK(\"http://e.vil\",\"x\")" and rows[0]["declarer"] == "'+cmd"
    assert [int(r["units"]) for r in rows] == [-3, 9, -3, -3]  # "+cmd" made Three: 3 from each of 3 (P-9)


def test_two_phones_of_one_make_have_different_names_in_the_history(app: Any) -> None:
    iphone = {"User-Agent": "Mozilla/5.0 (iPhone; CPU iPhone OS 18_0 like Mac OS X)"}
    first, second = app.test_client(), app.test_client()
    key = start_evening(first)
    evening = _evening(app, key)
    second.get(f"/e/{key}/scorer/{evening.edit_key}")
    first.post(f"/e/{key}/quick", headers=iphone, data={"number": "1", "declarer": "1", "contract": "three",
                                                          "tricks": "3"})
    second.post(f"/e/{key}/quick", headers=iphone, data={"number": "2", "declarer": "2", "contract": "three",
                                                           "tricks": "3"})
    with app.app_context():
        devices = db.session.scalars(sa.select(Change.device).where(Change.kind == "new").order_by(Change.id)).all()
    assert len(devices) == 2 and all(re.fullmatch(r"Safari, iPhone \([0-9a-f]{3}\)", d) for d in devices)
    if devices[0] == devices[1]:
        pytest.skip("the two random tags matched (1 in 4096)")


def test_a_correction_of_a_hand_undone_meanwhile_is_refused_clearly(app: Any) -> None:
    client = app.test_client()
    key = start_evening(client)
    assert _quick(client, key, 1, 1, "three", 3).status_code == 302
    assert _quick(client, key, 2, 2, "three", 3).status_code == 302
    second = hand_id(app, key, 2)
    assert client.post(f"/e/{key}/undo", data={"number": "2", "version": "1", "hand_id": second}).status_code == 302
    # a phone still showing hand 2's edit form saves it
    response = client.post(f"/e/{key}/hand/2/edit", data={"number": "2", "version": "1", "hand_id": second,
                                                            "dealer": "1",
                                                            "call_3": "four", "tricks": "4", "save": "1"})
    assert response.status_code == 302
    page = client.get(response.headers["Location"], follow_redirects=True).get_data(as_text=True)
    assert "There is no hand 2 now" in page
    assert _hand_count(app, key) == 1
    # and when the undo lands between the page's check and the save (a race), the save refuses it too
    from scorer.rules import HandFacts

    with app.test_request_context(f"/e/{key}/hand/2/edit", method="POST"):
        evening = units.get_evening(key)
        assert evening is not None
        with pytest.raises(errors.HandConflict, match="no longer in play"):
            hand_writes.correct_hand(evening, 2, 1, HandFacts(1, ("pass", "pass", "four", "pass"), 4))
    assert _hand_count(app, key) == 1


def test_the_share_pages_remove_button_is_not_the_card_games_revoke(app: Any) -> None:
    """The Share page's button that takes the scorer's role from a phone has words of its
    own: it shared the catalog entry "Revoke" with the claim (not following suit), so a
    Russian table read «Ренонс» on it, Norwegian "Renons", Portuguese "Renúncia"."""
    creator, other = app.test_client(), app.test_client()
    key = start_evening(creator)
    assert other.post(f"/e/{key}/join", data={"pin": _evening(app, key).pin}).status_code == 302
    for lang, words in (("ru", "Лишить права записи"), ("nb", "Fjern som poengfører"),
                        ("pt_BR", "Remover como marcador"), ("en", "Remove as scorer")):
        page = creator.get(f"/e/{key}/share", headers={"Accept-Language": lang.replace("_", "-")})
        html = page.get_data(as_text=True)
        assert words in html, lang
        assert ">Ренонс<" not in html and ">Renons<" not in html and ">Renúncia<" not in html
