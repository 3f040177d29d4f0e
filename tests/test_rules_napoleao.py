"""One test (at least) per rule of ``napoleao`` (shared/rules/napoleao.md, source
004_f25fb04a50ebee3e.txt). Every number is worked out by hand from the source."""

from __future__ import annotations

import pytest

from scorer.evening.ledger import settle_evening
from scorer.rules import HandFacts, IllegalAuction, IllegalFacts, IllegalSetup, Result, Stake, get_variant
from scorer.rules.cards import first_dealer_by_draw, parse_card, trick_winner
from tests.helpers import rule_on, setup

B = "napoleao"


def test_b1_two_to_six_players_points_only() -> None:
    assert setup(B, ("A", "B")).n == 2
    with pytest.raises(IllegalSetup) as err:
        setup(B, tuple("ABCDEFG"))
    assert err.value.rule == "B-1"
    with pytest.raises(IllegalSetup):
        setup(B, ("A", "B", "C"), stake=Stake(10, "R$"))


def test_b2_lowest_card_deals_ace_high() -> None:
    drawn = [parse_card(c) for c in ("AS", "2H", "KD")]
    assert first_dealer_by_draw(drawn, ace_low=False) == 1  # the two, not the ace


def test_b3_one_card_at_a_time_from_the_dealers_left() -> None:
    ledger = settle_evening(setup(B), [HandFacts(0, ("one", "pass", "pass", "pass"), 1)])
    assert ledger.rows[0].ruling.declarer == 1 and ledger.next_dealer == 1


def test_b4_each_declares_more_or_passo() -> None:
    r = rule_on(setup(B), 0, ["two", "three", "pass", "pass"], 3)
    assert r.declarer == 2
    with pytest.raises(IllegalAuction) as err:
        rule_on(setup(B), 0, ["three", "two", "pass", "pass"], 3)
    assert err.value.rule == "B-4"


def test_b5_nap_is_the_highest_declaration() -> None:
    with pytest.raises(IllegalAuction) as err:
        rule_on(setup(B), 0, ["nap", "wellington", "pass", "pass"], 5)
    assert err.value.rule == "B-5"


def test_b6_all_passo_dealer_declares_at_least_one() -> None:
    with pytest.raises(IllegalAuction) as err:
        rule_on(setup(B), 3, ["pass"] * 4)
    assert err.value.rule == "B-6"
    r = rule_on(setup(B), 3, ["pass", "pass", "pass", "one"], 0)  # West, the dealer, declares One and fails
    assert r.declarer == 3 and r.units == (1, 1, 1, 0)


def test_b7_declarer_names_trump() -> None:
    r = rule_on(setup(B), 0, ["three", "pass", "pass", "pass"], 3, trump="H")  # type: ignore[call-arg]
    assert "B-7" in r.rule_ids
    with pytest.raises(IllegalFacts):
        get_variant(B).settle(HandFacts(0, ("three", "pass", "pass", "pass"), 3, trump="X"), setup(B))


def test_b8_b9_follow_suit_else_any_card_trump_wins() -> None:
    assert trick_winner([parse_card("AH"), parse_card("2S"), parse_card("KH")], "S") == 1


def test_b10_hand_ends_when_result_is_certain() -> None:
    # declared 3 and won 3 before the fifth trick: made, the declarer scores 3
    assert rule_on(setup(B), 0, ["three", "pass", "pass", "pass"], 3).units == (0, 3, 0, 0)


def test_b11_made_declarer_scores_the_number() -> None:
    """«se anunciar que irá vencer 03 rodadas e de fato as vencer ganhará 03 pontos»."""
    r = rule_on(setup(B), 0, ["three", "pass", "pass", "pass"], 4)
    assert r.result is Result.MADE and r.units == (0, 3, 0, 0)


def test_b12_defeated_every_opponent_scores() -> None:
    """«se o declarante anunciar que vencerá 04 rodadas e não as vencer todos os seus adversários ganharão 04»."""
    r = rule_on(setup(B), 0, ["four", "pass", "pass", "pass"], 3)
    assert r.result is Result.DEFEATED and r.units == (4, 0, 4, 4)


def test_b13_nap_ten_or_five_each() -> None:
    assert rule_on(setup(B), 0, ["nap", "pass", "pass", "pass"], 5).units == (0, 10, 0, 0)
    assert rule_on(setup(B), 0, ["nap", "pass", "pass", "pass"], 4).units == (5, 0, 5, 5)


def test_b14_end_by_target_or_hands() -> None:
    s = setup(B, ("A", "B", "C"), end="target", target_score=10)
    nap = HandFacts(0, ("nap", "pass", "pass"), 5)  # B +10
    ledger = settle_evening(s, [nap])
    assert ledger.end_reached and ledger.winners == (1,)
    s2 = setup(B, ("A", "B", "C"), end="hands", hands=2)
    one = settle_evening(s2, [nap])
    assert not one.end_reached and one.hands_remaining == 1
    two = settle_evening(s2, [nap, HandFacts(1, ("nap", "pass", "pass"), 4)])  # C fails: A, B +5
    assert two.end_reached and two.totals == (5, 15, 0) and two.winners == (1,)


def test_b15_no_partnerships_each_opponent_scores_alone() -> None:
    r = rule_on(setup(B), 0, ["two", "pass", "pass", "pass"], 1)
    assert r.units == (2, 0, 2, 2)  # each opponent scores for themselves


def test_b16_b17_inspection_finds_a_failure_to_follow() -> None:
    from scorer.rules import Claim

    # dealer North: East declares Two and makes it, but inspection shows East did not follow suit:
    # the declaration's value goes to the other players (B-16)
    declarer = rule_on(setup(B), 0, ["two", "pass", "pass", "pass"], 2,
                       claims=(Claim("revoke", accused=1, upheld=True),))
    assert declarer.units == (2, 0, 2, 2) and "B-16" in declarer.rule_ids
    # South trumped (♠, named trump) a heart lead while holding a heart: the declarer is credited (B-17)
    trumped = rule_on(setup(B), 0, ["two", "pass", "pass", "pass"], 1, trump="S",
                      claims=(Claim("revoke", accused=2, upheld=True, suit_led="H", card="3S", evidence="4H"),))
    assert trumped.units == (0, 2, 0, 0) and "B-17" in trumped.rule_ids


def test_b18_misdeal_house_rule() -> None:
    r = rule_on(setup(B), 1, [], misdeal=True)
    assert r.result is Result.MISDEAL and r.next_dealer == 1 and "source is silent" in r.reasons[0].text
