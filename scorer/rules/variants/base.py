"""What every variant does the same way: the set-up, the facts of a hand and the order of a ruling.

A :class:`Variant` turns the facts of one hand into a :class:`~scorer.rules.core.Ruling`
(:meth:`Variant.settle`). It is a record of parts plus its own steps. The parts are
objects it declares, each from its own module: ``auction`` (:mod:`.bidding`), ``scoring``
(:mod:`.payments`), ``pool`` (:mod:`.pool`) and ``end`` (:mod:`.ending`); the claims and
the record of play are steps (:mod:`.claim_steps`, with the registry
:mod:`scorer.rules.claims`). Its ruling order (:meth:`Variant.rule`) calls the parts
through its steps, and a variant overrides only the steps its source says differently.
The facts of a hand a variant has are a positive list (:attr:`Variant.facts`): any other
fact is refused (:data:`VARIANT_FACTS`).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Mapping, Sequence
from typing import Any, ClassVar

from ..cards import Card, first_dealer_by_draw, parse_card
from ..claims import CLAIM_KINDS, settle_hooks
from ..core import (
    BIDS,
    N_,
    Bid,
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
)
from ..options import OptionSpec, resolve_options
from .bidding import OneRoundAuction, SequenceAuction
from .claim_steps import ClaimSteps
from .ending import BetweenHands
from .payments import Payments
from .tally import TRICKS_PER_HAND, Tally, check_tricks

__all__ = ["COMMON_FACTS", "TRICKS_PER_HAND", "VARIANT_FACTS", "Tally", "Variant", "check_tricks"]

#: The facts every variant's hands have (:class:`~scorer.rules.core.HandFacts` fields).
COMMON_FACTS = frozenset({"dealer", "auction", "tricks", "misdeal", "claims", "override", "record", "note"})


@dataclasses.dataclass(frozen=True)
class VariantFact:
    """A fact only some variants have: the ``rule`` that has it (cited when a variant
    without it refuses it), the refusal ``message`` and ``present(value)``: whether the
    recorded value says the fact happened (its default says it did not)."""

    rule: str
    message: str
    present: Callable[[Any], bool] = bool


#: Every fact of a hand that only some variants have, in the order they are checked. A
#: variant lists the ones it has in :attr:`Variant.facts`; every other one is refused.
VARIANT_FACTS: dict[str, VariantFact] = {
    "trump": VariantFact("B-7", N_("Trump is fixed by the declarer's first lead here; it is not named."),
                         lambda value: value is not None),
    "purchase": VariantFact("R-9", N_("There is no purchase of a card in this variant.")),
    "widow": VariantFact("H-17", N_("There is no widow at this table.")),
    "peeks": VariantFact("H-18", N_("There is no Peep Nap at this table.")),
}
assert COMMON_FACTS | set(VARIANT_FACTS) == {f.name for f in dataclasses.fields(HandFacts)}


class Variant(Payments, ClaimSteps, BetweenHands):
    """A published form of Nap. Subclasses set the class attributes below and the parts'.

    Its parts are objects it declares: ``auction`` (:class:`~.bidding.OneRoundAuction`
    or :class:`~.bidding.SequenceAuction`), ``scoring`` (:class:`~.payments.Schedule`,
    :class:`~.payments.StakePerTrick`, :class:`~.payments.Points`), ``pool``
    (:class:`~.pool.Pool`, :class:`~.pool.Treasure` or ``None``) and ``end``
    (:class:`~.ending.OpenEnd`, :class:`~.ending.DealsEach`, :class:`~.ending.TargetOrHands`);
    the auction, payment and between-hands steps it inherits call them. ``rule_*``
    attributes name the rule id cited for each generic step. ``facts`` lists the facts of
    :data:`VARIANT_FACTS` its hands may record.
    """

    id: ClassVar[str]
    name: ClassVar[str]
    source: ClassVar[str]
    #: One line for the rule-set chooser: where the game is played and what sets it apart.
    blurb: ClassVar[str] = ""
    min_players: ClassVar[int]
    max_players: ClassVar[int]
    #: The auction part (P-5 to P-7, H-6/H-7, B-4/B-5; R-5 to R-7).
    auction: ClassVar[OneRoundAuction | SequenceAuction]
    #: True where everyone passing makes the dealer the declarer (napoleao B-6): entry
    #: then asks the dealer's bid instead of recording an all-pass hand.
    dealer_declares_on_all_pass: ClassVar[bool] = False
    option_specs: ClassVar[tuple[OptionSpec, ...]] = ()
    #: The facts of :data:`VARIANT_FACTS` this variant's hands may record (a positive list).
    facts: ClassVar[frozenset[str]] = frozenset()

    rule_players: ClassVar[str]
    rule_all_pass: ClassVar[str]
    rule_misdeal: ClassVar[str]
    misdeal_source_silent: ClassVar[bool] = False
    #: The rule for drawing the first dealer, if the source has one: ``(rule id, ace low)``.
    draw_rule: ClassVar[tuple[str, bool] | None] = None
    #: The declarer may buy a card from the stock (R-9): a hand records whether he did.
    takes_purchase: ClassVar[bool] = False

    # ----------------------------------------------------------------- auction
    @property
    def sequence_auction(self) -> bool:
        """The auction goes round until all but one have passed (``russian36``), so it is
        recorded as a sequence of calls rather than one call per player."""
        return self.auction.sequence

    def ladder(self, options: Mapping[str, Any]) -> tuple[Bid, ...]:
        """The bids this table may make, lowest first (default: the scoring table's)."""
        return tuple(BIDS[b] for b in self.scoring.table)

    def refuse_unknown_bid(self, call: str, options: Mapping[str, Any]) -> IllegalAuction:
        """The error for a call that is not on this table's ladder (the auction's ``rule_bids``)."""
        return self.auction.refuse_unknown_bid(self, call, options)

    def check_all_pass(self, facts: HandFacts, setup: EveningSetup) -> None:
        """Hook: raise :class:`IllegalAuction` if everyone may not pass. Default: they may."""

    def speaking_order(self, setup: EveningSetup, dealer: int) -> list[int]:
        """Seats from eldest hand (left of the dealer) round to the dealer."""
        return self.auction.speaking_order(setup, dealer)

    def overcalled(self, contract: str | None) -> tuple[str, ...]:
        """The bids that must have been made before ``contract`` (P-7, H-7)."""
        return self.auction.overcalled(contract)

    def lone_bid_auction(self, setup: EveningSetup, dealer: int, declarer: int | None,
                         contract: str | None, earlier: Mapping[str, int] | None = None) -> tuple[str, ...]:
        """The common hand's auction as quick entry records it: ``declarer`` bids
        ``contract`` (``earlier``: bid id → the seat that made an overcalled bid), the
        others pass. See the auction part's ``lone_bid_auction``."""
        return self.auction.lone_bid_auction(self, setup, dealer, declarer, contract, earlier)

    def speakers(self, setup: EveningSetup, facts: HandFacts) -> list[int]:
        """The seat that made each call of ``facts.auction``, in order."""
        return self.auction.speakers(self, setup, facts)

    def next_speaker(self, setup: EveningSetup, dealer: int, calls: tuple[str, ...]) -> tuple[int | None, list[str]]:
        """A sequence auction's next speaker after ``calls`` and the calls open to him, or
        ``(None, [])`` when it is over (R-5, R-6). Raises :class:`IllegalAuction`; only
        for a variant with a :class:`~.bidding.SequenceAuction` (``sequence_auction``)."""
        if not isinstance(self.auction, SequenceAuction):
            raise TypeError("next_speaker: this variant's auction is one call per player")
        return self.auction.next_speaker(self, setup, dealer, calls)

    def check_auction(self, facts: HandFacts, setup: EveningSetup) -> tuple[int | None, Bid | None, list[Reason]]:
        """Rule on the auction: ``(declarer seat or None, contract or None, reasons)``.
        Raises :class:`IllegalAuction` (the auction part's rules)."""
        return self.auction.check_auction(self, facts, setup)

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
        stop = next((c for c in upheld if CLAIM_KINDS[c.kind].stops_play), None)
        if stop is not None and declarer is not None and contract is not None:
            return self._stopped(facts, setup, tally, declarer, contract, stop)
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
        settle_hooks(self, facts, setup, tally, declarer, contract)
        return tally.ruling(Result.MADE if made else Result.DEFEATED, facts, declarer, contract, tricks,
                            self.shuffle_after(contract, made), True)

    def _stopped(self, facts: HandFacts, setup: EveningSetup, tally: Tally, declarer: int, contract: Bid,
                 claim: Any) -> Ruling:
        """An upheld claim that stops play (a revoke): :meth:`settle_revoke` decides the hand."""
        tricks = facts.tricks
        if tricks is not None:
            check_tricks(tricks)
        made = self.settle_revoke(facts, setup, tally, declarer, contract, claim)
        settle_hooks(self, facts, setup, tally, declarer, contract)
        return tally.ruling(Result.MADE if made else Result.DEFEATED, facts, declarer, contract, tricks,
                            self.shuffle_after(contract, made), True)

    def widow_rule(self, options: Mapping[str, Any]) -> str | None:
        """The rule of the widow this table plays (H-17 to H-19), or ``None`` when it
        plays none: a hand then records whether the widow was taken."""
        return None

    def peek_rule(self, options: Mapping[str, Any]) -> str | None:
        """The rule under which players pay to peek at the widow (H-18), or ``None``:
        a hand then records who peeked."""
        return None

    def check_facts(self, facts: HandFacts, setup: EveningSetup) -> None:
        """Refuse every fact of :data:`VARIANT_FACTS` this variant does not list in ``facts``
        (a trump named in ``pagat``, a purchase in ``hoyle``, …): an :class:`IllegalFacts`
        whose message names the fact and whose rule is the rule that has it (B-7, R-9,
        H-17, H-18). A variant checks the facts it has in its own override."""
        for name, fact in VARIANT_FACTS.items():
            if name not in self.facts and fact.present(getattr(facts, name)):
                raise IllegalFacts(Text(fact.message), fact.rule)

    def before_play(self, facts: HandFacts, setup: EveningSetup, tally: Tally) -> None:
        """Payments due before the auction: the pool part's (antes, pool top-ups); a
        variant adds its own (``hoyle``'s peeks, H-18)."""
        if self.pool is not None:
            self.pool.before_play(facts, setup, tally)

    def all_passed(self, facts: HandFacts, setup: EveningSetup, tally: Tally) -> None:
        """Everyone passed: no score; the deal passes on (``rule_all_pass``)."""
        tally.note(
            self.rule_all_pass,
            "Everyone passed: the hand is not played; {next} deals next.",
            next=setup.players[(facts.dealer + 1) % setup.n],
        )

    def check_contract_facts(self, facts: HandFacts, setup: EveningSetup, declarer: int, contract: Bid) -> None:
        """Hook: facts that depend on the contract (a widow taken needs a Nap, …)."""

    def after_play(
        self, facts: HandFacts, setup: EveningSetup, tally: Tally, declarer: int, contract: Bid, made: bool
    ) -> None:
        """Payments after the contract's: the pool part's (the pool taken or doubled, H-16,
        R-15)."""
        if self.pool is not None:
            self.pool.after_play(facts, setup, tally, declarer, contract, made,
                                 self.payment(contract, made, setup.options))

    def misdeal_reason(self, setup: EveningSetup, dealer: int) -> Reason:
        """The reason for a misdeal ruling (``rule_misdeal``)."""
        text = N_("Misdeal: {dealer} deals again; no score.")
        if self.misdeal_source_silent:
            text = N_("Misdeal: {dealer} deals again; no score. The source is silent on misdeals; the house rule "
                      "adopted by this product applies.")
        return Reason(self.rule_misdeal, text, {"dealer": setup.players[dealer]})

