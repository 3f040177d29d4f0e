"""The pure states the hand pages only render: the russian36 auction called one call
at a time (R-4 to R-6) and a record of play entered one card at a time. Every seat,
call and card is worked out by hand."""

from __future__ import annotations

import dataclasses

import pytest

from scorer.rules import BIDS, HERE, PASS, IllegalAuction, IllegalFacts, get_variant
from scorer.rules.auction import AuctionState
from scorer.rules.play import PlayRules, PlayState
from tests.helpers import setup

R36 = get_variant("russian36")
S36 = setup("russian36", ante=0)  # North 0, East 1, South 2, West 3
N, E, S, W = range(4)
EVERY_BID = ("one", "two", "three", "four", "five", "napoleon")


def test_r5_the_dealer_speaks_first_with_every_bid_open_and_no_zdes() -> None:
    a = AuctionState(R36, S36, E)
    assert a.speaker == E and a.legal == (PASS, *EVERY_BID)
    assert not a.over and a.said == () and a.highest is None and a.outcome == (None, None)


def test_r5_r6_an_auction_called_round_after_round_with_the_dealers_zdes() -> None:
    a = AuctionState(R36, S36, E)
    a = a.add("two")  # East (dealer) bids Two; South must bid higher or pass
    assert a.speaker == S and a.legal == (PASS, "three", "four", "five", "napoleon")
    a = a.add("three").add(PASS).add(PASS)  # South Three, West and North pass
    # back to the dealer: he may hold South's Three with «Здесь», or bid higher
    assert a.speaker == E and a.legal == (PASS, HERE, "four", "five", "napoleon")
    assert a.highest == (S, "three")
    a = a.add(HERE)
    # West and North have passed (final, R-5): South speaks, and may only bid higher
    assert a.speaker == S and a.legal == (PASS, "four", "five", "napoleon")
    assert a.highest == (E, HERE) and not a.over
    a = a.add(PASS)  # all but one have passed: over, East plays Three
    assert a.over and a.speaker is None and a.legal == ()
    assert a.seats == (E, S, W, N, E, S)
    assert a.said == ((E, "two"), (S, "three"), (W, PASS), (N, PASS), (E, HERE), (S, PASS))
    assert a.outcome == (E, BIDS["three"])


def test_everyone_passes_from_the_dealer() -> None:
    a = AuctionState(R36, S36, W, (PASS, PASS, PASS))  # West, North, East pass
    assert a.seats == (W, N, E) and a.speaker == S and a.legal == (PASS, *EVERY_BID)
    a = a.add(PASS)
    assert a.over and a.outcome == (None, None) and a.highest is None


def test_illegal_calls_are_refused_with_their_rule() -> None:
    start = AuctionState(R36, S36, E)
    with pytest.raises(IllegalAuction) as err:
        start.add(HERE)  # nothing to hold
    assert err.value.rule == "R-6"
    with pytest.raises(IllegalAuction) as err:
        start.add("two").add("one")  # South must bid higher than Two
    assert err.value.rule == "R-5"
    over = AuctionState(R36, S36, E, ("one", PASS, PASS, PASS))
    assert over.over and over.outcome == (E, BIDS["one"])
    with pytest.raises(IllegalAuction) as err:
        over.add(PASS)  # a fifth call after the auction ended
    assert err.value.rule == "R-5"
    with pytest.raises(IllegalAuction):
        AuctionState(R36, S36, E, ("two", HERE))  # only the dealer says «Здесь»


def test_undo_takes_back_the_last_call_and_states_never_change() -> None:
    a = AuctionState(R36, S36, E, ("two", "three", PASS, PASS, HERE, PASS))
    back = a.undo()
    assert back.calls == ("two", "three", PASS, PASS, HERE) and back.speaker == S
    assert a.over and a.calls[-1] == PASS  # the state undone from is unchanged
    assert AuctionState(R36, S36, E).undo().calls == ()
    with pytest.raises(dataclasses.FrozenInstanceError):
        a.calls = ()  # type: ignore[misc]


# --- the record of play ---------------------------------------------------------------
# North deals, East (1) bids Three and leads; the first card led makes hearts trump.
EAST_THREE = PlayRules(n=4, declarer=E, needed=3)
RECORD = (
    ("AH", "2H", "3H", "4H"),  # East, South, West, North: East's ♥A wins
    ("KS", "2S", "5H", "3S"),  # East leads ♠K; West trumps and wins
    ("QC", "2C", "3C", "4C"),  # West leads: West wins
    ("KD", "2D", "3D", "4D"),  # West wins
    ("AD", "5D", "6D", "7D"),  # West wins
)


def test_an_empty_record_the_declarer_leads() -> None:
    p = PlayState(EAST_THREE)
    assert p.tricks == () and p.reading is None and p.next_to_play == E and p.played == frozenset()
    assert p.undo() == p and p.readable() == (p, None)


def test_cards_fill_a_trick_then_start_the_next_with_its_winner_to_lead() -> None:
    p = PlayState(EAST_THREE)
    p = p.add("AH")
    assert p.tricks == (("AH",),) and p.next_to_play == S
    p = p.add("2H").add("3H").add("4H")
    assert p.tricks == (RECORD[0],) and p.reading is not None and p.reading.winners == (E,)
    assert p.next_to_play == E  # East won trick 1 and leads trick 2
    p = p.add("KS")
    assert p.tricks == (RECORD[0], ("KS",)) and p.next_to_play == S
    assert p.played == frozenset({"AH", "2H", "3H", "4H", "KS"})


def test_undo_and_clear() -> None:
    p = PlayState(EAST_THREE, (RECORD[0], ("KS",)))
    assert p.undo().tricks == (RECORD[0],)  # the emptied trick goes too
    assert p.undo().undo().tricks == (("AH", "2H", "3H"),) and p.undo().undo().next_to_play == N
    assert p.clear().tricks == () and p.clear().next_to_play == E
    assert p.tricks == (RECORD[0], ("KS",))  # unchanged


def test_a_whole_record_is_read_and_nobody_plays_next() -> None:
    p = PlayState(EAST_THREE, RECORD)
    assert p.reading is not None and p.reading.tricks == 1 and p.reading.winners == (E, W, W, W, W)
    assert p.next_to_play is None


def test_an_unreadable_record_is_cut_back_to_what_can_be_read() -> None:
    junk = PlayState(EAST_THREE, (("AH", "AH"),))  # ♥A twice (a hand-made form)
    with pytest.raises(IllegalFacts):
        _ = junk.reading
    # a card added to an unreadable record joins the last trick until it has one card a player
    assert junk.add("2H").tricks == (("AH", "AH", "2H"),)
    assert junk.add("2H").add("3H").add("4S").tricks == (("AH", "AH", "2H", "3H"), ("4S",))
    good, refused = junk.add("2H").readable()
    assert good.tricks == (("AH",),) and good.next_to_play == S
    assert isinstance(refused, IllegalFacts) and "AH was played twice" in str(refused)
    assert PlayState(EAST_THREE, (("6S", "ZZ"),)).readable()[0].tricks == (("6S",),)


def test_variants_say_which_facts_a_hand_takes() -> None:
    hoyle = get_variant("hoyle")
    assert [hoyle.widow_rule({"widow": w}) for w in ("none", "widow", "peep", "garnet")] == [None, "H-17", "H-18",
                                                                                           "H-19"]
    assert hoyle.peek_rule({"widow": "peep"}) == "H-18" and hoyle.peek_rule({"widow": "widow"}) is None
    for vid in ("pagat", "russian36", "napoleao"):
        assert get_variant(vid).widow_rule({}) is None and get_variant(vid).peek_rule({}) is None
    assert [v for v in ("pagat", "hoyle", "russian36", "napoleao") if get_variant(v).takes_purchase] == ["russian36"]
    assert [v for v in ("pagat", "hoyle", "russian36", "napoleao") if get_variant(v).stake_is_per_chip] == ["russian36"]
    assert get_variant("napoleao").names_trump and get_variant("napoleao").rule_trump == "B-7"
