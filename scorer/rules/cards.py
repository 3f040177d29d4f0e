"""Cards, the first dealer by draw and the winner of a trick (P-2, P-11; H-2, H-3, H-9; B-2).

Scores in ``pagat`` and ``hoyle`` depend only on the declarer's trick count, so the
settlement never needs these; they are the base of the full record of play
(:mod:`scorer.rules.play`) and of the first dealer by draw. A card is written rank then suit: ``"AS"``, ``"10H"``,
``"QD"``, ``"2C"``.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from .core import IllegalFacts, Text

SUITS = ("S", "H", "D", "C")
#: P-2 / H-2: rank from high to low.
RANKS_52 = ("A", "K", "Q", "J", "10", "9", "8", "7", "6", "5", "4", "3", "2")
#: R-1: the 36-card pack, six to ace.
RANKS_36 = RANKS_52[:9]


@dataclass(frozen=True, order=False)
class Card:
    """A card: ``rank`` one of :data:`RANKS_52`, ``suit`` one of :data:`SUITS`."""

    rank: str
    suit: str

    def __str__(self) -> str:
        return f"{self.rank}{self.suit}"

    @property
    def strength(self) -> int:
        """Higher is stronger within a suit: 2 → 0 … A → 12 (P-2, H-2)."""
        return len(RANKS_52) - 1 - RANKS_52.index(self.rank)


def parse_card(text: str) -> Card:
    """``"10h"`` → ``Card("10", "H")``; raises :class:`IllegalFacts` for anything else."""
    t = str(text).strip().upper()[:4]
    t = t.translate(str.maketrans({"♠": "S", "♥": "H", "♦": "D", "♣": "C"}))
    rank, suit = t[:-1], t[-1:]
    if rank == "T":
        rank = "10"
    if rank not in RANKS_52 or suit not in SUITS:
        raise IllegalFacts(Text("“{text}” is not a card (write rank then suit, e.g. 10H, QS).", text=str(text)[:8]))
    return Card(rank, suit)


def first_dealer_by_draw(drawn: Sequence[Card], ace_low: bool = True) -> int:
    """H-3: the seat that drew the lowest card deals; the ace counts low for the draw.
    B-2: the lowest card deals too, with the ace high as in play (``ace_low=False``).

    Equal ranks are not split by the source; the earlier seat among them is returned
    and the table should draw again. Raises :class:`IllegalFacts` for no cards.
    """
    if not drawn:
        raise IllegalFacts(Text("Nobody drew a card."))

    def low(card: Card) -> int:
        return -1 if ace_low and card.rank == "A" else card.strength

    return min(range(len(drawn)), key=lambda seat: low(drawn[seat]))


def trick_winner(plays: Sequence[Card], trump: str) -> int:
    """P-11 / H-9: index in ``plays`` (lead first) of the card that wins the trick:
    the highest trump, otherwise the highest card of the suit led."""
    if not plays:
        raise IllegalFacts(Text("A trick needs at least one card."))
    led = plays[0].suit

    def power(card: Card) -> tuple[int, int]:
        if card.suit == trump:
            return (2, card.strength)
        if card.suit == led:
            return (1, card.strength)
        return (0, 0)

    return max(range(len(plays)), key=lambda i: power(plays[i]))
