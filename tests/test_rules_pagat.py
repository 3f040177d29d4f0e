"""One test (at least) per rule of ``pagat`` (shared/rules/pagat.md, source
002_8f87c281debb8ca7.txt). Every number is worked out by hand from the source."""

from __future__ import annotations

import pytest

from scorer.evening.ledger import settle_evening
from scorer.rules import HandFacts, IllegalAuction, IllegalFacts, IllegalSetup, Result
from scorer.rules.cards import Card, parse_card, trick_winner
from scorer.rules.play import FoundRevoke, read_record
from tests.helpers import FOUR, rule_on, setup

P = "pagat"


def test_p1_three_to_six_players() -> None:
    for n in (3, 4, 5, 6):
        assert setup(P, tuple(f"p{i}" for i in range(n))).n == n
    for n in (2, 7):
        with pytest.raises(IllegalSetup) as err:
            setup(P, tuple(f"p{i}" for i in range(n)))
        assert err.value.rule == "P-1"


def test_p2_pack_of_52_ace_high() -> None:
    assert parse_card("AS").strength > parse_card("KS").strength > parse_card("2S").strength
    assert parse_card("10H").strength == 8  # 2,3,…,9 are 0…7


def test_p4_deal_passes_left_and_shuffle_reminder() -> None:
    s = setup(P)
    four = rule_on(s, 0, ["pass", "four", "pass", "pass"], 4)
    assert four.next_dealer == 1 and four.shuffle is False  # gathered and cut only
    nap = rule_on(s, 3, ["nap", "pass", "pass", "pass"], 5)
    assert nap.next_dealer == 0 and nap.shuffle is True  # made Nap: shuffle
    failed_nap = rule_on(s, 3, ["nap", "pass", "pass", "pass"], 4)
    assert failed_nap.shuffle is False  # only a *made* Nap
    wellington = rule_on(s, 0, ["nap", "wellington", "pass", "pass"], 5)
    assert wellington.shuffle is True
    all_pass = rule_on(s, 1, ["pass"] * 4)
    assert all_pass.shuffle is True and all_pass.next_dealer == 2
    # the first deal of the evening is shuffled
    assert settle_evening(s, []).shuffle is True


def test_p5_eldest_hand_first_each_bid_higher() -> None:
    s = setup(P)
    # dealer West (3): North speaks first; North Three, East Four, South pass, West pass
    r = rule_on(s, 3, ["three", "four", "pass", "pass"], 4)
    assert r.declarer == 1 and r.contract is not None and r.contract.id == "four"
    with pytest.raises(IllegalAuction) as err:
        rule_on(s, 3, ["four", "three", "pass", "pass"], 4)
    assert err.value.rule == "P-5" and "lower" in err.value.message
    with pytest.raises(IllegalAuction) as err:
        rule_on(s, 3, ["pass", "pass", "pass"], None)  # one call each, no more, no fewer
    assert err.value.rule == "P-5"


def test_p6_units_per_opponent() -> None:
    s = setup(P)
    units = {}
    for bid in ("three", "four", "nap", "wellington"):
        auction = ["nap", bid, "pass", "pass"] if bid == "wellington" else [bid, "pass", "pass", "pass"]
        r = rule_on(s, 3, auction, 5)
        units[bid] = -r.units[2]  # South is an opponent in both auctions
    assert units == {"three": 3, "four": 4, "nap": 5, "wellington": 10}


def test_p7_wellington_only_after_nap_and_no_equal_bids() -> None:
    s = setup(P)
    with pytest.raises(IllegalAuction) as err:
        rule_on(s, 0, ["four", "wellington", "pass", "pass"], 5)
    assert err.value.rule == "P-7"
    with pytest.raises(IllegalAuction) as err:
        rule_on(s, 0, ["four", "four", "pass", "pass"], 4)
    assert "same as" in err.value.message
    r = rule_on(s, 0, ["nap", "pass", "wellington", "pass"], 5)
    assert r.declarer == 3 and r.units == (-10, -10, -10, 30)


def test_p8_everyone_passes_not_played() -> None:
    r = rule_on(setup(P), 2, ["pass"] * 4)
    assert r.result is Result.ALL_PASSED
    assert r.units == (0, 0, 0, 0) and r.next_dealer == 3
    assert r.rule_ids == ("P-8",)


def test_p9_first_lead_fixes_trump() -> None:
    # North declares and leads 7H: hearts are trump, so South's 5H beats the ace of spades
    reading = read_record([["7H", "2H", "3H"], ["KS", "AS", "5H"]], 3, 0, 1)
    assert reading.trump == "H" and reading.winners == (0, 2) and reading.tricks == 1


def test_p10_follow_suit_no_duty_to_trump() -> None:
    # trick 1: K♥ led, East plays A♠ but shows ♥3 in trick 2: a revoke. Trick 3: ♣ led,
    # South (void in clubs) discards ♦6 and trumps only in trick 4: no duty to trump, no revoke
    record = [["KH", "AS", "4H"], ["2D", "3H", "5D"], ["9C", "6D", "10C"], ["2S", "4S", "8H"]]
    reading = read_record(record, 3, 0, 3)
    assert reading.winners == (0, 1, 0, 2)
    assert reading.revokes == (FoundRevoke(1, 1, "H", "AS", "3H"),)


def test_p11_highest_trump_else_highest_of_suit_led() -> None:
    trick = [parse_card(c) for c in ("KH", "3H", "2S", "AD")]
    assert trick_winner(trick, "S") == 2  # the source's example: ♠2 beats every heart
    assert trick_winner(trick + [parse_card("4S")], "S") == 4  # loses to a higher spade
    assert trick_winner(trick, "C") == 0  # no trump: highest heart (K)
    assert Card("A", "D") not in trick[:2]


def test_p12_made_and_defeated_same_units_other_way() -> None:
    s = setup(P)
    made = rule_on(s, 0, ["three", "pass", "pass", "pass"], 5)  # East bids Three, takes 5
    assert made.result is Result.MADE and made.units == (-3, 9, -3, -3)  # extra tricks score nothing
    assert "P-12" in made.rule_ids
    lost = rule_on(s, 0, ["three", "pass", "pass", "pass"], 2)
    assert lost.result is Result.DEFEATED and lost.units == (3, -9, 3, 3)


def test_p13_worked_example_four_players() -> None:
    """Source: «Med fire spillere gir en vellykket «fire» budgiveren +12 og hver av de
    tre motspillerne −4. Tar budgiveren bare tre stikk, blir resultatet −12 … +4»."""
    s = setup(P)
    made = rule_on(s, 0, ["pass", "four", "pass", "pass"], 4)  # South bids Four
    assert made.units == (-4, -4, 12, -4)
    defeated = rule_on(s, 0, ["pass", "four", "pass", "pass"], 3)
    assert defeated.units == (4, 4, -12, 4)
    nap = rule_on(s, 0, ["pass", "nap", "pass", "pass"], 5)
    assert nap.units == (-5, -5, 15, -5)  # 5 per opponent, not double


def test_p14_end_point_and_shared_win() -> None:
    s = setup(P, hands_per_dealer=1, all_pass_counts=False)
    hands = [
        HandFacts(0, ("pass", "four", "pass", "pass"), 4),  # South +12
        HandFacts(1, ("pass",) * 4),  # does not count
        HandFacts(2, ("pass", "pass", "four", "pass"), 4),  # order West, North, East, South: East +12
    ]
    ledger = settle_evening(s, hands)
    # Counted per player: North (hand 1) and South (hand 3) have dealt a counted hand; East's
    # deal was passed out, West has not dealt: they owe one each. West deals next, then North,
    # then East: three hands at least.
    assert ledger.hands_counted == 2 and ledger.deals_owed == (0, 1, 0, 1) and ledger.hands_remaining == 3
    assert ledger.totals == (-8, 8, 8, -8)
    assert ledger.winners == (1, 2)  # equal totals share the win
    counting = setup(P, hands_per_dealer=1, all_pass_counts=True)
    assert settle_evening(counting, hands).hands_remaining == 1
    assert settle_evening(counting, hands + [HandFacts(3, ("pass",) * 4)]).end_reached


def test_p14_counts_deals_per_player_issue_example() -> None:
    """«Avtal derfor før start hvor mange utdelinger hver spiller skal gi»: A, B, C,
    one counted deal each, passed-out hands do not count. Worked by hand:
    1 A deals, B Three takes 3: A −3, B +6, C −3.  2 B deals: all pass (B still owes).
    3 C deals, B Four takes 4: A −7, B +14, C −7.  4 A deals, A Three takes 2: A −13,
    B +17, C −4; B has not dealt a counted hand, so the evening goes on.
    5 B deals, C Nap takes 5: A −18, B +12, C +6; every player has dealt: the end."""
    s = setup(P, ("Ada", "Bea", "Cy"), hands_per_dealer=1, all_pass_counts=False)
    hands = [
        HandFacts(0, ("three", "pass", "pass"), 3),
        HandFacts(1, ("pass", "pass", "pass")),
        HandFacts(2, ("pass", "four", "pass"), 4),
        HandFacts(0, ("pass", "pass", "three"), 2),
    ]
    four = settle_evening(s, hands)
    assert four.totals == (-13, 17, -4)
    assert not four.end_reached and four.deals_owed == (0, 1, 0) and four.still_to_deal == ((1, 1),)
    assert four.next_dealer == 1 and four.hands_remaining == 1
    five = settle_evening(s, hands + [HandFacts(1, ("nap", "pass", "pass"), 5)])
    assert five.end_reached and five.hands_remaining == 0 and five.still_to_deal == ()
    # The highest total wins (P-14): Bea's +12, not Cy's +6 (the issue's "winner C" slipped).
    assert five.totals == (-18, 12, 6) and five.winners == (1,)


def test_p14_end_point_pure_functions() -> None:
    """The end point over (dealer, counted) pairs and the seats that deal."""
    from scorer.rules.endpoint import deals_owed, hands_to_end

    hands = [(0, True), (1, False), (2, True), (0, True)]
    assert deals_owed(hands, [0, 1, 2], 1) == {0: 0, 1: 1, 2: 0}
    assert deals_owed(hands, [0, 2], 2) == {0: 0, 2: 1}  # seat 1 no longer deals
    # two deals each from scratch, 3 seats, seat 1 deals first: 1 2 0 1 2 0
    assert hands_to_end({0: 2, 1: 2, 2: 2}, [0, 1, 2], 1) == 6
    # seat 2 owes two, the others one; seat 0 deals next: 0 1 2 0 1 2 → ends at the 6th
    assert hands_to_end({0: 1, 1: 1, 2: 2}, [0, 1, 2], 0) == 6
    assert hands_to_end({0: 1, 1: 0, 2: 2}, [0, 1, 2], 2) == 4  # 2 0 1 2
    assert hands_to_end({0: 0, 1: 0}, [0, 1], 1) == 0


def test_p15_two_is_not_a_bid_here() -> None:
    with pytest.raises(IllegalAuction) as err:
        rule_on(setup(P), 0, ["two", "pass", "pass", "pass"], 2)
    assert err.value.rule == "P-15"
    with pytest.raises(IllegalAuction) as err:
        rule_on(setup(P), 0, ["blucher", "pass", "pass", "pass"], 5)
    assert err.value.rule == "P-6"


def test_p16_misdeal_house_rule_says_source_is_silent() -> None:
    r = rule_on(setup(P), 2, [], misdeal=True)
    assert r.result is Result.MISDEAL and r.units == (0, 0, 0, 0)
    assert r.next_dealer == 2 and r.counts is False
    assert r.rule_ids == ("P-16",) and "source is silent" in r.reasons[0].text


def test_tricks_out_of_range_refused() -> None:
    for bad in (6, -1, 7):
        with pytest.raises(IllegalFacts):
            rule_on(setup(P), 0, ["four", "pass", "pass", "pass"], bad)
    with pytest.raises(IllegalFacts):
        rule_on(setup(P), 0, ["four", "pass", "pass", "pass"], None)
    with pytest.raises(IllegalFacts):
        rule_on(setup(P), 9, ["four", "pass", "pass", "pass"], 4)


def test_setup_refuses_duplicate_names_and_unknown_options() -> None:
    with pytest.raises(IllegalSetup):
        setup(P, ("Ann", "ann ", "Bob"))
    with pytest.raises(IllegalSetup):
        setup(P, FOUR, lowest_bid=2)  # a hoyle option, not pagat's
    with pytest.raises(IllegalSetup):
        setup(P, FOUR, hands_per_dealer=0)


def test_tricks_without_a_bid_are_refused() -> None:
    with pytest.raises(IllegalFacts, match="Nobody bid, but tricks were entered"):
        rule_on(setup(P), 0, ["pass"] * 4, 3)


def test_names_are_cleaned_and_compared_as_shown() -> None:
    s = setup(P, ("\u202eevil name", " Ann ", "Bo\u200bb"))
    assert s.players == ("evil name", "Ann", "Bob")
    with pytest.raises(IllegalSetup, match="same name"):
        setup(P, ("Ann", "Ａｎｎ", "Bob"))  # full-width letters are the same name
    with pytest.raises(IllegalSetup, match="needs a name"):
        setup(P, ("Ann", "\u200b", "Bob"))
