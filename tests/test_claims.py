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


# ---------------------------------------------------------------------------------------------
# Two claims in one hand (issue 25 item 9): every pair, in every rule set. A revoke stops
# play (H-15, P-16, R-18, B-16), but the hand's other upheld claims are still ruled and named.

ABCD = ("A", "B", "C", "D")
#: Dealer D (seat 3): A speaks first; C (seat 2) declares Three.
THREE_BY_C = ("pass", "pass", "three", "pass")


def settle_abcd(auction: tuple[str, ...], tricks: int | None, *claims: Claim, state: TableState | None = None,
                **options: object):  # type: ignore[no-untyped-def]
    s = setup("hoyle", ABCD, first_dealer=3, **options)
    return get_variant("hoyle").settle(HandFacts(3, auction, tricks, claims=claims), s, state)


def test_h14_h15_h16_the_issue_example_revoke_and_lead_out_of_turn_with_the_pool() -> None:
    """D (the dealer) leads out of turn in trick 1, B revokes in trick 2, C declared Three;
    the pool is open (20 chips), each dealer adds 1.

    H-16: D, dealing, adds 1 → D −1, pool +1. H-15: B pays C all Three would have
    collected, 3 × 3 opponents = 9 → B −9, C +9; H-16: B's revoke fine, 5 into the pool →
    B −14. H-14/H-16: D's out-of-turn fine, 3 into the pool → D −1 −3 = −4 (the issue's
    "D −4" is the dealer's 1 plus the fine of 3). Pool +1 +5 +3 = +9; 0 −14 +9 −4 +9 = 0."""
    r = settle_abcd(THREE_BY_C, None, Claim("out_of_turn", accused=3, upheld=True, trick=1),
                    Claim("revoke", accused=1, upheld=True, trick=2), state=TableState(pool=20, pool_open=True),
                    pool=True)
    assert r.units == (0, -14, 9, -4) and r.pool == 9 and r.state_after.pool == 29
    assert r.result is Result.MADE
    assert [x.rule for x in r.reasons] == ["H-16", "H-6", "H-15", "H-16", "H-16"]
    assert r.reasons[-1].text == "D led or played out of turn: pays 3 chips into the pool."


def test_h14_h15_revoke_and_lead_out_of_turn_without_the_pool() -> None:
    """No pool: B pays C 9 (H-15); D pays C the 3 chips (H-14) → C +12, D −3."""
    r = settle_abcd(THREE_BY_C, None, Claim("out_of_turn", accused=3, upheld=True, trick=1),
                    Claim("revoke", accused=1, upheld=True, trick=2))
    assert r.units == (0, -9, 12, -3) and r.pool == 0
    assert r.reasons[-1].rule == "H-14" and r.reasons[-1].text == "D led or played out of turn: pays 3 chips to C."


def test_h14_h15_the_revoker_also_led_out_of_turn() -> None:
    """B both led out of turn and revoked: B pays C 9 (H-15) and 3 (H-14) → B −12, C +12."""
    r = settle_abcd(THREE_BY_C, None, Claim("out_of_turn", accused=1, upheld=True, trick=1),
                    Claim("revoke", accused=1, upheld=True, trick=2))
    assert r.units == (0, -12, 12, 0)


def test_h14_h15_revoking_declarer_and_an_opponent_out_of_turn() -> None:
    """C (declarer, Three) revokes: pays each opponent 3, what Three would have collected
    (H-15) → A +3, B +3, D +3, C −9. D led out of turn: D pays C 3 (H-14) → D 0, C −6.
    D still receives the revoke payment: H-15 is a fine "всем противникам", not a defeat
    played out (adopted). With the pool (opened at 20, no top-up): C's fine 5 and D's 3 go
    in → C −14, D 0, pool +8."""
    claims = (Claim("out_of_turn", accused=3, upheld=True, trick=1), Claim("revoke", accused=2, upheld=True))
    r = settle_abcd(THREE_BY_C, None, *claims)
    assert r.units == (3, 3, -6, 0) and r.result is Result.DEFEATED
    assert any(x.rule == "H-14" and "(adopted)" in x.text and x.text.startswith("D played out of turn but still")
               for x in r.reasons)
    pooled = settle_abcd(THREE_BY_C, None, *claims, state=TableState(pool=20, pool_open=True), pool=True,
                         pool_top_up=0)
    assert pooled.units == (3, 3, -14, 0) and pooled.pool == 8


def test_h14_h15_an_opponent_revokes_and_the_declarer_led_out_of_turn() -> None:
    """C (declarer) led out of turn: no penalty (H-14), named; B's revoke pays C 9 (H-15)."""
    r = settle_abcd(THREE_BY_C, None, Claim("out_of_turn", accused=2, upheld=True, trick=1),
                    Claim("revoke", accused=1, upheld=True, trick=2))
    assert r.units == (0, -9, 9, 0)
    assert any(x.rule == "H-14" and x.text.startswith("Upheld: C led or played out of turn in trick 1. The declarer "
                                                       "pays no penalty") for x in r.reasons)


def test_h13_h15_revoke_and_wrong_cards_said_after_speaking() -> None:
    """A wrong number of cards said after speaking is played out (H-13), but a revoke stops
    play and settles the hand at once (H-15): H-13's made/defeated cases never arise, so the
    wrong cards change no payment (adopted) and are named. B revokes, D held 4: B −9, C +9.
    C (declarer) held 6 and revoked: C pays each 3 → (3, 3, −9, 3)."""
    r = settle_abcd(THREE_BY_C, None, Claim("wrong_cards", accused=3, upheld=True, cards_held=4),
                    Claim("revoke", accused=1, upheld=True))
    assert r.units == (0, -9, 9, 0)
    assert any(x.rule == "H-13" and x.text == "Upheld: D held 4 cards; said after speaking. Play stopped on the "
               "revoke, so the wrong number of cards changes no payment (adopted)." for x in r.reasons)
    own = settle_abcd(THREE_BY_C, None, Claim("wrong_cards", accused=2, upheld=True, cards_held=6),
                      Claim("revoke", accused=2, upheld=True))
    assert own.units == (3, 3, -9, 3) and "H-13" in own.rule_ids


def test_h12_h13_wrong_cards_before_speaking_makes_a_misdeal_whatever_else_was_claimed() -> None:
    """Said before speaking, wrong cards make the deal a misdeal (H-13, H-12): nothing is
    paid, and the other claims are named as changing nothing (adopted)."""
    r = settle_abcd(THREE_BY_C, None, Claim("wrong_cards", accused=0, upheld=True, cards_held=4,
                                            before_speaking=True),
                    Claim("revoke", accused=1, upheld=True), Claim("out_of_turn", accused=3, upheld=False))
    assert r.result is Result.MISDEAL and r.units == (0, 0, 0, 0)
    assert r.rule_ids == ("H-13", "H-15", "H-14", "H-12")
    assert r.reasons[1].text == ("Upheld: B revoked; the deal is a misdeal and is dealt again, so this claim changes "
                                 "nothing (adopted).")
    assert r.reasons[2].text.startswith("Rejected: the claim that D led or played out of turn")


def test_h13_h14_wrong_cards_and_out_of_turn() -> None:
    """East (declarer, Four; dealer North). The out-of-turn fine (3) is paid whatever H-13 does:
    made, East held 6: collects nothing (H-13) but West's 3 → (0, 3, 0, −3);
    defeated, South held 4: East pays nothing (H-13), West's 3 → (0, 3, 0, −3);
    defeated, both wrong: settled as usual (adopted) except West receives nothing (H-14):
    East pays North and South 4 each and gets 3 → (4, −5, 4, −3)."""
    west = Claim("out_of_turn", accused=3, upheld=True, trick=2)
    east6 = Claim("wrong_cards", accused=1, upheld=True, cards_held=6)
    south4 = Claim("wrong_cards", accused=2, upheld=True, cards_held=4)
    assert settle("hoyle", FOUR_BY_EAST, 4, east6, west).units == (0, 3, 0, -3)
    assert settle("hoyle", FOUR_BY_EAST, 3, south4, west).units == (0, 3, 0, -3)
    assert settle("hoyle", FOUR_BY_EAST, 3, east6, south4, west).units == (4, -5, 4, -3)


def test_h14_two_leads_out_of_turn() -> None:
    """«за внеочередной ход - три фишки»: 3 chips per move. West twice (tricks 1 and 3),
    East made Four: West −4 −6 = −10, East +12 +6 = +18. South and West once each, East
    defeated (3 tricks): East pays North 4 only (H-14) and gets 3 + 3 → (4, 2, −3, −3)."""
    twice = settle("hoyle", FOUR_BY_EAST, 4, Claim("out_of_turn", accused=3, upheld=True, trick=1),
                   Claim("out_of_turn", accused=3, upheld=True, trick=3))
    assert twice.units == (-4, 18, -4, -10)
    two = settle("hoyle", FOUR_BY_EAST, 3, Claim("out_of_turn", accused=2, upheld=True, trick=1),
                 Claim("out_of_turn", accused=3, upheld=True, trick=3))
    assert two.units == (4, 2, -3, -3)


def test_h13_two_wrong_hands_among_the_opponents() -> None:
    """South held 4 and West 6, East's hand right: defeated → pays nothing; made → collects
    as usual (H-13): (−4, 12, −4, −4)."""
    south4 = Claim("wrong_cards", accused=2, upheld=True, cards_held=4)
    west6 = Claim("wrong_cards", accused=3, upheld=True, cards_held=6)
    assert settle("hoyle", FOUR_BY_EAST, 3, south4, west6).units == (0, 0, 0, 0)
    assert settle("hoyle", FOUR_BY_EAST, 4, south4, west6).units == (-4, 12, -4, -4)


@pytest.mark.parametrize("variant", ["hoyle", "pagat", "russian36", "napoleao"])
def test_two_upheld_revokes_are_refused_and_a_rejected_one_changes_nothing(variant: str) -> None:
    """A revoke claim stops play (H-15; P-16, R-18 adopted), so only one is upheld; napoleao's
    inspection comes after play (B-16): the earliest decides (adopted). A second, rejected
    revoke claim is named and changes nothing: South revokes against East's Four (Three in
    russian36: its default stake 10 a trick, so 30 each; ante 0) → the hand is made."""
    auction = ["pass", "three", "pass", "pass"] if variant == "russian36" else FOUR_BY_EAST
    with pytest.raises(IllegalFacts) as error:
        settle(variant, auction, None, Claim("revoke", accused=2, upheld=True), Claim("revoke", accused=1,
                                                                                       upheld=True))
    if variant == "napoleao":
        assert error.value.rule == "B-16" and "inspection" in error.value.message
    else:
        assert "only one revoke" in error.value.message
    options = {"ante": 0} if variant == "russian36" else {}
    r = settle(variant, auction, None, Claim("revoke", accused=2, upheld=True),
               Claim("revoke", accused=3, upheld=False), **options)
    per = 30 if variant == "russian36" else 4
    expected = {"hoyle": (0, 12, -12, 0), "napoleao": (0, 4, 0, 0)}.get(variant, (-per, 3 * per, -per, -per))
    assert r.units == expected and r.result is Result.MADE
    assert any(x.text.startswith("Rejected: the claim that West revoked") for x in r.reasons)
