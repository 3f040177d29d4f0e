"""The ledger: the fold of an evening's rulings, hand after hand (pure Python).

Shapes: totals are tuples of units per seat (chips or points, the variant's unit);
money is units × stake in the currency's smallest unit. Nothing here stores
anything: the same facts always give the same ledger.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from .rules import EveningSetup, HandFacts, Ruling, RulesError, TableState, Variant, get_variant


class HandError(RulesError):
    """A hand of the evening that the rules refuse; ``number`` is its 1-based position."""

    def __init__(self, number: int, error: RulesError) -> None:
        super().__init__(f"Hand {number}: {error.message}", error.rule)
        self.number = number
        self.error = error


@dataclass(frozen=True)
class LedgerRow:
    """One hand in the ledger: its facts, its ruling and the running totals after it."""

    number: int
    facts: HandFacts
    ruling: Ruling
    totals: tuple[int, ...]
    pool: int


@dataclass(frozen=True)
class Ledger:
    """An evening settled so far.

    ``totals`` are units per seat; ``pool`` the units in the pool (0 for variants
    without one); ``next_dealer`` the seat to deal next and ``shuffle`` whether
    that dealer shuffles; ``hands_counted`` counts the hands that count towards the
    agreed end (P-14), ``hands_to_play`` is that agreed number or ``None``.
    """

    setup: EveningSetup
    variant: Variant
    rows: tuple[LedgerRow, ...]
    totals: tuple[int, ...]
    pool: int
    next_dealer: int
    shuffle: bool
    hands_counted: int
    hands_to_play: int | None

    @property
    def hands_remaining(self) -> int | None:
        """Counted hands still to play before the agreed end, or ``None`` if open-ended."""
        if self.hands_to_play is None:
            return None
        return max(0, self.hands_to_play - self.hands_counted)

    @property
    def end_reached(self) -> bool:
        """True once the agreed number of hands has been played (P-14, B-14) or a
        player has reached the target score (B-14)."""
        if self.hands_remaining == 0:
            return True
        target = self.variant.target_score(self.setup.options)
        return target is not None and bool(self.rows) and max(self.totals) >= target

    @property
    def winners(self) -> tuple[int, ...]:
        """Seats with the highest total; equal totals share the win (P-14)."""
        best = max(self.totals)
        return tuple(s for s, t in enumerate(self.totals) if t == best)

    @property
    def money_totals(self) -> tuple[int, ...] | None:
        """Totals in minor currency units, or ``None`` for a points-only evening."""
        if self.setup.stake is None:
            return None
        return tuple(t * self.setup.stake.minor for t in self.totals)


def settle_evening(setup: EveningSetup, hands: Sequence[HandFacts]) -> Ledger:
    """Settle every hand of an evening in order and fold the rulings into totals.

    Raises :class:`~scorer.rules.IllegalSetup` for a bad set-up and
    :class:`HandError` (with the hand's number) for the first hand the rules refuse.
    """
    variant = get_variant(setup.variant)
    setup = variant.check_setup(setup)
    totals = [0] * setup.n
    pool = 0
    counted = 0
    rows: list[LedgerRow] = []
    next_dealer = setup.first_dealer
    shuffle = True  # P-4: the cards are shuffled at the start of play
    state = TableState()
    for number, facts in enumerate(hands, start=1):
        try:
            ruling = variant.settle(facts, setup, state)
        except RulesError as error:
            raise HandError(number, error) from error
        state = ruling.state_after
        for seat, units in enumerate(ruling.units):
            totals[seat] += units
        pool += ruling.pool
        counted += ruling.counts
        next_dealer = ruling.next_dealer
        shuffle = ruling.shuffle
        rows.append(LedgerRow(number, facts, ruling, tuple(totals), pool))
    return Ledger(
        setup=setup,
        variant=variant,
        rows=tuple(rows),
        totals=tuple(totals),
        pool=pool,
        next_dealer=next_dealer,
        shuffle=shuffle,
        hands_counted=counted,
        hands_to_play=variant.hands_to_play(setup),
    )
