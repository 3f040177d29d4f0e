"""``hoyle`` — Nap, Hoyle rules, with options.

Source: ``shared/seeds/000_380d836cfbf226e6.txt`` (Russian), rendered in
``shared/rules/hoyle.md`` as H-1 … H-19. This module implements the core, H-1 to
H-12: bids One (or Two) to Four and Nap, the Wellington/Blücher option, the
settlement table H-11 and the misdeal H-12. Units are chips.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ..core import BIDS, Bid, EveningSetup, HandFacts, IllegalAuction
from ..options import OptionSpec
from ..sources import HOYLE_SOURCE
from .base import Variant

#: H-11, units per opponent ``(made, defeated)``. Nap 10/5 is the source's
#: («Сэр Гарнет»); Wellington 10/10 and Blücher 10/20 are adopted (Hoyle tradition).
HOYLE_SCHEDULE: dict[str, tuple[int, int]] = {
    "one": (1, 1),
    "two": (2, 2),
    "three": (3, 3),
    "four": (4, 4),
    "nap": (10, 5),
    "wellington": (10, 10),
    "blucher": (10, 20),
}


class Hoyle(Variant):
    """Nap, Hoyle rules: bids from One (option: Two) to Nap, Wellington and Blücher as an option."""

    id = "hoyle"
    name = "Nap (Hoyle rules)"
    source = HOYLE_SOURCE
    min_players = 2  # H-1
    max_players = 6
    schedule = HOYLE_SCHEDULE
    option_specs = (
        OptionSpec(
            "lowest_bid",
            "Lowest bid",
            "choice",
            1,
            "H-6",
            "The smallest number of tricks a player may bid (H-6).",
            choices=((1, "One"), (2, "Two")),
        ),
        OptionSpec(
            "wellington_blucher",
            "Wellington and Blücher",
            "bool",
            True,
            "H-7",
            "Nap may be overcalled by Wellington, and Wellington by Blücher (H-7).",
        ),
        OptionSpec(
            "all_pass",
            "When everyone passes",
            "choice",
            "redeal",
            "H-8",
            "What happens when nobody bids (H-8).",
            choices=(("redeal", "The next dealer deals"), ("dealer_bids", "The dealer must bid")),
        ),
    )
    rule_players = "H-1"
    rule_auction = "H-6"
    rule_bids = "H-6"
    rule_overcall = "H-7"
    rule_all_pass = "H-8"
    rule_settle = "H-11"
    rule_misdeal = "H-12"
    rule_deal_passes = "H-4"
    rule_schedule = "H-11"
    rule_extra_tricks = "H-10"

    def ladder(self, options: Mapping[str, Any]) -> tuple[Bid, ...]:
        """H-6/H-7: from the lowest bid up to Nap, then Wellington and Blücher if chosen."""
        bids = [BIDS[b] for b in self.schedule]
        return tuple(
            b
            for b in bids
            if b.tricks >= options["lowest_bid"]
            and (options["wellington_blucher"] or b.id not in ("wellington", "blucher"))
        )

    def refuse_unknown_bid(self, call: str, options: Mapping[str, Any]) -> IllegalAuction:
        """Wellington/Blücher with the option off cite H-7; a bid below the lowest, H-6."""
        if call in ("wellington", "blucher") and not options["wellington_blucher"]:
            return IllegalAuction(
                f"{BIDS[call].name} is not played at this table (the Wellington and Blücher option is off).",
                "H-7",
            )
        if call in BIDS and BIDS[call].tricks < options["lowest_bid"]:
            lowest = BIDS["two"].name if options["lowest_bid"] == 2 else BIDS["one"].name
            return IllegalAuction(f"The lowest bid at this table is {lowest}.", "H-6")
        return super().refuse_unknown_bid(call, options)

    def check_all_pass(self, facts: HandFacts, setup: EveningSetup) -> None:
        """H-8 option: when the others have passed, the dealer must bid."""
        if setup.options["all_pass"] == "dealer_bids":
            lowest = self.ladder(setup.options)[0]
            raise IllegalAuction(
                f"Everyone else passed, so {setup.players[facts.dealer]} (the dealer) must bid at least "
                f"{lowest.name} at this table.",
                "H-8",
            )

    def shuffle_note(self, shuffle: bool) -> tuple[str, str]:
        """H-4: the dealer shuffles last; the player on the dealer's right cuts."""
        return "H-4", "The dealer shuffles last; the player on the dealer's right cuts (at least 4 cards a packet)."
