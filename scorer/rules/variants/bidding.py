"""The auction parts of a variant: a one-round auction, or an auction that goes round.

A variant declares its auction as a part object (``auction = OneRoundAuction("P-5",
"P-6", "P-7")``); its own steps stay on the variant and the part calls them back: the
ladder of bids (``variant.ladder(options)``, lowest first), the refusal of a call off
the ladder (``variant.refuse_unknown_bid``) and what happens when everyone passes
(``variant.check_all_pass``).

- :class:`OneRoundAuction` — one call each, from eldest hand (left of the dealer), each
  bid higher than every earlier one (P-5, H-6, B-4); Wellington only over Nap and Blücher
  over Wellington (P-7, H-7). ``pagat``, ``hoyle``, ``napoleao``.
- :class:`SequenceAuction` — from the dealer, round after round until all but one have
  passed; the dealer may hold a bid at the same level («Здесь») (R-5 to R-7). ``russian36``.

Shapes: ``facts.auction`` is a tuple of calls (``"pass"``, a bid id, ``"here"``); seats
are indices into the set-up's players; a reason is a :class:`~scorer.rules.core.Reason`.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Protocol

from ..core import BIDS, HERE, N_, PASS, Bid, EveningSetup, HandFacts, IllegalAuction, Reason, Text, listing

#: Wellington only over Nap, Blücher only over Wellington (P-7, H-7): bid → the bids before it.
OVERCALLS = {"wellington": ("nap",), "blucher": ("nap", "wellington")}


class Bidder(Protocol):
    """The variant's own auction steps that an auction part calls back."""

    def ladder(self, options: Mapping[str, Any]) -> tuple[Bid, ...]: ...

    def refuse_unknown_bid(self, call: str, options: Mapping[str, Any]) -> IllegalAuction: ...

    def check_all_pass(self, facts: HandFacts, setup: EveningSetup) -> None: ...


class OneRoundAuction:
    """One call each, from eldest hand, each bid higher (P-5, H-6, B-4; a part object).

    ``rule_auction`` is cited for the order and for a bid not higher than an earlier
    one, ``rule_bids`` for a call off the ladder, ``rule_overcall`` for Wellington only
    over Nap and Blücher over Wellington (P-7, H-7).
    """

    #: One call per player (``False``) rather than a sequence of calls that goes round.
    sequence = False

    def __init__(self, rule_auction: str, rule_bids: str, rule_overcall: str) -> None:
        self.rule_auction = rule_auction
        self.rule_bids = rule_bids
        self.rule_overcall = rule_overcall

    def refuse_unknown_bid(self, variant: Bidder, call: str, options: Mapping[str, Any]) -> IllegalAuction:
        """The error for a call that is not on this table's ladder (``rule_bids``)."""
        allowed = listing(b.name for b in variant.ladder(options))
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

    def lone_bid_auction(self, variant: Bidder, setup: EveningSetup, dealer: int, declarer: int | None,
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
        return OVERCALLS.get(contract or "", ())

    def speakers(self, variant: Bidder, setup: EveningSetup, facts: HandFacts) -> list[int]:
        """The seat that made each call of ``facts.auction``, in order."""
        order = self.speaking_order(setup, facts.dealer)
        return [order[i % setup.n] for i in range(len(facts.auction))]

    def check_auction(
        self, variant: Bidder, facts: HandFacts, setup: EveningSetup
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
        ladder = {b.id: b for b in variant.ladder(setup.options)}
        earlier: list[Bid] = []
        declarer: int | None = None
        for seat, call in zip(order, facts.auction):
            if call == PASS:
                continue
            if call not in ladder:
                raise variant.refuse_unknown_bid(call, setup.options)
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
            variant.check_all_pass(facts, setup)
            return None, None, []
        contract = earlier[-1]
        others = [setup.players[s] for s in range(setup.n) if s != declarer]
        rule = self.rule_overcall if contract.id in ("wellington", "blucher") else self.rule_auction
        reasons = [
            Reason(
                rule,
                "{declarer} made the highest bid, {contract}, and plays alone against {opponents}.",
                {"declarer": setup.players[declarer], "contract": contract.name, "opponents": listing(others)},
            )
        ]
        return declarer, contract, reasons


class SequenceAuction:
    """The auction of ``russian36`` (R-5 to R-7; a part object): from the dealer, round
    after round, each bid higher, until all but one have passed; the dealer alone may
    hold another player's bid at the same level («Здесь», ``"here"``).

    ``rule_auction`` (R-5) is cited for the order and the end of the auction,
    ``rule_hold`` (R-6) for «Здесь», ``rule_bids`` (R-7) for a call off the ladder.
    """

    #: Recorded as a sequence of calls that goes round, not one call per player.
    sequence = True

    def __init__(self, rule_auction: str = "R-5", rule_hold: str = "R-6", rule_bids: str = "R-7") -> None:
        self.rule_auction = rule_auction
        self.rule_hold = rule_hold
        self.rule_bids = rule_bids

    def speaking_order(self, setup: EveningSetup, dealer: int) -> list[int]:
        """The seats from eldest hand round to the dealer, where a form lays out one field
        per seat; the calls themselves start with the dealer (R-5, :meth:`next_speaker`)."""
        return [(dealer + 1 + i) % setup.n for i in range(setup.n)]

    def overcalled(self, contract: str | None) -> tuple[str, ...]:
        """The bids that must have been made before ``contract``: Nap before a Wellington,
        Nap and Wellington before a Blücher (none is on ``russian36``'s ladder)."""
        return OVERCALLS.get(contract or "", ())

    def refuse_unknown_bid(self, variant: Bidder, call: str, options: Mapping[str, Any]) -> IllegalAuction:
        """The error for a call that is not on this table's ladder (``rule_bids``)."""
        allowed = listing(b.name for b in variant.ladder(options))
        name = BIDS[call].name if call in BIDS else repr(call)
        return IllegalAuction(Text("{name} is not a bid here; the bids are {allowed}.", name=name, allowed=allowed),
                              self.rule_bids)

    def next_speaker(self, variant: Bidder, setup: EveningSetup, dealer: int,
                     calls: tuple[str, ...]) -> tuple[int | None, list[str]]:
        """Who speaks next after ``calls`` and what they may say, or ``(None, [])`` when the
        auction is over (R-5, R-6). Raises :class:`IllegalAuction` for an illegal call."""
        n = setup.n
        ladder = {b.id: b for b in variant.ladder(setup.options)}
        passed: set[int] = set()
        highest: Bid | None = None
        holder: int | None = None
        speaker = dealer  # the dealer speaks first
        for i, call in enumerate(calls):
            if self._over(n, passed, highest):
                raise IllegalAuction(Text("The auction was over after {i} calls; call {next} is one too many.", i=i,
                                          next=i + 1), self.rule_auction)
            who = setup.players[speaker]
            if call == PASS:
                passed.add(speaker)
            elif call == HERE:
                if speaker != dealer:
                    raise IllegalAuction(Text("{who} said «Здесь», but only the dealer may.", who=who), self.rule_hold)
                if highest is None or holder == dealer:
                    raise IllegalAuction(Text("{who} said «Здесь» with no other player's bid to hold.", who=who),
                                         self.rule_hold)
                holder = dealer
            elif call in ladder:
                bid = ladder[call]
                if highest is not None and bid.rank <= highest.rank:
                    raise IllegalAuction(
                        Text("{who} bid {bid}, not higher than {highest}; only the dealer may hold a bid («Здесь»).",
                             who=who, bid=bid.name, highest=highest.name),
                        self.rule_hold if speaker == dealer else self.rule_auction,
                    )
                highest, holder = bid, speaker
            else:
                name = BIDS[call].name if call in BIDS else repr(str(call)[:20])
                raise IllegalAuction(Text("{name} is not a call here: pass, One to Five, Napoleon or «Здесь».",
                                          name=name), self.rule_bids)
            speaker = self._after(n, speaker, passed)
        if self._over(n, passed, highest):
            return None, []
        options = [PASS] + [b.id for b in ladder.values() if highest is None or b.rank > highest.rank]
        if speaker == dealer and highest is not None and holder != dealer:
            options.insert(1, HERE)
        return speaker, options

    def lone_bid_auction(self, variant: Bidder, setup: EveningSetup, dealer: int, declarer: int | None,
                         contract: str | None, earlier: Mapping[str, int] | None = None) -> tuple[str, ...]:
        """The common hand's auction in this variant's order, from the dealer one call
        at a time (R-4, R-5): ``declarer`` bids ``contract`` at his first turn, the others
        pass. Raises :class:`IllegalAuction` if that bid is not open to him then."""
        calls: tuple[str, ...] = ()
        while True:
            speaker, legal = self.next_speaker(variant, setup, dealer, calls)
            if speaker is None or (declarer is None and PASS not in legal):
                return calls
            call = contract if speaker == declarer and contract not in calls else PASS
            if call not in legal:
                raise IllegalAuction(Text("{who} cannot bid {bid} at that point of the auction.",
                                          who=setup.players[speaker], bid=BIDS[call].name if call in BIDS else call),
                                     self.rule_auction)
            calls = (*calls, call)

    def speakers(self, variant: Bidder, setup: EveningSetup, facts: HandFacts) -> list[int]:
        """R-5: the dealer first, then clockwise, skipping players who have passed."""
        seats: list[int] = []
        passed: set[int] = set()
        speaker = facts.dealer
        for call in facts.auction:
            seats.append(speaker)
            if call == PASS:
                passed.add(speaker)
            speaker = self._after(setup.n, speaker, passed)
        return seats

    @staticmethod
    def _over(n: int, passed: set[int], highest: Bid | None) -> bool:
        return len(passed) == n or (highest is not None and len(passed) == n - 1)

    @staticmethod
    def _after(n: int, speaker: int, passed: set[int]) -> int:
        for step in range(1, n + 1):
            seat = (speaker + step) % n
            if seat not in passed:
                return seat
        return speaker

    def check_auction(self, variant: Bidder, facts: HandFacts,
                      setup: EveningSetup) -> tuple[int | None, Bid | None, list[Reason]]:
        """R-5 to R-7: the auction from the dealer, round after round, until all but one
        have passed; returns the declarer and contract (``None`` when all passed)."""
        nxt, _ = self.next_speaker(variant, setup, facts.dealer, facts.auction)
        if nxt is not None:
            raise IllegalAuction(Text("The auction is not finished: {who} must still speak.", who=setup.players[nxt]),
                                 self.rule_auction)
        n = setup.n
        passed: set[int] = set()
        highest: Bid | None = None
        holder: int | None = None
        speaker = facts.dealer
        held = False
        for call in facts.auction:
            if call == PASS:
                passed.add(speaker)
            elif call == HERE:
                holder, held = facts.dealer, True
            else:
                highest, holder, held = BIDS[call], speaker, False
            speaker = self._after(n, speaker, passed)
        if highest is None or holder is None:
            return None, None, []
        others = listing(setup.players[s] for s in range(n) if s != holder)
        text = N_("{declarer} holds the highest bid, {contract}, and plays alone against {opponents}.")
        reasons = [Reason(self.rule_auction, text, {"declarer": setup.players[holder], "contract": highest.name,
                                        "opponents": others})]
        if held:
            reasons.append(Reason(self.rule_hold,
                                  "The dealer, {declarer}, took the bid at the same level with «Здесь».",
                                  {"declarer": setup.players[holder]}))
        return holder, highest, reasons
