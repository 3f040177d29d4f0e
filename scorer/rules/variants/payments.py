"""The payment part of a variant: the schedule of units per opponent and the result's reasons.

Each opponent pays the declarer the schedule's units for a made contract and is paid them
for a defeated one (P-12, H-11, B-11); units are integers (chips or points), doubled by
``Tally.multiplier`` after a double header (O-3). A variant with another way of paying
(``russian36``'s stake × bid and treasure, R-13 to R-16; ``napoleao``'s points, B-11 to
B-13) overrides :meth:`Payments.pay_contract`.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, ClassVar

from ..core import Bid, EveningSetup, HandFacts, Reason, Text, ntext
from .tally import Tally


def outcome(declarer: str, contract: Bid, tricks: int | None, made: bool) -> Text:
    """"Ann won 4 tricks, needing 4: Four is made", or "Four is scored as made" when a
    claim decided the hand (``tricks`` ``None``)."""
    if tricks is None:
        if made:
            return Text("{contract} is scored as made", contract=contract.name)
        return Text("{contract} is scored as defeated", contract=contract.name)
    won = ntext("{n} trick", "{n} tricks", tricks)
    if contract.id == "misere":
        if made:
            return Text("{declarer} won {won}, needing no trick: {contract} is made", declarer=declarer, won=won,
                        contract=contract.name)
        return Text("{declarer} won {won}, needing no trick: {contract} is defeated", declarer=declarer, won=won,
                    contract=contract.name)
    if made:
        return Text("{declarer} won {won}, needing {needed}: {contract} is made", declarer=declarer, won=won,
                    needed=contract.tricks, contract=contract.name)
    return Text("{declarer} won {won}, needing {needed}: {contract} is defeated", declarer=declarer, won=won,
                needed=contract.tricks, contract=contract.name)



class Payments:
    """The payment steps of :class:`~scorer.rules.variants.base.Variant` (a mixin part).

    ``schedule`` maps a bid id to ``(units per opponent if made, if defeated)``;
    ``rule_settle``, ``rule_schedule`` and ``rule_extra_tricks`` are the rule ids cited.
    """

    schedule: ClassVar[Mapping[str, tuple[int, int]]]
    rule_settle: ClassVar[str]
    rule_extra_tricks: ClassVar[str]
    rule_schedule: ClassVar[str]  # the table of units per opponent

    def payment(self, contract: Bid, made: bool, options: Mapping[str, Any]) -> int:
        """Units each opponent receives or pays, from ``schedule``."""
        won, lost = self.schedule[contract.id]
        return won if made else lost

    def is_made(self, contract: Bid, tricks: int) -> bool:
        """Whether ``tricks`` fulfil ``contract`` (a misère: no trick at all)."""
        return tricks == 0 if contract.id == "misere" else tricks >= contract.tricks

    def pay_contract(
        self, facts: HandFacts, setup: EveningSetup, tally: Tally, declarer: int, contract: Bid, tricks: int | None,
        made: bool,
    ) -> None:
        """Each opponent pays the declarer (made) or is paid (defeated) the schedule's units."""
        per = self.payment(contract, made, setup.options) * tally.multiplier
        for seat in range(setup.n):
            if seat != declarer:
                tally.pay(seat, declarer, per) if made else tally.pay(declarer, seat, per)
        tally.reasons += self.result_reasons(setup, declarer, contract, tricks, made, per)

    def result_reasons(
        self, setup: EveningSetup, declarer: int, contract: Bid, tricks: int | None, made: bool, per: int
    ) -> list[Reason]:
        """The reasons for a played hand's result and payments (``rule_settle``)."""
        n = setup.n
        params = {
            "declarer": setup.players[declarer],
            "contract": contract.name,
            "outcome": outcome(setup.players[declarer], contract, tricks, made),
            "tricks": tricks,
            "needed": Text("no trick") if contract.id == "misere" else contract.tricks,
            "per": per,
            "total": per * (n - 1),
            "count": n - 1,
        }
        reasons = []
        if self.rule_schedule != self.rule_settle:
            reasons.append(Reason(self.rule_schedule, "{contract} is worth {per} per opponent.", params))
        if made:
            reasons.append(
                Reason(
                    self.rule_settle,
                    "{outcome}. "
                    "Each of the {count} opponents pays {declarer} {per}: {declarer} +{total}.",
                    params,
                )
            )
            if contract.id != "misere" and tricks is not None and tricks > contract.tricks:
                reasons.append(
                    Reason(
                        self.rule_extra_tricks,
                        "Tricks won beyond the bid score nothing ({extra} extra).",
                        {"extra": tricks - contract.tricks},
                    )
                )
            return reasons
        return reasons + [
            Reason(
                self.rule_settle,
                "{outcome}. "
                "{declarer} pays each of the {count} opponents {per}: {declarer} −{total}.",
                params,
            )
        ]
