"""The kinds of claim, in one registry (H-13 to H-15, P-16, R-18, B-16/B-17).

A claim is an irregularity a player claims during a hand, recorded with the table's
decision (:class:`~scorer.rules.core.Claim`). Everything the app knows about a kind
lives in its :class:`ClaimKind` here: its id, its names (English :class:`Text` the web
layer translates), the parts of the claim form it needs, whether it names an accused
player, the rule that governs it in each variant, how it is put in words and its
settlement hook. The forms, the disputes, the models' ``DISPUTE_KINDS``, the hand
form's words and its CSS (``data-needs``) read this registry; the JSON schema's enum
is a literal that ``tests/test_claim_registry.py`` checks against it.

Shapes: :data:`CLAIM_KINDS` maps a kind id (``"revoke"``) to its :class:`ClaimKind`,
in the order forms list them; seats are indices into the set-up's players.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any, Protocol

from .cards import RANKS_36, SUITS, parse_card
from .core import N_, TRICKS_PER_HAND, Claim, EveningSetup, IllegalFacts, Text, listing, ntext

SUIT_NAMES = {"S": Text("spade"), "H": Text("heart"), "D": Text("diamond"), "C": Text("club")}
#: The suits in the plural, as in "when hearts were led".
SUIT_PLURALS = {"S": Text("spades"), "H": Text("hearts"), "D": Text("diamonds"), "C": Text("clubs")}

#: The parts of the claim form a kind may need (``ClaimKind.needs``): ``trick`` the trick
#: it happened in; ``card`` the suit led and the card played; ``evidence`` the card shown
#: later and its trick; ``held`` the cards held and whether it was said before speaking.
NEEDS = ("trick", "card", "evidence", "held")

#: ``settle(variant, facts, setup, tally, declarer, contract, claim)``: the settlement hook
#: of an upheld claim, called after the contract is paid (it pays fines, notes the rule).
SettleHook = Callable[..., None]


class ClaimVariant(Protocol):
    """What :func:`check_claims` reads of a variant (without importing the variants: no cycle)."""

    name: str
    pack_size: int
    #: Revokes are found by an inspection after the hand (``napoleao`` B-16), not claimed in play.
    inspects_after_play: bool

    @property
    def claim_rules(self) -> Mapping[str, str]: ...


@dataclass(frozen=True)
class ClaimKind:
    """One kind of claim.

    ``id`` is the stored kind (``"wrong_cards"``); ``name`` its name in the engine's
    sentences ("no rule for a “wrong cards” claim"); ``label`` the claim form's button;
    ``word`` the hand form's summary ("A claim: revoke, out of turn"); ``dispute`` the
    dispute form's choice. ``needs`` the form parts it asks (:data:`NEEDS`); ``accuses``
    whether it names an accused player (a dispute of this kind must). ``rules`` maps a
    variant id to the rule id that governs the kind there: a variant without an entry
    has no rule for it and refuses it. ``describe(who, claim)`` puts a claim in words;
    ``stops_play`` says an upheld claim ends the hand (the variant's ``settle_revoke``);
    ``settle`` is the hook for an upheld claim of a new kind (see :data:`SettleHook`),
    ``None`` where the variant's own steps settle it (H-13, H-14 in ``hoyle``; R-18 in
    ``russian36``). ``article`` is the English article of ``name`` ("an “out of turn”
    claim", issue 25 item 10).
    """

    id: str
    name: Text
    label: Text
    word: Text
    dispute: Text
    needs: tuple[str, ...]
    accuses: bool
    rules: Mapping[str, str]
    describe: Callable[[str, Claim], Text]
    stops_play: bool = False
    settle: SettleHook | None = None
    check: Callable[[Claim], None] = field(default=lambda claim: None)
    #: The English article before the kind's quoted name: "an “out of turn” claim".
    article: str = "a"


def _describe_revoke(who: str, claim: Claim) -> Text:
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


def _describe_wrong_cards(who: str, claim: Claim) -> Text:
    if claim.cards_held is not None:
        if claim.before_speaking:
            return Text("{who} held {held}, said before speaking", who=who,
                        held=ntext("{n} card", "{n} cards", claim.cards_held))
        return Text("{who} held {held}", who=who, held=ntext("{n} card", "{n} cards", claim.cards_held))
    if claim.before_speaking:
        return Text("{who} held the wrong number of cards, said before speaking", who=who)
    return Text("{who} held the wrong number of cards", who=who)


def _check_wrong_cards(claim: Claim) -> None:
    if claim.cards_held == 5:
        raise IllegalFacts(Text("Five cards is the right number: that claim has nothing to rule on."))


def _describe_out_of_turn(who: str, claim: Claim) -> Text:
    if claim.trick:
        return Text("{who} led or played out of turn in trick {t}", who=who, t=claim.trick)
    return Text("{who} led or played out of turn", who=who)


#: Every kind of claim, in the order the forms offer them.
CLAIM_KINDS: dict[str, ClaimKind] = {
    k.id: k
    for k in (
        ClaimKind("revoke", Text("revoke"), Text("Revoke"), Text("revoke"), Text("Revoke (did not follow suit)"),
                  needs=("trick", "card", "evidence"), accuses=True, stops_play=True, describe=_describe_revoke,
                  rules={"pagat": "P-16", "hoyle": "H-15", "russian36": "R-18", "napoleao": "B-16"}),
        ClaimKind("wrong_cards", Text("wrong cards"), Text("Wrong number of cards"), Text("wrong number of cards"),
                  Text("Wrong number of cards"), needs=("held",), accuses=True, describe=_describe_wrong_cards,
                  check=_check_wrong_cards, rules={"hoyle": "H-13"}),
        ClaimKind("out_of_turn", Text("out of turn"), Text("Out of turn"), Text("out of turn"),
                  Text("Played out of turn"), needs=("trick",), accuses=True, describe=_describe_out_of_turn,
                  rules={"hoyle": "H-14", "russian36": "R-18"}, article="an"),
    )
}
assert all(set(k.needs) <= set(NEEDS) for k in CLAIM_KINDS.values())


def claim_rules(variant_id: str) -> dict[str, str]:
    """The kinds of claim ``variant_id`` rules on, each with its rule id, in registry order."""
    return {k.id: k.rules[variant_id] for k in CLAIM_KINDS.values() if variant_id in k.rules}


def claim_name(kind: str) -> Text:
    """The kind in the engine's words ("wrong cards"); an unknown kind as typed, underscores spaced."""
    known = CLAIM_KINDS.get(kind)
    return known.name if known else Text(kind.replace("_", " "))


def describe_claim(setup: EveningSetup, claim: Claim) -> Text:
    """The claim in words: "East revoked in trick 3 (the 2♣ on a heart lead; later showed the 5♥)"."""
    return CLAIM_KINDS[claim.kind].describe(setup.players[claim.accused], claim)


def _is_trick(value: Any) -> bool:
    return not isinstance(value, bool) and isinstance(value, int) and 1 <= value <= TRICKS_PER_HAND


def _check_one(claim: Claim, setup: EveningSetup, pack_size: int) -> None:
    for seat in (claim.accused, claim.by):
        if seat is not None and (isinstance(seat, bool) or not isinstance(seat, int) or not 0 <= seat < setup.n):
            raise IllegalFacts(Text("A claim must name players at the table."))
    if claim.trick is not None and not _is_trick(claim.trick):
        raise IllegalFacts(Text("Tricks are numbered 1 to {most}.", most=TRICKS_PER_HAND))
    if claim.evidence_trick is not None and not _is_trick(claim.evidence_trick):
        raise IllegalFacts(Text("Tricks are numbered 1 to {most}.", most=TRICKS_PER_HAND))
    if claim.evidence_trick is not None and not claim.evidence:
        raise IllegalFacts(Text("Name the card shown in trick {t}.", t=claim.evidence_trick))
    if claim.suit_led is not None and claim.suit_led not in SUITS:
        raise IllegalFacts(Text("The suit led must be one of S, H, D, C."))
    for card in (claim.card, claim.evidence):
        if card and parse_card(card).strength < 13 - len(RANKS_36) and pack_size == 36:
            raise IllegalFacts(Text("{card} is not in the 36-card pack (R-1).", card=card))
    CLAIM_KINDS[claim.kind].check(claim)
    if claim.cards_held is not None and (isinstance(claim.cards_held, bool) or not isinstance(claim.cards_held, int)
                                         or not 0 <= claim.cards_held <= 10):
        raise IllegalFacts(Text("A player holds 0 to 10 cards."))


def check_claims(variant: ClaimVariant, claims: tuple[Claim, ...], setup: EveningSetup) -> None:
    """Refuse claims ``variant`` has no rule for (:func:`claim_rules`), or that name no
    seat, trick or card at this table; only one revoke can be upheld (play stops; in
    ``napoleao``, whose inspection comes after play, B-16, the earliest decides: adopted)."""
    rules = variant.claim_rules
    for claim in claims:
        if claim.kind not in rules:
            kinds = listing(CLAIM_KINDS[k].name for k in rules) if rules else Text("none")
            known = CLAIM_KINDS.get(claim.kind)
            if known is not None and known.article == "an":
                message = N_("{name} has no rule for an “{kind}” claim (claims here: {kinds}).")
            else:
                message = N_("{name} has no rule for a “{kind}” claim (claims here: {kinds}).")
            raise IllegalFacts(Text(message, name=variant.name, kind=claim_name(claim.kind), kinds=kinds))
        _check_one(claim, setup, variant.pack_size)
    if sum(1 for c in claims if c.upheld and CLAIM_KINDS[c.kind].stops_play) > 1:
        if variant.inspects_after_play:
            raise IllegalFacts(Text("The inspection settles the hand on one revoke: uphold the earliest and reject "
                                    "the others (adopted)."), rules.get("revoke"))
        raise IllegalFacts(Text("A revoke claim stops play, so only one revoke can be upheld in a hand."))


def settle_hooks(variant: Any, facts: Any, setup: EveningSetup, tally: Any, declarer: int, contract: Any
                 ) -> None:
    """Run the settlement hook of every upheld claim whose kind has one (in recorded order)."""
    for claim in facts.claims:
        hook = CLAIM_KINDS[claim.kind].settle
        if claim.upheld and hook is not None:
            hook(variant, facts, setup, tally, declarer, contract, claim)
