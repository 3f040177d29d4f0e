"""The payment parts of a variant: how a played hand's contract is paid, and its reasons.

A variant declares its payment part (``scoring = Schedule(...)``); its ``pay_contract``
step asks it, and a variant adds its own sentences around it (``hoyle``'s claims, H-13
and H-14; ``russian36``'s purchase, R-9, and treasure, R-14/R-16; ``napoleao``'s trump,
B-7). Units are whole numbers: chips (or units a table may price) or points.

- :class:`Schedule` — each opponent pays the declarer the table's units for a made
  contract and is paid them for a defeated one (P-12, H-11), doubled by
  ``Tally.multiplier`` after a double header (O-3). ``pagat``; ``hoyle`` with its options.
- :class:`StakePerTrick` — each opponent pays stake × bid (R-13, R-14, R-16): ``russian36``.
- :class:`Points` — points to the declarer or to every opponent, nobody pays (B-11 to
  B-13): ``napoleao``.

Shapes: a schedule's ``table`` maps a bid id to ``(units per opponent if made, if
defeated)``; the parts' ``pay`` moves units on a :class:`~.tally.Tally`.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ..core import Bid, EveningSetup, HandFacts, Reason, Text, ntext
from ..options import OptionSpec
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


class Schedule:
    """Units per opponent from ``table`` (P-6/P-12, H-11).

    ``rule_settle`` is cited for the result and its payments, ``rule_schedule`` for the
    worth of the bid (when it is another rule), ``rule_extra_tricks`` for tricks beyond
    the bid scoring nothing (P-12, H-10).
    """

    option_specs: tuple[OptionSpec, ...] = ()
    #: Points variants award points and take no stake (``napoleao``).
    points_only = False
    #: A money stake is the value of one chip (the stake per trick is in chips: ``russian36``).
    stake_is_per_chip = False

    def __init__(self, table: Mapping[str, tuple[int, int]], rule_settle: str, rule_schedule: str,
                 rule_extra_tricks: str) -> None:
        self.table = dict(table)
        self.rule_settle = rule_settle
        self.rule_schedule = rule_schedule
        self.rule_extra_tricks = rule_extra_tricks

    def table_for(self, options: Mapping[str, Any]) -> dict[str, tuple[int, int]]:
        """Units per opponent ``(made, defeated)`` for every bid this table plays."""
        return dict(self.table)

    def payment(self, contract: Bid, made: bool, options: Mapping[str, Any]) -> int:
        """Units each opponent receives or pays for ``contract``."""
        won, lost = self.table_for(options)[contract.id]
        return won if made else lost

    def pay(self, facts: HandFacts, setup: EveningSetup, tally: Tally, declarer: int, contract: Bid,
            tricks: int | None, made: bool) -> None:
        """Each opponent pays the declarer (made) or is paid (defeated) the schedule's units."""
        per = self.payment(contract, made, setup.options) * tally.multiplier
        for seat in range(setup.n):
            if seat != declarer:
                tally.pay(seat, declarer, per) if made else tally.pay(declarer, seat, per)
        tally.reasons += self.reasons(setup, declarer, contract, tricks, made, per)

    def reasons(
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


class StakePerTrick(Schedule):
    """R-13: each other player pays the declarer stake × bid for a made contract; R-14:
    a defeated declarer pays each of them as much, R-16 citing a defeated ``top_bid``.
    The stake is the ``stake_per_trick`` option, in chips. What a defeat costs in the
    treasure is the pool part's (:meth:`~.pool.Treasure.pay_defeat`)."""

    option_specs = (
        OptionSpec("stake_per_trick", Text("Stake per trick (chips)"), "int", 10, "R-3",
                   Text("What each opponent pays per trick bid (R-3; the source's example plays for 10)."),
                   minimum=1, maximum=100_000),
    )
    stake_is_per_chip = True  # the stake per trick and the ante are in chips

    def __init__(self, rule_settle: str = "R-13", rule_defeated: str = "R-14", rule_top_defeated: str = "R-16",
                 rule_extra_tricks: str = "R-12", top_bid: str = "napoleon") -> None:
        super().__init__({}, rule_settle, rule_settle, rule_extra_tricks)
        self.rule_defeated = rule_defeated
        self.rule_top_defeated = rule_top_defeated
        self.top_bid = top_bid

    def payment(self, contract: Bid, made: bool, options: Mapping[str, Any]) -> int:
        """Stake × bid, made or defeated (R-13, R-14)."""
        return int(options["stake_per_trick"]) * contract.tricks

    def pay(self, facts: HandFacts, setup: EveningSetup, tally: Tally, declarer: int, contract: Bid,
            tricks: int | None, made: bool) -> None:
        stake = int(setup.options["stake_per_trick"])
        per = self.payment(contract, made, setup.options)
        who = tally.name(declarer)
        for seat in range(setup.n):
            if seat != declarer:
                tally.pay(seat, declarer, per) if made else tally.pay(declarer, seat, per)
        params = {"declarer": who, "outcome": outcome(who, contract, tricks, made), "needed": contract.tricks,
                  "per": per, "stake": stake, "count": setup.n - 1, "total": per * (setup.n - 1)}
        if made:
            tally.note(self.rule_settle, "{outcome}. Each of the {count} others "
                       "pays {stake} × {needed} = {per}: {declarer} +{total}.", **params)
            return
        tally.note(self.rule_defeated if contract.id != self.top_bid else self.rule_top_defeated,
                   "{outcome}. {declarer} pays each of the {count} "
                   "others {stake} × {needed} = {per}.", **params)


class Points(Schedule):
    """B-11: a made contract scores ``table[bid][0]`` points for the declarer; B-12: a
    defeated one ``table[bid][1]`` for every opponent; B-13 is cited for ``top_bid``
    (nap). Nobody pays anybody: a table has no money stake."""

    points_only = True

    def __init__(self, table: Mapping[str, tuple[int, int]], rule_made: str = "B-11", rule_defeated: str = "B-12",
                 rule_top: str = "B-13", top_bid: str = "nap") -> None:
        super().__init__(table, rule_made, rule_made, rule_made)
        self.rule_defeated = rule_defeated
        self.rule_top = rule_top
        self.top_bid = top_bid

    def pay(self, facts: HandFacts, setup: EveningSetup, tally: Tally, declarer: int, contract: Bid,
            tricks: int | None, made: bool) -> None:
        won, lost = self.table[contract.id]
        rule = self.rule_top if contract.id == self.top_bid else (self.rule_settle if made else self.rule_defeated)
        if made:
            tally.award(declarer, won)
            tally.note(rule, "{outcome}; {declarer} scores {points}.", declarer=tally.name(declarer),
                       outcome=outcome(tally.name(declarer), contract, tricks, made), points=won)
        else:
            for seat in range(setup.n):
                if seat != declarer:
                    tally.award(seat, lost)
            tally.note(rule, "{outcome}; every opponent scores {points}.",
                       outcome=outcome(tally.name(declarer), contract, tricks, made), points=lost)


class Payments:
    """The payment steps of :class:`~scorer.rules.variants.base.Variant` (a mixin that
    asks the variant's ``scoring`` part)."""

    scoring: Schedule

    @property
    def rule_settle(self) -> str:
        """The rule cited for a result and its payments (P-12, H-11, R-13, B-11)."""
        return self.scoring.rule_settle

    @property
    def points_only(self) -> bool:
        """Points variants award points and take no stake (``napoleao``)."""
        return self.scoring.points_only

    @property
    def stake_is_per_chip(self) -> bool:
        """A money stake is the value of one chip — the stake per trick and the ante are
        counted in chips (``russian36``) — rather than of one unit."""
        return self.scoring.stake_is_per_chip

    def payments(self, options: Mapping[str, Any]) -> dict[str, tuple[int, int]]:
        """Units per opponent ``(made, defeated)`` for every bid this table plays."""
        return self.scoring.table_for(options)

    def payment(self, contract: Bid, made: bool, options: Mapping[str, Any]) -> int:
        """Units each opponent receives or pays (the scoring part's)."""
        return self.scoring.payment(contract, made, options)

    def is_made(self, contract: Bid, tricks: int) -> bool:
        """Whether ``tricks`` fulfil ``contract`` (a misère: no trick at all)."""
        return tricks == 0 if contract.id == "misere" else tricks >= contract.tricks

    def pay_contract(
        self, facts: HandFacts, setup: EveningSetup, tally: Tally, declarer: int, contract: Bid, tricks: int | None,
        made: bool,
    ) -> None:
        """Pay the contract as the scoring part says; a variant adds its own sentences."""
        self.scoring.pay(facts, setup, tally, declarer, contract, tricks, made)
