"""Where each settle-up payment comes from (scorer/evening/transfers.py), worked out by hand."""

from __future__ import annotations

import random

from scorer.evening.ledger import settle_evening
from scorer.evening.settle import Payment, settle_up
from scorer.evening.transfers import Part, explain, moves, unpaid_losses
from scorer.rules import HandFacts, Stake
from tests.helpers import setup

NAMES = ("Ann", "Bob", "Cy", "Di")


def _evening() -> tuple[object, object]:
    """pagat at 10p a unit. Hand 1 (Ann deals): Bob makes Four, +12, the others −4.
    Hand 2 (Bob deals): Cy makes Four, +12, the others −4. Hand 3 (Cy deals): Di bids Three
    and takes 2: −9, the others +3. Hand 4 (Di deals): Ann makes Nap, +15, the others −5.
    Totals Ann 10, Bob 6, Cy 6, Di −22 units: £1.00, £0.60, £0.60, −£2.20."""
    s = setup("pagat", NAMES, stake=Stake(10, "£"))
    ledger = settle_evening(s, [HandFacts(0, ("four", "pass", "pass", "pass"), 4),
                                HandFacts(1, ("four", "pass", "pass", "pass"), 4),
                                HandFacts(2, ("three", "pass", "pass", "pass"), 2),
                                HandFacts(3, ("nap", "pass", "pass", "pass"), 5)])
    return ledger, settle_up(ledger)


def test_each_payment_takes_the_hands_its_payee_won_first() -> None:
    ledger, settle = _evening()
    assert ledger.totals == (10, 6, 6, -22)  # type: ignore[attr-defined]
    assert settle.payments == (Payment(3, 0, 100), Payment(3, 1, 60), Payment(3, 2, 60))  # type: ignore[attr-defined]
    # Di lost 40p, 40p, 90p and 50p in hands 1-4 and won nothing back: all 220p are owed.
    # Ann won hands 3 and 4: her £1.00 is hand 3's 90p and 10p of hand 4's 50p.
    # Bob won hands 1 and 3 (3 is taken): hand 1's 40p, then 20p of hand 4.
    # Cy won hands 2 and 3: hand 2's 40p, then the last 20p of hand 4.
    ann, bob, cy = explain(ledger, settle)  # type: ignore[arg-type]
    assert ann.parts == (Part(3, 90, 90), Part(4, 10, 50)) and ann.hands == (3, 4)
    assert bob.parts == (Part(1, 40, 40), Part(4, 20, 50))
    assert cy.parts == (Part(2, 40, 40), Part(4, 20, 50))
    for e in (ann, bob, cy):
        assert sum(p.amount for p in e.parts) == e.payment.amount


def test_a_win_pays_back_the_latest_losses_first() -> None:
    # −5, +3 (pays back 3 of hand 1), −4, +1 (pays back 1 of hand 3), −2: owed 2 + 3 + 2 = 7
    assert unpaid_losses([(1, -5), (2, 3), (3, -4), (4, 1), (5, -2)]) == [(1, 2), (3, 3), (5, 2)]
    # ahead first: +6, then −10 owes only the 4 below zero; a final pool share of 1 pays back 1 of it
    assert unpaid_losses([(1, 6), (2, -10), (None, 1)]) == [(2, 3)]
    assert unpaid_losses([(1, 4), (2, -4)]) == []


def test_unpaid_losses_match_the_running_totals_formula() -> None:
    """The module's second reading: hand k owes max(0, min(0, r[k-1]) − max(r[k:]))."""
    rng = random.Random(7)
    for _ in range(500):
        steps = [(k, rng.randint(-9, 9)) for k in range(1, rng.randint(1, 12))]
        totals = [0]
        for _, change in steps:
            totals.append(totals[-1] + change)
        expected = [(k, max(0, min(0, totals[k - 1]) - max(totals[k:]))) for k, c in steps if c < 0]
        assert unpaid_losses(steps) == [(k, a) for k, a in expected if a]
        assert sum(a for _, a in unpaid_losses(steps)) == max(0, -totals[-1])


def test_a_shared_pool_counts_as_a_last_win() -> None:
    """hoyle, pool shared, 5p a chip: Ada deals, the pool opens at 3 × 5 = 15 chips and Ada
    tops it up with 1 (16). Bea makes Three: +6 (3 from each of Ada and Cy). Totals Ada
    −5 − 1 − 3 = −9, Bea −5 + 6 = 1, Cy −5 − 3 = −8; the pool's 16 chips = 80p shared: 26p
    each and the odd 2p to the next dealer, Bea, and then Cy (in turn)."""
    s = setup("hoyle", ("Ada", "Bea", "Cy"), stake=Stake(5, "£"), pool=True, pool_opening=5, pool_top_up=1)
    ledger = settle_evening(s, [HandFacts(0, ("three", "pass", "pass"), 3)])
    settle = settle_up(ledger)
    assert ledger.totals == (-9, 1, -8) and settle.pool_share == 26 and settle.odd == (1, 2)
    assert settle.balances == (-45 + 26, 5 + 27, -40 + 27) and settle.payments == (Payment(0, 1, 19), Payment(2, 1, 13))
    assert moves(ledger, settle, 0) == [(1, -45), (None, 26)]
    # Ada lost 45p in hand 1; her 26p share pays back 26 of it: she owes 19p, all from hand 1
    (ada, cy) = explain(ledger, settle)
    assert ada.parts == (Part(1, 19, 45),) and cy.parts == (Part(1, 13, 40),)
