"""``russian36`` — Napoleon, 36 cards, with Napoleon's treasure.

Source: ``shared/seeds/001_4075811b721171fb.txt`` (Russian), rendered in
``shared/rules/russian36.md`` as R-1 … R-18. Units are chips (the source plays for
roubles: give one chip a money value with the evening's stake). The treasure
(«Клад Наполеона») is the pool: a party of the ledger.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ..core import BIDS, HERE, N_, PASS, Bid, EveningSetup, HandFacts, IllegalAuction, Reason, Text
from ..options import OptionSpec
from ..sources import RUSSIAN36_SOURCE
from .base import Tally, Variant
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
    rule_auction = "R-5"
    rule_bids = "R-7"
    rule_overcall = "R-7"
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
    sequence_auction = True
    takes_purchase = True
    stake_is_per_chip = True  # the stake per trick and the ante are in chips
    deal_note = Text("Shuffle and deal five cards each; the rest of the pack is the stock.")

    def ladder(self, options: Mapping[str, Any]) -> tuple[Bid, ...]:
        return tuple(BIDS[b] for b in LADDER)

    def check_facts(self, facts: HandFacts, setup: EveningSetup) -> None:
        """A purchase (R-9) is a fact of this variant; a named trump, widow or peek is not."""
        super().check_facts(facts, setup)

    def next_speaker(self, setup: EveningSetup, dealer: int, calls: tuple[str, ...]) -> tuple[int | None, list[str]]:
        """Who speaks next after ``calls`` and what they may say, or ``(None, [])`` when the
        auction is over (R-5, R-6). Raises :class:`IllegalAuction` for an illegal call."""
        n = setup.n
        ladder = {b.id: b for b in self.ladder(setup.options)}
        passed: set[int] = set()
        highest: Bid | None = None
        holder: int | None = None
        speaker = dealer  # the dealer speaks first
        for i, call in enumerate(calls):
            if self._over(n, passed, highest):
                raise IllegalAuction(Text("The auction was over after {i} calls; call {next} is one too many.", i=i,
                                          next=i + 1), "R-5")
            who = setup.players[speaker]
            if call == PASS:
                passed.add(speaker)
            elif call == HERE:
                if speaker != dealer:
                    raise IllegalAuction(Text("{who} said «Здесь», but only the dealer may.", who=who), "R-6")
                if highest is None or holder == dealer:
                    raise IllegalAuction(Text("{who} said «Здесь» with no other player's bid to hold.", who=who),
                                         "R-6")
                holder = dealer
            elif call in ladder:
                bid = ladder[call]
                if highest is not None and bid.rank <= highest.rank:
                    raise IllegalAuction(
                        Text("{who} bid {bid}, not higher than {highest}; only the dealer may hold a bid («Здесь»).",
                             who=who, bid=bid.name, highest=highest.name),
                        "R-6" if speaker == dealer else "R-5",
                    )
                highest, holder = bid, speaker
            else:
                name = BIDS[call].name if call in BIDS else repr(str(call)[:20])
                raise IllegalAuction(Text("{name} is not a call here: pass, One to Five, Napoleon or «Здесь».",
                                          name=name), "R-7")
            speaker = self._after(n, speaker, passed)
        if self._over(n, passed, highest):
            return None, []
        options = [PASS] + [b.id for b in ladder.values() if highest is None or b.rank > highest.rank]
        if speaker == dealer and highest is not None and holder != dealer:
            options.insert(1, HERE)
        return speaker, options

    def lone_bid_auction(self, setup: EveningSetup, dealer: int, declarer: int | None,
                         contract: str | None, earlier: Mapping[str, int] | None = None) -> tuple[str, ...]:
        """The common hand's auction in this variant's order, from the dealer one call
        at a time (R-4, R-5): ``declarer`` bids ``contract`` at his first turn, the others
        pass. Raises :class:`IllegalAuction` if that bid is not open to him then."""
        calls: tuple[str, ...] = ()
        while True:
            speaker, legal = self.next_speaker(setup, dealer, calls)
            if speaker is None or (declarer is None and PASS not in legal):
                return calls
            call = contract if speaker == declarer and contract not in calls else PASS
            if call not in legal:
                raise IllegalAuction(Text("{who} cannot bid {bid} at that point of the auction.",
                                          who=setup.players[speaker], bid=BIDS[call].name if call in BIDS else call),
                                     "R-5")
            calls = (*calls, call)

    def speakers(self, setup: EveningSetup, facts: HandFacts) -> list[int]:
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

    def check_auction(self, facts: HandFacts, setup: EveningSetup) -> tuple[int | None, Bid | None, list[Reason]]:
        """R-5 to R-7: the auction from the dealer, round after round, until all but one
        have passed; returns the declarer and contract (``None`` when all passed)."""
        nxt, _ = self.next_speaker(setup, facts.dealer, facts.auction)
        if nxt is not None:
            raise IllegalAuction(Text("The auction is not finished: {who} must still speak.", who=setup.players[nxt]),
                                 "R-5")
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
        others = ", ".join(setup.players[s] for s in range(n) if s != holder)
        text = N_("{declarer} holds the highest bid, {contract}, and plays alone against {opponents}.")
        reasons = [Reason("R-5", text, {"declarer": setup.players[holder], "contract": highest.name,
                                        "opponents": others})]
        if held:
            reasons.append(Reason("R-6", "The dealer, {declarer}, took the bid at the same level with «Здесь».",
                                  {"declarer": setup.players[holder]}))
        return holder, highest, reasons

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
