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
from .core import IllegalFacts, Text


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
        remaining = 5 - t
        if decided_after is None:
            if misere:
                if won > 0 or remaining == 0:
                    decided_after = t
            elif won >= needed or won + remaining < needed:
                decided_after = t
        leader = winner
    else:
        if len(parsed) < 5:
            later = [(leader + i) % n for i in range(n) if left[(leader + i) % n] > 0]
            next_to_play = later[0] if later else None
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
    return PlayReading(trump, tuple(leaders), tuple(winners), won, decided_after, tuple(revokes), n_players=n,
                       seats=tuple(seats), next_to_play=next_to_play)
