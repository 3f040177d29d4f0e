"""Long evenings of random legal hands, made with the engine (issue 23, item 7): for
tests/test_long_evening.py and benchmarks/long_file.py."""

from __future__ import annotations

import random

from scorer.evening.file import EveningFile
from scorer.rules import PASS, EveningSetup, HandFacts, RulesError, get_variant

PLAYERS = ("Ann", "Bob", "Cat", "Dan")


def long_evening(hands: int, seed: int = 23, variant_id: str = "hoyle") -> EveningFile:
    """An evening of ``hands`` random hands (``variant_id``, four players, no agreed end),
    each one the engine accepts: a random auction and tricks, drawn again until the rules
    take them, about one in twenty a misdeal. The same ``seed`` gives the same evening."""
    rng = random.Random(seed)
    variant = get_variant(variant_id)
    setup = variant.check_setup(EveningSetup(variant_id, PLAYERS, 0, {}, None))
    bids = [b.id for b in variant.ladder(setup.options)]
    facts: list[HandFacts] = []
    dealer = 0
    for _ in range(hands):
        hand = HandFacts(dealer, misdeal=True)
        if rng.random() >= 0.05:
            for _attempt in range(50):
                calls = tuple(rng.choice(bids) if rng.random() < 0.3 else PASS for _seat in PLAYERS)
                bid = any(c != PASS for c in calls)
                candidate = HandFacts(dealer, calls, rng.randint(0, 5) if bid else None)
                try:
                    variant.settle(candidate, setup)
                except RulesError:
                    continue
                hand = candidate
                break
        facts.append(hand)
        dealer = variant.settle(hand, setup).next_dealer
    return EveningFile(setup=setup, hands=facts, name=f"A long evening, {hands} hands")
