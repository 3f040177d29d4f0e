"""The full record of play: the cards played to each trick, checked and read by the rules.

A record is the cards of each trick in the order they were played, starting with
the leader: the declarer leads the first trick (P-9, H-9, R-10; B-7 after naming
trump) and the winner of each trick leads the next (P-11, H-9, B-9). From it the
engine finds each trick's winner, the declarer's trick count, when the result was
decided (H-10, R-12, B-10) and every revoke the cards prove: a player who did not
follow suit and later played a card of that suit (P-10, H-9, B-8, B-17), or — in
``russian36`` — who neither followed nor trumped and later played a trump (R-11).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from .cards import Card, parse_card, trick_winner
from .core import Claim, IllegalFacts, RulesError, Text


@dataclass(frozen=True)
class FoundRevoke:
    """A revoke the record proves: ``seat`` played ``card`` to trick ``trick`` (1-based)
    when ``led`` was led, and later played ``evidence`` (a card of ``led``, or a trump
    for a failure to trump)."""

    seat: int
    trick: int
    led: str
    card: str
    evidence: str
    failed_to_trump: bool = False


@dataclass(frozen=True)
class PlayReading:
    """What a record establishes: ``trump``; for each trick its ``leaders`` and
    ``winners`` (seats); the declarer's ``tricks``; ``decided_after`` (the trick after
    which the contract was certain to be made or defeated, or ``None``); ``revokes``."""

    trump: str
    leaders: tuple[int, ...]
    winners: tuple[int, ...]
    tricks: int
    decided_after: int | None
    revokes: tuple[FoundRevoke, ...]

    n_players: int = 0
    #: who played each card of each trick, in order
    seats: tuple[tuple[int, ...], ...] = ()
    #: who plays the next card, when the record stops mid-hand
    next_to_play: int | None = None

    def followed_suit_throughout(self, seat: int, record: Sequence[Sequence[str]]) -> bool:
        """True if ``seat`` followed the suit led in every trick it played to."""
        for t, trick in enumerate(record):
            for i, text in enumerate(trick):
                if self.seats[t][i] == seat and i > 0 and parse_card(text).suit != parse_card(trick[0]).suit:
                    return False
        return True


def _parse_record(record: Sequence[Sequence[str]], pack_size: int) -> list[list[Card]]:
    """The record's card texts as cards. Raises :class:`IllegalFacts` for a card that
    is not a card, not in the pack (R-1: 36 cards) or played twice."""
    seen: set[Card] = set()
    parsed: list[list[Card]] = []
    for trick in record:
        cards = [parse_card(c) for c in trick]
        for card in cards:
            if pack_size == 36 and card.strength < parse_card("6S").strength:
                raise IllegalFacts(Text("{card} is not in the 36-card pack (R-1).", card=str(card)))
            if card in seen:
                raise IllegalFacts(Text("{card} was played twice.", card=str(card)))
            seen.add(card)
        parsed.append(cards)
    return parsed


def _decided(won: int, remaining: int, needed: int, misere: bool) -> bool:
    """Whether the result is certain once the declarer has won ``won`` tricks with
    ``remaining`` still to play (H-10, R-12, B-10): a misère is lost with the first
    trick won; a contract is made at ``needed`` or lost when it cannot be reached."""
    if misere:
        return won > 0 or remaining == 0
    return won >= needed or won + remaining < needed


def _found_revokes(played_by: Mapping[int, list[tuple[int, Card, str]]], leaders: Sequence[int], trump: str,
                   must_trump: bool) -> list[FoundRevoke]:
    """The first revoke each player's later cards prove: a card of the suit led shown
    after a discard (H-9, P-10), or with ``must_trump`` a trump shown after a discard
    when a trump was due (R-11)."""
    revokes: list[FoundRevoke] = []
    for seat, plays in played_by.items():
        for k, (t, card, led) in enumerate(plays):
            if card.suit == led or leaders[t - 1] == seat:
                continue
            later = [c for (_, c, _) in plays[k + 1:]]
            shown = next((c for c in later if c.suit == led), None)
            if shown is not None:
                revokes.append(FoundRevoke(seat, t, led, str(card), str(shown)))
                break
            if must_trump and card.suit != trump:
                trumped = next((c for c in later if c.suit == trump), None)
                if trumped is not None:
                    revokes.append(FoundRevoke(seat, t, led, str(card), str(trumped), failed_to_trump=True))
                    break
    return revokes


def read_record(record: Sequence[Sequence[str]], n: int, declarer: int, needed: int, *, pack_size: int = 52,
                named_trump: str | None = None, must_trump: bool = False, misere: bool = False,
                held: Mapping[int, int] | None = None) -> PlayReading:
    """Check a record and read it.

    ``record`` is a list of tricks, each the card texts in play order from the leader.
    Every player with a card left plays one to each trick: ``held`` gives the cards a
    player was dealt when it was not five (H-13): a short player has no card for the
    last tricks and cannot win them; a leader with no card left passes the lead to the
    left (adopted). Every trick but the last is complete; the record may stop early
    (H-10, R-12, B-10). Raises :class:`IllegalFacts` for a card that is not a card or
    not in the pack, a card played twice, a trick with the wrong number of cards, or
    more than five tricks.
    """
    held = {s: (held or {}).get(s, 5) for s in range(n)}
    if len(record) > 5:
        raise IllegalFacts(Text("A hand has five tricks."))
    parsed = _parse_record(record, pack_size)
    if not parsed:
        raise IllegalFacts(Text("The record has no trick."))
    trump = named_trump or parsed[0][0].suit
    leaders: list[int] = []
    winners: list[int] = []
    seats: list[tuple[int, ...]] = []
    leader = declarer
    won = 0
    decided_after = None
    left = dict(held)
    played_by: dict[int, list[tuple[int, Card, str]]] = {s: [] for s in range(n)}
    next_to_play: int | None = None
    for t, cards in enumerate(parsed, start=1):
        order = [(leader + i) % n for i in range(n) if left[(leader + i) % n] > 0]
        if not order:
            raise IllegalFacts(Text("Nobody has a card left for trick {t}.", t=t))
        leader = order[0]
        if not 1 <= len(cards) <= len(order) or (len(cards) < len(order) and t < len(parsed)):
            raise IllegalFacts(Text("Trick {t} needs one card from each of the {n} players with cards left.", t=t,
                                    n=len(order)))
        leaders.append(leader)
        seats.append(tuple(order[: len(cards)]))
        for seat, card in zip(order, cards):
            played_by[seat].append((t, card, cards[0].suit))
            left[seat] -= 1
        if len(cards) < len(order):
            next_to_play = order[len(cards)]
            break
        winner = order[trick_winner(cards, trump)]
        winners.append(winner)
        won += winner == declarer
        if decided_after is None and _decided(won, 5 - t, needed, misere):
            decided_after = t
        leader = winner
    else:
        if len(parsed) < 5:
            later = [(leader + i) % n for i in range(n) if left[(leader + i) % n] > 0]
            next_to_play = later[0] if later else None
    revokes = _found_revokes(played_by, leaders, trump, must_trump)
    return PlayReading(trump, tuple(leaders), tuple(winners), won, decided_after, tuple(revokes), n_players=n,
                       seats=tuple(seats), next_to_play=next_to_play)


@dataclass(frozen=True)
class PlayRules:
    """How a record of one hand is read: :func:`read_record`'s arguments but the record."""

    n: int
    declarer: int
    needed: int
    pack_size: int = 52
    named_trump: str | None = None
    must_trump: bool = False
    misere: bool = False
    held: Mapping[int, int] | None = None

    def read(self, record: Sequence[Sequence[str]]) -> PlayReading:
        return read_record(record, self.n, self.declarer, self.needed, pack_size=self.pack_size,
                           named_trump=self.named_trump, must_trump=self.must_trump, misere=self.misere,
                           held=self.held)


@dataclass(frozen=True)
class PlayState:
    """A record of play being entered one card at a time: ``tricks`` (each the card
    texts from the leader; no empty trick) read by ``rules``. Every change gives a new
    state; nothing here checks the cards until they are read (:attr:`reading`)."""

    rules: PlayRules
    tricks: tuple[tuple[str, ...], ...] = ()

    def __post_init__(self) -> None:
        object.__setattr__(self, "tricks", tuple(tuple(t) for t in self.tricks if t))

    def add(self, card: str) -> PlayState:
        """One more card: to the last trick, or to a new trick when the last is complete
        (every player with a card left has played to it). A record that cannot be read
        counts a trick complete when it holds a card from each player."""
        tricks = self.tricks
        if not tricks:
            complete = True
        else:
            try:
                complete = len(self.rules.read(tricks).winners) == len(tricks)
            except RulesError:
                complete = len(tricks[-1]) >= self.rules.n
        if complete:
            return PlayState(self.rules, (*tricks, (card,)))
        return PlayState(self.rules, (*tricks[:-1], (*tricks[-1], card)))

    def undo(self) -> PlayState:
        """Without the last card (a trick left empty goes too)."""
        if not self.tricks:
            return self
        return PlayState(self.rules, (*self.tricks[:-1], self.tricks[-1][:-1]))

    def clear(self) -> PlayState:
        return PlayState(self.rules)

    def readable(self) -> tuple[PlayState, RulesError | None]:
        """The longest start of this record that can be read — cards dropped from the
        end until it can (a hand-made form may hold junk) — and the first refusal met
        on the way, or ``None`` when the record was readable as it is."""
        state, first = self, None
        while state.tricks:
            try:
                state.rules.read(state.tricks)
            except RulesError as error:
                first = first or error
                state = state.undo()
            else:
                break
        return state, first

    @property
    def reading(self) -> PlayReading | None:
        """What the record establishes (``None`` for an empty record). Raises
        :class:`RulesError` when it cannot be read: see :meth:`readable`."""
        return self.rules.read(self.tricks) if self.tricks else None

    @property
    def next_to_play(self) -> int | None:
        """Who plays the next card: the declarer leads the first trick; ``None`` once
        nobody has a card left."""
        reading = self.reading
        return self.rules.declarer if reading is None else reading.next_to_play

    @property
    def played(self) -> frozenset[str]:
        """The cards played so far, as upper-case texts."""
        return frozenset(c.upper() for t in self.tricks for c in t)


@dataclass(frozen=True)
class ClaimCards:
    """What the cards a revoke claim names establish (a partial record of play).

    ``verdict`` is ``True`` when they prove the revoke, ``False`` when they disprove
    it, ``None`` when they prove nothing either way; ``why`` says which case:
    ``"proved"``, ``"followed"`` (the accused's card is of the suit led),
    ``"not_later"`` (the card of the suit led was shown in the same or an earlier
    trick: the accused may have played their last one then), ``"other_suit"`` (the
    card shown later is not of the suit led) or ``"incomplete"`` (the trick, the suit
    led, the card played or the card shown later is missing)."""

    verdict: bool | None
    why: str


def read_claim_cards(claim: Claim, pack_size: int = 52) -> ClaimCards:
    """Read the partial record a revoke claim carries: in trick ``claim.trick``
    ``claim.suit_led`` was led and the accused played ``claim.card``; in trick
    ``claim.evidence_trick`` they played ``claim.evidence``.

    A revoke is failing to follow suit while able (P-10, H-9, R-11, B-8; B-17:
    trumping while holding the suit led is one): a card of the suit led played by
    the accused in a LATER trick proves they held it (H-15, P-16, R-18, B-16/B-17
    then settle it). A card of the suit led played to the claimed trick disproves
    the claim. Anything else proves nothing, and the table's decision stands.
    Raises :class:`IllegalFacts` for a text that is not a card, a card outside the
    36-card pack (R-1) or the same card named twice.
    """
    trick, led, later = claim.trick, claim.suit_led, claim.evidence_trick
    card_text, evidence_text = claim.card, claim.evidence
    cards = _parse_record([[c] for c in (card_text, evidence_text) if c], pack_size)
    card = cards[0][0] if card_text else None
    evidence = cards[-1][0] if evidence_text else None
    if card is not None and led is not None and card.suit == led:
        return ClaimCards(False, "followed")
    if trick is None or led is None or card is None or evidence is None or later is None:
        return ClaimCards(None, "incomplete")
    if evidence.suit != led:
        return ClaimCards(None, "other_suit")
    if later <= trick:
        return ClaimCards(None, "not_later")
    return ClaimCards(True, "proved")
