"""The claims part of a variant: reading the record of play and ruling on claims.

What a kind of claim *is* lives in the registry (:mod:`scorer.rules.claims`); this part
holds the steps of a hand that rule on claims: rejected claims noted (they change
nothing), a wrong-cards claim made before speaking turned into a misdeal (H-13), a revoke
settled (P-16, R-18, B-16/B-17; ``hoyle`` overrides it with H-15), and the full or
partial record of play read to prove or disprove a revoke (H-9, H-10, R-11, B-9).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from typing import ClassVar

from ..cards import parse_card
from ..claims import SUIT_NAMES, SUIT_PLURALS, check_claims, claim_rules, describe_claim
from ..core import (
    N_,
    TRICKS_PER_HAND,
    Bid,
    Claim,
    EveningSetup,
    HandFacts,
    IllegalFacts,
    Reason,
    Ruling,
    TableState,
    Text,
    listing,
)
from ..play import read_claim_cards, read_record
from .tally import Tally


class ClaimSteps:
    """The claim and record-of-play steps of :class:`~scorer.rules.variants.base.Variant` (a mixin part).

    The kinds a variant rules on, and the rule of each, come from the registry
    (:func:`scorer.rules.claims.claim_rules`).
    """

    id: ClassVar[str]
    name: ClassVar[str]
    #: Play: the pack, whether a player who cannot follow must trump (R-11), whether the
    #: declarer names trump (B-7), and the rule cited for trick winners.
    pack_size: ClassVar[int] = 52
    must_trump: ClassVar[bool] = False
    names_trump: ClassVar[bool] = False
    #: The rule of the named trump (with ``names_trump``).
    rule_trump: ClassVar[str | None] = None
    rule_play: ClassVar[str] = "H-9"
    rule_stop: ClassVar[str] = "H-10"
    #: Whether the variant's source is silent on revokes (the house rule applies).
    revoke_source_silent: ClassVar[bool] = True
    #: Revokes are found by an inspection when the hand ends (``napoleao`` B-16).
    inspects_after_play: ClassVar[bool] = False

    @property
    def claim_rules(self) -> Mapping[str, str]:
        """The rule id for each kind of claim this variant rules on (from the registry)."""
        return claim_rules(self.id)

    def check_claims(self, facts: HandFacts, setup: EveningSetup) -> None:
        """Refuse claims this variant has no rule for, or that name no seat, trick or card."""
        check_claims(self, facts.claims, setup)

    def describe_claim(self, setup: EveningSetup, claim: Claim) -> Text:
        """The claim in words: "East revoked in trick 3 (the 2♣ on a heart lead; later showed the 5♥)"."""
        return describe_claim(setup, claim)

    def note_rejected_claims(self, facts: HandFacts, setup: EveningSetup, tally: Tally) -> None:
        """Say, citing its rule, that each claim the table rejected changes nothing."""
        for claim in facts.claims:
            if not claim.upheld:
                tally.note(self.claim_rules[claim.kind], "Rejected: the claim that {what}. It changes nothing.",
                           what=self.describe_claim(setup, claim))

    def misdeal_from_claim(self, facts: HandFacts, setup: EveningSetup, state: TableState, claim: Claim) -> Ruling:
        """H-13: wrong cards noticed before the player spoke make a misdeal (H-12). The
        hand's other claims are named too (issue 25 item 9): a misdealt deal is dealt
        again, so none of them changes anything (adopted)."""
        ruling = self.rule(HandFacts(facts.dealer, misdeal=True), setup, state)
        reason = Reason(self.claim_rules["wrong_cards"], "Upheld: {what}, so the deal is a misdeal.",
                        {"what": self.describe_claim(setup, claim)})
        others = tuple(
            Reason(self.claim_rules[other.kind], "Upheld: {what}; the deal is a misdeal and is dealt again, so this "
                   "claim changes nothing (adopted).", {"what": self.describe_claim(setup, other)})
            if other.upheld else
            Reason(self.claim_rules[other.kind], "Rejected: the claim that {what}. It changes nothing.",
                   {"what": self.describe_claim(setup, other)})
            for other in facts.claims if other is not claim)
        return dataclasses.replace(ruling, reasons=(reason,) + others + ruling.reasons, claims=facts.claims)

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
                   winners=listing(names[w] for w in reading.winners) or Text("nobody yet"),
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

