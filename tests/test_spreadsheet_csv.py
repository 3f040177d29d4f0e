"""The score sheet for a spreadsheet: one row per hand, one column per player with the
running total, the settle-up in currency units, in the phone's language, UTF-8 with a
byte-order mark (beside the ledger CSV for programs, which is unchanged)."""

from __future__ import annotations

from typing import Any

from scorer.rules import HandFacts, Stake
from scorer.storage import evening_writes, hand_writes

BOM = b"\xef\xbb\xbf"


def test_a_russian_score_sheet_with_decimal_commas(app: Any, client: Any) -> None:
    with app.app_context():
        evening = evening_writes.create_evening(variant="pagat", players=["Фёдор", "Зоя", "=Kit"], first_dealer=0,
                                          options={"hands_per_dealer": 1}, stake=Stake(25, "RUB"), name="Дача")
        # hand 1, Фёдор deals: Зоя bids Three, takes 3: Зоя +6, Фёдор and =Kit −3 (P-12)
        hand_writes.record_hand(evening, 1, HandFacts(0, ("three", "pass", "pass"), 3))
        # hand 2, Зоя deals: =Kit bids Four, takes 2: =Kit −8, the others +4 (P-12): totals 1, 10, −11
        hand_writes.record_hand(evening, 2, HandFacts(1, ("four", "pass", "pass"), 2))
        # hand 3, =Kit deals: everyone passes (P-8); the totals stay
        hand_writes.record_hand(evening, 3, HandFacts(2, ("pass", "pass", "pass"), None))
        key = evening.key
    response = client.get(f"/e/{key}/scoresheet.csv", headers={"Accept-Language": "ru"})
    assert response.status_code == 200 and response.mimetype == "text/csv"
    assert response.headers["Content-Disposition"] == 'attachment; filename="score-sheet.csv"'
    assert response.data.startswith(BOM)
    # a decimal comma, so cells are split by ";"; a name a spreadsheet would read as a
    # formula is quoted; one unit is 0,25 RUB: 1 → 0,25, 10 → 2,50, −11 → −2,75
    assert response.data[len(BOM):].decode("utf-8") == (
        "Сдача;Сдающий;Заявка;Взятки;Результат;Фёдор;Зоя;'=Kit\r\n"
        "1;Фёдор;Зоя: Три;3;выполнена;-3;6;-3\r\n"
        "2;Зоя;'=Kit: Четыре;2;провалена;1;10;-11\r\n"
        "3;'=Kit;;;все спасовали;1;10;-11\r\n"
        "Расчёт (RUB);;;;;0,25;2,50;-2,75\r\n"
    )


def test_the_pool_has_its_column_and_its_share_in_the_settle_up(app: Any, client: Any) -> None:
    with app.app_context():
        evening = evening_writes.create_evening(variant="hoyle", players=["Ana", "Bo", "Cy"], first_dealer=0,
                                          options={"pool": True, "pool_opening": 2, "pool_top_up": 0},
                                          stake=Stake(10, "£"), name="Pool night")
        # hand 1, Ana deals: a new pool, 2 from each (6); Bo bids Nap and takes 5: +10 from each (H-11)
        # and the whole pool (H-16): Ana −12, Bo +24, Cy −12, pool 0
        hand_writes.record_hand(evening, 1, HandFacts(0, ("nap", "pass", "pass"), 5))
        # hand 2, Bo deals: a new pool, 2 from each (6); Cy bids Two and takes 1: pays 2 to each:
        # Ana ±0, Bo ±0, Cy −6: totals −12, +24, −18, pool 6
        hand_writes.record_hand(evening, 2, HandFacts(1, ("two", "pass", "pass"), 1))
        key = evening.key
    body = client.get(f"/e/{key}/scoresheet.csv").data
    assert body.startswith(BOM)
    # the pool is shared at the end (H-16, adopted): 2 each, so −10, +26, −16 at £0.10 a chip
    assert body[len(BOM):].decode("utf-8") == (
        "Hand,Dealer,Contract,Tricks,Result,Ana,Bo,Cy,Pool\r\n"
        "1,Ana,Bo: Nap,5,made,-12,24,-12,0\r\n"
        "2,Bo,Cy: Two,1,defeated,-12,24,-18,6\r\n"
        "Settle-up (£),,,,,-1.00,2.60,-1.60,0.00\r\n"
    )


def test_a_points_evening_has_no_money_row_and_the_page_offers_both_csvs(app: Any, client: Any) -> None:
    with app.app_context():
        evening = evening_writes.create_evening(variant="napoleao", players=["Rui", "Ema", "Lia"], first_dealer=0,
                                          options={}, stake=None, name="Sexta")
        # hand 1, Rui deals: Ema (the dealer's left) declares 2 and names hearts, takes 2: +2 (B-11)
        hand_writes.record_hand(evening, 1, HandFacts(0, ("two", "pass", "pass"), 2, trump="H"))
        key = evening.key
    body = client.get(f"/e/{key}/scoresheet.csv", headers={"Accept-Language": "pt-BR"}).data
    assert body[len(BOM):].decode("utf-8") == "Mão;Carteador;Contrato;Vazas;Resultado;Rui;Ema;Lia\r\n" \
                                              "1;Rui;Ema: Dois;2;cumprido;0;2;0\r\n"
    page = client.get(f"/e/{key}").get_data(as_text=True)
    assert f'href="/e/{key}/scoresheet.csv">Spreadsheet (CSV)' in page
    assert f'href="/e/{key}/ledger.csv">Ledger for programs (CSV)' in page


def test_a_player_who_joins_or_leaves_is_blank_when_away_and_each_change_has_its_line(app: Any,
                                                                                      client: Any) -> None:
    """Issue 25, item 6: the score sheet showed 0 for a player before they joined and wrote
    no line for a join or a leave."""
    from scorer.storage import seat_writes, units

    with app.app_context():
        evening = evening_writes.create_evening(variant="pagat", players=["Ann", "Bob", "Cat"], first_dealer=0,
                                                options={"hands_per_dealer": 2}, stake=None, name="Comings")
        # hand 1, Ann deals: Bob bids Three, takes 3: Bob +6, Ann and Cat −3 (P-9)
        hand_writes.record_hand(evening, 1, HandFacts(0, ("three", "pass", "pass"), 3))
        key = evening.key
    with app.app_context():
        seat_writes.change_seats(units.get_evening(key), "join", name="Dan", left_of=2)  # on Cat's left
    with app.app_context():
        # hand 2, Bob deals (Ann Bob Cat Dan): Cat bids Three, takes 3: Cat +9, the others −3 (P-9)
        hand_writes.record_hand(units.get_evening(key), 2, HandFacts(1, ("three", "pass", "pass", "pass"), 3))
    with app.app_context():
        seat_writes.change_seats(units.get_evening(key), "leave", seat=0)  # Ann goes home with −6
    with app.app_context():
        # hand 3, Cat deals (Bob Cat Dan): Dan bids Three, takes 2: Dan pays 3 to each of two (P-12)
        hand_writes.record_hand(units.get_evening(key), 3, HandFacts(2, ("three", "pass", "pass"), 2))
    body = client.get(f"/e/{key}/scoresheet.csv").data.decode("utf-8-sig")
    assert body == (
        "Hand,Dealer,Contract,Tricks,Result,Ann,Bob,Cat,Dan\r\n"
        "1,Ann,Bob: Three,3,made,-3,6,-3,\r\n"
        "\"Dan joined before hand 2, sitting on the left of Cat\",,,,,,,,\r\n"
        "2,Bob,Cat: Three,3,made,-6,3,6,-3\r\n"
        "Ann left before hand 3,,,,,,,,\r\n"
        "3,Cat,Dan: Three,2,defeated,,6,9,-9\r\n"
    )
