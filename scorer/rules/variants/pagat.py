"""``pagat`` — British Nap, basic rules as given by Pagat.

Source: ``shared/seeds/002_8f87c281debb8ca7.txt`` (Norwegian Bokmål), rendered in
``shared/rules/pagat.md`` as P-1 … P-16. Units only by default; a table may give
one unit a money value.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ..core import BIDS, Bid, IllegalAuction, Text
from ..sources import PAGAT_SOURCE
from .base import Variant
from .bidding import OneRoundAuction
from .ending import DealsEach
from .payments import Schedule

#: P-15: documented alternatives that this variant excludes.
EXCLUDED = {"two": BIDS["two"].name, "misere": BIDS["misere"].name, "one": BIDS["one"].name}


class Pagat(Variant):
    """British Nap, basic (Pagat): bids Three, Four, Nap, Wellington (P-6)."""

    id = "pagat"
    name = Text("British Nap, basic (Pagat)")
    source = PAGAT_SOURCE
    blurb = Text("Nap as it is played in Britain and Scandinavia: Three, Four, Nap and Wellington, "
                 "scored in units on paper.")
    min_players = 3  # P-1
    max_players = 6
    # P-6: units per opponent, the same whether made or defeated (P-12, P-13).
    scoring = Schedule({"three": (3, 3), "four": (4, 4), "nap": (5, 5), "wellington": (10, 10)}, "P-12", "P-6", "P-12")
    end = DealsEach()  # P-14
    option_specs = end.option_specs
    rule_players = "P-1"
    auction = OneRoundAuction("P-5", "P-6", "P-7")  # the order, the ladder, overcalls
    rule_all_pass = "P-8"
    rule_misdeal = "P-16"
    rule_deal_passes = "P-4"
    misdeal_source_silent = True
    rule_play = "P-11"
    rule_stop = "P-11"
    revoke_source_silent = True

    def refuse_unknown_bid(self, call: str, options: Mapping[str, Any]) -> IllegalAuction:
        """A Two (or misère) is refused citing P-15; anything else not on the ladder, P-6."""
        if call in EXCLUDED:
            return IllegalAuction(
                Text("{bid} is not a bid in British Nap, basic: the bids are Three, Four, Nap and Wellington.",
                     bid=EXCLUDED[call]),
                "P-15",
            )
        return super().refuse_unknown_bid(call, options)

    def shuffle_after(self, contract: Bid | None, made: bool) -> bool:
        """P-4: shuffle after a made Nap or Wellington and after everyone passed."""
        if contract is None:
            return True
        return made and contract.id in ("nap", "wellington")

    def shuffle_note(self, shuffle: bool) -> tuple[str, str]:
        """P-4: shuffle, or gather the cards and cut only."""
        if shuffle:
            return "P-4", Text("Shuffle before this deal; the player on the dealer's right cuts.")
        return "P-4", Text("Do not shuffle: gather the cards; the player on the dealer's right cuts.")


assert set(Pagat.scoring.table) <= set(BIDS)
