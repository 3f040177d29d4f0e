"""``napoleao`` — Napoleão, the Brazilian points game.

Source: ``shared/seeds/004_f25fb04a50ebee3e.txt`` (Portuguese), rendered in
``shared/rules/napoleao.md`` as B-1 … B-18. Scores are points: a made contract
scores for the declarer, a defeated one for every opponent; nobody pays anybody.
"""

from __future__ import annotations

from ..cards import SUITS
from ..core import Bid, EveningSetup, HandFacts, IllegalAuction, IllegalFacts, Text
from ..sources import NAPOLEAO_SOURCE
from .base import Tally, Variant
from .bidding import OneRoundAuction
from .ending import TargetOrHands
from .payments import Points


class Napoleao(Variant):
    """Napoleão: declarations One to Four and nap (B-4, B-5); points (B-11 to B-13)."""

    id = "napoleao"
    name = Text("Napoleão (Brazilian points game)")
    source = NAPOLEAO_SOURCE
    blurb = Text("Played in Brazil for points: the declarer names trumps, and when everyone passes the "
                 "dealer must declare.")
    min_players = 2  # B-1, adopted
    max_players = 6
    #: B-11 to B-13: (points to the declarer if made, points to each opponent if defeated)
    scoring = Points({"one": (1, 1), "two": (2, 2), "three": (3, 3), "four": (4, 4), "nap": (10, 5)})
    end = TargetOrHands("B-14")
    option_specs = end.option_specs
    draw_rule = ("B-2", False)
    rule_players = "B-1"
    auction = OneRoundAuction("B-4", "B-5", "B-5")  # the order, the ladder, overcalls
    rule_all_pass = "B-6"
    rule_misdeal = "B-18"
    rule_deal_passes = "B-3"
    deal_note = Text("Deal five cards each, one at a time, starting on the dealer's left.")
    misdeal_source_silent = True
    rule_play = "B-9"
    rule_stop = "B-10"
    names_trump = True
    rule_trump = "B-7"
    facts = frozenset({"trump"})  # B-7
    revoke_source_silent = False
    #: B-16: revokes are found by an inspection when the hand ends, not claimed during play.
    inspects_after_play = True

    def check_facts(self, facts: HandFacts, setup: EveningSetup) -> None:
        """B-7: the named trump, if recorded, is a suit; nothing else extra is allowed."""
        if facts.trump is not None and facts.trump not in SUITS:
            raise IllegalFacts(Text("Trump must be one of {suits} (B-7).", suits=", ".join(SUITS)), "B-7")
        super().check_facts(facts, setup)

    dealer_declares_on_all_pass = True

    def check_all_pass(self, facts: HandFacts, setup: EveningSetup) -> None:
        """B-6: when everyone says «Passo», the dealer becomes declarer and must declare at least one."""
        raise IllegalAuction(
            Text("Everyone else said «Passo», so {dealer} (the dealer) is declarer and must declare at least One.",
                 dealer=setup.players[facts.dealer]),
            "B-6",
        )

    def pay_contract(self, facts: HandFacts, setup: EveningSetup, tally: Tally, declarer: int, contract: Bid,
                     tricks: int | None, made: bool) -> None:
        """B-11 to B-13: points to the declarer (made) or to every opponent (defeated)
        (:class:`~.payments.Points`); B-7: the trump the declarer named."""
        super().pay_contract(facts, setup, tally, declarer, contract, tricks, made)
        if facts.trump is not None:
            tally.note("B-7", "{declarer} named {trump} trump.", declarer=tally.name(declarer),
                       trump={"S": Text("♠ spades"), "H": Text("♥ hearts"), "D": Text("♦ diamonds"),
                              "C": Text("♣ clubs")}[facts.trump])
