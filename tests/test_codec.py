"""The facts codec (scorer/codec.py): one shape for a hand, with names or seat indices."""

from __future__ import annotations

from pathlib import Path

import pytest

from scorer.evening.codec import decode_hand, encode_hand, seat_index
from scorer.evening.file import dump, loads
from scorer.rules import Claim, HandFacts, Override

EXAMPLES = Path(__file__).resolve().parent.parent / "examples"
NAMES = ("Ann", "Bob", "Cat", "Dan")

#: A hoyle hand with every fact the engine knows (worked out by hand from the shapes in
#: docs/evening-format.md), and what the codec writes for it with names and with seats.
FULL = HandFacts(
    dealer=3, auction=("pass", "three", "pass", "pass"), tricks=2, widow=True, peeks=(0, 2),
    claims=(Claim("revoke", 2, True, by=1, trick=3, suit_led="H", card="2C", evidence="5H"),
            Claim("wrong_cards", 0, False, cards_held=4, before_speaking=True)),
    override=Override((3, -1, -1, -1), "we agreed", pool=0),
    record=(("AS", "2S", "3S", "4S"),),
)
WITH_NAMES = {
    "dealer": "Dan", "auction": ["pass", "three", "pass", "pass"], "tricks": 2, "widow": True,
    "peeks": ["Ann", "Cat"],
    "claims": [{"kind": "revoke", "accused": "Cat", "upheld": True, "by": "Bob", "trick": 3, "suit_led": "H",
                "card": "2C", "evidence": "5H"},
               {"kind": "wrong_cards", "accused": "Ann", "upheld": False, "cards_held": 4, "before_speaking": True}],
    "record": [["AS", "2S", "3S", "4S"]],
    "override": {"entries": {"Ann": 3, "Bob": -1, "Cat": -1, "Dan": -1}, "pool": 0, "reason": "we agreed"},
}


def test_a_hand_is_written_as_the_evening_file_writes_it() -> None:
    assert encode_hand(FULL, NAMES) == WITH_NAMES


def test_the_database_form_writes_seats_as_indices() -> None:
    stored = encode_hand(FULL)
    assert stored["dealer"] == 3 and stored["peeks"] == [0, 2]
    assert stored["claims"][0]["accused"] == 2 and stored["claims"][0]["by"] == 1
    assert stored["override"]["entries"] == {"0": 3, "1": -1, "2": -1, "3": -1}
    assert decode_hand(stored, 4) == FULL


def test_names_are_read_back_to_seats() -> None:
    seats = {name: i for i, name in enumerate(NAMES)}
    assert decode_hand(WITH_NAMES, 4, lambda name, where: seats[name]) == FULL


def test_a_misdeal_keeps_only_its_dealer_and_an_override() -> None:
    facts = HandFacts(1, misdeal=True, override=Override((0, 2, -2), "redeal fine"))
    assert encode_hand(facts) == {"dealer": 1, "misdeal": True,
                                  "override": {"entries": {"0": 0, "1": 2, "2": -2}, "pool": 0,
                                               "reason": "redeal fine"}}
    assert decode_hand(encode_hand(facts), 3) == facts


def test_an_override_that_leaves_a_player_out_gives_them_nothing() -> None:
    data = {"dealer": 0, "auction": ["pass", "pass", "pass"],
            "override": {"entries": {"1": 4, "2": -4}, "reason": "x"}}
    assert decode_hand(data, 3).override == Override((0, 4, -4), "x", pool=0)


def test_a_seat_not_at_the_table_is_refused() -> None:
    with pytest.raises(ValueError, match="seat 4"):
        decode_hand({"dealer": 4, "auction": []}, 4)
    with pytest.raises(ValueError):
        seat_index(3)("-1", "peeks")


EVENINGS = sorted(p for p in EXAMPLES.glob("*.json") if not p.name.endswith(".expected.json"))


@pytest.mark.parametrize("path", EVENINGS, ids=lambda p: p.stem)
def test_every_example_hand_round_trips_both_ways(path: Path) -> None:
    evening = loads(path.read_bytes())
    n = evening.setup.n
    seats = {name: i for i, name in enumerate(evening.setup.players)}
    for facts, written in zip(evening.hands, dump(evening)["hands"], strict=True):
        assert encode_hand(facts, evening.setup.players) == written
        assert decode_hand(written, n, lambda name, where: seats[name]) == facts
        assert decode_hand(encode_hand(facts), n) == facts


def test_the_hand_form_reads_and_writes_the_codecs_shape(app) -> None:  # type: ignore[no-untyped-def]
    """The form that corrects a hand is filled from the codec's dict and gives the same
    dict back (the first claim is the one it edits)."""
    from scorer.rules import EveningSetup, get_variant
    from scorer.web.forms import HandFormBase, hand_form_for

    variant = get_variant("hoyle")
    setup = variant.check_setup(EveningSetup("hoyle", NAMES, 0, {"widow": "widow"}, None))
    one_claim = HandFacts(dealer=3, auction=("pass", "three", "pass", "pass"), tricks=2, widow=True,
                          claims=(Claim("revoke", 2, True, by=1, trick=3, suit_led="H", card="2C", evidence="5H"),))
    data = encode_hand(one_claim)
    order = variant.speaking_order(setup, 3)
    assert list(order) == [0, 1, 2, 3]  # eldest hand is on the dealer's left
    with app.test_request_context(method="POST"):
        form = hand_form_for(setup, variant.ladder(setup.options), variant.claim_rules,
                             **HandFormBase.initial(data, order))
        assert form.call_1.data == "three" and form.claim_accused.data == "2"
        assert form.hand_data(sequence_auction=False) == data
