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

from collections.abc import Sequence
from dataclasses import dataclass

from .cards import Card, parse_card, trick_winner
from .core import IllegalFacts


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

    def followed_suit_throughout(self, seat: int, record: Sequence[Sequence[str]]) -> bool:
        """True if ``seat`` followed the suit led in every trick it played to."""
        for t, trick in enumerate(record):
            for i, text in enumerate(trick):
                who = (self.leaders[t] + i) % self.n_players
                if who == seat and i > 0 and parse_card(text).suit != parse_card(trick[0]).suit:
                    return False
        return True


def read_record(record: Sequence[Sequence[str]], n: int, declarer: int, needed: int, *, pack_size: int = 52,
                named_trump: str | None = None, must_trump: bool = False, misere: bool = False) -> PlayReading:
    """Check a record and read it.

    ``record`` is a list of tricks, each the card texts in play order from the leader.
    Every trick but the last has ``n`` cards; the record may stop early (H-10, R-12,
    B-10). Raises :class:`IllegalFacts` for a card that is not a card or not in the
    pack, a card played twice, a trick with the wrong number of cards, or more than
    five tricks.
    """
    if len(record) > 5:
        raise IllegalFacts("A hand has five tricks.")
    seen: set[Card] = set()
    parsed: list[list[Card]] = []
    for t, trick in enumerate(record, start=1):
        if not 1 <= len(trick) <= n or (len(trick) < n and t < len(record)):
            raise IllegalFacts(f"Trick {t} needs one card from each of the {n} players.")
        cards = [parse_card(c) for c in trick]
        for card in cards:
            if pack_size == 36 and card.strength < parse_card("6S").strength:
                raise IllegalFacts(f"{card} is not in the 36-card pack (R-1).")
            if card in seen:
                raise IllegalFacts(f"{card} was played twice.")
            seen.add(card)
        parsed.append(cards)
    if not parsed:
        raise IllegalFacts("The record has no trick.")
    trump = named_trump or parsed[0][0].suit
    leaders: list[int] = []
    winners: list[int] = []
    leader = declarer
    won = 0
    decided_after = None
    played_by: dict[int, list[tuple[int, Card, str]]] = {s: [] for s in range(n)}
    for t, cards in enumerate(parsed, start=1):
        leaders.append(leader)
        for i, card in enumerate(cards):
            played_by[(leader + i) % n].append((t, card, cards[0].suit))
        if len(cards) < n:
            break
        winner = (leader + trick_winner(cards, trump)) % n
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
    revokes: list[FoundRevoke] = []
    for seat, plays in played_by.items():
        for k, (t, card, led) in enumerate(plays):
            if card.suit == led:
                continue
            later = [c for (_, c, _) in plays[k + 1:]]
            shown = next((c for c in later if c.suit == led), None)
            if shown is not None and (leaders[t - 1] != seat):
                revokes.append(FoundRevoke(seat, t, led, str(card), str(shown)))
                break
            if must_trump and card.suit != trump and leaders[t - 1] != seat:
                trumped = next((c for c in later if c.suit == trump), None)
                if trumped is not None:
                    revokes.append(FoundRevoke(seat, t, led, str(card), str(trumped), failed_to_trump=True))
                    break
    return PlayReading(trump, tuple(leaders), tuple(winners), won, decided_after, tuple(revokes), n_players=n)
