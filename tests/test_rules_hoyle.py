"""One test (at least) per rule H-1 … H-12 of ``hoyle`` (shared/rules/hoyle.md, source
000_380d836cfbf226e6.txt). Every number is worked out by hand from the source."""

from __future__ import annotations

import pytest

from scorer.evening.ledger import settle_evening
from scorer.rules import HandFacts, IllegalAuction, IllegalSetup, Result, Stake
from scorer.rules.cards import first_dealer_by_draw, parse_card, trick_winner
from tests.helpers import FOUR, rule_on, setup

H = "hoyle"


def test_h1_two_to_six_players() -> None:
    assert setup(H, ("A", "B")).n == 2
    assert setup(H, tuple("ABCDEF")).n == 6
    for players in (("A",), tuple("ABCDEFG")):
        with pytest.raises(IllegalSetup) as err:
            setup(H, players)
        assert err.value.rule == "H-1"


def test_h1_two_players_settle_against_one_opponent() -> None:
    r = rule_on(setup(H, ("A", "B")), 0, ["three", "pass"], 3)  # dealer A: B speaks first
    assert r.units == (-3, 3)


def test_h2_pack_52_ace_high() -> None:
    assert parse_card("AD").strength > parse_card("KD").strength


def test_h3_lowest_card_deals_ace_low() -> None:
    drawn = [parse_card(c) for c in ("2H", "AS", "KD", "3C")]
    assert first_dealer_by_draw(drawn) == 1  # the ace counts low for the draw
    assert first_dealer_by_draw([parse_card(c) for c in ("9H", "5S", "KD")]) == 1


def test_h5_five_cards_and_the_deal_passes_left() -> None:
    s = setup(H, tuple("ABCDE"), first_dealer=4)
    ledger = settle_evening(s, [HandFacts(4, ("one", "pass", "pass", "pass", "pass"), 1)])
    assert ledger.rows[0].ruling.declarer == 0  # eldest hand is left of the dealer: seat 0
    assert ledger.next_dealer == 0


def test_h6_one_call_each_higher_bids_lowest_one() -> None:
    s = setup(H)
    r = rule_on(s, 0, ["one", "two", "pass", "three"], 3)  # order East, South, West, North
    assert r.declarer == 0 and r.units == (9, -3, -3, -3)
    with pytest.raises(IllegalAuction) as err:
        rule_on(s, 0, ["two", "two", "pass", "pass"], 2)
    assert err.value.rule == "H-6"


def test_h6_option_lowest_bid_two() -> None:
    s = setup(H, lowest_bid=2)
    with pytest.raises(IllegalAuction) as err:
        rule_on(s, 0, ["one", "pass", "pass", "pass"], 1)
    assert err.value.rule == "H-6" and "Two" in err.value.message
    assert rule_on(s, 0, ["two", "pass", "pass", "pass"], 2).units == (-2, 6, -2, -2)


def test_h7_wellington_over_nap_blucher_over_wellington() -> None:
    s = setup(H)
    r = rule_on(s, 0, ["nap", "wellington", "blucher", "pass"], 5)
    assert r.declarer == 3 and r.contract is not None and r.contract.id == "blucher"
    with pytest.raises(IllegalAuction) as err:
        rule_on(s, 0, ["four", "wellington", "pass", "pass"], 5)
    assert err.value.rule == "H-7"
    with pytest.raises(IllegalAuction) as err:
        rule_on(s, 0, ["nap", "blucher", "pass", "pass"], 5)  # Blücher needs a Wellington first
    assert err.value.rule == "H-7"


def test_h7_option_off_refuses_wellington() -> None:
    s = setup(H, wellington_blucher=False)
    with pytest.raises(IllegalAuction) as err:
        rule_on(s, 0, ["nap", "wellington", "pass", "pass"], 5)
    assert err.value.rule == "H-7" and "option is off" in err.value.message


def test_h8_all_pass_redeal_by_next_dealer() -> None:
    r = rule_on(setup(H), 1, ["pass"] * 4)
    assert r.result is Result.ALL_PASSED and r.next_dealer == 2 and r.units == (0, 0, 0, 0)
    assert r.rule_ids == ("H-8",)


def test_h8_option_dealer_must_bid() -> None:
    s = setup(H, all_pass="dealer_bids")
    with pytest.raises(IllegalAuction) as err:
        rule_on(s, 1, ["pass"] * 4)
    assert err.value.rule == "H-8" and "East (the dealer) must bid at least One" in err.value.message
    r = rule_on(s, 1, ["pass", "pass", "pass", "one"], 0)  # the dealer bids One, takes no trick
    assert r.declarer == 1 and r.units == (1, -3, 1, 1)


def test_h9_trump_and_trick() -> None:
    trick = [parse_card(c) for c in ("5D", "KD", "2C", "AH")]
    assert trick_winner(trick, "C") == 2
    assert trick_winner(trick, "S") == 1


def test_h10_extra_tricks_do_not_count() -> None:
    r = rule_on(setup(H), 0, ["two", "pass", "pass", "pass"], 5)
    assert r.units == (-2, 6, -2, -2)  # paid as Two, not as five tricks
    assert "H-10" in r.rule_ids
    exact = rule_on(setup(H), 0, ["two", "pass", "pass", "pass"], 2)
    assert "H-10" not in exact.rule_ids


@pytest.mark.parametrize(
    ("bid", "auction", "made_each", "lost_each"),
    [
        ("one", ["one", "pass", "pass", "pass"], 1, 1),
        ("two", ["two", "pass", "pass", "pass"], 2, 2),
        ("three", ["three", "pass", "pass", "pass"], 3, 3),
        ("four", ["four", "pass", "pass", "pass"], 4, 4),
        ("nap", ["nap", "pass", "pass", "pass"], 10, 5),
        ("wellington", ["nap", "pass", "pass", "wellington"], 10, 10),
        ("blucher", ["nap", "wellington", "pass", "blucher"], 10, 20),
    ],
)
def test_h11_settlement_table(bid: str, auction: list[str], made_each: int, lost_each: int) -> None:
    s = setup(H)
    declarer = 1 if bid not in ("wellington", "blucher") else 0  # dealer North: East speaks first
    made = rule_on(s, 0, auction, 5)
    assert made.declarer == declarer and made.contract is not None and made.contract.id == bid
    assert made.units[declarer] == 3 * made_each
    assert all(u == -made_each for i, u in enumerate(made.units) if i != declarer)
    lost = rule_on(s, 0, auction, made.contract.tricks - 1)
    assert lost.units[declarer] == -3 * lost_each
    assert all(u == lost_each for i, u in enumerate(lost.units) if i != declarer)


def test_h11_money_is_units_times_stake() -> None:
    s = setup(H, stake=Stake(25, "£"))
    r = rule_on(s, 0, ["nap", "pass", "pass", "pass"], 4)  # East fails Nap: pays 5 each
    assert r.money(s.stake) == (125, -375, 125, 125)
    assert s.stake is not None and s.stake.format(-375) == "−£3.75"


def test_h12_misdeal_same_dealer_no_payment() -> None:
    s = setup(H, FOUR)
    r = rule_on(s, 3, [], misdeal=True)
    assert r.result is Result.MISDEAL and r.next_dealer == 3 and r.units == (0, 0, 0, 0)
    assert r.rule_ids == ("H-12",) and "source is silent" not in r.reasons[0].text
    ledger = settle_evening(s, [HandFacts(0, misdeal=True), HandFacts(0, ("one", "pass", "pass", "pass"), 1)])
    assert ledger.rows[1].ruling.declarer == 1 and ledger.next_dealer == 1
