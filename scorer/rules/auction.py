"""An auction called one call at a time (``russian36``, R-4 to R-7), as a value.

:class:`AuctionState` is the auction of one hand so far: built from the setup, the
dealer and the calls made, it knows who said what, who speaks next and what they may
say, whether the auction is over and, if so, the declarer and contract; the highest
call so far and who holds it. :meth:`AuctionState.add` and :meth:`AuctionState.undo`
give a new state with the variant's rules checked. Seats, call ids and bids only:
the words shown to players are the caller's.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Protocol

from .core import PASS, Bid, EveningSetup, HandFacts, Reason, RulesError


class SequenceAuction(Protocol):
    """A variant whose auction runs call by call (``Variant.sequence_auction``)."""

    def next_speaker(self, setup: EveningSetup, dealer: int,
                     calls: tuple[str, ...]) -> tuple[int | None, list[str]]: ...

    def check_auction(self, facts: HandFacts,
                      setup: EveningSetup) -> tuple[int | None, Bid | None, list[Reason]]: ...


@dataclass(frozen=True)
class AuctionState:
    """The auction after ``calls``, the dealer speaking first.

    Raises :class:`RulesError` (an :class:`IllegalAuction`) when ``calls`` could not
    have been made, so a state always holds a legal auction."""

    variant: SequenceAuction
    setup: EveningSetup
    dealer: int
    calls: tuple[str, ...] = ()
    #: who speaks next (``None``: the auction is over) and what they may say
    speaker: int | None = field(init=False, default=None)
    legal: tuple[str, ...] = field(init=False, default=())
    #: who made each call, in order
    seats: tuple[int, ...] = field(init=False, default=())

    def __post_init__(self) -> None:
        calls = tuple(self.calls)
        object.__setattr__(self, "calls", calls)
        speaker, legal = self.variant.next_speaker(self.setup, self.dealer, calls)
        seats = []
        for i in range(len(calls)):
            seat = self.variant.next_speaker(self.setup, self.dealer, calls[:i])[0]
            assert seat is not None  # the whole sequence was legal, so every prefix has a speaker
            seats.append(seat)
        object.__setattr__(self, "speaker", speaker)
        object.__setattr__(self, "legal", tuple(legal))
        object.__setattr__(self, "seats", tuple(seats))

    @property
    def said(self) -> tuple[tuple[int, str], ...]:
        """``(seat, call)`` for each call so far."""
        return tuple(zip(self.seats, self.calls, strict=True))

    @property
    def over(self) -> bool:
        return self.speaker is None

    @property
    def highest(self) -> tuple[int, str] | None:
        """``(seat, call)`` of the last call that was not a pass — the highest bid, or the
        dealer's «Здесь» holding it (R-6) — or ``None`` before any bid."""
        held = [(seat, call) for seat, call in self.said if call != PASS]
        return held[-1] if held else None

    @property
    def outcome(self) -> tuple[int | None, Bid | None]:
        """``(declarer, contract)`` once the auction is over; ``(None, None)`` while it
        runs, when everyone passed, or when the variant refuses the finished auction."""
        if not self.over:
            return None, None
        try:
            declarer, contract, _ = self.variant.check_auction(HandFacts(self.dealer, self.calls), self.setup)
        except RulesError:
            return None, None
        return declarer, contract

    def add(self, call: str) -> AuctionState:
        """The auction after one more call. Raises :class:`RulesError` if it is illegal."""
        return AuctionState(self.variant, self.setup, self.dealer, (*self.calls, call))

    def undo(self) -> AuctionState:
        """The auction without its last call (the same auction when there is none)."""
        return AuctionState(self.variant, self.setup, self.dealer, self.calls[:-1])

