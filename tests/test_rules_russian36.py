"""One test (at least) per rule of ``russian36`` (shared/rules/russian36.md, source
001_4075811b721171fb.txt). Every number is worked out by hand from the source."""

from __future__ import annotations

import pytest

from scorer.evening.ledger import settle_evening
from scorer.rules import (
    HERE,
    PASS,
    Claim,
    HandFacts,
    IllegalAuction,
    IllegalFacts,
    IllegalSetup,
    Result,
    TableState,
    get_variant,
)
from scorer.rules.cards import parse_card, trick_winner
from scorer.rules.play import FoundRevoke, read_record
from tests.helpers import FOUR, setup

R = "russian36"
V = get_variant(R)


def settle(s, dealer, auction, tricks=None, pool=0, **facts):  # type: ignore[no-untyped-def]
    return V.settle(HandFacts(dealer, tuple(auction), tricks, **facts), s, TableState(pool=pool))


def test_r1_two_to_six_players_36_cards() -> None:
    assert setup(R, ("A", "B")).n == 2
    with pytest.raises(IllegalSetup) as err:
        setup(R, tuple("ABCDEFG"))
    assert err.value.rule == "R-1"
    with pytest.raises(IllegalFacts, match="5S is not in the 36-card pack"):
        read_record([["6S", "5S"]], 2, 0, 1, pack_size=36)


def test_r2_ante_every_deal_into_the_treasure() -> None:
    s = setup(R, ante=5)
    r = settle(s, 0, ["pass", "pass", "pass", "pass"])  # everyone passes: antes still paid (adopted)
    assert r.units == (-5, -5, -5, -5) and r.pool == 20 and r.state_after.pool == 20
    misdeal = V.settle(HandFacts(0, misdeal=True), s, TableState(pool=20))
    assert misdeal.units == (0, 0, 0, 0) and misdeal.state_after.pool == 20  # no deal, no ante


def test_r3_stake_per_trick() -> None:
    s = setup(R, ante=0, stake_per_trick=7)
    r = settle(s, 0, ["pass", "two", "pass", "pass"], 2)  # East bids Two: each pays 7 × 2
    assert r.units == (-14, 42, -14, -14)


def test_r4_five_each_stock_and_deal_passes_left() -> None:
    s = setup(R, ante=0)
    ledger = settle_evening(s, [HandFacts(3, ("pass", "one", "pass", "pass"), 1)])
    assert ledger.next_dealer == 0


def test_r5_dealer_first_round_after_round_pass_is_final() -> None:
    s = setup(R, ante=0)
    # dealer North: N one, E two, S pass, W pass, N three, E pass → North Three
    r = settle(s, 0, ["one", "two", "pass", "pass", "three", "pass"], 3)
    assert r.declarer == 0 and r.contract is not None and r.contract.id == "three"
    assert V.next_speaker(s, 0, ("one", "two", "pass", "pass")) == (0, [PASS, HERE, "three", "four", "five",
                                                                       "napoleon"])
    with pytest.raises(IllegalAuction) as err:
        settle(s, 0, ["one", "two", "pass", "pass", "three"], 3)  # East has not answered yet
    assert err.value.rule == "R-5" and "East must still speak" in err.value.message
    with pytest.raises(IllegalAuction) as err:
        settle(s, 0, ["two", "one", "pass", "pass", "pass"], 2)
    assert err.value.rule == "R-5"
    with pytest.raises(IllegalAuction):
        settle(s, 0, ["one", "pass", "pass", "pass", "pass"], 1)  # the auction was over after four calls


def test_r6_dealer_may_say_here() -> None:
    s = setup(R, ante=0)
    # N pass? no: N two, E three, S pass, W pass, N «Здесь» (holds Three), E pass → North plays Three
    r = settle(s, 0, ["two", "three", "pass", "pass", HERE, "pass"], 3)
    assert r.declarer == 0 and r.contract is not None and r.contract.id == "three"
    assert "R-6" in r.rule_ids and r.units == (90, -30, -30, -30)
    with pytest.raises(IllegalAuction) as err:
        settle(s, 0, ["two", HERE, "pass", "pass", "pass"], 2)  # East is not the dealer
    assert err.value.rule == "R-6"
    with pytest.raises(IllegalAuction) as err:
        settle(s, 0, ["two", "two", "pass", "pass", "pass"], 2)  # the others must bid higher
    assert err.value.rule == "R-5"


def test_r7_napoleon_outranks_a_plain_five() -> None:
    s = setup(R, ante=0)
    r = settle(s, 0, ["five", "napoleon", "pass", "pass", "pass"], 5)
    assert r.declarer == 1 and r.contract is not None and r.contract.id == "napoleon"
    with pytest.raises(IllegalAuction) as err:
        settle(s, 0, ["nap", "pass", "pass", "pass"], 5)
    assert err.value.rule == "R-7"


def test_r8_all_pass_antes_stay() -> None:
    s = setup(R, ante=2)
    r = settle(s, 1, ["pass"] * 4, pool=10)
    assert r.result is Result.ALL_PASSED and r.state_after.pool == 18 and r.next_dealer == 2
    assert "R-8" in r.rule_ids


def test_r9_purchase_is_recorded_without_payment() -> None:
    s = setup(R, ante=0)
    r = settle(s, 0, ["three", "pass", "pass", "pass"], 3, purchase=True)
    assert r.units == (90, -30, -30, -30) and "R-9" in r.rule_ids
    with pytest.raises(IllegalFacts):
        V.settle(HandFacts(0, ("three", "pass", "pass", "pass"), 3, trump="S"), s)


def test_r10_r11_trump_from_first_lead_and_must_trump() -> None:
    # North leads A♥ (hearts trump, R-10); in trick 2 East, void in spades, discards ♦6 though
    # holding ♥8, which he trumps with in trick 3: a failure to trump, not so under P-10
    record = [["AH", "7H"], ["KS", "6D"], ["QS", "8H"]]
    reading = read_record(record, 2, 0, 2, pack_size=36, must_trump=V.must_trump)
    assert reading.trump == "H" and reading.winners == (0, 0, 1)
    assert reading.revokes == (FoundRevoke(1, 2, "S", "6D", "8H", failed_to_trump=True),)
    assert read_record(record, 2, 0, 2, pack_size=36).revokes == ()
    assert trick_winner([parse_card("AH"), parse_card("6C")], "C") == 1


def test_r12_stopped_early_scored_on_tricks_at_that_moment() -> None:
    s = setup(R, ante=0)
    assert settle(s, 0, ["pass", "two", "pass", "pass"], 2).units == (-20, 60, -20, -20)


def test_r13_source_example_made_three() -> None:
    """«играют по 10 рублей, назначено "три", игрок взял три взятки … каждый платит сыгравшему по 30»."""
    s = setup(R, ante=0, stake_per_trick=10)
    r = settle(s, 0, ["pass", "three", "pass", "pass"], 3)
    assert r.units == (-30, 90, -30, -30) and r.pool == 0


def test_r14_source_example_defeated_three() -> None:
    """«он платит каждому по 30 рублей и отдельно вносит такую же сумму в "Клад Наполеона"»: −120."""
    s = setup(R, ante=0, stake_per_trick=10)
    r = settle(s, 0, ["pass", "three", "pass", "pass"], 2)
    assert r.units == (30, -120, 30, 30) and r.pool == 30


def test_r15_napoleon_made_takes_the_treasure() -> None:
    s = setup(R, ante=5, stake_per_trick=10)
    # treasure 100; antes make it 120; East declares Napoleon and takes 5 tricks
    r = settle(s, 0, ["pass", "napoleon", "pass", "pass"], 5, pool=100)
    assert r.units == (-55, -5 + 150 + 120, -55, -55) and r.pool == -100 and r.state_after.pool == 0


def test_r16_napoleon_defeated_doubles_the_treasure() -> None:
    s = setup(R, ante=5, stake_per_trick=10)
    r = settle(s, 0, ["pass", "napoleon", "pass", "pass"], 4, pool=100)
    # pays each 50; pays in what the treasure holds then (120); no R-14 payment on top
    assert r.units == (45, -5 - 150 - 120, 45, 45) and r.state_after.pool == 240


def test_r17_plain_five_never_takes_the_treasure() -> None:
    s = setup(R, ante=0, stake_per_trick=10)
    made = settle(s, 0, ["pass", "five", "pass", "pass"], 5, pool=100)
    assert made.units == (-50, 150, -50, -50) and made.state_after.pool == 100 and "R-17" in made.rule_ids
    lost = settle(s, 0, ["pass", "five", "pass", "pass"], 4, pool=100)
    assert lost.units == (50, -200, 50, 50) and lost.state_after.pool == 150  # R-14 only


def test_r18_misdeal_house_rule() -> None:
    r = V.settle(HandFacts(2, misdeal=True), setup(R))
    assert r.result is Result.MISDEAL and r.next_dealer == 2 and "source is silent" in r.reasons[0].text


def test_r18_a_lead_out_of_turn_is_recorded_with_no_payment() -> None:
    """R-18 (adopted; issue 25 item 10): the source is silent on play out of turn; the claim is
    recorded and changes no payment. The R-13 example stands: East makes Three at 10 a trick,
    each pays 30 → (−30, 90, −30, −30), whoever led out of turn."""
    s = setup(R, ante=0, stake_per_trick=10)
    r = settle(s, 0, ["pass", "three", "pass", "pass"], 3, claims=(Claim("out_of_turn", accused=3, upheld=True,
                                                                         trick=2),))
    assert r.units == (-30, 90, -30, -30) and r.pool == 0
    assert r.reasons[-1].rule == "R-18"
    assert r.reasons[-1].text == ("Upheld: West led or played out of turn in trick 2. It is recorded and changes no "
                                  "payment. The source is silent on play out of turn; the house rule adopted by this "
                                  "product applies.")
    rejected = settle(s, 0, ["pass", "three", "pass", "pass"], 3, claims=(Claim("out_of_turn", accused=1,
                                                                                upheld=False),))
    assert rejected.units == (-30, 90, -30, -30) and "R-18" in rejected.rule_ids


def test_r18_revoke_and_lead_out_of_turn_in_one_hand() -> None:
    """R-18 (adopted), issue 25 item 9: South revokes (an opponent: scored as made, R-13:
    −30 each, East +90) and West led out of turn in trick 1 (recorded, no payment); both
    are named, the out of turn after the revoke. Two leads out of turn: two notes, no
    payment: East defeated in Three pays 30 each and 30 into the treasure (R-14)."""
    s = setup(R, ante=0, stake_per_trick=10)
    both = settle(s, 0, ["pass", "three", "pass", "pass"], None,
                  claims=(Claim("out_of_turn", accused=3, upheld=True, trick=1), Claim("revoke", accused=2,
                                                                                       upheld=True, trick=2)))
    assert both.units == (-30, 90, -30, -30) and both.result is Result.MADE
    assert [r.rule for r in both.reasons][-3:] == ["R-18", "R-13", "R-18"]  # the revoke, its payment, the claim
    assert both.reasons[-1].text.startswith("Upheld: West led or played out of turn in trick 1. It is recorded")
    two = settle(s, 0, ["pass", "three", "pass", "pass"], 2,
                 claims=(Claim("out_of_turn", accused=3, upheld=True, trick=1),
                         Claim("out_of_turn", accused=0, upheld=True, trick=3)))
    assert two.units == (30, -120, 30, 30) and two.pool == 30
    assert sum(1 for r in two.reasons if r.rule == "R-18" and "out of turn" in r.text) == 2


def test_a_claim_with_no_rule_is_refused_with_the_right_article() -> None:
    """The other variants still refuse it, in English with "an": «an “out of turn” claim»."""
    with pytest.raises(IllegalFacts) as error:
        get_variant("pagat").settle(HandFacts(0, ("three", "pass", "pass", "pass"), 3, claims=(
            Claim("out_of_turn", accused=2, upheld=True),)), setup("pagat"))
    assert error.value.message == ("British Nap, basic (Pagat) has no rule for an “out of turn” claim (claims here: "
                                   "revoke).")


def test_treasure_shared_at_the_end_by_default() -> None:
    from scorer.evening.settle import settle_up

    s = setup(R, FOUR, ante=3)
    result = settle_up(settle_evening(s, [HandFacts(0, ("pass",) * 4)]))
    assert result.pool_share == 3 and result.pool_left == 0 and result.payments == ()


def test_speakers_follow_the_auction_round_after_round() -> None:
    s = setup(R, ante=0)
    facts = HandFacts(1, ("one", "two", "pass", "pass", HERE, "three", "pass"), 2)
    # dealer East: E one, S two, W pass, N pass, E «Здесь», S three, E pass
    assert V.speakers(s, facts) == [1, 2, 3, 0, 1, 2, 1]


def test_the_lone_bid_auction_follows_the_order_from_the_dealer() -> None:
    """Quick entry's auction (R-4, R-5): from the dealer, each speaks once and a pass is
    final; with seats A0 B1 C2 D3 and B dealing, the order is B, C, D, A."""
    from scorer.rules import EveningSetup, get_variant

    variant = get_variant("russian36")
    setup = variant.check_setup(EveningSetup("russian36", ("A", "B", "C", "D"), 0, {}, None))
    # D (seat 3) bids Three: B and C pass before him, A after: the auction ends with A's pass
    assert variant.lone_bid_auction(setup, 1, 3, "three") == ("pass", "pass", "three", "pass")
    # everyone passes: four passes from the dealer
    assert variant.lone_bid_auction(setup, 1, None, None) == ("pass", "pass", "pass", "pass")
    # the dealer bids Napoleon first
    assert variant.lone_bid_auction(setup, 1, 1, "napoleon")[0] == "napoleon"


def test_the_lone_bid_auction_of_the_other_variants_is_one_call_per_seat_from_eldest() -> None:
    from scorer.rules import EveningSetup, get_variant

    variant = get_variant("pagat")
    setup = variant.check_setup(EveningSetup("pagat", ("A", "B", "C", "D"), 0, {}, None))
    # A deals: B is eldest, then C, D, A; C bids Four
    assert variant.lone_bid_auction(setup, 0, 2, "four") == ("pass", "four", "pass", "pass")
    assert variant.lone_bid_auction(setup, 0, None, None) == ("pass",) * 4
