"""A revoke ruled from a partial record of play: the claim names the accused's card in
the trick where they failed to follow (``trick``, ``suit_led``, ``card``) and the card of
that suit they showed in a later trick (``evidence``, ``evidence_trick``). The engine
upholds or rejects the claim from those cards (H-15, P-16, R-18, B-16/B-17) or, when
they prove nothing, leaves the table's decision standing and says so. Values by hand.
"""

from __future__ import annotations

import json
import re
from typing import Any

import pytest

from scorer.evening import file as evening_file
from scorer.evening.codec import decode_hand, encode_hand
from scorer.rules import Claim, HandFacts, IllegalFacts, Result, TableState, get_variant
from scorer.rules.play import read_claim_cards
from tests.helpers import setup
from tests.webhelpers import counts, start_evening, totals_on_page

FOUR = ("North", "East", "South", "West")
FOUR_BY_EAST = ("four", "pass", "pass", "pass")  # dealer North: East speaks first and bids Four


def settle(variant: str, auction: tuple[str, ...], tricks: int | None, claim: Claim, *, trump: str | None = None,
           state: TableState | None = None, **options: object):  # type: ignore[no-untyped-def]
    return get_variant(variant).settle(HandFacts(0, auction, tricks, trump=trump, claims=(claim,)),
                                       setup(variant, FOUR, **options), state)


def test_the_cards_alone_decide_the_three_cases() -> None:
    proved = Claim("revoke", 2, upheld=False, trick=2, suit_led="H", card="2C", evidence="5H", evidence_trick=4)
    assert read_claim_cards(proved).verdict is True
    followed = Claim("revoke", 2, upheld=True, trick=2, suit_led="H", card="9H")
    assert read_claim_cards(followed).why == "followed" and read_claim_cards(followed).verdict is False
    earlier = Claim("revoke", 2, upheld=True, trick=3, suit_led="H", card="2C", evidence="5H", evidence_trick=1)
    assert (read_claim_cards(earlier).verdict, read_claim_cards(earlier).why) == (None, "not_later")
    same_trick = Claim("revoke", 2, upheld=True, trick=3, suit_led="H", card="2C", evidence="5H", evidence_trick=3)
    assert read_claim_cards(same_trick).why == "not_later"
    other = Claim("revoke", 2, upheld=True, trick=2, suit_led="H", card="2C", evidence="5D", evidence_trick=4)
    assert read_claim_cards(other).why == "other_suit"
    no_card = Claim("revoke", 2, upheld=True, trick=2, suit_led="H", evidence="5H", evidence_trick=4)
    assert read_claim_cards(no_card).why == "incomplete"


def test_h15_a_revoke_ruled_from_a_partial_record_overrides_the_tables_rejection() -> None:
    # South (2) discarded the 2C on a heart lead in trick 2 and played the 5H in trick 4: a revoke.
    # The table rejected it and entered 3 tricks (Four defeated: East would pay 4 each);
    # the cards uphold it: H-15, South pays East all that Four collects, 3 x 4 = 12.
    claim = Claim("revoke", 2, upheld=False, by=1, trick=2, suit_led="H", card="2C", evidence="5H", evidence_trick=4)
    r = settle("hoyle", FOUR_BY_EAST, 3, claim)
    assert r.units == (0, 12, -12, 0) and r.result is Result.MADE
    assert r.claims[0].upheld is True
    assert any(x.rule == "H-15" and "The cards prove the claim: South played 2C to trick 2 when hearts were led, "
               "and 5H in trick 4." in x.text for x in r.reasons)


def test_h15_cards_that_prove_nothing_leave_the_tables_decision() -> None:
    # no card named for trick 2: the 5H in trick 4 alone proves nothing; the table upheld → stands
    claim = Claim("revoke", 2, upheld=True, trick=2, suit_led="H", evidence="5H", evidence_trick=4)
    r = settle("hoyle", FOUR_BY_EAST, None, claim)
    assert r.units == (0, 12, -12, 0)
    assert any("The cards prove nothing" in x.text and "the table upheld the claim, and its decision stands" in x.text
               for x in r.reasons)


def test_p16_declarer_revoke_proved_by_a_later_trick() -> None:
    # East, declarer in Four, threw the 4S on a diamond lead in trick 3 and led the KD in trick 5.
    # Table rejected, 4 tricks entered (made: +12). The cards prove it: P-16 house rule, the
    # revoking declarer is scored as defeated: East pays 4 to each of three: (4, -12, 4, 4).
    claim = Claim("revoke", 1, upheld=False, trick=3, suit_led="D", card="4S", evidence="KD", evidence_trick=5)
    r = settle("pagat", FOUR_BY_EAST, 4, claim)
    assert r.units == (4, -12, 4, 4) and r.result is Result.DEFEATED
    assert "P-16" in r.rule_ids


def test_p16_a_card_of_the_suit_shown_earlier_proves_nothing() -> None:
    # the KD was played in trick 2, before the discard in trick 3: East may have had no diamond left.
    claim = Claim("revoke", 1, upheld=False, trick=3, suit_led="D", card="4S", evidence="KD", evidence_trick=2)
    r = settle("pagat", FOUR_BY_EAST, 4, claim)
    assert r.units == (-4, 12, -4, -4) and r.result is Result.MADE  # as played: Four made
    assert any(x.rule == "P-16" and "KD was played in trick 2, not after trick 3" in x.text
               and "the table rejected the claim, and its decision stands" in x.text for x in r.reasons)


def test_r18_proved_failure_to_follow_and_an_unprovable_failure_to_trump() -> None:
    # dealer North speaks first: North pass, East Napoleon, South pass, West pass; stake 10 a trick, ante 0.
    auction = ("pass", "napoleon", "pass", "pass")
    # West (3) threw the 9D on a spade lead in trick 2 and played the 7S in trick 4: proved although the table
    # rejected it; R-18 house rule: scored as made, each opponent pays 5 x 10 = 50 and East takes the treasure 40.
    proved = Claim("revoke", 3, upheld=False, trick=2, suit_led="S", card="9D", evidence="7S", evidence_trick=4)
    r = settle("russian36", auction, 3, proved, state=TableState(pool=40), ante=0)
    assert r.units == (-50, 150 + 40, -50, -50) and r.state_after.pool == 0
    # a club shown later (say clubs were trump): the cards do not say what trump was; the table's
    # rejection stands and the hand is scored as played: 3 of 5 tricks, Napoleon defeated, East pays
    # 50 to each and the treasure doubles: 40 more into it.
    trump = Claim("revoke", 3, upheld=False, trick=2, suit_led="S", card="9D", evidence="7C", evidence_trick=4)
    lost = settle("russian36", auction, 3, trump, state=TableState(pool=40), ante=0)
    assert lost.units == (50, -150 - 40, 50, 50) and lost.state_after.pool == 80
    assert any(x.rule == "R-18" and "7C is not a spade" in x.text for x in lost.reasons)


def test_b16_b17_trumping_while_holding_the_suit_proved_and_following_disproves() -> None:
    # East declares nap with hearts trump. South (2) trumped with the AH on a spade lead in trick 1 and
    # played the 3S in trick 3: B-17, a failure to follow; B-16: East is deemed to have made nap: 10.
    proved = Claim("revoke", 2, upheld=False, trick=1, suit_led="S", card="AH", evidence="3S", evidence_trick=3)
    r = settle("napoleao", ("nap", "pass", "pass", "pass"), 2, proved, trump="H")
    assert r.units == (0, 10, 0, 0) and "B-17" in r.rule_ids
    # The table upheld a claim that South revoked in trick 1, but South played the 3S to the spade lead:
    # the cards disprove it and the hand is scored as played: 2 tricks, nap defeated, 5 to each opponent.
    followed = Claim("revoke", 2, upheld=True, trick=1, suit_led="S", card="3S")
    lost = settle("napoleao", ("nap", "pass", "pass", "pass"), 2, followed, trump="H")
    assert lost.units == (5, 0, 5, 5) and lost.result is Result.DEFEATED
    assert any(x.rule == "B-16" and "The cards disprove the claim: South played 3S, following the spade lead."
               in x.text for x in lost.reasons)


def test_bad_partial_records_are_refused() -> None:
    with pytest.raises(IllegalFacts, match="played twice"):
        settle("hoyle", FOUR_BY_EAST, 3, Claim("revoke", 2, upheld=True, trick=2, suit_led="H", card="5H",
                                               evidence="5H", evidence_trick=4))
    with pytest.raises(IllegalFacts, match="numbered 1 to 5"):
        settle("hoyle", FOUR_BY_EAST, 3, Claim("revoke", 2, upheld=True, evidence="5H", evidence_trick=6))
    with pytest.raises(IllegalFacts, match="Name the card shown in trick 4"):
        settle("hoyle", FOUR_BY_EAST, 3, Claim("revoke", 2, upheld=True, evidence_trick=4))
    with pytest.raises(IllegalFacts, match="36-card pack"):
        settle("russian36", ("pass", "napoleon", "pass", "pass"), 3,
               Claim("revoke", 3, upheld=True, trick=2, suit_led="S", card="9D", evidence="2S", evidence_trick=4))


def test_the_codec_keeps_the_later_trick_and_reads_old_claims_unchanged() -> None:
    claim = Claim("revoke", 2, upheld=False, trick=2, suit_led="H", card="2C", evidence="5H", evidence_trick=4)
    facts = HandFacts(0, FOUR_BY_EAST, 3, claims=(claim,))
    data = encode_hand(facts, FOUR)
    assert data["claims"][0]["evidence_trick"] == 4
    assert decode_hand(data, 4, lambda name, where: FOUR.index(name)) == facts
    old = {"dealer": "North", "auction": list(FOUR_BY_EAST), "tricks": 3,
           "claims": [{"kind": "revoke", "accused": "South", "upheld": True, "trick": 2, "suit_led": "H",
                       "card": "2C", "evidence": "5H"}]}
    decoded = decode_hand(old, 4, lambda name, where: FOUR.index(name))
    assert decoded.claims[0].evidence_trick is None
    assert encode_hand(decoded, FOUR) == old


def test_the_claim_form_picks_cards_and_rules_from_the_partial_record(client: Any, app: Any) -> None:
    key = start_evening(client, "hoyle", FOUR)
    form = client.get(f"/e/{key}/hand").get_data(as_text=True)
    assert 'name="claim_card_suit"' in form and 'name="claim_evidence_rank"' in form
    assert 'name="claim_card" ' not in form  # no typed card on the page any more
    # dealer North: East bids Four and the table enters 3 tricks and rejects the claim, but the cards
    # picked show South's 2C on a heart lead in trick 2 and South's 5H in trick 4: upheld, South pays East 12.
    response = client.post(f"/e/{key}/hand", data={
        "number": "1", "dealer": "0", "call_1": "four", "tricks": "3", "save": "1", "claim_kind": "revoke",
        "claim_accused": "2", "claim_by": "1", "claim_trick": "2", "claim_suit": "H",
        "claim_card_suit": "C", "claim_card_rank": "2", "claim_evidence_trick": "4", "claim_evidence_suit": "H",
        "claim_evidence_rank": "5", "claim_upheld": "no"})
    assert response.status_code == 302, response.get_data(as_text=True)[-1500:]
    assert totals_on_page(client.get(f"/e/{key}").get_data(as_text=True)) == {
        "North": "0", "East": "+12", "South": "−12", "West": "0"}
    hand = client.get(f"/e/{key}/hand/1").get_data(as_text=True)
    assert "The cards prove the claim: South played 2C to trick 2 when hearts were led, and 5H in trick 4." in hand
    edit = client.get(f"/e/{key}/hand/1/edit").get_data(as_text=True)
    for name, value in (("claim_card_suit", "C"), ("claim_card_rank", "2"), ("claim_evidence_suit", "H"),
                        ("claim_evidence_rank", "5"), ("claim_evidence_trick", "4")):
        assert re.search(rf'checked id="{name}-\d+" name="{name}" type="radio" value="{value}"', edit), name
    before = counts(app)
    half = client.post(f"/e/{key}/hand", data={
        "number": "2", "dealer": "1", "call_2": "three", "tricks": "3", "save": "1", "claim_kind": "revoke",
        "claim_accused": "3", "claim_card_suit": "S"})
    assert half.status_code == 422 and "Choose a card: its suit, then its rank." in half.get_data(as_text=True)
    assert counts(app) == before


def test_the_api_takes_a_partial_record_in_the_claims(client: Any, app: Any) -> None:
    key = start_evening(client)  # pagat: Ann deals, Bob speaks first
    three = {"dealer": "Ann", "auction": ["three", "pass", "pass", "pass"], "tricks": 3}
    made = client.post(f"/api/e/{key}/hands", data=json.dumps({"number": 1, "facts": three, "token": "p1"}),
                       content_type="application/json")
    assert made.status_code == 201, made.get_data(as_text=True)
    hand = made.get_json()["hand"]
    # Bob threw the 4S on a diamond lead in trick 2 and led the KD in trick 4; the table rejected the claim
    # but the cards prove it: P-16 house rule, the declarer is scored as defeated: Bob −9, the others +3.
    claim = {"kind": "revoke", "accused": "Bob", "upheld": False, "trick": 2, "suit_led": "D", "card": "4S",
             "evidence": "KD", "evidence_trick": 4}
    answer = client.post(f"/api/e/{key}/hands/{hand['id']}/claims",
                         data=json.dumps({"version": 1, "claims": [claim], "token": "p2"}),
                         content_type="application/json")
    assert answer.status_code == 201, answer.get_data(as_text=True)
    assert totals_on_page(client.get(f"/e/{key}").get_data(as_text=True)) == {
        "Ann": "+3", "Bob": "−9", "Cat": "+3", "Dan": "+3"}
    exported = json.loads(client.get(f"/e/{key}/evening.json").get_data(as_text=True))
    assert exported["hands"][0]["claims"][0]["evidence_trick"] == 4
    again = evening_file.loads(json.dumps(exported))  # the schema takes it back
    assert again.hands[0].claims[0].evidence_trick == 4
