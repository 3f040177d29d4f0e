"""What every variant does the same way; each variant fills in its rule ids and numbers.

A :class:`Variant` turns the facts of one hand into a :class:`~scorer.rules.core.Ruling`
(:meth:`Variant.settle`). The parts a later variant may change — the auction, the
payment schedule, the all-pass rule, the shuffle reminder, the end point — are
separate methods so that it overrides only what its source says differently.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping, Sequence
from typing import Any, ClassVar

from ..cards import RANKS_36, SUITS, Card, first_dealer_by_draw, parse_card
from ..core import (
    BIDS,
    N_,
    PASS,
    POOL,
    Bid,
    Claim,
    EveningSetup,
    HandFacts,
    IllegalAuction,
    IllegalFacts,
    IllegalSetup,
    Reason,
    Result,
    Ruling,
    TableState,
    Text,
    clean_text,
    listing,
    ntext,
)
from ..options import OptionSpec, resolve_options
from ..play import read_claim_cards, read_record

TRICKS_PER_HAND = 5


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


SUIT_NAMES = {"S": Text("spade"), "H": Text("heart"), "D": Text("diamond"), "C": Text("club")}
#: The suits in the plural, as in "when hearts were led".
SUIT_PLURALS = {"S": Text("spades"), "H": Text("hearts"), "D": Text("diamonds"), "C": Text("clubs")}
#: The kinds of claim in words, as in "no rule for a “wrong cards” claim".
CLAIM_NAMES = {"revoke": Text("revoke"), "wrong_cards": Text("wrong cards"), "out_of_turn": Text("out of turn")}


def check_tricks(tricks: Any) -> None:
    """Raise :class:`IllegalFacts` unless ``tricks`` is a whole number from 0 to 5."""
    if isinstance(tricks, bool) or not isinstance(tricks, int) or not 0 <= tricks <= TRICKS_PER_HAND:
        raise IllegalFacts(Text("The declarer wins 0 to {most} tricks, not {tricks}.", most=TRICKS_PER_HAND,
                                tricks=repr(tricks)))


class Variant:
    """A published form of Nap. Subclasses set the class attributes below.

    ``rule_*`` attributes name the rule id cited for each generic step.
    ``schedule`` maps a bid id to ``(units per opponent if made, if defeated)``.
    """

    id: ClassVar[str]
    name: ClassVar[str]
    source: ClassVar[str]
    #: One line for the rule-set chooser: where the game is played and what sets it apart.
    blurb: ClassVar[str] = ""
    min_players: ClassVar[int]
    max_players: ClassVar[int]
    option_specs: ClassVar[tuple[OptionSpec, ...]] = ()
    schedule: ClassVar[Mapping[str, tuple[int, int]]]

    rule_players: ClassVar[str]
    rule_auction: ClassVar[str]  # one call each, from eldest hand, each bid higher
    rule_bids: ClassVar[str]  # the ladder of bids
    rule_overcall: ClassVar[str]  # Wellington only over Nap (and Blücher over Wellington)
    rule_all_pass: ClassVar[str]
    rule_settle: ClassVar[str]
    rule_misdeal: ClassVar[str]
    rule_deal_passes: ClassVar[str]
    rule_extra_tricks: ClassVar[str]
    rule_schedule: ClassVar[str]  # the table of units per opponent
    rule_end: ClassVar[str] = "P-14"  # the agreed end of the evening
    #: The rule of what happens to the pool (treasure) at the end (H-16, R-2), if any.
    rule_pool_end: ClassVar[str | None] = None
    deal_note: ClassVar[str] = Text("Shuffle and deal five cards each.")
    misdeal_source_silent: ClassVar[bool] = False
    #: Points variants award points and take no stake (``napoleao``).
    points_only: ClassVar[bool] = False
    #: The rule for drawing the first dealer, if the source has one: ``(rule id, ace low)``.
    draw_rule: ClassVar[tuple[str, bool] | None] = None
    #: The auction goes round until all but one have passed (``russian36``), so it is
    #: recorded as a sequence of calls rather than one call per player.
    sequence_auction: ClassVar[bool] = False
    #: The declarer may buy a card from the stock (R-9): a hand records whether he did.
    takes_purchase: ClassVar[bool] = False
    #: A money stake is the value of one chip — the stake per trick and the ante are
    #: counted in chips (``russian36``) — rather than of one unit.
    stake_is_per_chip: ClassVar[bool] = False

    # ------------------------------------------------------------------ set-up
    def check_setup(self, setup: EveningSetup) -> EveningSetup:
        """Return ``setup`` with its options resolved (defaults filled in).

        Raises :class:`IllegalSetup` for a player count outside the variant's
        range (``rule_players``), duplicate or empty names, a first dealer who is
        not seated, or a bad option.
        """
        n = setup.n
        seated = setup.seated_at_start
        self.check_count(len(seated))
        players = tuple(clean_text(p) for p in setup.players)
        folded = [p.casefold() for p in players]
        if any(not p for p in folded):
            raise IllegalSetup(Text("Every player needs a name."))
        if len(set(folded)) != n:
            raise IllegalSetup(Text("Two players have the same name; give each a different one."))
        if sorted(set(seated)) != sorted(seated) or not all(0 <= s < n for s in seated):
            raise IllegalSetup(Text("Each player is seated once."))
        if setup.first_dealer not in seated:
            raise IllegalSetup(Text("The first dealer must be one of the players."))
        options = resolve_options(self.option_specs, setup.options)
        if self.points_only and setup.stake is not None:
            raise IllegalSetup(Text("{name} is scored in points; it has no money stake.", name=self.name),
                               self.rule_settle)
        return EveningSetup(setup.variant, players, setup.first_dealer, options, setup.stake, setup.seated)

    def check_count(self, n: int) -> None:
        """Raise :class:`IllegalSetup` (citing ``rule_players``: P-1, H-1, R-1, B-1) unless
        ``n`` players may play a hand of this variant."""
        if not self.min_players <= n <= self.max_players:
            raise IllegalSetup(
                Text("{name} is for {low} to {high} players, not {n}.", name=self.name, low=self.min_players,
                     high=self.max_players, n=n),
                self.rule_players,
            )

    def dealer_by_draw(self, drawn: Sequence[str]) -> tuple[int, Reason]:
        """The first dealer from the cards the players drew, one per seat in seat
        order (H-3: lowest deals, ace low; B-2: lowest deals, ace high).

        Raises :class:`IllegalSetup` when the variant has no draw rule, a card is
        not a card, a card was drawn twice, or the lowest rank is tied (draw again).
        """
        if self.draw_rule is None:
            raise IllegalSetup(Text("These rules have no draw for the first dealer: choose who deals first."))
        rule, ace_low = self.draw_rule
        cards = [parse_card(c) for c in drawn]
        if len(set(cards)) != len(cards):
            raise IllegalSetup(Text("The same card cannot be drawn twice."), rule)

        def low(card: Card) -> int:
            return -1 if ace_low and card.rank == "A" else card.strength

        lowest = min(low(c) for c in cards)
        if sum(1 for c in cards if low(c) == lowest) > 1:
            raise IllegalSetup(Text("Two players drew the lowest rank: they draw again."), rule)
        seat = first_dealer_by_draw(cards, ace_low=ace_low)
        if ace_low:
            return seat, Reason(rule, "{card} is the lowest card drawn (the ace counts low): its player deals first.",
                                {"card": str(cards[seat])})
        return seat, Reason(rule, "{card} is the lowest card drawn: its player deals first.",
                            {"card": str(cards[seat])})

    def describe_options(self, options: Mapping[str, Any]) -> list[tuple[OptionSpec, str]]:
        """Each option that applies (:meth:`OptionSpec.applies_to`) with its value in words,
        for the scoresheet, rules page and PDF: a napoleão game to a target score does not
        list a number of hands."""
        return [(spec, spec.describe(options[spec.key])) for spec in self.option_specs if spec.applies_to(options)]

    # ----------------------------------------------------------------- auction
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

    # -------------------------------------------------------------- settlement
    def payment(self, contract: Bid, made: bool, options: Mapping[str, Any]) -> int:
        """Units each opponent receives or pays, from ``schedule``."""
        won, lost = self.schedule[contract.id]
        return won if made else lost

    def is_made(self, contract: Bid, tricks: int) -> bool:
        """Whether ``tricks`` fulfil ``contract`` (a misère: no trick at all)."""
        return tricks == 0 if contract.id == "misere" else tricks >= contract.tricks

    def settle(self, facts: HandFacts, setup: EveningSetup, state: TableState | None = None) -> Ruling:
        """Rule on one hand (see :meth:`rule`), then apply the table's override, if any:
        its entries replace the ruling's, the engine's are kept in ``overruled`` and
        the reason is cited as ``TABLE``. Raises :class:`IllegalFacts` for an override
        of the wrong length or, in a money variant, one that does not sum to zero."""
        state = state or TableState()
        ruling = self.rule(facts, setup, state)
        override = facts.override
        if override is None:
            return ruling
        units = tuple(override.units)
        if len(units) != setup.n or not all(isinstance(u, int) and not isinstance(u, bool) for u in units):
            raise IllegalFacts(Text("An override gives one whole number per player."))
        if any(abs(u) > 10**9 for u in units + (override.pool,)):
            raise IllegalFacts(Text("An override's figures are far too large."))
        if not self.points_only and sum(units) + override.pool != 0:
            raise IllegalFacts(Text("An override must balance: what the players win and lose (and the pool) must "
                                    "sum to zero."))
        if not override.reason.strip():
            raise IllegalFacts(Text("Give the reason for overruling the ruling."))
        if override.pool and not self.pool_name(setup.options):
            raise IllegalFacts(Text("This table has no pool: an override cannot pay into or out of one."))
        if override.pool and state.pool + override.pool < 0:
            raise IllegalFacts(Text("The pool cannot pay out more than it holds."))
        reason = Reason("TABLE", "The table overruled this ruling: {reason}", {"reason": override.reason.strip()})
        after = dataclasses.replace(ruling.state_after, pool=state.pool + override.pool)
        return dataclasses.replace(ruling, units=units, pool=override.pool, reasons=ruling.reasons + (reason,),
                                   state_after=after, overruled=(ruling.units, ruling.pool), pool_units=())

    def misdeal_ruling(self, facts: HandFacts, setup: EveningSetup, state: TableState) -> Ruling:
        """A misdeal: nobody pays, the same dealer deals again and the hand does not count."""
        return Ruling(
            result=Result.MISDEAL,
            dealer=facts.dealer,
            declarer=None,
            contract=None,
            tricks=None,
            units=(0,) * setup.n,
            reasons=(self.misdeal_reason(setup, facts.dealer),),
            next_dealer=facts.dealer,
            shuffle=True,
            counts=False,
            state_after=state,
        )

    def note_rejected_claims(self, facts: HandFacts, setup: EveningSetup, tally: Tally) -> None:
        """Say, citing its rule, that each claim the table rejected changes nothing."""
        for claim in facts.claims:
            if not claim.upheld:
                tally.note(self.claim_rules[claim.kind], "Rejected: the claim that {what}. It changes nothing.",
                           what=self.describe_claim(setup, claim))

    def all_passed_ruling(self, facts: HandFacts, setup: EveningSetup, tally: Tally) -> Ruling:
        """Nobody bid: the variant's all-pass rule (:meth:`all_passed`). Raises
        :class:`IllegalFacts` if a purchase, the widow or tricks were entered anyway."""
        if facts.purchase or facts.widow:
            raise IllegalFacts(Text("Nobody bid, so nobody bought a card or took the widow."))
        if facts.tricks is not None:
            raise IllegalFacts(Text(
                "Nobody bid, but tricks were entered: tap the declarer's bid, or choose “none: nobody bid” "
                "for the tricks."
            ))
        self.all_passed(facts, setup, tally)
        return tally.ruling(Result.ALL_PASSED, facts, None, None, None, self.shuffle_after(None, False),
                            self.all_pass_counts(setup.options))

    def rule(self, facts: HandFacts, setup: EveningSetup, state: TableState | None = None) -> Ruling:
        """Rule on one hand: facts in, ruling out.

        ``setup`` must come from :meth:`check_setup`; ``state`` is what the
        previous hand left (the pool, …), by default an empty table. Returns a
        :class:`Ruling`; in a money variant its entries sum to zero across the
        players and the pool. Raises :class:`IllegalFacts` (dealer not seated;
        tricks missing, not a whole number or outside 0–5; facts the variant does
        not allow) or :class:`IllegalAuction`.
        """
        state = state or TableState()
        n = setup.n
        if isinstance(facts.dealer, bool) or not isinstance(facts.dealer, int) or not 0 <= facts.dealer < n:
            raise IllegalFacts(Text("The dealer must be one of the players."))
        if facts.misdeal:
            return self.misdeal_ruling(facts, setup, state)
        self.check_facts(facts, setup)
        self.check_claims(facts, setup)
        early = next((c for c in facts.claims if c.upheld and c.kind == "wrong_cards" and c.before_speaking), None)
        if early is not None:
            return self.misdeal_from_claim(facts, setup, state, early)
        tally = Tally(setup, state)
        self.before_play(facts, setup, tally)
        declarer, contract, reasons = self.check_auction(facts, setup)
        tally.reasons += reasons
        if facts.record:
            if declarer is None or contract is None:
                raise IllegalFacts(Text("Nobody bid, so no play can be recorded."))
            facts = self.read_play(facts, setup, tally, declarer, contract)
        elif declarer is not None:
            facts = self.read_claims_cards(facts, setup, tally)
        self.note_rejected_claims(facts, setup, tally)
        upheld = [c for c in facts.claims if c.upheld]
        if upheld and (declarer is None or contract is None):
            raise IllegalFacts(Text("Nobody played this hand, so no claim about its play can be upheld."))
        revoke = next((c for c in upheld if c.kind == "revoke"), None)
        if revoke is not None and declarer is not None and contract is not None:
            tricks = facts.tricks
            if tricks is not None:
                check_tricks(tricks)
            made = self.settle_revoke(facts, setup, tally, declarer, contract, revoke)
            return tally.ruling(Result.MADE if made else Result.DEFEATED, facts, declarer, contract, tricks,
                                self.shuffle_after(contract, made), True)
        if declarer is None or contract is None:
            return self.all_passed_ruling(facts, setup, tally)
        self.check_contract_facts(facts, setup, declarer, contract)
        tricks = facts.tricks
        if tricks is None:
            raise IllegalFacts(Text("Enter how many tricks {declarer} (the declarer) won.",
                                    declarer=setup.players[declarer]))
        check_tricks(tricks)
        made = self.is_made(contract, tricks)
        self.pay_contract(facts, setup, tally, declarer, contract, tricks, made)
        self.after_play(facts, setup, tally, declarer, contract, made)
        return tally.ruling(Result.MADE if made else Result.DEFEATED, facts, declarer, contract, tricks,
                            self.shuffle_after(contract, made), True)

    #: Play: the pack, whether a player who cannot follow must trump (R-11), whether the
    #: declarer names trump (B-7), and the rule cited for trick winners.
    pack_size: ClassVar[int] = 52
    must_trump: ClassVar[bool] = False
    names_trump: ClassVar[bool] = False
    #: The rule of the named trump (with ``names_trump``).
    rule_trump: ClassVar[str | None] = None
    rule_play: ClassVar[str] = "H-9"
    rule_stop: ClassVar[str] = "H-10"

    def widow_rule(self, options: Mapping[str, Any]) -> str | None:
        """The rule of the widow this table plays (H-17 to H-19), or ``None`` when it
        plays none: a hand then records whether the widow was taken."""
        return None

    def peek_rule(self, options: Mapping[str, Any]) -> str | None:
        """The rule under which players pay to peek at the widow (H-18), or ``None``:
        a hand then records who peeked."""
        return None

    #: The rule for each kind of claim this variant rules on.
    claim_rules: ClassVar[Mapping[str, str]] = {}
    #: Whether the variant's source is silent on revokes (the house rule applies).
    revoke_source_silent: ClassVar[bool] = True

    def read_play(self, facts: HandFacts, setup: EveningSetup, tally: Tally, declarer: int, contract: Bid) -> HandFacts:
        """Read the full record of play: the declarer's tricks, when the result was
        decided, and the revokes the cards prove; revoke claims the record proves are
        upheld and those it disproves rejected, saying which cards show it. Returns
        the facts with the tricks and claims the record establishes."""
        if self.names_trump and facts.trump is None:
            raise IllegalFacts(Text("Record the trump the declarer named (B-7) to read the play."), "B-7")
        reading = read_record(
            facts.record, setup.n, declarer, contract.tricks, pack_size=self.pack_size,
            named_trump=facts.trump if self.names_trump else None, must_trump=self.must_trump,
            misere=contract.id == "misere",
            held={c.accused: c.cards_held for c in facts.claims
                  if c.upheld and c.kind == "wrong_cards" and c.cards_held is not None})
        names = setup.players
        tricks = reading.tricks
        if facts.tricks is not None and facts.tricks != tricks:
            raise IllegalFacts(Text("The record gives {declarer} {tricks} tricks, not {entered}.",
                                    declarer=names[declarer], tricks=tricks, entered=facts.tricks), self.rule_play)
        tally.note(self.rule_play, "From the record: trump {trump}; tricks won by {winners}; {declarer} took "
                   "{tricks}.", trump=SUIT_PLURALS[reading.trump],
                   winners=", ".join(names[w] for w in reading.winners) or Text("nobody yet"),
                   declarer=names[declarer], tricks=tricks)
        if reading.decided_after is not None and reading.decided_after < len(reading.winners):
            tally.note(self.rule_stop, "The result was certain after trick {t}; later tricks do not count.",
                       t=reading.decided_after)
        elif reading.decided_after is not None and reading.decided_after < TRICKS_PER_HAND:
            tally.note(self.rule_stop, "Play stopped after trick {t}, when the result was certain.",
                       t=reading.decided_after)
        found = {r.seat: r for r in reading.revokes}
        claims = []
        for claim in facts.claims:
            if claim.kind == "revoke":
                proof = found.get(claim.accused)
                if proof is not None:
                    claim = dataclasses.replace(claim, upheld=True, trick=claim.trick or proof.trick,
                                                suit_led=claim.suit_led or proof.led, card=claim.card or proof.card,
                                                evidence=claim.evidence or proof.evidence)
                    tally.note(self.claim_rules["revoke"], "The record proves the claim: {who} played {card} to "
                               "trick {t} when {led} were led, and later {evidence}.", who=names[proof.seat],
                               card=proof.card, t=proof.trick, led=SUIT_PLURALS[proof.led],
                               evidence=Text("played {card} (a trump: R-11)", card=proof.evidence)
                               if proof.failed_to_trump else Text("played {card}", card=proof.evidence))
                elif reading.next_to_play is None:
                    claim = dataclasses.replace(claim, upheld=False)
                    if self.must_trump:
                        message = N_("The record disproves the claim: every card {who} held is in the record, and "
                                     "{who} never failed to follow a suit they still held nor to trump when able.")
                    else:
                        message = N_("The record disproves the claim: every card {who} held is in the record, and "
                                     "{who} never failed to follow a suit they still held.")
                    tally.note(self.claim_rules["revoke"], message, who=names[claim.accused])
                elif reading.followed_suit_throughout(claim.accused, facts.record):
                    claim = dataclasses.replace(claim, upheld=False)
                    tally.note(self.claim_rules["revoke"], "The record disproves the claim: {who} followed suit "
                               "in every trick.", who=names[claim.accused])
            claims.append(claim)
        complete = reading.next_to_play is None or reading.decided_after is not None
        if not complete and not any(c.upheld and c.kind == "revoke" for c in claims):
            raise IllegalFacts(Text("The record stops before the result was certain: record every trick played."))
        claimed = {c.accused for c in claims if c.kind == "revoke"}
        for proof in reading.revokes:
            if proof.seat not in claimed:
                tally.note(self.claim_rules.get("revoke", self.rule_play), "The record shows {who} revoked in trick "
                           "{t} ({card} on a {led} lead, later {evidence}); nobody claimed it, so the score stands. "
                           "Add a claim to apply the rule.", who=names[proof.seat], t=proof.trick, card=proof.card,
                           led=SUIT_NAMES[proof.led], evidence=proof.evidence)
        return dataclasses.replace(facts, tricks=tricks, claims=tuple(claims))

    def read_claims_cards(self, facts: HandFacts, setup: EveningSetup, tally: Tally) -> HandFacts:
        """Read the partial record of play that a revoke claim carries — the accused's
        card in the trick of the claim and the card they showed in a later trick
        (:func:`~scorer.rules.play.read_claim_cards`) — when it gives the later trick,
        or names a card of the suit led as the card played (a claim without either
        is ruled as the table decided, as before). Cards that prove the revoke uphold it, cards that
        disprove it reject it (the variant's revoke rule: H-15, P-16, R-18, B-16/B-17),
        and cards that prove nothing leave the table's decision standing; the ruling
        says which. Returns the facts with the claims so decided."""
        claims = []
        for claim in facts.claims:
            if claim.kind == "revoke" and (claim.evidence_trick is not None
                                           or read_claim_cards(claim, self.pack_size).verdict is False):
                claim = self._judge_claim_cards(setup, tally, claim)
            claims.append(claim)
        return dataclasses.replace(facts, claims=tuple(claims))

    def _judge_claim_cards(self, setup: EveningSetup, tally: Tally, claim: Claim) -> Claim:
        rule = self.claim_rules["revoke"]
        seen = read_claim_cards(claim, self.pack_size)
        who = setup.players[claim.accused]
        suit = SUIT_NAMES.get(claim.suit_led or "", Text("suit"))
        if seen.verdict is True:
            tally.note(rule, "The cards prove the claim: {who} played {card} to trick {t} when {led} were led, "
                       "and {evidence} in trick {later}.", who=who, card=claim.card, t=claim.trick,
                       led=SUIT_PLURALS[claim.suit_led or "S"], evidence=claim.evidence, later=claim.evidence_trick)
            return dataclasses.replace(claim, upheld=True)
        if seen.verdict is False:
            tally.note(rule, "The cards disprove the claim: {who} played {card}, following the {suit} lead.",
                       who=who, card=claim.card, suit=suit)
            return dataclasses.replace(claim, upheld=False)
        if seen.why == "not_later":
            why = Text("{card} was played in trick {later}, not after trick {t}: {who} may have had no {suit} left",
                       card=claim.evidence, later=claim.evidence_trick, t=claim.trick, who=who, suit=suit)
        elif seen.why == "other_suit":
            why = Text("{card} is not a {suit}", card=claim.evidence, suit=suit)
        else:
            why = Text("the trick, the suit led, the card played or the card shown later is missing")
        if claim.upheld:
            tally.note(rule, "The cards prove nothing ({why}); the table upheld the claim, and its decision stands.",
                       why=why)
        else:
            tally.note(rule, "The cards prove nothing ({why}); the table rejected the claim, and its decision "
                       "stands.", why=why)
        return claim

    def check_claims(self, facts: HandFacts, setup: EveningSetup) -> None:
        """Refuse claims this variant has no rule for, or that name no seat, trick or card."""
        for claim in facts.claims:
            if claim.kind not in self.claim_rules:
                kinds = listing(CLAIM_NAMES[k] for k in self.claim_rules) if self.claim_rules else Text("none")
                raise IllegalFacts(Text("{name} has no rule for a “{kind}” claim (claims here: {kinds}).",
                                        name=self.name, kind=CLAIM_NAMES.get(claim.kind, claim.kind.replace("_", " ")),
                                        kinds=kinds))
            for seat in (claim.accused, claim.by):
                if seat is not None and (isinstance(seat, bool) or not isinstance(seat, int)
                                         or not 0 <= seat < setup.n):
                    raise IllegalFacts(Text("A claim must name players at the table."))
            if claim.trick is not None and (isinstance(claim.trick, bool) or not isinstance(claim.trick, int)
                                            or not 1 <= claim.trick <= TRICKS_PER_HAND):
                raise IllegalFacts(Text("Tricks are numbered 1 to {most}.", most=TRICKS_PER_HAND))
            if claim.evidence_trick is not None and (isinstance(claim.evidence_trick, bool)
                                                     or not isinstance(claim.evidence_trick, int)
                                                     or not 1 <= claim.evidence_trick <= TRICKS_PER_HAND):
                raise IllegalFacts(Text("Tricks are numbered 1 to {most}.", most=TRICKS_PER_HAND))
            if claim.evidence_trick is not None and not claim.evidence:
                raise IllegalFacts(Text("Name the card shown in trick {t}.", t=claim.evidence_trick))
            if claim.suit_led is not None and claim.suit_led not in SUITS:
                raise IllegalFacts(Text("The suit led must be one of S, H, D, C."))
            for card in (claim.card, claim.evidence):
                if card and parse_card(card).strength < 13 - len(RANKS_36) and self.pack_size == 36:
                    raise IllegalFacts(Text("{card} is not in the 36-card pack (R-1).", card=card))
            if claim.kind == "wrong_cards" and claim.cards_held == 5:
                raise IllegalFacts(Text("Five cards is the right number: that claim has nothing to rule on."))
            if claim.cards_held is not None and (isinstance(claim.cards_held, bool)
                                                 or not isinstance(claim.cards_held, int)
                                                 or not 0 <= claim.cards_held <= 10):
                raise IllegalFacts(Text("A player holds 0 to 10 cards."))
        if sum(1 for c in facts.claims if c.upheld and c.kind == "revoke") > 1:
            raise IllegalFacts(Text("A revoke claim stops play, so only one revoke can be upheld in a hand."))

    def describe_claim(self, setup: EveningSetup, claim: Claim) -> Text:
        """The claim in words: "East revoked in trick 3 (the 2♣ on a heart lead; later showed the 5♥)"."""
        who = setup.players[claim.accused]
        if claim.kind == "revoke":
            detail = []
            if claim.card or claim.suit_led:
                suit = SUIT_NAMES.get(claim.suit_led or "", Text("suit"))
                if claim.card:
                    detail.append(Text("{card} on a {suit} lead", card=claim.card, suit=suit))
                else:
                    detail.append(Text("a card on a {suit} lead", suit=suit))
            if claim.evidence and claim.evidence_trick:
                detail.append(Text("showed {card} in trick {later}", card=claim.evidence, later=claim.evidence_trick))
            elif claim.evidence:
                detail.append(Text("later showed {card}", card=claim.evidence))
            params = {f"d{i}": d for i, d in enumerate(detail)}
            details = Text("; ".join(f"{{{k}}}" for k in params), **params)
            if claim.trick:
                if detail:
                    return Text("{who} revoked in trick {t} ({details})", who=who, t=claim.trick, details=details)
                return Text("{who} revoked in trick {t}", who=who, t=claim.trick)
            if detail:
                return Text("{who} revoked ({details})", who=who, details=details)
            return Text("{who} revoked", who=who)
        if claim.kind == "wrong_cards":
            if claim.cards_held is not None:
                if claim.before_speaking:
                    return Text("{who} held {held}, said before speaking", who=who,
                                held=ntext("{n} card", "{n} cards", claim.cards_held))
                return Text("{who} held {held}", who=who, held=ntext("{n} card", "{n} cards", claim.cards_held))
            if claim.before_speaking:
                return Text("{who} held the wrong number of cards, said before speaking", who=who)
            return Text("{who} held the wrong number of cards", who=who)
        if claim.trick:
            return Text("{who} led or played out of turn in trick {t}", who=who, t=claim.trick)
        return Text("{who} led or played out of turn", who=who)

    def misdeal_from_claim(self, facts: HandFacts, setup: EveningSetup, state: TableState, claim: Claim) -> Ruling:
        """H-13: wrong cards noticed before the player spoke make a misdeal (H-12)."""
        ruling = self.rule(HandFacts(facts.dealer, misdeal=True), setup, state)
        reason = Reason(self.claim_rules["wrong_cards"], "Upheld: {what}, so the deal is a misdeal.",
                        {"what": self.describe_claim(setup, claim)})
        return dataclasses.replace(ruling, reasons=(reason,) + ruling.reasons, claims=facts.claims)

    def settle_revoke(self, facts: HandFacts, setup: EveningSetup, tally: Tally, declarer: int, contract: Bid,
                      claim: Claim) -> bool:
        """The house rule where the source is silent (P-16, R-18) or the inspection rule
        (B-16): a revoking declarer is scored as defeated, a revoking opponent as if
        the declarer made the contract. Returns whether the contract counts as made."""
        rule = self.claim_rules["revoke"]
        made = claim.accused != declarer
        if made and self.revoke_source_silent:
            text = N_("Upheld: {what}. An opponent revoked, so the hand is scored as made. The source is silent on "
                      "revokes; the house rule adopted by this product applies.")
        elif made:
            text = N_("Upheld: {what}. An opponent revoked, so the hand is scored as made.")
        elif self.revoke_source_silent:
            text = N_("Upheld: {what}. The declarer revoked, so the hand is scored as defeated. The source is silent "
                      "on revokes; the house rule adopted by this product applies.")
        else:
            text = N_("Upheld: {what}. The declarer revoked, so the hand is scored as defeated.")
        tally.note(rule, text, what=self.describe_claim(setup, claim))
        if (self.names_trump and facts.trump and claim.card and claim.suit_led != facts.trump
                and parse_card(claim.card).suit == facts.trump):
            tally.note("B-17", "Trumping while still holding a card of the suit led is a failure to follow suit.")
        self.pay_contract(facts, setup, tally, declarer, contract, None, made)
        self.after_play(facts, setup, tally, declarer, contract, made)
        return made

    def check_facts(self, facts: HandFacts, setup: EveningSetup) -> None:
        """Refuse variant facts this variant or table does not have (a trump named in
        ``pagat``, a purchase in ``hoyle``, …)."""
        if facts.trump is not None:
            raise IllegalFacts(Text("Trump is fixed by the declarer's first lead here; it is not named."))
        if facts.purchase:
            raise IllegalFacts(Text("There is no purchase of a card in this variant."))
        if facts.widow:
            raise IllegalFacts(Text("There is no widow at this table."))
        if facts.peeks:
            raise IllegalFacts(Text("There is no Peep Nap at this table."))

    def before_play(self, facts: HandFacts, setup: EveningSetup, tally: Tally) -> None:
        """Hook: payments due before the auction (antes, pool top-ups, peeks)."""

    def all_passed(self, facts: HandFacts, setup: EveningSetup, tally: Tally) -> None:
        """Everyone passed: no score; the deal passes on (``rule_all_pass``)."""
        tally.note(
            self.rule_all_pass,
            "Everyone passed: the hand is not played; {next} deals next.",
            next=setup.players[(facts.dealer + 1) % setup.n],
        )

    def check_contract_facts(self, facts: HandFacts, setup: EveningSetup, declarer: int, contract: Bid) -> None:
        """Hook: facts that depend on the contract (a widow taken needs a Nap, …)."""

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

    def after_play(
        self, facts: HandFacts, setup: EveningSetup, tally: Tally, declarer: int, contract: Bid, made: bool
    ) -> None:
        """Hook: payments after the contract's (the pool taken or doubled, …)."""

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

    def misdeal_reason(self, setup: EveningSetup, dealer: int) -> Reason:
        """The reason for a misdeal ruling (``rule_misdeal``)."""
        text = N_("Misdeal: {dealer} deals again; no score.")
        if self.misdeal_source_silent:
            text = N_("Misdeal: {dealer} deals again; no score. The source is silent on misdeals; the house rule "
                      "adopted by this product applies.")
        return Reason(self.rule_misdeal, text, {"dealer": setup.players[dealer]})

    # ------------------------------------------------------- between the hands
    def shuffle_after(self, contract: Bid | None, made: bool) -> bool:
        """Whether the next dealer shuffles (rather than gathers and cuts)."""
        return True

    def shuffle_note(self, shuffle: bool) -> tuple[str, str]:
        """``(rule id, sentence)`` telling the next dealer how to prepare the pack."""
        return self.rule_deal_passes, self.deal_note

    def all_pass_counts(self, options: Mapping[str, Any]) -> bool:
        """Whether an all-pass hand counts towards the agreed end point."""
        return True

    def hands_to_play(self, setup: EveningSetup) -> int | None:
        """The number of counted hands agreed for the evening (B-14), or ``None``."""
        return None

    def deals_each(self, setup: EveningSetup) -> int | None:
        """The counted deals each player gives before the agreed end (P-14), or ``None``."""
        return None

    def pool_name(self, options: Mapping[str, Any]) -> str | None:
        """What the table calls its pool ("Pool", "Treasure"), or ``None`` without one."""
        return None

    def pool_at_end(self, options: Mapping[str, Any]) -> str:
        """What happens to chips left in the pool at the end: ``"share"`` or ``"leave"``."""
        return "leave"

    def target_score(self, options: Mapping[str, Any]) -> int | None:
        """A total that ends the evening when a player reaches it, or ``None``."""
        return None


Party = int | str  # a seat, or POOL


class Tally:
    """The entries of one hand as they are made: every payment moves chips from one
    party to another, so a money hand sums to zero by construction; :meth:`award`
    gives points from nobody (points variants such as ``napoleao``)."""

    def __init__(self, setup: EveningSetup, state: TableState) -> None:
        self.setup = setup
        self.state = state
        self.units = [0] * setup.n
        self.pool = 0
        self.pool_units = [0] * setup.n  # each seat's part of ``units`` paid into or taken from the pool
        self.reasons: list[Reason] = []
        self.pool_open = state.pool_open
        self.double_next = False
        self.multiplier = 2 if state.double_next else 1

    @property
    def pool_now(self) -> int:
        """Chips in the pool at this moment of the hand."""
        return self.state.pool + self.pool

    def _move(self, party: Party, amount: int) -> None:
        if party == POOL:
            self.pool += amount
        else:
            self.units[int(party)] += amount

    def pay(self, payer: Party, payee: Party, amount: int) -> None:
        """``payer`` pays ``amount`` units to ``payee``."""
        self._move(payer, -amount)
        self._move(payee, amount)
        if payee == POOL and payer != POOL:
            self.pool_units[int(payer)] -= amount
        elif payer == POOL and payee != POOL:
            self.pool_units[int(payee)] += amount

    def award(self, seat: int, points: int) -> None:
        """Score ``points`` for ``seat`` without anyone paying (points variants)."""
        self.units[seat] += points

    def note(self, rule: str, message: str, **params: Any) -> None:
        self.reasons.append(Reason(rule, message, params))

    def name(self, seat: int) -> str:
        return self.setup.players[seat]

    def ruling(
        self, result: Result, facts: HandFacts, declarer: int | None, contract: Bid | None, tricks: int | None,
        shuffle: bool, counts: bool,
    ) -> Ruling:
        state_after = TableState(pool=self.pool_now, pool_open=self.pool_open, double_next=self.double_next)
        return Ruling(
            result=result,
            dealer=facts.dealer,
            declarer=declarer,
            contract=contract,
            tricks=tricks,
            units=tuple(self.units),
            reasons=tuple(self.reasons),
            next_dealer=(facts.dealer + 1) % self.setup.n,
            pool=self.pool,
            shuffle=shuffle,
            counts=counts,
            state_after=state_after,
            claims=facts.claims,
            pool_units=tuple(self.pool_units) if any(self.pool_units) else (),
        )
