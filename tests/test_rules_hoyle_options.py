"""``hoyle`` options: the pool (H-16), widow (H-17), Peep Nap (H-18), Sir Garnet (H-19)
and the options of other rule books (other-sources.md, cited O-1 to O-3).
Every number is worked out by hand."""

from __future__ import annotations

import pytest

from scorer.evening.ledger import settle_evening
from scorer.rules import HandFacts, IllegalAuction, IllegalFacts, IllegalSetup, TableState, get_variant
from tests.helpers import rule_on, setup

H = "hoyle"
V = get_variant(H)
ABC = ("A", "B", "C")


def test_h16_pool_opening_stakes_top_up_nap_takes_it_then_a_new_pool() -> None:
    s = setup(H, ABC, pool=True, pool_opening=4, pool_top_up=1)
    hands = [
        HandFacts(0, ("two", "pass", "pass"), 2),  # dealer A: B Two made. Pool 4×3 + 1 = 13
        HandFacts(1, ("nap", "pass", "pass"), 5),  # dealer B (+1 → 14): C makes Nap, takes 14
        HandFacts(2, ("pass", "pass", "pass")),  # new pool: 4 each (12) + dealer C 1 = 13
    ]
    ledger = settle_evening(s, hands)
    r1, r2, r3 = (row.ruling for row in ledger.rows)
    assert r1.units == (-4 - 1 - 2, -4 + 4, -4 - 2) and r1.pool == 13
    assert r2.units == (-10, -1 - 10, 20 + 14) and r2.pool == 1 - 14 and r2.state_after.pool == 0
    assert r3.units == (-4, -4, -4 - 1) and r3.state_after.pool == 13
    assert ledger.totals == (-21, -15, 23) and ledger.pool == 13


def test_h16_defeated_nap_doubles_the_pool_and_wellington_counts() -> None:
    s = setup(H, ABC, pool=True, pool_opening=5, pool_top_up=0)
    r = V.settle(HandFacts(0, ("nap", "pass", "pass"), 4), s, TableState(pool=15, pool_open=True))
    assert r.units == (5, -10 - 15, 5) and r.state_after.pool == 30
    w = V.settle(HandFacts(0, ("nap", "wellington", "pass"), 5), s, TableState(pool=30, pool_open=True))
    assert w.units == (-10, -10, 20 + 30) and w.state_after.pool == 0 and not w.state_after.pool_open


def test_h16_pool_is_left_alone_by_small_contracts() -> None:
    s = setup(H, ABC, pool=True, pool_top_up=0)
    r = V.settle(HandFacts(0, ("four", "pass", "pass"), 3), s, TableState(pool=15, pool_open=True))
    assert r.units == (4, -8, 4) and r.pool == 0


def test_h17_widow_taker_must_bid_nap() -> None:
    s = setup(H, ABC, widow="widow")
    r = rule_on(s, 0, ["nap", "pass", "pass"], 5, widow=True)
    assert r.units == (-10, 20, -10) and "H-17" in r.rule_ids
    with pytest.raises(IllegalFacts) as err:
        rule_on(s, 0, ["four", "pass", "pass"], 4, widow=True)
    assert err.value.rule == "H-17"
    with pytest.raises(IllegalFacts):
        rule_on(setup(H, ABC), 0, ["nap", "pass", "pass"], 5, widow=True)  # no widow at this table


def test_h18_peep_nap_one_chip_a_look_and_needs_the_pool() -> None:
    with pytest.raises(IllegalSetup) as err:
        setup(H, ABC, widow="peep")
    assert err.value.rule == "H-18"
    s = setup(H, ABC, widow="peep", pool=True, pool_opening=2, pool_top_up=1)
    # pool: 2×3 + dealer A 1 + peeks by B and C 1 each = 9; B bids Three and takes the card free
    r = rule_on(s, 0, ["three", "pass", "pass"], 3, widow=True, peeks=(1, 2))
    assert r.units == (-2 - 1 - 3, -2 - 1 + 6, -2 - 1 - 3) and r.pool == 9
    with pytest.raises(IllegalFacts):
        rule_on(s, 0, ["three", "pass", "pass"], 3, peeks=(1, 1))


def test_h19_sir_garnet_pays_double_on_failure() -> None:
    s = setup(H, ("A", "B", "C", "D"), widow="garnet")
    made = rule_on(s, 0, ["garnet", "pass", "pass", "pass"], 5, widow=True)
    assert made.units == (-10, 30, -10, -10)
    lost = rule_on(s, 0, ["garnet", "pass", "pass", "pass"], 4, widow=True)
    assert lost.units == (10, -30, 10, 10) and "H-19" in lost.rule_ids  # 10 each, double Nap's 5
    with pytest.raises(IllegalAuction) as err:
        rule_on(setup(H), 0, ["garnet", "pass", "pass", "pass"], 5)
    assert err.value.rule == "H-19"


@pytest.mark.parametrize(
    ("schedule", "nap", "wellington", "blucher"),
    [("hoyle", (10, 5), (10, 10), (10, 20)), ("peel", (10, 5), (20, 10), (30, 15)),
     ("parlett", (10, 10), (20, 20), (40, 40)), ("britannica", (6, 3), (12, 6), (18, 9)),
     ("points", (5, 5), (10, 10), (20, 20))],
)
def test_o1_payment_schedules(schedule: str, nap: tuple[int, int], wellington: tuple[int, int],
                              blucher: tuple[int, int]) -> None:
    s = setup(H, ("A", "B"), schedule=schedule)
    for auction, (won, lost) in ((["nap", "pass"], nap), (["nap", "wellington"], wellington)):
        declarer = 1 if auction[1] == "pass" else 0  # dealer A: B speaks first
        assert rule_on(s, 0, auction, 5).units[declarer] == won
        assert rule_on(s, 0, auction, 4).units[declarer] == -lost
    s3 = setup(H, ABC, schedule=schedule)
    assert rule_on(s3, 0, ["nap", "wellington", "blucher"], 5).units[0] == 2 * blucher[0]
    assert rule_on(s3, 0, ["nap", "wellington", "blucher"], 4).units[0] == -2 * blucher[1]


def test_o2_misere_between_three_and_four() -> None:
    s = setup(H, ABC, misere="3/6")
    made = rule_on(s, 0, ["three", "misere", "pass"], 0)  # C bids misère over Three, takes no trick
    assert made.declarer == 2 and made.units == (-3, -3, 6)
    lost = rule_on(s, 0, ["three", "misere", "pass"], 1)
    assert lost.units == (6, 6, -12)
    with pytest.raises(IllegalAuction):
        rule_on(s, 0, ["four", "misere", "pass"], 0)  # lower than Four
    with pytest.raises(IllegalAuction) as err:
        rule_on(setup(H, ABC), 0, ["misere", "pass", "pass"], 0)
    assert err.value.rule == "O-2"


def test_o3_eldest_hand_plays_for_one() -> None:
    s = setup(H, ABC, all_pass="eldest_plays_one")
    r = rule_on(s, 2, ["pass", "pass", "pass"], 0)  # dealer C: A is eldest, plays One and fails
    assert r.declarer == 0 and r.units == (-2, 1, 1) and "O-3" in r.rule_ids


def test_o3_double_header_doubles_the_next_hand() -> None:
    s = setup(H, ABC, all_pass="double_header")
    ledger = settle_evening(s, [HandFacts(0, ("pass", "pass", "pass")), HandFacts(1, ("three", "pass", "pass"), 3)])
    assert ledger.rows[1].ruling.units == (-6, -6, 12)  # dealer B: C bids Three: 3 × 2 each
    assert "O-3" in ledger.rows[1].ruling.rule_ids


def test_h19_widow_ticked_exactly_for_sir_garnet() -> None:
    s = setup(H, ("A", "B", "C", "D"), widow="garnet")
    with pytest.raises(IllegalFacts) as err:
        rule_on(s, 0, ["three", "pass", "pass", "pass"], 3, widow=True)
    assert err.value.rule == "H-19"
    with pytest.raises(IllegalFacts):
        rule_on(s, 0, ["garnet", "pass", "pass", "pass"], 5)  # the Sir Garnet bid is taking the widow


def test_no_widow_or_purchase_when_nobody_bid() -> None:
    with pytest.raises(IllegalFacts, match="Nobody bid"):
        rule_on(setup(H, ABC, widow="widow"), 0, ["pass", "pass", "pass"], None, widow=True)
    with pytest.raises(IllegalFacts, match="Nobody bid"):
        rule_on(setup("russian36", ABC), 0, ["pass", "pass", "pass"], None, purchase=True)


def test_o1_o2_amounts_cite_the_other_rule_books() -> None:
    assert "O-1" in rule_on(setup(H, ABC, schedule="peel"), 0, ["nap", "pass", "pass"], 5).rule_ids
    assert "O-1" not in rule_on(setup(H, ABC), 0, ["nap", "pass", "pass"], 5).rule_ids
    assert "O-2" in rule_on(setup(H, ABC, misere="3/3"), 0, ["misere", "pass", "pass"], 0).rule_ids
