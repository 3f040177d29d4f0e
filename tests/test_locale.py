"""Issue 13, items 5, 6, 7 and 13: numbers as the phone's language writes them, a typed
stake, the table's time zone, and forms that create posted twice.

Fixtures use made-up names (Ilka, Oskar, Runa, Tove)."""

from __future__ import annotations

import io
import json
import re
from datetime import UTC, datetime
from decimal import Decimal
from pathlib import Path

import pytest
import sqlalchemy as sa

from scorer.evening import zones
from scorer.storage.models import Change, Evening, Group, Hand, HandVersion, Submission, db
from scorer.web.i18n import parse_number_text
from tests.webhelpers import post_hand, start_evening

ROOT = Path(__file__).resolve().parent.parent
PLAYERS = ("Ilka", "Oskar", "Runa", "Tove")


def _form(**fields: str) -> dict[str, str]:
    data = {f"players-{i}": name for i, name in enumerate(PLAYERS)}
    data.update({"first_dealer": "0", "opt_hands_per_dealer": "2", "scoring": "money", "currency": "NOK"})
    data.update(fields)
    return data


def _evenings(app) -> list[Evening]:  # type: ignore[no-untyped-def]
    with app.app_context():
        return list(db.session.scalars(sa.select(Evening).order_by(Evening.id)))


def _hidden(html: str, name: str) -> str:
    match = re.search(rf'name="{name}"[^>]*value="([^"]*)"', html) or re.search(
        rf'value="([^"]*)"[^>]*name="{name}"', html)
    return match.group(1) if match else ""


# ------------------------------------------------------------------ item 5: decimal comma
@pytest.mark.parametrize(("locale", "typed", "value"), [
    ("nb", "0,50", "0.50"), ("ru", "0,50", "0.50"), ("pt_BR", "0,50", "0.50"),
    ("ru", "0.50", "0.50"),          # a dot cannot be grouping in Russian: accepted
    ("pt_BR", "0.50", "0.50"),       # nor with two digits after it in Portuguese
    ("pt_BR", "1.000", "1000"),      # three digits after it: Portuguese grouping
    ("ru", "1 000,5", "1000.5"),     # a typed space for the no-break space
    ("nb", "−3", "-3"),              # the minus sign the app prints
    ("en", "1,000", "1000"), ("en", "0.5", "0.5"),
])
def test_numbers_are_read_as_the_language_writes_them(locale: str, typed: str, value: str) -> None:
    assert parse_number_text(typed, locale) == Decimal(value)


@pytest.mark.parametrize(("locale", "typed"), [("en", "0,5,0"), ("ru", "1,2,3"), ("nb", "abc"), ("pt_BR", "1 000"),
                                               ("en", "٢")])
def test_numbers_that_mean_nothing_in_the_language_are_refused(locale: str, typed: str) -> None:
    with pytest.raises(ValueError):
        parse_number_text(typed, locale)


@pytest.mark.parametrize(("lang", "stake", "minor"), [("nb", "0,50", 50), ("ru", "1,5", 150), ("pt_BR", "0.25", 25),
                                                      ("pt_BR", "2,00", 200), ("en", "0.10", 10)])
def test_a_stake_typed_with_the_languages_separator_starts_a_money_evening(app, lang: str, stake: str,
                                                                          minor: int) -> None:
    client = app.test_client()
    client.set_cookie("lang", lang)
    response = client.post("/new/pagat", data=_form(stake=stake))
    assert response.status_code == 302, response.get_data(as_text=True)
    [evening] = _evenings(app)
    assert (evening.stake_minor, evening.currency) == (minor, "NOK")


def test_a_comma_in_english_that_means_nothing_is_refused_with_the_example_and_nothing_saved(app) -> None:
    # issue 25 item 14: "0,50" on an English phone is now half a krone (tests/test_currency.py);
    # two commas are no number in any reading
    response = app.test_client().post("/new/pagat", data=_form(stake="0,5,0"))
    assert response.status_code == 422
    assert "The stake must be a number such as 0.10." in response.get_data(as_text=True)
    assert _evenings(app) == []


def test_the_stake_field_offers_the_languages_separator(app) -> None:
    client = app.test_client()
    client.set_cookie("lang", "nb")
    html = client.get("/new/pagat").get_data(as_text=True)
    field = re.search(r'<input[^>]*name="stake"[^>]*>', html).group(0)
    assert 'inputmode="decimal"' in field and 'lang="nb"' in field and 'placeholder="0,10"' in field
    error = client.post("/new/pagat", data=_form(stake="ti øre")).get_data(as_text=True)
    assert "0,10" in error and "0.10" not in error


def test_whole_numbers_typed_in_an_option_follow_the_language(app) -> None:
    """pagat's hands per dealer typed as "2" and "−0" style input: "2,0" is no whole
    number in Norwegian (two point nought is refused, nothing saved)."""
    client = app.test_client()
    client.set_cookie("lang", "nb")
    response = client.post("/new/pagat", data=_form(stake="0,10", opt_hands_per_dealer="2,5"))
    assert response.status_code == 422 and _evenings(app) == []
    response = client.post("/new/pagat", data=_form(stake="0,10", opt_hands_per_dealer=" 3 "))
    assert response.status_code == 302
    assert _evenings(app)[0].options["hands_per_dealer"] == 3


# ------------------------------------------------------------------ item 6: a typed stake
def test_a_stake_typed_while_points_only_is_chosen_is_asked_about(app) -> None:
    response = app.test_client().post("/new/pagat", data=_form(scoring="points", stake="0.10"))
    assert response.status_code == 422
    assert "You typed a stake but “Points only” is chosen" in response.get_data(as_text=True)
    assert _evenings(app) == []


def test_typing_a_stake_ticks_money_in_the_page(app) -> None:
    """static/stake.js ticks the radio the stake field names (``data-money``): that radio is Money."""
    html = app.test_client().get("/new/pagat").get_data(as_text=True)
    target = re.search(r'name="stake"[^>]*data-money="([^"]+)"|data-money="([^"]+)"[^>]*name="stake"', html)
    radio_id = target.group(1) or target.group(2)
    assert re.search(rf'id="{radio_id}"[^>]*value="money"|value="money"[^>]*id="{radio_id}"', html)
    assert re.search(r"/static/stake\.[0-9a-f]{12}\.js", html)  # under its content-hashed name
    script = (ROOT / "static" / "stake.js").read_text()
    assert "data-money" in script and "checked = true" in script


# ------------------------------------------------------------------ item 7: time zones
class _Clock(datetime):
    """``datetime.now`` at 2026-11-30 01:30 UTC: 22:30 on 29 November in São Paulo (UTC−3)."""

    @classmethod
    def now(cls, tz=None):  # type: ignore[no-untyped-def,override]
        moment = datetime(2026, 11, 30, 1, 30, tzinfo=UTC)
        return moment.astimezone(tz) if tz else moment.replace(tzinfo=None)


def test_an_evening_started_at_2230_in_sao_paulo_is_dated_that_day(app, monkeypatch) -> None:
    monkeypatch.setattr(zones, "datetime", _Clock)
    client = app.test_client()
    key = start_evening(client, players=PLAYERS, time_zone="America/Sao_Paulo")
    [evening] = _evenings(app)
    assert (evening.time_zone, evening.played_on.isoformat(), evening.name) == (
        "America/Sao_Paulo", "2026-11-29", "Nap 2026-11-29")
    export = client.get(f"/e/{key}/evening.json").get_json()
    assert export["date"] == "2026-11-29"
    assert "2026-11-29" in client.get("/").get_data(as_text=True)
    # without a zone (no JavaScript), or a made-up one, the table is kept in UTC: 30 November
    start_evening(client, players=PLAYERS, time_zone="Mars/Olympus")
    assert (_evenings(app)[1].time_zone, _evenings(app)[1].played_on.isoformat()) == ("", "2026-11-30")


def test_the_history_shows_the_tables_time_labelled(app) -> None:
    client = app.test_client()
    key = start_evening(client, players=PLAYERS, time_zone="America/Sao_Paulo")
    assert post_hand(client, key, 1, 0, {1: "three"}, tricks=3).status_code == 302
    with app.app_context():  # the hand was recorded at 01:30 UTC on 30 November
        db.session.execute(sa.update(Change).values(at=datetime(2026, 11, 30, 1, 30, tzinfo=UTC)))
        db.session.commit()
    html = client.get(f"/e/{key}/history").get_data(as_text=True)
    assert "2026-11-29 22:30" in html and "America/Sao_Paulo" in html and "UTC" not in html.split("<ol")[1]
    client.set_cookie("lang", "ru")
    html = client.get(f"/e/{key}/history").get_data(as_text=True)
    assert "29.11.2026, 22:30" in html and "Сан-Паулу" in html


def test_the_hour_that_happens_twice_carries_its_offset() -> None:
    """Issue 25 item 15: in Oslo summer time ends on 25 October 2026 at 01:00 UTC, when
    03:00 CEST becomes 02:00 CET, so 02:00–02:59 happens twice that night."""
    oslo = "Europe/Oslo"
    last_summer = zones.in_zone(datetime(2026, 10, 25, 0, 59, tzinfo=UTC), oslo)  # 02:59 UTC+2
    first_winter = zones.in_zone(datetime(2026, 10, 25, 1, 0, tzinfo=UTC), oslo)  # 02:00 UTC+1
    after = zones.in_zone(datetime(2026, 10, 25, 2, 0, tzinfo=UTC), oslo)  # 03:00 UTC+1, once only
    before = zones.in_zone(datetime(2026, 10, 24, 23, 59, tzinfo=UTC), oslo)  # 01:59 UTC+2, once only
    spring = zones.in_zone(datetime(2026, 3, 29, 1, 0, tzinfo=UTC), oslo)  # 03:00: 02:xx never happened
    assert [zones.repeated(t) for t in (last_summer, first_winter, after, before, spring)] == [
        True, True, False, False, False]
    assert (zones.offset_label(last_summer), zones.offset_label(first_winter)) == ("UTC+2", "UTC+1")
    sao_paulo = zones.in_zone(datetime(2026, 11, 30, 1, 30, tzinfo=UTC), "America/Sao_Paulo")
    kolkata = zones.in_zone(datetime(2026, 11, 30, 1, 30, tzinfo=UTC), "Asia/Kolkata")
    assert (zones.offset_label(sao_paulo), zones.offset_label(kolkata)) == ("UTC\u22123", "UTC+5:30")
    assert zones.offset_label(datetime(2026, 1, 1, tzinfo=UTC)) == "UTC"


def test_the_history_across_the_end_of_summer_time_reads_in_order(app) -> None:
    """Issue 25 item 15: two hands saved a minute apart across the change of the clocks read
    "02:59 UTC+2" then "02:00 UTC+1", in every language; a time outside that hour has no offset."""
    client = app.test_client()
    key = start_evening(client, players=PLAYERS, time_zone="Europe/Oslo")
    assert post_hand(client, key, 1, 0, {1: "three"}, tricks=3).status_code == 302
    assert post_hand(client, key, 2, 1, {2: "three"}, tricks=3).status_code == 302
    with app.app_context():
        ids = list(db.session.scalars(sa.select(Change.id).where(Change.kind != "start").order_by(Change.id)))
        assert len(ids) >= 2
        times = [datetime(2026, 10, 25, 0, 59, tzinfo=UTC), datetime(2026, 10, 25, 1, 0, tzinfo=UTC)]
        db.session.execute(sa.update(Change).values(at=datetime(2026, 10, 25, 2, 30, tzinfo=UTC)))
        for change_id, at in zip(ids[-2:], times, strict=True):
            db.session.execute(sa.update(Change).where(Change.id == change_id).values(at=at))
        db.session.commit()
    expected = {"en": ("2026-10-25 02:59\u00a0UTC+2", "2026-10-25 02:00\u00a0UTC+1", "2026-10-25 03:30<"),
                "ru": ("25.10.2026, 02:59\u00a0UTC+2", "25.10.2026, 02:00\u00a0UTC+1", "25.10.2026, 03:30<"),
                "nb": ("25.10.2026, 02:59\u00a0UTC+2", "25.10.2026, 02:00\u00a0UTC+1", "25.10.2026, 03:30<"),
                "pt_BR": ("25/10/2026 02:59\u00a0UTC+2", "25/10/2026 02:00\u00a0UTC+1", "25/10/2026 03:30<")}
    for lang, (first, second, plain) in expected.items():
        client.set_cookie("lang", lang)
        html = client.get(f"/e/{key}/history").get_data(as_text=True)
        history = html.split("<ol")[1]
        assert first in history and second in history and plain in history, lang
        assert history.index(second) < history.index(first), lang  # the newest first


def test_an_evening_without_a_zone_says_its_times_are_utc(app) -> None:
    client = app.test_client()
    key = start_evening(client, players=PLAYERS)
    html = client.get(f"/e/{key}/history").get_data(as_text=True)
    assert "Times are the table’s: UTC." in html


def test_the_tables_zone_goes_out_with_the_evening_file_and_comes_back_in(app) -> None:
    # a table in São Paulo exported and imported on a phone in Oslo keeps São Paulo's zone
    client = app.test_client()
    key = start_evening(client, players=PLAYERS, time_zone="America/Sao_Paulo")
    assert post_hand(client, key, 1, 0, {1: "three"}, tricks=3).status_code == 302
    body = client.get(f"/e/{key}/evening.json").get_data()
    assert json.loads(body)["time_zone"] == "America/Sao_Paulo"
    token = _hidden(client.get("/import").get_data(as_text=True), "token")
    answer = client.post("/import", data={"token": token, "time_zone": "Europe/Oslo",
                                          "file": (io.BytesIO(body), "e.json")}, content_type="multipart/form-data")
    assert answer.status_code == 302
    assert [e.time_zone for e in _evenings(app)] == ["America/Sao_Paulo", "America/Sao_Paulo"]
    # a file without one takes the importing phone's, as before
    plain = json.dumps({k: v for k, v in json.loads(body).items() if k != "time_zone"}).encode()
    token = _hidden(client.get("/import").get_data(as_text=True), "token")
    client.post("/import", data={"token": token, "time_zone": "Europe/Oslo", "file": (io.BytesIO(plain), "e.json")},
                content_type="multipart/form-data")
    assert _evenings(app)[2].time_zone == "Europe/Oslo"


# ------------------------------------------------------------------ item 13: posted twice
def test_starting_an_evening_posted_twice_starts_one(any_db_app) -> None:
    client = any_db_app.test_client()
    token = _hidden(client.get("/new/pagat").get_data(as_text=True), "token")
    assert len(token) == 22
    first = client.post("/new/pagat", data=_form(stake="0.10", token=token))
    second = client.post("/new/pagat", data=_form(stake="0.10", token=token))
    assert first.status_code == 302 and second.status_code == 303
    assert first.headers["Location"] == second.headers["Location"]  # the same evening's scoresheet
    assert len(_evenings(any_db_app)) == 1
    page = client.get(second.headers["Location"]).get_data(as_text=True)
    assert "This form was already sent (it was sent twice); nothing was made again." in page


def test_importing_a_file_posted_twice_imports_it_once(any_db_app) -> None:
    client = any_db_app.test_client()
    token = _hidden(client.get("/import").get_data(as_text=True), "token")
    body = (ROOT / "examples" / "pagat-thursday.json").read_bytes()
    answers = [client.post("/import", data={"token": token, "file": (io.BytesIO(body), "e.json")},
                           content_type="multipart/form-data") for _ in range(2)]
    assert [a.status_code for a in answers] == [302, 303]
    assert answers[0].headers["Location"] == answers[1].headers["Location"]
    assert len(_evenings(any_db_app)) == 1


def test_starting_a_group_posted_twice_starts_one(any_db_app) -> None:
    client = any_db_app.test_client()
    token = _hidden(client.get("/groups/new").get_data(as_text=True), "token")
    answers = [client.post("/groups/new", data={"name": "Torsdagsklubben", "token": token}) for _ in range(2)]
    assert [a.status_code for a in answers] == [302, 303]
    assert answers[0].headers["Location"] == answers[1].headers["Location"]
    with any_db_app.app_context():
        assert db.session.scalar(sa.select(sa.func.count()).select_from(Group)) == 1
        assert db.session.scalar(sa.select(Submission.command).where(Submission.token == token)) == "group"


def test_a_creating_token_is_not_taken_for_another_form(app) -> None:
    client = app.test_client()
    token = _hidden(client.get("/groups/new").get_data(as_text=True), "token")
    assert client.post("/groups/new", data={"name": "Klubben", "token": token}).status_code == 302
    response = client.post("/new/pagat", data=_form(stake="0.10", token=token))
    assert response.status_code == 422 and _evenings(app) == []


def test_every_creating_or_changing_form_carries_its_token(app) -> None:
    client = app.test_client()
    key = start_evening(client, players=PLAYERS)
    for path in ("/new/pagat", "/import", "/groups/new", f"/e/{key}/hand", f"/e/{key}/quick"):
        html = client.get(path).get_data(as_text=True)
        assert len(_hidden(html, "token")) == 22, path
    assert post_hand(client, key, 1, 0, {1: "three"}, tricks=3).status_code == 302
    for path in (f"/e/{key}/hand/1/edit", f"/e/{key}/hand/1"):
        assert len(_hidden(client.get(path).get_data(as_text=True), "token")) == 22, path


def _posted_twice_at_once(app: object, path: str, fields: dict[str, str]) -> list[tuple[int, str]]:
    """``fields`` posted as a form to ``path`` twice at the same moment, over two
    connections to a real server: each answer's status and ``Location``."""
    import http.client
    import threading
    from urllib.parse import urlencode

    from tests.webhelpers import running

    body = urlencode(fields).encode()
    answers: list[tuple[int, str]] = []
    with running(app) as port:
        gate = threading.Barrier(2)

        def post() -> None:
            connection = http.client.HTTPConnection("127.0.0.1", port, timeout=60)
            gate.wait()
            connection.request("POST", path, body, {"Content-Type": "application/x-www-form-urlencoded"})
            response = connection.getresponse()
            answers.append((response.status, response.getheader("Location") or ""))
            connection.close()

        threads = [threading.Thread(target=post) for _ in range(2)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
    return answers


def test_two_posts_at_once_start_one_evening(any_db_app) -> None:
    """The same body posted twice at the same moment: the token is saved in the
    evening's transaction, so the second is rolled back and answered with the first's
    evening, whichever commits first."""
    answers = _posted_twice_at_once(any_db_app, "/new/pagat", _form(stake="0.10", token="double-tap-token-0123456"))
    assert sorted(status for status, _ in answers) == [302, 303]
    assert answers[0][1] == answers[1][1] and "/e/" in answers[0][1]
    assert len(_evenings(any_db_app)) == 1


def test_two_posts_at_once_start_one_group(any_db_app) -> None:
    """The new-group form posted twice at the same moment: the second post's token
    collides inside the command's unit of work, which is rolled back, and it is answered
    with the first's group (303), never a 500 (it was on PostgreSQL: a nested unit
    queried the failed session)."""
    answers = _posted_twice_at_once(any_db_app, "/groups/new",
                                    {"name": "Torsdagsklubben", "token": "double-tap-group-0123456"})
    assert sorted(status for status, _ in answers) == [302, 303]
    assert answers[0][1] == answers[1][1] and "/g/" in answers[0][1]
    with any_db_app.app_context():
        assert db.session.scalar(sa.select(sa.func.count()).select_from(Group)) == 1


def test_the_zone_migration_goes_down_and_up_with_data(any_db_app) -> None:
    """0012 is undone on a database holding a zoned evening, hand tokens and a group's
    token (dropped: it has no evening), and redone; the evening and its hand survive."""
    from flask_migrate import downgrade, upgrade

    from scorer.rules import HandFacts
    from scorer.storage import evening_writes, groups, units
    from scorer.storage.commands import RecordHand, execute

    with any_db_app.app_context():
        evening = evening_writes.create_evening(variant="pagat", players=list(PLAYERS[:3]), first_dealer=0, options={},
                                          stake=None, time_zone="Europe/Oslo", token="start-1")
        execute(RecordHand(evening.key, 1, HandFacts(0, ("three", "pass", "pass"), 3), "hand-1"))
        groups.create_group("Klubben", token="group-1")
        key = evening.key
        db.session.remove()
        downgrade(revision="0011_devices")
        assert db.session.scalar(sa.text("SELECT count(*) FROM submission")) == 2  # start-1 and hand-1
        db.session.remove()
        upgrade()
        db.session.remove()
        again = units.get_evening(key)
        assert again is not None and len(again.hands) == 1 and again.time_zone == ""


def test_restoring_a_version_posted_twice_restores_once(app) -> None:
    """Hand 1 saved (version 1), corrected (version 2); "Restore" version 1 posted twice
    with the page's token: one version 3, no version 4, and the second is told so."""
    client = app.test_client()
    key = start_evening(client, players=PLAYERS)
    assert post_hand(client, key, 1, 0, {1: "three"}, tricks=3).status_code == 302
    with app.app_context():
        hand_id = db.session.scalar(sa.select(Hand.id))
    edit = client.get(f"/e/{key}/hand/1/edit").get_data(as_text=True)
    corrected = {"number": "1", "version": "1", "hand_id": str(hand_id), "token": _hidden(edit, "token"),
                 "dealer": "0", "call_1": "three", "tricks": "2", "save": "1"}
    assert client.post(f"/e/{key}/hand/1/edit", data=corrected).status_code == 302
    page = client.get(f"/e/{key}/hand/1").get_data(as_text=True)
    form = re.search(r'action="/e/[^"]+/restore/1">(.*?)</form>', page).group(1)
    data = {name: value for name, value in re.findall(r'name="([a-z_]+)" value="([^"]*)"', form)}
    assert len(data["token"]) == 22 and data["base"] == "2"
    client.post(f"/e/{key}/hand/1/restore/1", data=data)
    again = client.post(f"/e/{key}/hand/1/restore/1", data=data, follow_redirects=True).get_data(as_text=True)
    assert "This form was already saved (it was sent twice); nothing was saved again." in again
    with app.app_context():
        versions = list(db.session.scalars(sa.select(HandVersion).order_by(HandVersion.version)))
        assert [v.version for v in versions] == [1, 2, 3] and versions[2].facts["tricks"] == 3
