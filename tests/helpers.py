"""Small builders shared by the tests."""

from __future__ import annotations

from typing import Any

from scorer.rules import EveningSetup, HandFacts, Ruling, Stake, get_variant

FOUR = ("North", "East", "South", "West")


def setup(variant: str, players: tuple[str, ...] = FOUR, first_dealer: int = 0, stake: Stake | None = None,
          **options: Any) -> EveningSetup:
    v = get_variant(variant)
    return v.check_setup(EveningSetup(variant, players, first_dealer, options, stake))


def rule_on(s: EveningSetup, dealer: int, auction: tuple[str, ...] | list[str], tricks: int | None = None,
            misdeal: bool = False, **facts: Any) -> Ruling:
    return get_variant(s.variant).settle(HandFacts(dealer, tuple(auction), tricks, misdeal, **facts), s)
