"""``russian36`` — Napoleon, 36 cards, with Napoleon's treasure.

Source: ``shared/seeds/001_4075811b721171fb.txt`` (Russian), rendered in
``shared/rules/russian36.md`` as R-1 … R-18. Units are chips (the source plays for
roubles: give one chip a money value with the evening's stake). The treasure
(«Клад Наполеона») is the pool: a party of the ledger.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ..core import BIDS, Bid, EveningSetup, HandFacts, Text
from ..options import OptionSpec
from ..sources import RUSSIAN36_SOURCE
from .base import Tally, Variant
from .bidding import SequenceAuction
from .payments import outcome
from .pool import Treasure

#: Napoleon's treasure (:class:`~.pool.Treasure`): R-2, R-14 to R-17.
TREASURE = Treasure()

LADDER = ("one", "two", "three", "four", "five", "napoleon")


class Russian36(Variant):
    """Napoleon with the treasure: auction from the dealer, «Здесь», «Наполеон» (R-5 to R-7)."""

    id = "russian36"
    name = Text("Napoleon, 36 cards, with treasure")
    source = RUSSIAN36_SOURCE
    blurb = Text("The Russian game with a 36-card pack: bidding call by call, «Здесь», a bought card "
                 "and a treasure that grows.")
    min_players = 2
    max_players = 6
    option_specs = (
        OptionSpec("stake_per_trick", Text("Stake per trick (chips)"), "int", 10, "R-3",
                   Text("What each opponent pays per trick bid (R-3; the source's example plays for 10)."),
                   minimum=1, maximum=100_000),
        *TREASURE.option_specs,
    )
    pool = TREASURE
    rule_players = "R-1"
    auction = SequenceAuction("R-5", "R-6", "R-7")  # from the dealer, round after round; «Здесь»
    rule_all_pass = "R-8"
    rule_settle = "R-13"
    rule_misdeal = "R-18"
    rule_deal_passes = "R-4"
    rule_schedule = "R-13"
    rule_extra_tricks = "R-12"
    misdeal_source_silent = True
    rule_play = "R-11"
    rule_stop = "R-12"
    must_trump = True
    facts = frozenset({"purchase"})
    revoke_source_silent = True
    pack_size = 36
    takes_purchase = True
    stake_is_per_chip = True  # the stake per trick and the ante are in chips
    deal_note = Text("Shuffle and deal five cards each; the rest of the pack is the stock.")

    def ladder(self, options: Mapping[str, Any]) -> tuple[Bid, ...]:
        return tuple(BIDS[b] for b in LADDER)

    def check_facts(self, facts: HandFacts, setup: EveningSetup) -> None:
        """A purchase (R-9) is a fact of this variant; a named trump, widow or peek is not."""
        super().check_facts(facts, setup)

    def all_passed(self, facts: HandFacts, setup: EveningSetup, tally: Tally) -> None:
        """R-8 (adopted): not played; the antes stay in the treasure."""
        tally.note("R-8", "Everyone passed: the hand is not played; the antes stay in the treasure; {next} deals "
                   "next.", next=setup.players[(facts.dealer + 1) % setup.n])

    def pay_contract(self, facts: HandFacts, setup: EveningSetup, tally: Tally, declarer: int, contract: Bid,
                     tricks: int | None, made: bool) -> None:
        """R-13 made: every other player pays stake × bid. R-14 defeated: the declarer pays
        each stake × bid and as much into the treasure; R-16 for a Napoleon instead doubles it."""
        stake = int(setup.options["stake_per_trick"])
        per = stake * contract.tricks
        who = tally.name(declarer)
        if facts.purchase:
            tally.note("R-9", "{declarer} bought one card from the stock (no payment).", declarer=who)
        for seat in range(setup.n):
            if seat != declarer:
                tally.pay(seat, declarer, per) if made else tally.pay(declarer, seat, per)
        params = {"declarer": who, "outcome": outcome(who, contract, tricks, made), "needed": contract.tricks,
                  "per": per, "stake": stake, "count": setup.n - 1, "total": per * (setup.n - 1)}
        if made:
            tally.note("R-13", "{outcome}. Each of the {count} others "
                       "pays {stake} × {needed} = {per}: {declarer} +{total}.", **params)
            return
        tally.note("R-14" if contract.id != "napoleon" else "R-16",
                   "{outcome}. {declarer} pays each of the {count} "
                   "others {stake} × {needed} = {per}.", **params)
        TREASURE.pay_defeat(tally, declarer, contract, per)
