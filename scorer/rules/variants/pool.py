"""The pool part of a variant: a pot of chips that is a party of the ledger.

Two parts, each a plain object a variant declares (``pool = Pool()`` or
``pool = Treasure()``; ``pagat`` and ``napoleao`` have none, ``pool = None``):

- :class:`Pool` — ``hoyle`` H-16 and its options: opening stakes into a new pool, the
  dealer's top-up at every deal, the first made Nap takes it all, a defeated Nap doubles
  it; fines (H-13 to H-15) are paid into it; chips left at the end are shared or left.
- :class:`Treasure` — ``russian36`` R-2 and R-14 to R-17, Napoleon's treasure («Клад
  Наполеона»): every player's ante at every deal, the defeated declarer pays into it,
  a made Napoleon takes it all, a defeated one doubles it, a plain Five never takes it.

Units are chips. Shapes: a part reads its options from the set-up's resolved options
(``Mapping[str, Any]``) and moves chips with :meth:`Tally.pay` to and from
:data:`~scorer.rules.core.POOL`; :attr:`PoolPart.option_specs` are the options it adds to
its variant's (in the variant's order). The ledger keeps the pool's content between
hands in :class:`~scorer.rules.core.TableState` (``pool``, ``pool_open``).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from typing import Any, Protocol

from ..core import POOL, Bid, EveningSetup, HandFacts, Text
from ..options import OptionSpec
from .tally import Tally


class PoolPart(Protocol):
    """What a variant's ruling order calls on its pool part (:class:`Pool`, :class:`Treasure`)."""

    #: The rule of what happens to the chips left at the end (H-16, R-2).
    rule: str
    option_specs: tuple[OptionSpec, ...]

    def name(self, options: Mapping[str, Any]) -> str | None:
        """What the table calls it ("Pool", "Treasure"), or ``None`` when this table plays none."""
        ...

    def at_end(self, options: Mapping[str, Any]) -> str:
        """Chips left at the end: ``"share"`` (equally) or ``"leave"`` (unsettled)."""
        ...

    def before_play(self, facts: HandFacts, setup: EveningSetup, tally: Tally) -> None:
        """Chips paid in at every deal, before the auction."""
        ...

    def after_play(self, facts: HandFacts, setup: EveningSetup, tally: Tally, declarer: int, contract: Bid,
                   made: bool, per: int) -> None:
        """Chips taken or paid in after the contract is paid; ``per`` is what each
        opponent was paid or paid for it (chips)."""
        ...


#: H-16 adopted: the bids that count as Nap for the pool.
NAP_BIDS = ("nap", "garnet", "wellington", "blucher")


class Pool:
    """The pool of ``hoyle`` (H-16), switched on by the table's ``pool`` option, or
    always played (``Pool(optional=False)``: no ``pool`` option, a rule set whose other
    payments go into the pool).

    Options (chips): ``pool`` (on/off, when optional), ``pool_opening`` each player's
    stake into a new pool, ``pool_top_up`` the dealer's top-up at every deal,
    ``pool_at_end`` (``"share"``/``"leave"``). ``revoke_fine`` (H-15) and
    ``out_of_turn_fine`` (H-14) are the fines, in chips, ``hoyle`` pays into it.
    """

    rule = "H-16"
    revoke_fine = 5
    out_of_turn_fine = 3
    nap_bids = NAP_BIDS
    OPTION_SPECS = (
        OptionSpec("pool", Text("Pool"), "bool", False, "H-16",
                   Text("A pool of chips: the first made Nap takes it, a defeated Nap doubles it (H-16)."),
                   advanced=True),
        OptionSpec("pool_opening", Text("Opening stake per player (chips)"), "int", 5, "H-16",
                   Text("Each player's stake into a new pool (H-16)."), minimum=0, maximum=10_000, advanced=True,
                   applies=("pool", (True,))),
        OptionSpec("pool_top_up", Text("Each dealer adds (chips)"), "int", 1, "H-16",
                   Text("Paid into the pool by the dealer of every deal (H-16)."), minimum=0, maximum=10_000,
                   advanced=True, applies=("pool", (True,))),
        OptionSpec("pool_at_end", Text("Pool left at the end"), "choice", "share", "H-16",
                   Text("Chips left in the pool when the evening ends (H-16, adopted)."),
                   choices=(("share", Text("Shared equally")), ("leave", Text("Left unsettled"))), advanced=True,
                   applies=("pool", (True,))),
    )

    def __init__(self, optional: bool = True) -> None:
        self.optional = optional
        if optional:
            self.option_specs: tuple[OptionSpec, ...] = self.OPTION_SPECS
        else:
            self.option_specs = tuple(dataclasses.replace(spec, applies=None) for spec in self.OPTION_SPECS[1:])

    def on(self, options: Mapping[str, Any]) -> bool:
        """Whether this table plays with the pool."""
        return not self.optional or bool(options["pool"])

    def name(self, options: Mapping[str, Any]) -> str | None:
        return Text("Pool") if self.on(options) else None

    def at_end(self, options: Mapping[str, Any]) -> str:
        return str(options["pool_at_end"]) if self.on(options) else "leave"

    def before_play(self, facts: HandFacts, setup: EveningSetup, tally: Tally) -> None:
        """H-16: opening stakes into a new pool, then the dealer's top-up."""
        options = setup.options
        if not self.on(options):
            return
        if not tally.pool_open:
            stake = int(options["pool_opening"])
            for seat in range(setup.n):
                tally.pay(seat, POOL, stake)
            tally.pool_open = True
            tally.note(self.rule, "A new pool: each player puts in {stake}.", stake=stake)
        top_up = int(options["pool_top_up"])
        if top_up:
            tally.pay(facts.dealer, POOL, top_up)
            tally.note(self.rule, "{dealer}, dealing, adds {top_up} to the pool (now {pool}).",
                       dealer=tally.name(facts.dealer), top_up=top_up, pool=tally.pool_now)

    def after_play(self, facts: HandFacts, setup: EveningSetup, tally: Tally, declarer: int, contract: Bid,
                   made: bool, per: int) -> None:
        """H-16: the first made Nap takes the pool (a new one starts); a defeated Nap doubles it."""
        if not self.on(setup.options) or contract.id not in self.nap_bids:
            return
        who = tally.name(declarer)
        amount = tally.pool_now
        if made:
            tally.pay(POOL, declarer, amount)
            tally.pool_open = False
            tally.note(self.rule, "{declarer} made {contract} and takes the whole pool: {amount}. A new pool "
                       "starts.", declarer=who, contract=contract.name, amount=amount)
        else:
            tally.pay(declarer, POOL, amount)
            tally.note(self.rule, "{declarer} failed {contract} and doubles the pool: pays in {amount} (now "
                       "{pool}).", declarer=who, contract=contract.name, amount=amount, pool=tally.pool_now)


class Treasure:
    """Napoleon's treasure of ``russian36`` (R-2, R-14 to R-17): always played.

    Options (chips): ``ante`` paid by every player at every deal, ``treasure_at_end``
    (``"share"``/``"leave"``; the source is silent).
    """

    rule = "R-2"
    option_specs = (
        OptionSpec("ante", Text("Ante per player each deal (chips)"), "int", 5, "R-2",
                   Text("Paid by every player into Napoleon's treasure at every deal (R-2)."), minimum=0,
                   maximum=100_000),
        OptionSpec("treasure_at_end", Text("Treasure left at the end"), "choice", "share", "R-2",
                   Text("What happens to chips left in the treasure when the evening ends (the source is silent)."),
                   choices=(("share", Text("Shared equally")), ("leave", Text("Left unsettled")))),
    )

    def name(self, options: Mapping[str, Any]) -> str | None:
        return Text("Treasure")

    def at_end(self, options: Mapping[str, Any]) -> str:
        return str(options["treasure_at_end"])

    def before_play(self, facts: HandFacts, setup: EveningSetup, tally: Tally) -> None:
        """R-2: every player pays the ante into the treasure at every deal."""
        ante = int(setup.options["ante"])
        if ante:
            for seat in range(setup.n):
                tally.pay(seat, POOL, ante)
            tally.note("R-2", "Each player pays the ante of {ante} into Napoleon's treasure (now {pool}).",
                       ante=ante, pool=tally.pool_now)

    def pay_defeat(self, tally: Tally, declarer: int, contract: Bid, per: int) -> None:
        """R-14: a defeated declarer also pays ``per`` (stake × bid) into the treasure;
        R-16: for a Napoleon he instead doubles it."""
        who = tally.name(declarer)
        if contract.id == "napoleon":
            doubling = tally.pool_now
            tally.pay(declarer, POOL, doubling)
            tally.note("R-16", "A defeated Napoleon doubles the treasure: {declarer} pays in {amount}, what it "
                       "holds (now {pool}).", declarer=who, amount=doubling, pool=tally.pool_now)
        else:
            tally.pay(declarer, POOL, per)
            tally.note("R-14", "{declarer} also pays {per} into the treasure (now {pool}).", declarer=who, per=per,
                       pool=tally.pool_now)

    def after_play(self, facts: HandFacts, setup: EveningSetup, tally: Tally, declarer: int, contract: Bid,
                   made: bool, per: int) -> None:
        """R-14/R-16: a defeated declarer pays into the treasure (:meth:`pay_defeat`);
        R-15: a made Napoleon takes the whole treasure; R-17: a plain five never does."""
        if not made:
            self.pay_defeat(tally, declarer, contract, per)
        if contract.id == "napoleon" and made:
            amount = tally.pool_now
            tally.pay(POOL, declarer, amount)
            tally.note("R-15", "{declarer} made Napoleon and takes the whole treasure: {amount}.",
                       declarer=tally.name(declarer), amount=amount)
        elif contract.id == "five":
            tally.note("R-17", "A plain Five, not declared «Наполеон», does not take the treasure.")
