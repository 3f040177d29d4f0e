"""The referee: claims recorded as facts, upheld or rejected, ruled by each variant's
rule (H-13, H-14, H-15, H-16 fines; B-16, B-17; R-18, R-11; P-16). Values by hand."""

from __future__ import annotations

import pytest

from scorer.rules import Claim, HandFacts, IllegalFacts, Result, TableState, get_variant
from tests.helpers import setup

FOUR = ("North", "East", "South", "West")


def settle(variant: str, auction: list[str], tricks: int | None, *claims: Claim, state: TableState | None = None,
           dealer: int = 0, **options: object):  # type: ignore[no-untyped-def]
    s = setup(variant, FOUR, **options)
    return get_variant(variant).settle(HandFacts(dealer, tuple(auction), tricks, claims=claims), s, state)


FOUR_BY_EAST = ["four", "pass", "pass", "pass"]  # dealer North: East speaks first and bids Four


def test_h15_opponent_revokes_against_four_pays_the_declarer_everything() -> None:
    """The issue's example: an opponent revokes against Four → pays the declarer 12, the others nothing."""
    r = settle("hoyle", FOUR_BY_EAST, None, Claim("revoke", accused=2, upheld=True, by=1, trick=3, suit_led="H",
                                                   card="2C", evidence="5H"))
    assert r.units == (0, 12, -12, 0) and r.result is Result.MADE
    assert r.rule_ids == ("H-6", "H-15")
    assert "South revoked in trick 3 (2C on a heart lead; later showed 5H)" in r.reasons[1].text


def test_h15_h16_with_the_pool_the_revoker_also_pays_five_chips_into_it() -> None:
    r = settle("hoyle", FOUR_BY_EAST, None, Claim("revoke", accused=2, upheld=True),
               state=TableState(pool=20, pool_open=True), pool=True, pool_top_up=0)
    assert r.units == (0, 12, -17, 0) and r.pool == 5 and r.state_after.pool == 25


def test_h15_revoking_declarer_pays_each_what_he_would_have_won() -> None:
    r = settle("hoyle", ["nap", "pass", "pass", "pass"], None, Claim("revoke", accused=1, upheld=True))
    assert r.units == (10, -30, 10, 10) and r.result is Result.DEFEATED  # Nap would have collected 10 each


def test_rejected_claim_changes_nothing_and_says_why() -> None:
    plain = settle("hoyle", FOUR_BY_EAST, 3)
    claimed = settle("hoyle", FOUR_BY_EAST, 3, Claim("revoke", accused=2, upheld=False, by=1, trick=2))
    assert claimed.units == plain.units == (4, -12, 4, 4)
    assert any("Rejected: the claim that South revoked" in r.text and r.rule == "H-15" for r in claimed.reasons)


def test_h13_wrong_cards_before_speaking_is_a_misdeal() -> None:
    r = settle("hoyle", FOUR_BY_EAST, 4, Claim("wrong_cards", accused=3, upheld=True, cards_held=4,
                                               before_speaking=True), dealer=0)
    assert r.result is Result.MISDEAL and r.units == (0, 0, 0, 0) and r.next_dealer == 0
    assert r.rule_ids == ("H-13", "H-12")


def test_h13_the_four_cases() -> None:
    wrong_opponent = Claim("wrong_cards", accused=2, upheld=True, cards_held=4)
    wrong_declarer = Claim("wrong_cards", accused=1, upheld=True, cards_held=6)
    # declarer right, an opponent wrong: made → collects as usual; defeated → pays nothing
    assert settle("hoyle", FOUR_BY_EAST, 4, wrong_opponent).units == (-4, 12, -4, -4)
    assert settle("hoyle", FOUR_BY_EAST, 3, wrong_opponent).units == (0, 0, 0, 0)
    # declarer wrong, opponents right: made → collects nothing; defeated → pays as usual
    assert settle("hoyle", FOUR_BY_EAST, 4, wrong_declarer).units == (0, 0, 0, 0)
    assert settle("hoyle", FOUR_BY_EAST, 3, wrong_declarer).units == (4, -12, 4, 4)
    # both wrong: settled as usual (adopted)
    both = settle("hoyle", FOUR_BY_EAST, 3, wrong_declarer, wrong_opponent)
    assert both.units == (4, -12, 4, 4) and "H-13" in both.rule_ids


def test_h14_out_of_turn() -> None:
    by_declarer = settle("hoyle", FOUR_BY_EAST, 4, Claim("out_of_turn", accused=1, upheld=True, trick=2))
    assert by_declarer.units == (-4, 12, -4, -4)
    assert any(r.rule == "H-14" and "The declarer pays no penalty" in r.text for r in by_declarer.reasons)
    offender = Claim("out_of_turn", accused=3, upheld=True, trick=2)
    made = settle("hoyle", FOUR_BY_EAST, 4, offender)
    assert made.units == (-4, 12 + 3, -4, -4 - 3)  # 3 chips to the declarer
    lost = settle("hoyle", FOUR_BY_EAST, 3, offender)
    assert lost.units == (4, -8 + 3, 4, -3)  # West receives nothing from the defeated declarer
    pooled = settle("hoyle", FOUR_BY_EAST, 4, offender, state=TableState(pool=10, pool_open=True), pool=True,
                    pool_top_up=0)
    assert pooled.units == (-4, 12, -4, -7) and pooled.pool == 3  # H-16: the fine goes into the pool


def test_p16_house_rule_revokes() -> None:
    declarer = settle("pagat", FOUR_BY_EAST, None, Claim("revoke", accused=1, upheld=True))
    assert declarer.units == (4, -12, 4, 4) and declarer.result is Result.DEFEATED
    assert any(r.rule == "P-16" and "source is silent" in r.text for r in declarer.reasons)
    opponent = settle("pagat", FOUR_BY_EAST, 2, Claim("revoke", accused=0, upheld=True))
    assert opponent.units == (-4, 12, -4, -4) and opponent.result is Result.MADE


def test_r18_revoke_and_failing_to_trump() -> None:
    # dealer North speaks first: North pass, East Napoleon, South pass, West pass; ante 0, stake 10
    auction = ["pass", "napoleon", "pass", "pass"]
    opponent = settle("russian36", auction, None, Claim("revoke", accused=3, upheld=True, trick=2, suit_led="S",
                                                        card="9D"), state=TableState(pool=40), ante=0)
    assert opponent.units == (-50, 150 + 40, -50, -50) and opponent.state_after.pool == 0  # made: takes the treasure
    assert "R-18" in opponent.rule_ids and any("source is silent" in r.text for r in opponent.reasons)
    declarer = settle("russian36", auction, None, Claim("revoke", accused=1, upheld=True), state=TableState(pool=40),
                      ante=0)
    assert declarer.units == (50, -150 - 40, 50, 50) and declarer.state_after.pool == 80  # R-16 doubles it


def test_b16_b17_inspection() -> None:
    declarer = settle("napoleao", ["three", "pass", "pass", "pass"], 3, Claim("revoke", accused=1, upheld=True))
    assert declarer.units == (3, 0, 3, 3) and "B-16" in declarer.rule_ids  # credited to the other players
    opponent = settle("napoleao", ["nap", "pass", "pass", "pass"], 2, Claim("revoke", accused=2, upheld=True,
                                                                         card="AS", suit_led="H"))
    assert opponent.units == (0, 10, 0, 0)  # B-17: trumping while able to follow counts the same


def test_claims_a_variant_has_no_rule_for_are_refused() -> None:
    with pytest.raises(IllegalFacts, match="no rule"):
        settle("pagat", FOUR_BY_EAST, 4, Claim("out_of_turn", accused=2, upheld=True))
    with pytest.raises(IllegalFacts, match="Nobody played"):
        settle("hoyle", ["pass"] * 4, None, Claim("revoke", accused=2, upheld=True))
    with pytest.raises(IllegalFacts):
        settle("hoyle", FOUR_BY_EAST, 4, Claim("revoke", accused=9, upheld=True))
    with pytest.raises(IllegalFacts):
        settle("hoyle", FOUR_BY_EAST, 4, Claim("revoke", accused=2, upheld=True, trick=6))
    with pytest.raises(IllegalFacts, match="only one revoke"):
        settle("hoyle", FOUR_BY_EAST, 4, Claim("revoke", accused=2, upheld=True), Claim("revoke", accused=3,
                                                                                        upheld=True))


def test_override_replaces_the_entries_and_keeps_the_ruling() -> None:
    from scorer.rules import Override

    plain = settle("hoyle", FOUR_BY_EAST, 3)
    over = get_variant("hoyle").settle(
        HandFacts(0, tuple(FOUR_BY_EAST), 3, override=Override((2, -6, 2, 2), "we agreed to halve it")),
        setup("hoyle", FOUR))
    assert over.units == (2, -6, 2, 2) and over.overruled == (plain.units, 0)
    assert over.reasons[-1].rule == "TABLE" and "we agreed to halve it" in over.reasons[-1].text
    with pytest.raises(IllegalFacts, match="balance"):
        get_variant("hoyle").settle(HandFacts(0, tuple(FOUR_BY_EAST), 3, override=Override((1, 0, 0, 0), "x")),
                                    setup("hoyle", FOUR))
    with pytest.raises(IllegalFacts, match="reason"):
        get_variant("hoyle").settle(HandFacts(0, tuple(FOUR_BY_EAST), 3, override=Override((0, 0, 0, 0), " ")),
                                    setup("hoyle", FOUR))
    # points variants need not balance
    points = get_variant("napoleao").settle(
        HandFacts(0, ("three", "pass", "pass", "pass"), 3, override=Override((0, 1, 0, 0), "half points")),
        setup("napoleao", FOUR))
    assert points.units == (0, 1, 0, 0)
