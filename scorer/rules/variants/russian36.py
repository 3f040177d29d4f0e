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
from ..sources import RUSSIAN36_SOURCE
from .base import Tally, Variant
from .bidding import SequenceAuction
from .payments import StakePerTrick
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
    scoring = StakePerTrick()
    option_specs = (*scoring.option_specs, *TREASURE.option_specs)
    pool = TREASURE
    rule_players = "R-1"
    auction = SequenceAuction("R-5", "R-6", "R-7")  # from the dealer, round after round; «Здесь»
    rule_all_pass = "R-8"
    rule_misdeal = "R-18"
    rule_deal_passes = "R-4"
    misdeal_source_silent = True
    rule_play = "R-11"
    rule_stop = "R-12"
    must_trump = True
    facts = frozenset({"purchase"})
    revoke_source_silent = True
    pack_size = 36
    takes_purchase = True
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
        """R-9: a purchase is noted; then stake × bid (R-13, R-14, R-16:
        :class:`~.payments.StakePerTrick`). What a defeat pays into the treasure is the
        treasure's (:meth:`~.pool.Treasure.after_play`)."""
        if facts.purchase:
            tally.note("R-9", "{declarer} bought one card from the stock (no payment).", declarer=tally.name(declarer))
        super().pay_contract(facts, setup, tally, declarer, contract, tricks, made)
        self.note_out_of_turn(facts, setup, tally)

    def note_out_of_turn(self, facts: HandFacts, setup: EveningSetup, tally: Tally) -> None:
        """R-18 (adopted; issue 25 item 10): a lead or play out of turn is recorded in the
        hand and changes no payment, also when a revoke stopped play (this runs from the
        revoke's settlement too); the ruling says the source is silent."""
        for claim in facts.claims:
            if claim.upheld and claim.kind == "out_of_turn":
                tally.note("R-18", "Upheld: {what}. It is recorded and changes no payment. The source is silent on "
                           "play out of turn; the house rule adopted by this product applies.",
                           what=self.describe_claim(setup, claim))
