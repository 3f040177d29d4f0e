"""Settle-up: who pays whom how much, in as few payments as possible."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

from scorer.evening.file import loads
from scorer.evening.ledger import settle_evening
from scorer.evening.settle import Payment, settle_up
from scorer.rules import POOL, HandFacts, Stake
from tests.helpers import setup

EXAMPLES = Path(__file__).resolve().parent.parent / "examples"


def test_hoyle_example_settles_in_three_payments() -> None:
    evening = loads((EXAMPLES / "hoyle-five.json").read_bytes())
    result = settle_up(settle_evening(evening.setup, evening.hands))
    # units +70 −125 +55 −5 +5 at 5p: a money evening is settled in pence.
    # Dmitri→Eve 25p is a group of its own, Boris pays Alice and Chloe
    assert result.money and result.balances == (350, -625, 275, -25, 25)
    assert set(result.payments) == {Payment(3, 4, 25), Payment(1, 0, 350), Payment(1, 2, 275)}


def test_two_independent_pairs_need_two_payments_not_three() -> None:
    s = setup("pagat", ("A", "B", "C", "D"))
    # hand 1 (dealer A): B bids Four and makes it: B +12, others −4
    # hand 2 (dealer B): C bids Four and makes it: C +12, others −4 → A −8, B +8, C +8, D −8
    ledger = settle_evening(s, [HandFacts(0, ("four", "pass", "pass", "pass"), 4),
                                HandFacts(1, ("four", "pass", "pass", "pass"), 4)])
    assert ledger.totals == (-8, 8, 8, -8)
    result = settle_up(ledger)
    assert len(result.payments) == 2 and sum(p.amount for p in result.payments) == 16


def test_pool_shared_with_the_odd_chip_to_the_next_dealer() -> None:
    # hoyle with a pool: opening 5 each (3 players → 15), dealer A adds 1 → 16; B makes Three: +6
    s = setup("hoyle", ("A", "B", "C"), pool=True, pool_opening=5, pool_top_up=1)
    ledger = settle_evening(s, [HandFacts(0, ("three", "pass", "pass"), 3)])
    assert ledger.totals == (-5 - 1 - 3, -5 + 6, -5 - 3) and ledger.pool == 16
    result = settle_up(ledger)
    # 16 = 3 × 5 + 1: the odd chip goes to the next dealer, B (adopted reading, after Peel)
    assert (result.pool_share, result.pool_left, result.odd) == (5, 0, (1,)) and not result.money
    assert result.balances == (-4, 7, -3)
    assert set(result.payments) == {Payment(0, 1, 4), Payment(2, 1, 3)}  # nothing to the pool


def test_shared_pool_leaves_no_payment_to_nobody() -> None:
    """The issue's evening: hoyle, 6 players, £3 a chip, pool shared. Ada deals: the pool
    opens at 6 × 5 = 30, Ada tops it up with 1 (31). Bea bids Nap and takes 4: defeated,
    she pays 5 to each of the 5 others (H-11) and doubles the pool, paying in 31 (H-16):
    the pool holds 62 chips = £186.00 = 6 × £31.00. Totals: Ada −5 − 1 + 5 = −1, Bea
    −5 − 25 − 31 = −61, the others −5 + 5 = 0. Balances in pence: Ada −300 + 3100 = 2800,
    Bea −18300 + 3100 = −15200, the others +3100 each: Bea pays everyone, nobody pays the pool."""
    names = ("Ada", "Bea", "Cy", "Dov", "Eli", "Fay")
    s = setup("hoyle", names, stake=Stake(300, "£"), pool=True)
    ledger = settle_evening(s, [HandFacts(0, ("nap",) + ("pass",) * 5, 4)])
    assert ledger.pool == 62 and ledger.totals == (-1, -61, 0, 0, 0, 0)
    result = settle_up(ledger)
    assert (result.money, result.pool_share, result.pool_left, result.odd) == (True, 3100, 0, ())
    assert result.balances == (2800, -15200, 3100, 3100, 3100, 3100)
    assert set(result.payments) == {Payment(1, 0, 2800)} | {Payment(1, s, 3100) for s in range(2, 6)}


def test_shared_pool_in_money_to_the_penny_odd_pennies_from_the_next_dealer() -> None:
    # as above with 3 players at 5p a chip: the pool of 16 chips is 80p = 3 × 26p + 2p; the
    # 2 odd pennies go to B (the next dealer) and C. Units −9, +1, −8 → −45p, +5p, −40p.
    s = setup("hoyle", ("A", "B", "C"), stake=Stake(5, "£"), pool=True, pool_opening=5, pool_top_up=1)
    result = settle_up(settle_evening(s, [HandFacts(0, ("three", "pass", "pass"), 3)]))
    assert (result.pool_share, result.pool_left, result.odd) == (26, 0, (1, 2))
    assert result.balances == (-45 + 26, 5 + 27, -40 + 27) == (-19, 32, -13)
    assert all(POOL not in (p.payer, p.payee) for p in result.payments)


def test_pool_left_unsettled_is_paid_into_by_the_debtors() -> None:
    s = setup("hoyle", ("A", "B", "C"), pool=True, pool_opening=5, pool_top_up=0, pool_at_end="leave")
    result = settle_up(settle_evening(s, [HandFacts(0, ("pass", "pass", "pass"))]))
    assert result.balances == (-5, -5, -5) and result.pool_left == 15
    assert sorted((p.payer, p.payee, p.amount) for p in result.payments) == [(0, POOL, 5), (1, POOL, 5), (2, POOL, 5)]


def test_statistics_of_the_hoyle_example() -> None:
    from scorer.evening.settle import statistics

    evening = loads((EXAMPLES / "hoyle-five.json").read_bytes())
    alice, boris, chloe, dmitri, eve = statistics(settle_evening(evening.setup, evening.hands))
    # Alice: dealt hand 5; declared Three (made) and Blücher (made); best +40, worst −10
    assert (alice.dealt, alice.declared, alice.made, alice.naps) == (1, 2, 2, 1)
    assert (alice.biggest_gain, alice.biggest_loss, alice.made_share) == (40, -10, 100)
    # Boris: dealt hands 1, 6 (misdeal) and 7; declared Nap, Blücher, One, all defeated
    assert (boris.dealt, boris.declared, boris.made, boris.naps) == (3, 3, 0, 0)
    assert (boris.biggest_gain, boris.biggest_loss, boris.made_share) == (4, -80, 0)
    assert (dmitri.declared, dmitri.made, dmitri.made_share) == (2, 1, 50)  # Four defeated, Two made


def test_statistics_count_claims() -> None:
    from scorer.evening.settle import statistics

    evening = loads((EXAMPLES / "hoyle-referee.json").read_bytes())
    nora, ed, sam, wes = statistics(settle_evening(evening.setup, evening.hands))
    # Sam: accused of the upheld revoke (hand 1) and upheld wrong cards (hand 5); made the claims of hands 2 and 7
    assert (sam.claims_upheld_against, sam.claims_made) == (2, 2)
    # Nora: upheld wrong cards (hand 3); the revoke claim against her in hand 7 was upheld by the table
    # but the record disproves it, so it does not count against her
    assert nora.claims_upheld_against == 1


def test_zero_sum_groups_give_the_fewest_payments() -> None:
    # six players, balances −9 +7 −2 +5 +6 −7 (sum 0). Grouped: {B +7, F −7} and
    # {A −9, C −2, D +5, E +6} each sum to zero (no smaller zero-sum split exists), so
    # 1 + 3 = 4 payments: F→B 7; then A (−9) pays E (+6) 6, A (−3) pays D (+5) 3, C pays D 2.
    # One greedy group would need 5: A→B 7, F→E 6, A→D 2, C→D 2, F→D 1.
    ledger = settle_evening(setup("pagat", tuple("ABCDEF")), [])
    ledger = replace(ledger, totals=(-9, 7, -2, 5, 6, -7))
    result = settle_up(ledger)
    assert result.balances == (-9, 7, -2, 5, 6, -7) and result.pool_left == 0
    assert result.payments == (Payment(5, 1, 7), Payment(0, 4, 6), Payment(0, 3, 3), Payment(2, 3, 2))


def test_equal_creditors_are_paid_lower_seat_first() -> None:
    # −10 +5 +5: no zero-sum subgroup; A pays B then C (the lower seat first on a tie)
    ledger = replace(settle_evening(setup("pagat", ("A", "B", "C")), []), totals=(-10, 5, 5))
    assert settle_up(ledger).payments == (Payment(0, 1, 5), Payment(0, 2, 5))


def test_statistics_gain_and_loss_are_never_past_zero_and_shares_round_half_up() -> None:
    from scorer.evening.settle import PlayerStats, statistics

    s = setup("pagat")
    ledger = settle_evening(s, [HandFacts(0, ("three", "pass", "pass", "pass"), 3)])  # East +9, others −3
    north, east, _, _ = statistics(ledger)
    assert (north.biggest_gain, north.biggest_loss) == (0, -3)  # never gained: 0, not −3
    assert (east.biggest_gain, east.biggest_loss) == (9, 0)
    assert PlayerStats(0, 3, 2, 0, 0, 0, 0, 0).made_share == 67  # 2 of 3 = 66.7 %
    assert PlayerStats(0, 8, 1, 0, 0, 0, 0, 0).made_share == 13  # 1 of 8 = 12.5 %, half up


def test_the_ledger_carries_the_last_hands_shuffle_reminder() -> None:
    s = setup("pagat")
    # P-4: a Four made is gathered, not shuffled; a Nap made is shuffled
    assert settle_evening(s, [HandFacts(0, ("four", "pass", "pass", "pass"), 4)]).shuffle is False
    assert settle_evening(s, [HandFacts(0, ("nap", "pass", "pass", "pass"), 5)]).shuffle is True
