"""The full record of play: checked, read (trick winners, the declarer's tricks, when
the result was decided) and used to prove or disprove revoke claims."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from scorer.rules import Claim, HandFacts, IllegalFacts, get_variant
from scorer.rules.cards import RANKS_52, SUITS, Card
from tests.helpers import setup

FOUR = ("North", "East", "South", "West")
# dealer North: East speaks first and bids Three; East leads. Hearts trump.
AUCTION = ("three", "pass", "pass", "pass")
RECORD = (
    ("AH", "2H", "3H", "4H"),  # East leads ♥A: East wins
    ("KS", "2S", "5H", "3S"),  # East leads ♠K, West trumps: West wins
    ("QC", "2C", "3C", "4C"),  # West leads ♣Q (West, North, East, South): West wins
    ("KD", "2D", "3D", "4D"),  # West leads ♦K: West wins
    ("AD", "5D", "6D", "7D"),  # West leads ♦A: West wins
)


def settle(variant: str, record, tricks=None, *claims: Claim, auction=AUCTION, **facts):  # type: ignore[no-untyped-def]
    s = setup(variant, FOUR)
    return get_variant(variant).settle(HandFacts(0, auction, tricks, record=record, claims=claims, **facts), s)


def test_tricks_come_from_the_record() -> None:
    r = settle("pagat", RECORD)
    assert r.tricks == 1 and r.units == (3, -9, 3, 3)  # East took one trick: Three defeated
    assert "tricks won by East, West, West, West, West" in r.reasons[1].text
    with pytest.raises(IllegalFacts, match="gives East 1 tricks, not 3"):
        settle("pagat", RECORD, 3)


def test_result_decided_early_and_a_record_that_stops_there() -> None:
    early = RECORD[:2]  # after two tricks East has 1; three more could still make Three
    with pytest.raises(IllegalFacts, match="stops before the result was certain"):
        settle("pagat", early)
    three = RECORD[:3]  # after trick 3 West has 2 more: East can win at most 3 — still possible
    with pytest.raises(IllegalFacts):
        settle("pagat", three)
    four = RECORD[:4]  # after trick 4: East 1, one trick left: Three impossible
    r = settle("hoyle", four)
    assert r.tricks == 1 and any(x.rule == "H-10" and "stopped after trick 4, when the result was certain" in x.text
                                 for x in r.reasons)


def test_record_proves_and_disproves_revoke_claims() -> None:
    # South discards ♣3 on a spade lead in trick 2, then plays ♠9 in trick 5: a revoke
    record = (
        ("AH", "2H", "3H", "4H"),
        ("KS", "3C", "5H", "3S"),
        ("QC", "2C", "6C", "4C"),
        ("KD", "2D", "3D", "4D"),
        ("AD", "5D", "6D", "9S"),
    )
    proven = settle("hoyle", record, None, Claim("revoke", accused=2, upheld=False, by=1))
    assert any("The record proves the claim: South played 3C to trick 2 when spades were led, and later played 9S"
               in x.text for x in proven.reasons)
    assert proven.units == (0, 9, -9, 0)  # H-15: South pays East all that Three would have collected
    disproven = settle("hoyle", record, None, Claim("revoke", accused=0, upheld=True, by=1))
    assert any("The record disproves the claim: every card North held is in the record" in x.text
               for x in disproven.reasons)
    assert disproven.units == (3, -9, 3, 3)  # scored as played: East took one trick
    unclaimed = settle("hoyle", record)
    assert any("nobody claimed it, so the score stands" in x.text for x in unclaimed.reasons)


def test_r11_failing_to_trump_is_a_revoke_in_russian36() -> None:
    # dealer North speaks first: N pass, E three, S pass, W pass. Hearts trump (East's first lead).
    record = (
        ("AH", "6H", "7H", "8H"),
        ("KS", "9C", "6S", "7S"),  # South (second to play) discards ♣9 on spades although holding a heart
        ("QD", "9H", "6D", "7D"),  # … and plays ♥9 later: South failed to trump in trick 2
    )
    r = get_variant("russian36").settle(
        HandFacts(0, ("pass", "three", "pass", "pass"), None, record=record,
                  claims=(Claim("revoke", accused=2, upheld=False),)),
        setup("russian36", FOUR, ante=0))
    assert any("later played 9H (a trump: R-11)" in x.text for x in r.reasons)


def test_bad_records_are_refused() -> None:
    with pytest.raises(IllegalFacts, match="played twice"):
        settle("pagat", (("AH", "AH", "3H", "4H"),))
    with pytest.raises(IllegalFacts, match="one card from each"):
        settle("pagat", (("AH", "2H", "3H"), ("KS", "2S", "5H", "3S")))
    with pytest.raises(IllegalFacts, match="not in the 36-card pack"):
        get_variant("russian36").settle(HandFacts(0, ("pass", "three", "pass", "pass"), None,
                                                  record=(("AH", "2H", "6H", "7H"),)), setup("russian36", FOUR))
    with pytest.raises(IllegalFacts, match="Record the trump"):
        settle("napoleao", RECORD)


@st.composite
def legal_plays(draw: st.DrawFn) -> tuple[int, list[list[str]], list[list[str]]]:
    """Deal five cards to each of n players and play all five tricks legally."""
    n = draw(st.integers(2, 6))
    cards = draw(st.permutations([Card(r, s) for s in SUITS for r in RANKS_52]))
    hands = [list(cards[i * 5:(i + 1) * 5]) for i in range(n)]
    declarer = draw(st.integers(0, n - 1))
    leader = declarer
    trump = None
    record: list[list[str]] = []
    order = {c: i for i, c in enumerate(RANKS_52)}
    for _ in range(5):
        trick = []
        led = None
        for i in range(n):
            seat = (leader + i) % n
            legal = [c for c in hands[seat] if led is None or c.suit == led] or hands[seat]
            card = draw(st.sampled_from(legal))
            hands[seat].remove(card)
            trick.append(card)
            led = led or card.suit
        trump = trump or trick[0].suit
        best = min(range(n), key=lambda i: (trick[i].suit != trump, trick[i].suit != led, order[trick[i].rank]))
        record.append([str(c) for c in trick])
        leader = (leader + best) % n
    return declarer, record, [[str(c) for c in h] for h in hands]


@settings(max_examples=150, deadline=None)
@given(legal_plays(), st.data())
def test_legal_record_properties(play: tuple[int, list[list[str]], list[list[str]]], data: st.DataObject) -> None:
    from scorer.rules.play import read_record

    declarer, record, _ = play
    n = len(record[0])
    reading = read_record(record, n, declarer, 5)
    # the trick count read from a legal record equals the tricks credited by an independent count
    order = {c: i for i, c in enumerate(RANKS_52)}
    leader, count = declarer, 0
    trump = record[0][0][-1]
    for trick in record:
        led = trick[0][-1]
        best = min(range(n), key=lambda i: (trick[i][-1] != trump, trick[i][-1] != led, order[trick[i][:-1]]))
        count += (leader + best) % n == declarer
        leader = (leader + best) % n
    assert reading.tricks == count and reading.revokes == ()
    # a revoke claim against a player who always followed suit is always rejected
    accused = data.draw(st.integers(0, n - 1))
    players = tuple(f"P{i}" for i in range(n))
    dealer = (declarer - 1) % n  # the declarer is eldest hand and bids Nap; the others pass
    auction = ("nap",) + ("pass",) * (n - 1)
    s = setup("hoyle", players)
    plain = get_variant("hoyle").settle(HandFacts(dealer, auction, None, record=tuple(map(tuple, record))), s)
    claimed = get_variant("hoyle").settle(HandFacts(dealer, auction, None, record=tuple(map(tuple, record)),
                                                    claims=(Claim("revoke", accused=accused, upheld=True),)), s)
    assert claimed.units == plain.units and claimed.tricks == plain.tricks == count
    assert any("The record disproves the claim" in x.text for x in claimed.reasons)


def test_h13_a_short_player_cannot_win_a_trick_he_has_no_card_for() -> None:
    # three players; B was dealt four cards (said after speaking). Dealer C: A speaks first, bids Three.
    record = (("AS", "2S", "3S"), ("KS", "4S", "5S"), ("QH", "AH", "2H"), ("KH", "3H", "4H"),
              ("2D", "3D"))  # trick 5: B, who won trick 4, has no card: the lead passes to C; A wins
    s = setup("hoyle", ("A", "B", "C"))
    r = get_variant("hoyle").settle(HandFacts(2, ("three", "pass", "pass"), None, record=record, claims=(
        Claim("wrong_cards", accused=1, upheld=True, cards_held=4),)), s)
    assert r.tricks == 3 and r.units == (6, -3, -3)  # declarer's hand right, an opponent's wrong: made, collects
    with pytest.raises(IllegalFacts):  # without the claim, trick 5 lacks B's card
        get_variant("hoyle").settle(HandFacts(2, ("three", "pass", "pass"), None, record=record), s)
