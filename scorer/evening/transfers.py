"""Where each payment of the settle-up comes from (issue 22 item 7), in pure Python.

The settle-up (:func:`scorer.evening.settle.settle_up`) pays the balances in as few payments
as possible, so a payment need not follow who won from whom in each hand: Bob may pay Ann
although it was Carl who took Bob's money in hand 3. What a payment settles is the payer's
debt, and this module says which of the payer's hands that debt is made of, so that
"Bob pays Ann £3.20: hands 3, 7 and 12" is true and can be checked on the scoresheet.

The definition (adopted; no rule book speaks of it):

1. **The payer's unpaid losses.** Walk the payer's money hand by hand (the change of their
   running total in each hand, in the currency's smallest unit, then the pool's share at the
   end when the table shares it). A loss is kept as owed; a win pays back the most recent
   losses still owed first (last in, first out). What is owed at the end adds up exactly to
   the payer's debt. Equivalently, read off the running totals ``r0 = 0, r1, …, rN`` (the
   pool's share as a last step): hand ``k`` owes
   ``max(0, min(0, r[k-1]) − max(r[k], r[k+1], …, rN))``, the part of its loss that lies
   below zero and below every total the payer reached later.
2. **Shared among the payer's payments** in the settle-up's order: each payment first takes
   the unpaid losses of hands in which its payee won (the pool: grew), earliest first, then
   the others, earliest first; the last hand taken may be split between two payments.

Shapes and units: every amount is in the settle-up's unit (minor units of money: pence;
units for an evening without a stake). Hands are numbered from 1 as on the scoresheet.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from ..rules import POOL
from .ledger import Ledger
from .settle import Payment, SettleUp


@dataclass(frozen=True)
class Part:
    """Part of a payment: ``amount`` of what the payer lost in hand ``hand`` (1-based),
    where the payer lost ``lost`` in all (both in the settle-up's unit; ``amount`` ≤ ``lost``)."""

    hand: int
    amount: int
    lost: int


@dataclass(frozen=True)
class Explained:
    """A payment of the settle-up and the hands it settles, in hand order (their amounts
    add up to ``payment.amount``)."""

    payment: Payment
    parts: tuple[Part, ...]

    @property
    def hands(self) -> tuple[int, ...]:
        """The numbers of the hands, in order: ``(3, 7, 12)``."""
        return tuple(p.hand for p in self.parts)


def moves(ledger: Ledger, settle: SettleUp, seat: int) -> list[tuple[int | None, int]]:
    """The seat's money, move by move: ``(hand number, change)`` for each hand (in the
    settle-up's unit: units × the stake's minor units, or units), then ``(None, share)`` for
    its share of the pool when the table shares it (its odd smallest unit included). They add
    up to ``settle.balances[seat]``."""
    scale = ledger.setup.stake.minor if (settle.money and ledger.setup.stake is not None) else 1
    out: list[tuple[int | None, int]] = []
    before = 0
    for row in ledger.rows:
        out.append((row.number, (row.totals[seat] - before) * scale))
        before = row.totals[seat]
    seated = ledger.seated or tuple(range(ledger.setup.n))
    share = (settle.pool_share if seat in seated else 0) + (seat in settle.odd)
    if share:
        out.append((None, share))
    return out


def unpaid_losses(steps: Sequence[tuple[int | None, int]]) -> list[tuple[int, int]]:
    """What is still owed of a player's losses after their wins, last in, first out (rule 1
    of the module): ``[(hand, amount owed), …]`` in hand order, adding up to the debt (empty
    for a player who owes nothing). ``steps`` as :func:`moves` gives them.

    >>> unpaid_losses([(1, -500), (2, 300), (3, -400)])
    [(1, 200), (3, 400)]
    """
    owed: list[list[int]] = []  # [hand, amount] still owed, oldest first
    credit = 0
    for hand, change in steps:
        if change < 0:
            loss = -change
            paid = min(credit, loss)  # a player ahead loses what they were ahead first
            credit -= paid
            if loss > paid:
                assert hand is not None  # the pool's share is never a loss
                owed.append([hand, loss - paid])
        elif change > 0:
            win = change
            while win and owed:
                take = min(win, owed[-1][1])
                owed[-1][1] -= take
                win -= take
                if not owed[-1][1]:
                    owed.pop()
            credit += win
    return [(hand, amount) for hand, amount in owed]


def explain(ledger: Ledger, settle: SettleUp) -> tuple[Explained, ...]:
    """Each payment of ``settle`` (the settle-up of ``ledger``) with the hands it settles,
    in the settle-up's order (rules 1 and 2 of the module)."""
    parts: dict[int, list[Part]] = {i: [] for i in range(len(settle.payments))}
    for payer in sorted({p.payer for p in settle.payments if isinstance(p.payer, int)}):
        steps = moves(ledger, settle, payer)
        lost = {hand: -change for hand, change in steps if hand is not None and change < 0}
        left = [[hand, amount] for hand, amount in unpaid_losses(steps)]
        mine = [i for i, p in enumerate(settle.payments) if p.payer == payer]
        need = {i: settle.payments[i].amount for i in mine}
        for preferred in (True, False):
            for i in mine:
                won = _won_by(ledger, settle.payments[i].payee) if preferred else None
                for item in left:
                    if not need[i]:
                        break
                    if item[1] and (won is None or item[0] in won):
                        take = min(need[i], item[1])
                        item[1] -= take
                        need[i] -= take
                        parts[i].append(Part(item[0], take, lost[item[0]]))
    return tuple(Explained(p, tuple(_merged(parts[i]))) for i, p in enumerate(settle.payments))


def _won_by(ledger: Ledger, payee: int | str) -> set[int]:
    """The hands in which ``payee`` won (a seat whose total went up; the pool: it grew)."""
    won: set[int] = set()
    before_total, before_pool = 0, 0
    for row in ledger.rows:
        if payee == POOL:
            if row.pool > before_pool:
                won.add(row.number)
        elif isinstance(payee, int) and row.totals[payee] > before_total:
            won.add(row.number)
        before_pool = row.pool
        before_total = row.totals[payee] if isinstance(payee, int) else 0
    return won


def _merged(parts: list[Part]) -> list[Part]:
    """Parts in hand order, one per hand."""
    by_hand: dict[int, Part] = {}
    for part in parts:
        have = by_hand.get(part.hand)
        by_hand[part.hand] = part if have is None else Part(part.hand, have.amount + part.amount, part.lost)
    return [by_hand[h] for h in sorted(by_hand)]
