"""The auction part of a variant: the ladder of bids and a one-round auction.

One call each, from eldest hand (left of the dealer), each bid higher than every earlier
one (P-5, H-6, B-4); Wellington only over Nap and Blücher over Wellington (P-7, H-7).
A variant whose source says otherwise overrides a step (``hoyle``'s options, ``pagat``'s
P-15 refusals, ``napoleao``'s B-6) or replaces the auction (``russian36``, R-5 to R-7).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, ClassVar

from ..core import BIDS, N_, PASS, Bid, EveningSetup, HandFacts, IllegalAuction, Reason, Text, listing


class OneRoundAuction:
    """The auction steps of :class:`~scorer.rules.variants.base.Variant` (a mixin part).

    ``schedule`` lists the bids (lowest first); ``rule_auction``, ``rule_bids`` and
    ``rule_overcall`` are the rule ids cited.
    """

    schedule: ClassVar[Mapping[str, tuple[int, int]]]
    rule_auction: ClassVar[str]  # one call each, from eldest hand, each bid higher
    rule_bids: ClassVar[str]  # the ladder of bids
    rule_overcall: ClassVar[str]  # Wellington only over Nap (and Blücher over Wellington)
    #: The auction goes round until all but one have passed (``russian36``), so it is
    #: recorded as a sequence of calls rather than one call per player.
    sequence_auction: ClassVar[bool] = False

    def ladder(self, options: Mapping[str, Any]) -> tuple[Bid, ...]:
        """The bids this table may make, lowest first."""
        return tuple(BIDS[b] for b in self.schedule)

    def refuse_unknown_bid(self, call: str, options: Mapping[str, Any]) -> IllegalAuction:
        """The error for a call that is not on this table's ladder."""
        allowed = listing(b.name for b in self.ladder(options))
        name = BIDS[call].name if call in BIDS else repr(call)
        return IllegalAuction(Text("{name} is not a bid here; the bids are {allowed}.", name=name, allowed=allowed),
                              self.rule_bids)

    def check_overcall(self, bid: Bid, earlier: list[Bid], speaker: str) -> None:
        """Wellington only after a Nap, Blücher only after a Wellington (P-7, H-7)."""
        needs = {"wellington": "nap", "blucher": "wellington"}.get(bid.id)
        if needs and all(b.id != needs for b in earlier):
            raise IllegalAuction(
                Text("{speaker} bid {bid}, but {bid} may only be bid after someone has bid {needs}.",
                     speaker=speaker, bid=bid.name, needs=BIDS[needs].name),
                self.rule_overcall,
            )

    def speaking_order(self, setup: EveningSetup, dealer: int) -> list[int]:
        """Seats in the order they speak: eldest hand (left of the dealer) first, dealer last."""
        return [(dealer + 1 + i) % setup.n for i in range(setup.n)]

    def lone_bid_auction(self, setup: EveningSetup, dealer: int, declarer: int | None,
                         contract: str | None, earlier: Mapping[str, int] | None = None) -> tuple[str, ...]:
        """The auction of the common hand, as quick entry records it: ``declarer`` bids
        ``contract`` and everyone else passes (``declarer`` ``None``: everyone passes).
        ``earlier`` names the overcalled bids of a Wellington or Blücher (P-7, H-7): bid id
        → the seat that bid it, e.g. ``{"nap": 2}``; that seat makes that call in its turn.
        One call per seat in speaking order; :meth:`check_auction` rules on it (a Nap
        bidder who speaks after the Wellington is refused there, citing P-7/H-7)."""
        made = {seat: bid for bid, seat in (earlier or {}).items() if seat != declarer}
        return tuple(contract if seat == declarer else made.get(seat, PASS)
                     for seat in self.speaking_order(setup, dealer))

    def overcalled(self, contract: str | None) -> tuple[str, ...]:
        """The bids that must have been made before ``contract`` (P-7, H-7): Nap before a
        Wellington, Nap and Wellington before a Blücher; none for any other bid."""
        return {"wellington": ("nap",), "blucher": ("nap", "wellington")}.get(contract or "", ())

    def speakers(self, setup: EveningSetup, facts: HandFacts) -> list[int]:
        """The seat that made each call of ``facts.auction``, in order."""
        order = self.speaking_order(setup, facts.dealer)
        return [order[i % setup.n] for i in range(len(facts.auction))]

    def check_auction(
        self, facts: HandFacts, setup: EveningSetup
    ) -> tuple[int | None, Bid | None, list[Reason]]:
        """Check a one-round auction and find the declarer.

        Returns ``(declarer seat or None, contract or None, reasons)``. Raises
        :class:`IllegalAuction` for a wrong number of calls, a bid not on the
        ladder, a bid not higher than an earlier one (``rule_auction``) or an
        overcall without its precondition (``rule_overcall``).
        """
        order = self.speaking_order(setup, facts.dealer)
        if len(facts.auction) != len(order):
            raise IllegalAuction(
                Text("Each of the {n} players calls exactly once (got {got} calls).", n=setup.n,
                     got=len(facts.auction)),
                self.rule_auction,
            )
        ladder = {b.id: b for b in self.ladder(setup.options)}
        earlier: list[Bid] = []
        declarer: int | None = None
        for seat, call in zip(order, facts.auction):
            if call == PASS:
                continue
            if call not in ladder:
                raise self.refuse_unknown_bid(call, setup.options)
            bid = ladder[call]
            speaker = setup.players[seat]
            self.check_overcall(bid, earlier, speaker)
            if earlier and bid.rank <= earlier[-1].rank:
                if bid.rank == earlier[-1].rank:
                    message = N_("{speaker} bid {bid}, the same as the earlier {earlier}; "
                                 "a bid must be higher than every earlier bid.")
                else:
                    message = N_("{speaker} bid {bid}, lower than the earlier {earlier}; "
                                 "a bid must be higher than every earlier bid.")
                raise IllegalAuction(Text(message, speaker=speaker, bid=bid.name, earlier=earlier[-1].name),
                                     self.rule_auction)
            earlier.append(bid)
            declarer = seat
        if declarer is None:
            self.check_all_pass(facts, setup)
            return None, None, []
        contract = earlier[-1]
        others = [setup.players[s] for s in range(setup.n) if s != declarer]
        rule = self.rule_overcall if contract.id in ("wellington", "blucher") else self.rule_auction
        reasons = [
            Reason(
                rule,
                "{declarer} made the highest bid, {contract}, and plays alone against {opponents}.",
                {"declarer": setup.players[declarer], "contract": contract.name, "opponents": ", ".join(others)},
            )
        ]
        return declarer, contract, reasons

    #: True where everyone passing makes the dealer the declarer (napoleao B-6): entry
    #: then asks the dealer's bid instead of recording an all-pass hand.
    dealer_declares_on_all_pass: ClassVar[bool] = False

    def check_all_pass(self, facts: HandFacts, setup: EveningSetup) -> None:
        """Hook: raise :class:`IllegalAuction` if everyone may not pass. Default: they may."""

