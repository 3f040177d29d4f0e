"""Money after the night (issue 22 item 7): payments marked paid by a scorer or either party's
phone, undone without losing anything, kept through a correction as "was paid", the open ones
on the group page, the result card and the JSON commands; on SQLite and PostgreSQL."""

from __future__ import annotations

import json
import re
import threading
from typing import Any

import sqlalchemy as sa

from scorer.storage.models import Change, Evening, PaidTransfer, db
from webhelpers import post_hand, start_evening

NAMES = ("Ann", "Bob", "Cy", "Di")


def _money_evening(client: Any, finish: bool = True) -> str:
    """tests/test_transfers.py's evening through the forms: pagat at 10p a unit. Hand 1 (Ann
    deals) Bob makes Four; hand 2 (Bob deals) Cy makes Four; hand 3 (Cy deals) Di bids Three and
    takes 2; hand 4 (Di deals) Ann makes Nap. Totals Ann +£1.00, Bob +£0.60, Cy +£0.60, Di
    −£2.20: Di pays Ann £1.00 (hands 3 and 4), Bob £0.60 (hands 1 and 4), Cy £0.60 (hands 2, 4)."""
    key = start_evening(client, players=NAMES, scoring="money", stake="0.10", currency="£")
    for number, dealer, bid, tricks in ((1, 0, "four", 4), (2, 1, "four", 4), (3, 2, "three", 2), (4, 3, "nap", 5)):
        eldest = (dealer + 1) % 4
        assert post_hand(client, key, number, dealer, {eldest: bid}, tricks).status_code == 302
    if finish:
        assert client.post(f"/e/{key}/finish").status_code == 302
    return key


DI_ANN = {"payer": "Di", "payee": "Ann", "amount": 100}


def _post(client: Any, url: str, body: Any) -> Any:
    return client.post(url, data=json.dumps(body), content_type="application/json")


def _marks(app: Any) -> list[tuple[int, int, int, bool]]:
    with app.app_context():
        return [(m.payer, m.payee, m.amount, m.undone_at is None)
                for m in db.session.scalars(sa.select(PaidTransfer).order_by(PaidTransfer.id))]


def _edit_key(app: Any, key: str) -> str:
    with app.app_context():
        return db.session.scalar(sa.select(Evening.edit_key).where(Evening.key == key)) or ""


def test_each_payment_explains_itself_and_a_scorer_marks_it_paid_and_back(any_db_app: Any) -> None:
    app, client = any_db_app, any_db_app.test_client()
    key = _money_evening(client)
    sheet = client.get(f"/e/{key}").get_data(as_text=True)
    assert ("<strong><bdi>Di</bdi></strong> pays <strong><bdi>Ann</bdi></strong> £1.00"
            '<span class="why">: hands 3 and 4') in sheet
    assert "pays <strong><bdi>Bob</bdi></strong> £0.60<span class=\"why\">: hands 1 and 4</span>" in sheet
    assert "Payments: 3 open" in sheet
    listed = client.get(f"/api/e/{key}/transfers").get_json()
    assert [(t["payer"], t["payee"], t["amount"], t["text"]) for t in listed["transfers"]] == [
        ("Di", "Ann", 100, "Di pays Ann £1.00: hands 3 and 4"), ("Di", "Bob", 60, "Di pays Bob £0.60: hands 1 and 4"),
        ("Di", "Cy", 60, "Di pays Cy £0.60: hands 2 and 4")]
    assert listed["transfers"][0]["hands"] == [{"hand": 3, "amount": 90, "lost": 90},
                                               {"hand": 4, "amount": 10, "lost": 50}]
    assert listed["open"] == 3
    page = client.get(f"/e/{key}/payments").get_data(as_text=True)
    assert "hand 4: £0.10 of the £0.50 Di lost" in page
    answer = _post(client, f"/api/e/{key}/transfers/paid", {"payer": "Di", "payee": "Ann", "amount": 100})
    assert answer.status_code == 201, answer.get_data(as_text=True)
    assert answer.get_json()["open"] == 2 and answer.get_json()["transfers"][0]["paid"]["by"]
    # twice: refused, nothing changed
    again = _post(client, f"/api/e/{key}/transfers/paid", {"payer": "Di", "payee": "Ann", "amount": 100})
    assert again.status_code == 422 and "already marked paid" in again.get_json()["error"]["message"]
    assert _marks(app) == [(3, 0, 100, True)]
    sheet = client.get(f"/e/{key}").get_data(as_text=True)
    assert '<li class="paid"><strong><bdi>Di</bdi></strong> pays <strong><bdi>Ann</bdi></strong>' in sheet
    assert "Payments: 2 open" in sheet
    # undo: the mark stays, taken back; the history keeps both
    assert _post(client, f"/api/e/{key}/transfers/unpaid", DI_ANN).status_code == 200
    assert _marks(app) == [(3, 0, 100, False)]
    twice = _post(client, f"/api/e/{key}/transfers/unpaid", {"payer": "Di", "payee": "Ann", "amount": 100})
    assert twice.status_code == 422 and "not marked paid" in twice.get_json()["error"]["message"]
    history = client.get(f"/e/{key}/history").get_data(as_text=True)
    assert "Payment marked paid" in history and "Payment mark taken back" in history
    assert history.count("<bdi>Di</bdi> pays <bdi>Ann</bdi> £1.00") == 2
    # the form marks it again (a new row: the old one stays)
    assert client.post(f"/e/{key}/payments/mark", data={"payer": "3", "payee": "0", "amount": "100"}).status_code == 302
    assert _marks(app) == [(3, 0, 100, False), (3, 0, 100, True)]
    with app.app_context():
        assert [c.kind for c in db.session.scalars(sa.select(Change).where(Change.kind.in_(("paid", "unpaid")))
                                                   .order_by(Change.id))] == ["paid", "unpaid", "paid"]


def test_bad_marks_are_refused_and_change_nothing(any_db_app: Any) -> None:
    app, client = any_db_app, any_db_app.test_client()
    key = _money_evening(client)
    for body, status, words in (
            ({"payer": "Di", "payee": "Ann", "amount": 99}, 422, "no such payment"),  # no such amount
            ({"payer": "Ann", "payee": "Di", "amount": 100}, 422, "no such payment"),  # the wrong way
            ({"payer": "Zed", "payee": "Ann", "amount": 100}, 422, "name of a player"),
            ({"payer": "Di", "payee": "Ann", "amount": "100"}, 422, "whole number")):
        answer = _post(client, f"/api/e/{key}/transfers/paid", body)
        assert answer.status_code == status and words in answer.get_json()["error"]["message"], answer.get_json()
    assert _marks(app) == []
    # a viewer with no role: 403, nothing changed
    viewer = app.test_client()
    answer = _post(viewer, f"/api/e/{key}/transfers/paid", {"payer": "Di", "payee": "Ann", "amount": 100})
    assert answer.status_code == 403 and "own link" in answer.get_json()["error"]["message"]
    assert viewer.get(f"/api/e/{key}/transfers").status_code == 200  # reading is for anyone with the link
    # a points evening; an evening not over yet
    points = start_evening(client, players=NAMES)
    post_hand(client, points, 1, 0, {1: "four"}, 4)
    client.post(f"/e/{points}/finish")
    answer = _post(client, f"/api/e/{points}/transfers/paid", {"payer": "Ann", "payee": "Bob", "amount": 1})
    assert answer.status_code == 422 and "not played for money" in answer.get_json()["error"]["message"]
    assert client.get(f"/api/e/{points}/transfers").status_code == 422
    running = _money_evening(client, finish=False)
    answer = _post(client, f"/api/e/{running}/transfers/paid", {"payer": "Di", "payee": "Ann", "amount": 100})
    assert answer.status_code == 422 and "finish it first" in answer.get_json()["error"]["message"]
    assert _marks(app) == []


def test_either_partys_phone_marks_its_own_payments_only(any_db_app: Any) -> None:
    app, client = any_db_app, any_db_app.test_client()
    key = _money_evening(client)
    page = client.get(f"/e/{key}/payments").get_data(as_text=True)
    found = re.findall(r'value="http://localhost(/e/[^"]+/player/[^"]+)"', page)
    links = dict(zip(NAMES, found, strict=True))
    bob = app.test_client()
    assert bob.get(links["Bob"]).status_code == 302
    # Bob's phone: his own payment (he is paid) yes, Ann's no
    assert _post(bob, f"/api/e/{key}/transfers/paid", {"payer": "Di", "payee": "Bob", "amount": 60}).status_code == 201
    answer = _post(bob, f"/api/e/{key}/transfers/paid", {"payer": "Di", "payee": "Ann", "amount": 100})
    assert answer.status_code == 403 and answer.get_json()["error"]["rule"] == "party"
    # a forged link is a 404 and grants nothing
    assert app.test_client().get(links["Bob"][:-2] + "xx").status_code == 404
    # Di's phone (the payer) takes Bob's mark back
    di = app.test_client()
    di.get(links["Di"])
    assert _post(di, f"/api/e/{key}/transfers/unpaid", {"payer": "Di", "payee": "Bob", "amount": 60}).status_code == 200
    assert _marks(app) == [(3, 1, 60, False)]
    # new credentials make every player's link new: Bob's phone can no longer mark
    with app.app_context():
        db.session.execute(sa.update(Evening).where(Evening.key == key).values(
            access_generation=Evening.access_generation + 1))
        db.session.commit()
    assert _post(bob, f"/api/e/{key}/transfers/paid", {"payer": "Di", "payee": "Bob", "amount": 60}).status_code == 403


def test_a_correction_keeps_the_mark_as_was_paid(any_db_app: Any) -> None:
    client = any_db_app.test_client()
    key = _money_evening(client)
    assert _post(client, f"/api/e/{key}/transfers/paid", DI_ANN).status_code == 201
    assert client.post(f"/e/{key}/reopen").status_code == 302
    # hand 4 corrected: Ann's Nap fails (4 tricks): Ann −5 to each... the settle-up changes
    state = client.get(f"/api/e/{key}").get_json()
    hand = state["hands"][3]
    facts = {**hand["facts"], "tricks": 4}
    assert _post(client, f"/api/e/{key}/hands/{hand['id']}/versions",
                 {"version": hand["version"], "facts": facts, "token": "fix-4"}).status_code == 201
    client.post(f"/e/{key}/finish")
    listed = client.get(f"/api/e/{key}/transfers").get_json()
    assert ("Di", "Ann", 100) not in [(t["payer"], t["payee"], t["amount"]) for t in listed["transfers"]]
    assert [(w["payer"], w["payee"], w["amount"]) for w in listed["was_paid"]] == [("Di", "Ann", 100)]
    page = client.get(f"/e/{key}/payments").get_data(as_text=True)
    assert "was paid: <bdi>Di</bdi> → <bdi>Ann</bdi> £1.00" in page
    sheet = client.get(f"/e/{key}").get_data(as_text=True)
    assert "1 payment marked paid before a correction changed the settle-up" in sheet
    # it can be taken back
    assert _post(client, f"/api/e/{key}/transfers/unpaid", DI_ANN).status_code == 200
    assert client.get(f"/api/e/{key}/transfers").get_json()["was_paid"] == []


def test_two_phones_marking_at_once_record_it_once(any_db_app: Any) -> None:
    app, client = any_db_app, any_db_app.test_client()
    key = _money_evening(client)
    second = app.test_client()
    assert second.get(f"/e/{key}/scorer/{_edit_key(app, key)}").status_code == 302
    answers: list[int] = []
    start = threading.Barrier(2)

    def mark(phone: Any) -> None:
        start.wait()
        answers.append(_post(phone, f"/api/e/{key}/transfers/paid",
                             {"payer": "Di", "payee": "Cy", "amount": 60}).status_code)

    threads = [threading.Thread(target=mark, args=(p,)) for p in (client, second)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert sorted(answers) in ([201, 409], [201, 422])
    assert _marks(app) == [(3, 2, 60, True)]


def test_the_group_page_lists_the_open_payments(any_db_app: Any) -> None:
    client = any_db_app.test_client()
    key = _money_evening(client)
    created = client.post("/groups/new", data={"name": "Thursday", "token": "t-1"})
    group = created.headers["Location"].rsplit("/", 1)[-1]
    assert client.post(f"/g/{group}/add", data={"link": key}).status_code == 302
    page = client.get(f"/g/{group}").get_data(as_text=True)
    assert page.count('class="open-payment"') == 3
    assert "<bdi>Di</bdi> pays <bdi>Ann</bdi> £1.00" in page
    _post(client, f"/api/e/{key}/transfers/paid", {"payer": "Di", "payee": "Ann", "amount": 100})
    page = client.get(f"/g/{group}").get_data(as_text=True)
    assert page.count('class="open-payment"') == 2 and "pays <bdi>Ann</bdi>" not in page


def test_the_result_card_is_a_png_and_text(app: Any, client: Any) -> None:
    key = _money_evening(client)
    _post(client, f"/api/e/{key}/transfers/paid", {"payer": "Di", "payee": "Ann", "amount": 100})
    png = client.get(f"/e/{key}/card.png")
    assert png.status_code == 200 and png.mimetype == "image/png" and png.data[:8] == b"\x89PNG\r\n\x1a\n"
    from io import BytesIO

    from PIL import Image

    image = Image.open(BytesIO(png.data))
    assert image.width == 1080 and image.height > 600
    text = client.get(f"/e/{key}/card.txt").get_data(as_text=True)
    lines = text.splitlines()
    assert lines[2:7] == ["Standings", "Ann: +£1.00", "Bob: +£0.60", "Cy: +£0.60", "Di: −£2.20"]
    assert lines[8:] == ["Settle-up", "✓ Di pays Ann £1.00: hands 3 and 4", "Di pays Bob £0.60: hands 1 and 4",
                         "Di pays Cy £0.60: hands 2 and 4"]
    page = client.get(f"/e/{key}/payments").get_data(as_text=True)
    assert "✓ Di pays Ann £1.00: hands 3 and 4" in page  # the text fallback, in its textarea


def test_the_payment_routes_declare_their_permissions(app: Any) -> None:
    from scorer.web.permissions import permission_of

    level = {r.endpoint: permission_of(app.view_functions[r.endpoint])[0]  # type: ignore[index]
             for r in app.url_map.iter_rules() if r.endpoint.startswith(("payments.", "api_payments."))}
    assert level == {"payments.page": "view", "payments.player_link": "view", "payments.card": "view",
                     "payments.card_txt": "view", "payments.mark": "pay", "api_payments.transfers": "view",
                     "api_payments.mark_paid": "pay", "api_payments.mark_unpaid": "pay"}


def test_the_explanation_in_russian(app: Any, client: Any) -> None:
    key = _money_evening(client)
    text = client.get(f"/e/{key}/card.txt", headers={"Accept-Language": "ru"}).get_data(as_text=True)
    # "сдачи 3 и 4": Babel's list for Russian, the plural of "hand" for more than one
    assert "Di платит Ann 1,00\u00a0£: сдачи 3 и 4" in text.splitlines()
