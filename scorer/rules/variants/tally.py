"""The entries of one hand as they are made (:class:`Tally`), and the checks every hand shares.

Units are integers (chips or points); a payment moves units between two parties (a seat,
or :data:`~scorer.rules.core.POOL`), so a money hand sums to zero by construction.
"""

from __future__ import annotations

from typing import Any

from ..core import (
    POOL,
    TRICKS_PER_HAND,
    Bid,
    EveningSetup,
    HandFacts,
    IllegalFacts,
    Reason,
    Result,
    Ruling,
    TableState,
    Text,
)


def check_tricks(tricks: Any) -> None:
    """Raise :class:`IllegalFacts` unless ``tricks`` is a whole number from 0 to 5."""
    if isinstance(tricks, bool) or not isinstance(tricks, int) or not 0 <= tricks <= TRICKS_PER_HAND:
        raise IllegalFacts(Text("The declarer wins 0 to {most} tricks, not {tricks}.", most=TRICKS_PER_HAND,
                                tricks=repr(tricks)))



Party = int | str  # a seat, or POOL


class Tally:
    """The entries of one hand as they are made: every payment moves chips from one
    party to another, so a money hand sums to zero by construction; :meth:`award`
    gives points from nobody (points variants such as ``napoleao``)."""

    def __init__(self, setup: EveningSetup, state: TableState) -> None:
        self.setup = setup
        self.state = state
        self.units = [0] * setup.n
        self.pool = 0
        self.pool_units = [0] * setup.n  # each seat's part of ``units`` paid into or taken from the pool
        self.reasons: list[Reason] = []
        self.pool_open = state.pool_open
        self.double_next = False
        self.multiplier = 2 if state.double_next else 1

    @property
    def pool_now(self) -> int:
        """Chips in the pool at this moment of the hand."""
        return self.state.pool + self.pool

    def _move(self, party: Party, amount: int) -> None:
        if party == POOL:
            self.pool += amount
        else:
            self.units[int(party)] += amount

    def pay(self, payer: Party, payee: Party, amount: int) -> None:
        """``payer`` pays ``amount`` units to ``payee``."""
        self._move(payer, -amount)
        self._move(payee, amount)
        if payee == POOL and payer != POOL:
            self.pool_units[int(payer)] -= amount
        elif payer == POOL and payee != POOL:
            self.pool_units[int(payee)] += amount

    def award(self, seat: int, points: int) -> None:
        """Score ``points`` for ``seat`` without anyone paying (points variants)."""
        self.units[seat] += points

    def note(self, rule: str, message: str, **params: Any) -> None:
        self.reasons.append(Reason(rule, message, params))

    def name(self, seat: int) -> str:
        return self.setup.players[seat]

    def ruling(
        self, result: Result, facts: HandFacts, declarer: int | None, contract: Bid | None, tricks: int | None,
        shuffle: bool, counts: bool,
    ) -> Ruling:
        state_after = TableState(pool=self.pool_now, pool_open=self.pool_open, double_next=self.double_next)
        return Ruling(
            result=result,
            dealer=facts.dealer,
            declarer=declarer,
            contract=contract,
            tricks=tricks,
            units=tuple(self.units),
            reasons=tuple(self.reasons),
            next_dealer=(facts.dealer + 1) % self.setup.n,
            pool=self.pool,
            shuffle=shuffle,
            counts=counts,
            state_after=state_after,
            claims=facts.claims,
            pool_units=tuple(self.pool_units) if any(self.pool_units) else (),
        )
