"""Provisional rulings (scorer/evening/provisional.py): the server's last evening file plus the
hands waiting in a phone's outbox, read as the JSON command reads them and settled in order."""

from __future__ import annotations

import json
from pathlib import Path

from scorer.evening.file import loads
from scorer.evening.ledger import settle_evening
from scorer.evening.provisional import provisional

EXAMPLES = Path(__file__).resolve().parent.parent / "examples"


def _split(name: str, kept: int) -> tuple[str, list[dict]]:
    data = json.loads((EXAMPLES / name).read_text(encoding="utf-8"))
    waiting = data["hands"][kept:]
    return json.dumps({**data, "hands": data["hands"][:kept]}), waiting


def test_waiting_hands_settle_to_the_whole_evenings_totals() -> None:
    server, waiting = _split("pagat-thursday.json", 3)
    for hand in waiting:
        hand.pop("dealer", None)  # the phone sends none: the ledger's next dealer deals
    evening, ledger, refused = provisional(server, waiting)
    assert refused is None and len(ledger.rows) == 14
    # examples/README.md: Ann +29, Bob +9, Cat -19, Dan -19
    assert dict(zip(evening.setup.players, ledger.totals)) == {"Ann": 29, "Bob": 9, "Cat": -19, "Dan": -19}
    whole = loads((EXAMPLES / "pagat-thursday.json").read_bytes())
    assert ledger.totals == settle_evening(whole.setup, whole.hands, whole.changes).totals


def test_quick_entrys_lone_bid_is_the_variants_auction() -> None:
    server, _ = _split("pagat-thursday.json", 0)  # Ann deals first: Bob is eldest hand
    evening, ledger, refused = provisional(server, [{"lone_bid": {"declarer": "Cat", "contract": "three"},
                                                     "tricks": 3}])
    assert refused is None
    row = ledger.rows[0]
    assert row.facts.auction == ("pass", "three", "pass", "pass")  # Bob, Cat, Dan, Ann
    assert dict(zip(evening.setup.players, ledger.totals)) == {"Ann": -3, "Bob": -3, "Cat": 9, "Dan": -3}


def test_a_hand_the_rules_refuse_is_refused_with_its_rule_and_the_rest_left_out() -> None:
    server, _ = _split("pagat-thursday.json", 2)
    good = {"auction": ["pass", "three", "pass", "pass"], "tricks": 3}
    wellington = {"auction": ["pass", "pass", "wellington", "pass"], "tricks": 5}
    evening, ledger, refused = provisional(server, [good, wellington, good])
    assert refused is not None and (refused.index, refused.number, refused.rule) == (1, 4, "P-7")
    assert str(refused.message) == "Cat bid Wellington, but Wellington may only be bid after someone has bid Nap."
    assert len(ledger.rows) == 3  # the two of the server and the good hand before the refused one
    _, _, ninth = provisional(server, [{"auction": ["three", "pass", "pass", "pass"], "tricks": 9}])
    assert ninth is not None and ninth.rule is None and "9 is too large: at most 5" in str(ninth.message)


def test_a_waiting_correction_replaces_its_hand_after_the_waiting_hands() -> None:
    """A correction waits as {"correct": N, "facts": …}: hand N's facts replaced (its dealer kept),
    settled in order with the waiting hands; the rules' refusal names hand N."""
    server, _ = _split("pagat-thursday.json", 0)  # Ann deals hand 1 (Bob eldest), Bob hand 2
    made = {"lone_bid": {"declarer": "Bob", "contract": "three"}, "tricks": 3}  # Bob +9, the others -3
    evening, ledger, refused = provisional(server, [made, {"lone_bid": {"declarer": "Cat", "contract": "four"},
                                                           "tricks": 2}])  # Cat fails Four: pays 4 to each
    assert refused is None
    assert dict(zip(evening.setup.players, ledger.totals)) == {"Ann": 1, "Bob": 13, "Cat": -15, "Dan": 1}
    # hand 1 corrected to Bob failing Three (pays 3 to each): Ann +3+4, Bob -9+4, Cat +3-12, Dan +3+4
    fix = {"correct": 1, "facts": {"auction": ["three", "pass", "pass", "pass"], "tricks": 2}}
    evening, ledger, refused = provisional(server, [made, {"lone_bid": {"declarer": "Cat", "contract": "four"},
                                                           "tricks": 2}, fix])
    assert refused is None and len(ledger.rows) == 2
    assert ledger.rows[0].facts.dealer == 0  # Ann still deals hand 1
    assert dict(zip(evening.setup.players, ledger.totals)) == {"Ann": 7, "Bob": -5, "Cat": -9, "Dan": 7}
    wellington = {"correct": 1, "facts": {"auction": ["wellington", "pass", "pass", "pass"], "tricks": 5}}
    _, ledger, refused = provisional(server, [made, wellington])
    assert refused is not None and (refused.index, refused.number, refused.rule) == (1, 1, "P-7")
    assert str(refused.message) == "Bob bid Wellington, but Wellington may only be bid after someone has bid Nap."
    assert dict(zip(evening.setup.players, ledger.totals)) == {"Ann": -3, "Bob": 9, "Cat": -3, "Dan": -3}
    _, _, ninth = provisional(server, [made, {"correct": 1, "facts": {"auction": ["three", "pass", "pass", "pass"],
                                                                       "tricks": 9}}])
    assert ninth is not None and ninth.number == 1 and "9 is too large: at most 5" in str(ninth.message)
    _, _, nowhere = provisional(server, [{"correct": 1, "facts": made}])  # no hand 1 yet
    assert nowhere is not None and nowhere.index == 0
