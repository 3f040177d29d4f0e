"""Issue 25 items 13 and 14: each currency's own minor unit (JPY none, KWD three
decimals) for input, rounding and display; a stake finer than the currency's unit refused
in words in the phone's language; ``0,50`` typed on an English phone in a comma region;
an evening file's stake refused in the phone's language.

Fixtures use made-up names (Ilka, Oskar, Runa, Tove)."""

from __future__ import annotations

import io
import json
import re
from decimal import Decimal
from typing import Any

import pytest
import sqlalchemy as sa
from babel.numbers import get_currency_precision, list_currencies

from scorer.evening.file import EveningFileError, dump, load, parse_stake
from scorer.evening.ledger import settle_evening
from scorer.evening.settle import Payment, settle_up
from scorer.reports.spreadsheet import _decimal
from scorer.rules import HandFacts, Stake
from scorer.rules.currency import MINOR_DIGITS, SYMBOLS, currency_code, format_amount, max_stake, minor_digits
from scorer.storage.models import Evening, db
from scorer.web.i18n import parse_number_text
from tests.helpers import setup
from tests.webhelpers import post_hand, start_evening

PLAYERS = ("Ilka", "Oskar", "Runa", "Tove")


# ------------------------------------------------------------------ the table of minor units
def test_the_minor_unit_table_is_babels_for_every_currency_babel_knows() -> None:
    codes = sorted(list_currencies())
    assert len(codes) > 290  # Babel 2.19 knows 307
    wrong = {c: (minor_digits(c), get_currency_precision(c)) for c in codes
             if minor_digits(c) != get_currency_precision(c)}
    assert wrong == {}
    assert set(MINOR_DIGITS) <= set(codes)  # no made-up code in the table
    assert (minor_digits("JPY"), minor_digits("jpy "), minor_digits("KWD"), minor_digits("CLF")) == (0, 0, 3, 4)
    assert (minor_digits("£"), minor_digits("R$"), minor_digits("kr"), minor_digits(""), minor_digits("¥")) == \
        (2, 2, 2, 2, 2)  # ¥ is the yen's and the yuan's sign: no code
    assert all(minor_digits(code) == get_currency_precision(code) for code in SYMBOLS.values())
    assert (currency_code("£"), currency_code(" kwd"), currency_code("kr")) == ("GBP", "KWD", "kr")


def test_amounts_are_written_with_the_currencys_decimals() -> None:
    assert (format_amount(10, 2), format_amount(5, 0), format_amount(125, 3), format_amount(-1250, 3)) == \
        ("0.10", "5", "0.125", "1.250")
    assert Stake(5, "JPY").format(-19) == "−JPY 19"
    assert Stake(125, "KWD").format(250) == "KWD 0.250"
    assert Stake(10, "£").format(-120) == "−£1.20"
    assert (_decimal(-19, ",", 0), _decimal(125, ",", 3), _decimal(-120, ".", 2)) == ("-19", "0,125", "-1.20")
    assert (max_stake(0), max_stake(3), max_stake(4)) == (1_000_000, 1_000_000, 100_000)


# ------------------------------------------------------------------ the engine reads a stake
@pytest.mark.parametrize(("amount", "currency", "minor"), [
    ("0.10", "£", 10), ("2", "", 200), ("5", "JPY", 5), ("5.00", "JPY", 5), ("1000000", "jpy", 1_000_000),
    ("0.125", "KWD", 125), ("12.5", "KWD", 12_500), ("0.0001", "CLF", 1), ("0.50", "kr", 50),
])
def test_a_stake_is_kept_in_the_currencys_own_minor_unit(amount: str, currency: str, minor: int) -> None:
    assert parse_stake(amount, currency) == minor


@pytest.mark.parametrize(("amount", "currency", "said"), [
    ("0.50", "JPY", "The stake must be a whole number: JPY has no smaller unit than 1."),
    ("0.5", "jpy", "The stake must be a whole number: JPY has no smaller unit than 1."),
    ("0.001", "£", "The stake can have at most 2 decimal places for GBP."),
    ("0.1255", "KWD", "The stake can have at most 3 decimal places for KWD."),
    ("0.005", "kr", "The stake can have at most 2 decimal places for kr."),
    ("0.005", "", "The stake can have at most two decimal places."),
    ("1000001", "JPY", "The stake can be at most 1000000."),
    ("100001", "CLF", "The stake can be at most 100000."),
    ("0", "JPY", "The stake must be more than zero."),
])
def test_a_stake_finer_than_the_currency_is_refused_in_words(amount: str, currency: str, said: str) -> None:
    with pytest.raises(ValueError) as err:
        parse_stake(amount, currency)
    assert err.value.args[0] == said


# ------------------------------------------------------------------ the settle-up adds up in whole yen
def _hoyle_pool_at_five_yen() -> Any:
    """hoyle with the pool, 4 players, 5 JPY a chip. Ilka deals: the pool opens at 4 × 5 = 20
    chips and Ilka tops it up with 1 (21). Oskar bids Three and makes it: +3 from each
    (H-11; the auction begins with eldest hand, Oskar). Totals: Ilka −5 − 1 − 3 = −9,
    Oskar −5 + 9 = +4, Runa and Tove −5 − 3 = −8."""
    stake = Stake(parse_stake("5", "JPY"), "JPY")  # 5 yen, as the evening file and the form read it
    assert stake == Stake(5, "JPY")
    s = setup("hoyle", PLAYERS, stake=stake, pool=True)
    return settle_evening(s, [HandFacts(0, ("three", "pass", "pass", "pass"), 3)])


def test_a_pool_shared_in_whole_yen_adds_up() -> None:
    ledger = _hoyle_pool_at_five_yen()
    assert ledger.totals == (-9, 4, -8, -8) and ledger.pool == 21
    result = settle_up(ledger)
    # the pool is 21 × 5 = 105 yen: 26 each and 1 yen over (105 = 4 × 26 + 1), which goes
    # to the next dealer, Oskar (no quarter yen: main shared 26.25 yen and showed "26 JPY")
    assert (result.pool_share, result.pool_left, result.odd) == (26, 0, (1,))
    # Ilka −45 + 26 = −19, Oskar +20 + 26 + 1 = +47, Runa and Tove −40 + 26 = −14
    assert result.balances == (-19, 47, -14, -14)
    assert set(result.payments) == {Payment(0, 1, 19), Payment(2, 1, 14), Payment(3, 1, 14)}  # 19 + 14 + 14 = 47


def _text(html: str) -> str:
    """A page's words without tags (nor the bidi isolates a name may be wrapped in)."""
    text = re.sub(r"<[^>]+>", " ", html)
    return re.sub(r"[ \t\r\n]+", " ", re.sub("[\u2066-\u2069]", "", text)).replace(" .", ".")  # no-break spaces kept


@pytest.mark.parametrize(("lang", "lines"), [
    # 19 + 14 + 14 = 47 = Oskar's +20 and his share 26 + the odd 1: every figure in whole yen
    ("nb", ["26\xa0JPY hver", "1\xa0JPY hver til Oskar", "Ilka betaler Oskar 19\xa0JPY",
            "Runa betaler Oskar 14\xa0JPY", "Tove betaler Oskar 14\xa0JPY"]),
    ("ru", ["по 26\xa0¥ каждому", "по 1\xa0¥ получают Oskar", "Ilka платит Oskar 19\xa0¥",
            "Runa платит Oskar 14\xa0¥", "Tove платит Oskar 14\xa0¥"]),
    ("pt_BR", ["JP¥\xa026 para cada um", "JP¥\xa01 para cada um de Oskar", "Ilka paga Oskar JP¥\xa019",
               "Runa paga Oskar JP¥\xa014"]),
    ("en", ["JPY 26 each", "JPY 1 each to Oskar", "Ilka pays Oskar JPY 19", "Tove pays Oskar JPY 14"]),
])
def test_the_settle_up_on_the_sheet_is_in_whole_yen(client: Any, lang: str, lines: list[str]) -> None:
    client.set_cookie("lang", lang)
    key = start_evening(client, "hoyle", PLAYERS, scoring="money", stake="5", currency="JPY", opt_pool="y")
    assert post_hand(client, key, 1, 0, {1: "three"}, tricks=3).status_code == 302
    html = client.get(f"/e/{key}").get_data(as_text=True)
    settle = _text(re.search(r'<section class="settle">.*?</section>', html, re.S).group(0))
    for line in lines:
        assert line in settle, (line, settle)
    assert not re.search(r"\d[.,]\d", settle)  # no fraction of a yen anywhere


# ------------------------------------------------------------------ numbers typed
@pytest.mark.parametrize(("locale", "typed", "value"), [
    ("en", "0,50", "0.50"), ("en", "12,5", "12.5"), ("en", "0,125", "0.125"), ("en", "0,001", "0.001"),
    ("en", "1,5000", "1.5000"), ("en", "−0,5", "-0.5"),
    ("en", "1,500", "1500"),       # a group of three after a 1: English grouping, as before
    ("en", "1,000,000", "1000000"),
    ("pt_BR", "0.125", "0.125"),   # a lone 0 cannot stand before a group of three
    ("pt_BR", "1.125", "1125"),    # Portuguese grouping
    ("nb", "1.125", "1.125"), ("ru", "0.125", "0.125"),  # a dot is no group sign there
])
def test_the_other_separator_is_a_decimal_point_where_it_cannot_be_a_group(locale: str, typed: str,
                                                                          value: str) -> None:
    assert parse_number_text(typed, locale) == Decimal(value)


@pytest.mark.parametrize(("locale", "typed"), [("en", "0,5,0"), ("en", "1,2.5"), ("pt_BR", "0.1.2"), ("en", ",5")])
def test_two_separators_that_mean_nothing_are_still_refused(locale: str, typed: str) -> None:
    with pytest.raises(ValueError):
        parse_number_text(typed, locale)


# ------------------------------------------------------------------ the new-evening form
def _form(**fields: str) -> dict[str, str]:
    data = {f"players-{i}": name for i, name in enumerate(PLAYERS)}
    data.update({"first_dealer": "0", "opt_hands_per_dealer": "2", "scoring": "money"})
    data.update(fields)
    return data


def _stakes(app: Any) -> list[tuple[int | None, str]]:
    with app.app_context():
        return [tuple(row) for row in db.session.execute(sa.select(Evening.stake_minor, Evening.currency)
                                                          .order_by(Evening.id))]  # type: ignore[misc]


@pytest.mark.parametrize(("lang", "typed", "said"), [
    ("en", "0.50", "The stake must be a whole number: JPY has no smaller unit than 1."),
    ("nb", "0,50", "Innsatsen må være et helt tall: JPY har ingen mindre enhet enn 1."),
    ("ru", "0,50", "Ставка должна быть целым числом: у JPY нет единицы меньше 1."),
    ("pt_BR", "0,50", "A aposta tem de ser um número inteiro: JPY não tem unidade menor que 1."),
])
def test_half_a_yen_is_refused_in_words_in_every_language(app: Any, lang: str, typed: str, said: str) -> None:
    client = app.test_client()
    client.set_cookie("lang", lang)
    response = client.post("/new/pagat", data=_form(stake=typed, currency="JPY"))
    assert response.status_code == 422 and said in response.get_data(as_text=True)
    assert _stakes(app) == []


@pytest.mark.parametrize(("lang", "typed", "currency", "minor"), [
    ("en", "0,50", "NOK", 50),     # an English phone in a comma region (issue 25 item 14)
    ("en", "12,5", "NOK", 1250),   # a comma before two, one or four digits is no group
    ("en", "0,125", "KWD", 125),   # a lone 0 cannot stand before a group
    ("en", "1,500", "JPY", 1500),  # a comma before three digits after 1 is English grouping
    ("en", "5", "JPY", 5),         # yen are kept as yen
    ("nb", "0,125", "KWD", 125), ("ru", "2,5", "KWD", 2500), ("pt_BR", "0.125", "KWD", 125),
    ("pt_BR", "1.125", "KWD", 1_125_000),  # Portuguese grouping: 1125 dinars
])
def test_a_stake_is_read_in_the_currencys_unit(app: Any, lang: str, typed: str, currency: str, minor: int) -> None:
    client = app.test_client()
    client.set_cookie("lang", lang)
    response = client.post("/new/pagat", data=_form(stake=typed, currency=currency))
    assert response.status_code == 302, _text(response.get_data(as_text=True))[-600:]
    assert _stakes(app) == [(minor, currency)]


@pytest.mark.parametrize(("lang", "typed", "currency", "said"), [
    # the fresh-user check: "0,001" was "must be a number such as 0.10"; the precision is the problem
    ("en", "0,001", "£", "The stake can have at most 2 decimal places for GBP."),
    ("en", "0.001", "£", "The stake can have at most 2 decimal places for GBP."),
    ("nb", "0,001", "NOK", "Innsatsen kan ha høyst 2 desimaler for NOK."),
    ("ru", "0,0001", "KWD", "Для KWD в ставке не больше 3 знаков после запятой."),
    ("pt_BR", "0,001", "BRL", "A aposta pode ter no máximo 2 casas decimais para BRL."),
    ("ru", "2000000", "JPY", "Ставка может быть не больше 1\xa0000\xa0000."),
])
def test_a_stake_too_fine_for_its_currency_says_so(app: Any, lang: str, typed: str, currency: str, said: str) -> None:
    client = app.test_client()
    client.set_cookie("lang", lang)
    response = client.post("/new/pagat", data=_form(stake=typed, currency=currency))
    assert response.status_code == 422 and said in response.get_data(as_text=True)
    assert _stakes(app) == []


# ------------------------------------------------------------------ the evening file
def _file(amount: Any, currency: str) -> dict[str, Any]:
    return {"format": "nap-evening", "version": 1, "variant": "pagat", "players": list(PLAYERS[:3]),
            "stake": {"amount": amount, "currency": currency},
            "hands": [{"auction": ["three", "pass", "pass"], "tricks": 3}]}


def _import(client: Any, data: dict[str, Any], lang: str) -> Any:
    client.set_cookie("lang", lang)
    return client.post("/import", data={"file": (io.BytesIO(json.dumps(data).encode()), "e.json")},
                       content_type="multipart/form-data")


@pytest.mark.parametrize(("lang", "amount", "currency", "said"), [
    # three decimals: main refused it in English ('"0.125" is not allowed here') on every phone
    ("nb", "0.125", "£", "stake.amount: Innsatsen kan ha høyst 2 desimaler for GBP."),
    ("ru", "0.125", "RUB", "stake.amount: Для RUB в ставке не больше 2 знаков после запятой."),
    ("pt_BR", "0.125", "BRL", "stake.amount: A aposta pode ter no máximo 2 casas decimais para BRL."),
    ("nb", "0.5", "JPY", "stake.amount: Innsatsen må være et helt tall: JPY har ingen mindre enhet enn 1."),
    ("ru", "abc", "RUB", "stake.amount: Ставка должна быть числом, например 0.10."),
    ("pt_BR", 0.5, "BRL", "stake.amount: A aposta tem de ser um número, como 0.10."),
])
def test_a_files_stake_is_refused_in_the_phones_language(app: Any, lang: str, amount: Any, currency: str,
                                                         said: str) -> None:
    response = _import(app.test_client(), _file(amount, currency), lang)
    assert response.status_code == 422 and said in response.get_data(as_text=True)
    assert _stakes(app) == []


def test_an_older_file_imports_the_same_and_is_written_in_the_currencys_unit(app: Any) -> None:
    # an export of the older version wrote every stake with two decimals: 5 yen as "5.00"
    assert load(_file("5.00", "JPY")).setup.stake == Stake(5, "JPY")
    assert load(_file("0.10", "£")).setup.stake == Stake(10, "£")
    evening = load(_file("0.125", "KWD"))
    assert evening.setup.stake == Stake(125, "KWD")
    assert dump(evening)["stake"] == {"amount": "0.125", "currency": "KWD"}
    assert dump(load(_file("5.00", "JPY")))["stake"] == {"amount": "5", "currency": "JPY"}
    assert dump(load(_file("0.1", "£")))["stake"] == {"amount": "0.10", "currency": "£"}
    client = app.test_client()
    response = _import(client, _file("5.00", "JPY"), "nb")
    assert response.status_code == 302 and _stakes(app) == [(5, "JPY")]
    key = response.headers["Location"].rsplit("/", 1)[-1]
    # Ilka deals; Oskar makes Three: +6 units at 5 yen = +30 yen, the others −15 yen
    money = re.findall(r'class="money">([^<]*)<', client.get(f"/e/{key}").get_data(as_text=True))
    assert money == ["−15\xa0JPY", "+30\xa0JPY", "−15\xa0JPY"]
    exported = json.loads(client.get(f"/e/{key}/evening.json").get_data(as_text=True))
    assert exported["stake"] == {"amount": "5", "currency": "JPY"}


def test_a_files_stake_too_fine_names_the_currency() -> None:
    with pytest.raises(EveningFileError) as err:
        load(_file("0.001", "£"))
    assert str(err.value) == "stake.amount: The stake can have at most 2 decimal places for GBP."


# ------------------------------------------------------------------ the migration
def test_the_minor_unit_migration_goes_down_and_up_with_stakes(any_db_app: Any,
                                                              capfd: pytest.CaptureFixture[str]) -> None:
    """0018 restates stored stakes in the currency's own unit: before it, 5 JPY was kept
    as 500 hundredths; after, as 5 yen. Down: 5 JPY → 500, 0.125 KWD → 13 hundredths (the
    older version holds no finer; half up), pence and a label that is no code unchanged.
    Up again: 500 → 5 yen, 13 hundredths of KWD → 130 fils, and half a yen (50, which
    the older version took) → 1 yen, named on the output."""
    from flask_migrate import downgrade, upgrade

    from scorer.storage import evening_writes

    stakes = [Stake(5, "JPY"), Stake(125, "KWD"), Stake(10, "£"), Stake(50, "kr"), None, Stake(7, "jpy")]
    with any_db_app.app_context():
        keys = [evening_writes.create_evening(variant="pagat", players=list(PLAYERS[:3]), first_dealer=0, options={},
                                              stake=stake).key for stake in stakes]
        db.session.remove()
        downgrade(revision="0017_settled_result")
        db.session.remove()
        assert _stakes(any_db_app) == [(500, "JPY"), (13, "KWD"), (10, "£"), (50, "kr"), (None, ""), (700, "jpy")]
        db.session.execute(sa.text("UPDATE evening SET stake_minor = 50 WHERE key = :key"), {"key": keys[5]})
        db.session.commit()
        db.session.remove()
        capfd.readouterr()
        upgrade()
        db.session.remove()
        assert _stakes(any_db_app) == [(5, "JPY"), (130, "KWD"), (10, "£"), (50, "kr"), (None, ""), (1, "jpy")]
    out = capfd.readouterr().out
    assert f"0018: evening {keys[5]}: a stake of 0.50 jpy is 1 jpy (the currency has no smaller unit)" in out
    assert keys[0] not in out


@pytest.mark.parametrize(("lang", "typed", "shown"), [("pt_BR", "1,125", "1,125"), ("en", "1.125", "1.125"),
                                                      ("nb", "0,125", "0,125")])
def test_a_groups_next_evening_offers_the_stake_as_the_phone_writes_it(app: Any, lang: str, typed: str,
                                                                       shown: str) -> None:
    """A new evening of a group starts from the last one's stake: 1.125 KWD (1125 fils) is
    offered as "1,125" in Portuguese, where "1.125" would be read back as 1125 dinars."""
    client = app.test_client()
    client.set_cookie("lang", lang)
    group = client.post("/groups/new", data={"name": "Klubben"}).headers["Location"].rsplit("/", 1)[-1]
    assert client.post(f"/new/pagat?group={group}", data=_form(stake=typed, currency="KWD")).status_code == 302
    page = client.get(f"/new/pagat?group={group}").get_data(as_text=True)
    field = re.search(r'<input[^>]*name="stake"[^>]*>', page).group(0)
    assert f'value="{shown}"' in field
    assert client.post(f"/new/pagat?group={group}", data=_form(stake=shown, currency="KWD")).status_code == 302
    minor = 1125 if typed.startswith("1") else 125
    assert _stakes(app) == [(minor, "KWD"), (minor, "KWD")]


@pytest.mark.parametrize("label", ["円", "yen", "Yen", "YEN", " jpy "])
def test_the_yen_written_as_its_sign_or_its_name_has_no_smaller_unit(label: str) -> None:
    """Found by the fresh-user check: "円" and "yen" took half a yen. "¥" (the yen's and the
    yuan's sign) keeps two decimals."""
    assert currency_code(label) == "JPY" and minor_digits(label) == 0
    with pytest.raises(ValueError):
        parse_stake("0.50", label)
    assert parse_stake("5", label) == 5
    assert minor_digits("¥") == 2 and parse_stake("0.50", "¥") == 50
