"""Disputes the way a table has them (issue 12): any phone, a viewer's included, may
dispute a hand; a table may ask that every new hand be confirmed by another phone.

A dispute is not a fact of the hand: it is a request shown on every phone (it bumps the
evening's revision, so live pages pick it up) until a scorer rules on it. Ruling puts
the claim into the hand's facts as a new version, where the referee rules on it citing
the rule as for any claim (H-13 to H-16, R-18, P-16, B-16/B-17); a scorer may instead
find nothing to change and dismiss it. Both are kept in the history.

Each write is a command (:mod:`scorer.storage.commands`: :class:`RaiseDispute`,
:class:`DismissDispute`, :class:`ConfirmHand`, :class:`SetConfirmation`; ruling on a
dispute is the hand's correction carrying the dispute, which :func:`close_ruled_on`
closes in the same unit of work). Each write function is one unit of work
(:func:`scorer.storage.units.write_locked`) and raises
:class:`~scorer.storage.errors.ScorerError` subclasses whose ``message`` is a
:class:`Text` (the views translate it).
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import ClassVar

import sqlalchemy as sa

from ..rules import HandFacts, Text
from ..rules.claims import CLAIM_KINDS
from ..rules.core import TRICKS_PER_HAND
from .commands import Command, Device, Saved, handles
from .errors import EveningFinished, HandConflict, ScorerError
from .fingerprints import HandMarks
from .models import DISPUTE_KINDS, Change, Dispute, Evening, Hand, db, utcnow
from .models import Device as Phone
from .units import bump, write_locked

#: Kinds that name an accused player (the claims of the referee that accuse someone).
ACCUSING = tuple(k.id for k in CLAIM_KINDS.values() if k.accuses)


class DisputeRefused(ScorerError):
    """The dispute, ruling or confirmation asked for cannot be done (bad input, or the
    phone that entered a hand trying to confirm it)."""


# --------------------------------------------------------------------------- commands
@dataclass(frozen=True)
class RaiseDispute(Command):
    """Dispute a hand: its row ``hand_id`` as the phone saw it (``None``: hand ``number``,
    whatever its row). ``accused`` and ``raised_by`` are seats, ``trick`` 1–5."""

    key: str
    hand_id: int | None
    kind: str
    number: int | None = None
    accused: int | None = None
    raised_by: int | None = None
    trick: int | None = None
    note: str = ""
    token: str | None = None
    token_kind: ClassVar[str] = "dispute"


@dataclass(frozen=True)
class DismissDispute(Command):
    """A scorer finds nothing to change: the open dispute ``dispute_id`` is closed, the hand stands."""

    key: str
    dispute_id: int
    token: str | None = None
    token_kind: ClassVar[str] = "dismiss"


@dataclass(frozen=True)
class ConfirmHand(Command):
    """Accept a hand another phone entered (row ``hand_id``; ``None``: hand ``number``)."""

    key: str
    hand_id: int | None
    number: int | None = None
    token: str | None = None
    token_kind: ClassVar[str] = "confirm"


@dataclass(frozen=True)
class SetConfirmation(Command):
    """Turn confirmation on or off for the table (a manager's setting)."""

    key: str
    on: bool
    token: str | None = None
    token_kind: ClassVar[str] = "confirmation"


CLOSED = Text("This dispute was ruled on or dismissed on another phone; nothing was changed.")


def _hand_in_play(evening: Evening, number: int | None, hand_id: int | None) -> Hand:
    """The hand of the (locked) evening the phone saw: row ``hand_id`` (when given), hand
    ``number`` (when given); raises :class:`HandConflict` when it was undone or replaced
    meanwhile."""
    if hand_id is not None:
        hand = next((h for h in evening.hands if h.id == hand_id), None)
        if hand is None or (number is not None and hand.number != number):
            gone = db.session.get(Hand, hand_id) if 0 < hand_id < 2**31 else None
            was = gone.undone_number or 0 if gone is not None and gone.evening_id == evening.id else 0
            raise HandConflict(Text("Hand {number} is no longer in play (it was undone on another phone); "
                                    "nothing was saved.", number=number or was), was)
        return hand
    if number is None or not 1 <= number <= len(evening.hands):
        raise HandConflict(Text("There is no hand {number} now (it was undone on another phone).",
                                number=number or 0), 0)
    return evening.hands[number - 1]


def _log(evening: Evening, kind: str, number: int, device: str, detail: dict[str, object]) -> None:
    db.session.add(Change(evening_id=evening.id, kind=kind, hand_number=number, device=(device or "")[:40],
                          after=detail))


def _check(evening: Evening, kind: str, accused: int | None, raised_by: int | None, trick: int | None) -> None:
    n = len(evening.players)
    if kind not in DISPUTE_KINDS:
        raise DisputeRefused(Text("Choose what is wrong with the hand."))
    if kind in ACCUSING and (accused is None or not 0 <= accused < n):
        raise DisputeRefused(Text("Choose who is accused."))
    if raised_by is not None and not 0 <= raised_by < n:
        raise DisputeRefused(Text("Choose who raises the dispute."))
    if trick is not None and not 1 <= trick <= TRICKS_PER_HAND:
        raise DisputeRefused(Text("Tricks are numbered 1 to 5."))


@write_locked
def raise_dispute(evening: Evening, number: int | None, *, hand_id: int | None, kind: str,
                  accused: int | None = None, raised_by: int | None = None, trick: int | None = None, note: str = "",
                  device: str = "", device_id: int | None = None) -> Dispute:
    """Dispute hand ``number`` (its row ``hand_id``, as the phone saw it).

    ``kind`` is one of :data:`~scorer.storage.models.DISPUTE_KINDS`; ``accused`` (a seat) is
    required for a claim that accuses someone (:data:`ACCUSING`: a revoke, a wrong
    number of cards, play out of turn); ``raised_by``
    is the seat of the player raising it (``None``: someone watching); ``trick`` 1–5.
    Raises :class:`DisputeRefused` for bad input (nothing is saved) and
    :class:`HandConflict` when the hand is no longer in play. A finished evening may
    still be disputed: a scorer reopens it to rule.
    """
    if evening.finished_at is not None:
        raise DisputeRefused(Text("This evening is finished: a scorer reopens it before a hand can be disputed."))
    hand = _hand_in_play(evening, number, hand_id)
    _check(evening, kind, accused, raised_by, trick)
    # one open dispute of each kind a hand: a phone cannot flood every other phone with the same complaint
    if any(d.hand_id == hand.id and d.kind == kind for d in _open(evening)):
        raise DisputeRefused(Text("Hand {number} is already disputed for that; a scorer will rule on it.",
                                  number=hand.number))
    dispute = Dispute(evening_id=evening.id, hand_id=hand.id, kind=kind,
                      accused=accused if kind in ACCUSING else None, raised_by=raised_by, trick=trick,
                      note=(note or "").strip()[:200], device=(device or "")[:40], device_id=device_id)
    db.session.add(dispute)
    bump(evening)
    names = [p.name for p in evening.players]
    _log(evening, "dispute", hand.number, device, {
        "kind": kind, "accused": names[accused] if accused is not None and kind in ACCUSING else None,
        "by": names[raised_by] if raised_by is not None else None, "trick": trick, "note": dispute.note})
    db.session.flush()  # the dispute's row id
    return dispute


@write_locked
def settle_dispute(evening: Evening, dispute_id: int, resolution: str, *, device: str = "",
                   referee: str = "") -> Dispute:
    """Close an open dispute: ``resolution`` "ruled" (the claim is now in the hand's
    facts, or the hand was corrected) or "dismissed" (nothing to change); ``referee``: the
    event's referee who closed it (issue 22 item 5), named in the history. Raises
    :class:`DisputeRefused` when there is no such dispute at this table and
    :class:`HandConflict` when it is closed already (ruled on or dismissed on another phone)."""
    dispute = db.session.get(Dispute, dispute_id, populate_existing=True) if 0 < dispute_id < 2**31 else None
    if dispute is None or dispute.evening_id != evening.id or resolution not in ("ruled", "dismissed"):
        raise DisputeRefused(Text("There is no such dispute at this table."))
    if dispute.resolved_at is not None:
        raise HandConflict(CLOSED, _number_of(dispute))
    _close(evening, dispute, resolution, device, referee)
    return dispute


def _number_of(dispute: Dispute) -> int:
    """The number of the disputed hand (where it was, if undone since; 0 if unknown)."""
    hand = db.session.get(Hand, dispute.hand_id)
    return hand.number if hand is not None and hand.number > 0 else (hand.undone_number if hand else 0) or 0


def _close(evening: Evening, dispute: Dispute, resolution: str, device: str, referee: str = "") -> None:
    """Close the open ``dispute`` of the locked ``evening`` (in the caller's unit of work);
    ``referee``: the event's referee who did (kept in the history's entry)."""
    dispute.resolved_at, dispute.resolution, dispute.resolved_device = utcnow(), resolution, (device or "")[:40]
    bump(evening)
    detail: dict[str, object] = {"kind": dispute.kind}
    if referee:
        detail["referee"] = referee
    _log(evening, "ruled" if resolution == "ruled" else "dismissed", _number_of(dispute), device, detail)


def close_ruled_on(evening: Evening, hand: Hand, dispute_id: int | None, facts: HandFacts, device: str,
                   referee: str = "") -> None:
    """A correction of ``hand`` to ``facts`` rules on its disputes: close, in the
    correction's unit of work (the command's, :class:`scorer.storage.commands.CorrectHand`
    and ``SetClaims``), dispute ``dispute_id`` ("Rule on it") and every open dispute of
    the hand whose claim (kind and accused) is now among its claims (``referee``: the
    event's referee ruling, named in the history). Raises
    :class:`HandConflict` when dispute ``dispute_id`` is not open on this hand any more
    (ruled on or dismissed on another phone): then nothing of the ruling is saved.
    A correction that changes nothing still closes them (the hand stands as it is)."""
    if dispute_id is not None:
        named = db.session.get(Dispute, dispute_id, populate_existing=True) if 0 < dispute_id < 2**31 else None
        if named is None or named.evening_id != evening.id or named.hand_id != hand.id:
            raise DisputeRefused(Text("There is no such dispute at this table."))
        if named.resolved_at is not None:
            raise HandConflict(CLOSED, hand.number)
    claimed = {(c.kind, c.accused) for c in facts.claims}
    for dispute in _open(evening):
        claims_it = dispute.kind in ACCUSING and (dispute.kind, dispute.accused) in claimed
        if dispute.hand_id == hand.id and (dispute.id == dispute_id or claims_it):
            _close(evening, dispute, "ruled", device, referee)


@write_locked
def confirm_hand(evening: Evening, number: int | None, *, hand_id: int | None, device: str = "",
                 device_id: int | None = None) -> Hand:
    """Accept hand ``number`` from a phone other than the one that entered it
    (confirmation). Accepting twice changes nothing. Raises :class:`DisputeRefused`
    when the table does not ask for confirmation, this phone entered the hand, or it is
    not a phone first seen before the hand was entered (``device_id`` ``None``: a fresh
    cookie; issue 21 item 16), and
    :class:`HandConflict` when the hand is no longer in play."""
    hand = _hand_in_play(evening, number, hand_id)
    if not evening.confirmation:
        raise DisputeRefused(Text("This table does not ask for hands to be confirmed."))
    if hand.entered_by is not None and hand.entered_by == device_id:
        raise DisputeRefused(Text("This phone entered hand {number}: another phone must confirm it.",
                                  number=hand.number))
    if not _known_before(device_id, hand):
        raise DisputeRefused(Text("Hand {number} must be confirmed by a phone that was at the table before it "
                                  "was entered.", number=hand.number))
    if hand.confirmed_at is None:
        hand.confirmed_at, hand.confirmed_device = utcnow(), (device or "")[:40]
        bump(evening)
        _log(evening, "confirm", hand.number, device, {})
    return hand


def _known_before(device_id: int | None, hand: Hand) -> bool:
    """Whether the phone with row ``device_id`` was first seen before ``hand`` was entered
    (issue 21 item 16): a fresh cookie (no row yet, or one made after the hand) is not
    another phone at the table, or the phone that entered the hand could confirm it
    itself by dropping its cookie."""
    if device_id is None:
        return False
    first_seen = db.session.scalar(sa.select(Phone.created_at).where(Phone.id == device_id))
    return first_seen is not None and _aware(first_seen) < _aware(hand.created_at)


def _aware(moment: datetime) -> datetime:
    """SQLite gives back naive datetimes (stored in UTC)."""
    return moment if moment.tzinfo is not None else moment.replace(tzinfo=UTC)


@write_locked
def set_confirmation(evening: Evening, on: bool, *, device: str = "") -> bool:
    """Turn confirmation on or off for the table (a scorer's setting); whether it changed.
    Hands entered before it was turned on count as confirmed."""
    if evening.confirmation == on:
        return False
    evening.confirmation = on
    if on:
        now = utcnow()
        for hand in evening.hands:
            if hand.confirmed_at is None:
                hand.confirmed_at = now
    bump(evening)
    _log(evening, "confirmation", 0, device, {"on": on})
    return True


@handles(RaiseDispute)
def _raise(command: RaiseDispute, evening: Evening, device: Device) -> Saved:
    dispute = raise_dispute.on_locked(evening, command.number, hand_id=command.hand_id, kind=command.kind,
                                      accused=command.accused, raised_by=command.raised_by, trick=command.trick,
                                      note=command.note, device=device.name, device_id=device.id)
    return Saved(evening.key, dispute.hand_id, _number_of(dispute), detail=dispute.id)


@handles(DismissDispute)
def _dismiss(command: DismissDispute, evening: Evening, device: Device) -> Saved:
    dispute = settle_dispute.on_locked(evening, command.dispute_id, "dismissed", device=device.name)
    return Saved(evening.key, dispute.hand_id, _number_of(dispute), detail=dispute.id)


@handles(ConfirmHand)
def _confirm(command: ConfirmHand, evening: Evening, device: Device) -> Saved:
    hand = confirm_hand.on_locked(evening, command.number, hand_id=command.hand_id, device=device.name,
                                  device_id=device.id)
    return Saved(evening.key, hand.id, hand.number)


@handles(SetConfirmation)
def _confirmation(command: SetConfirmation, evening: Evening, device: Device) -> Saved:
    if evening.finished_at is not None:  # as every other setting: the table is closed until reopened
        raise EveningFinished(Text("This evening is finished: reopen it to change its settings."))
    changed = set_confirmation.on_locked(evening, command.on, device=device.name)
    return Saved(evening.key, changed=changed)


def _open(evening: Evening) -> list[Dispute]:
    """The evening's open disputes, oldest first."""
    return list(db.session.scalars(sa.select(Dispute).where(Dispute.evening_id == evening.id,
                                                            Dispute.resolved_at.is_(None)).order_by(Dispute.id)))


def of_hand(evening_id: int, hand_id: int) -> list[Dispute]:
    """Every dispute of the hand row ``hand_id`` of the evening ``evening_id``, resolved ones
    too, oldest first."""
    return list(db.session.scalars(sa.select(Dispute).where(Dispute.evening_id == evening_id,
                                                            Dispute.hand_id == hand_id).order_by(Dispute.id)))


def open_disputes(evening: Evening) -> dict[int, list[Dispute]]:
    """The open disputes of the hands in play, by hand number (oldest first)."""
    numbers = {hand.id: hand.number for hand in evening.hands}
    found: dict[int, list[Dispute]] = defaultdict(list)
    for dispute in _open(evening):
        if dispute.hand_id in numbers:
            found[numbers[dispute.hand_id]].append(dispute)
    return dict(found)


def marks(evening_id: int, hand_ids: Sequence[int], confirmation: bool | None = None,
          known: HandMarks | None = None) -> tuple[set[int], set[int]]:
    """The numbers of the hands with an open dispute and of those still waiting for another
    phone (confirmation on, not accepted and never disputed), for the evening with row id
    ``evening_id`` whose hands in play are ``hand_ids`` (hand 1 first), without loading
    the hands: the scoresheet's marks. ``known``: the marks read with the hands' ids at
    the same revision (:attr:`scorer.storage.kept_ledgers.Settled.marks`), and then no query; else
    one small query, one more when the table asks for confirmation, one more still when
    ``confirmation`` (the evening's setting) is not given."""
    if known is None:
        known = _read_marks(evening_id, confirmation)
    numbers = {hand_id: number for number, hand_id in enumerate(hand_ids, 1)}
    disputed = {numbers[i] for i in known.open if i in numbers}
    waiting = {numbers[i] for i in waiting_ids(known) if i in numbers}
    return disputed, waiting


def waiting_ids(known: HandMarks) -> frozenset[int]:
    """The hand row ids of ``known`` that wait for another phone: confirmation on and not
    accepted (``known.unconfirmed``, filled only when the table asks for confirmation)
    and never disputed (a disputed hand waits for its ruling, not for a confirmation).
    The one place of that rule: the scoresheet's marks (:func:`marks`) and the hand page
    (:func:`hand_marks`) both ask it."""
    return known.unconfirmed - known.disputed


def hand_marks(confirmation: bool, hand: Hand, its_disputes: Sequence[Dispute]) -> HandMarks:
    """The marks of one hand row ``hand`` from its disputes, resolved ones too
    (:func:`of_hand`), and the evening's confirmation setting: the same shape
    :func:`marks` reads for the scoresheet, without a query."""
    return _marks_of(its_disputes, frozenset([hand.id]) if confirmation and hand.confirmed_at is None else frozenset())


def _marks_of(found: Sequence[Dispute] | Sequence[sa.Row[tuple[int, datetime | None]]],
              unconfirmed: frozenset[int]) -> HandMarks:
    """The marks from disputes (rows or ``(hand_id, resolved_at)`` rows) and the unconfirmed
    hands: open ones, ever disputed ones."""
    return HandMarks(frozenset(d.hand_id for d in found if d.resolved_at is None),
                     frozenset(d.hand_id for d in found), unconfirmed)


def _read_marks(evening_id: int, confirmation: bool | None) -> HandMarks:
    disputes = db.session.execute(sa.select(Dispute.hand_id, Dispute.resolved_at)
                                  .where(Dispute.evening_id == evening_id)).all()
    if confirmation is None:
        confirmation = db.session.scalar(sa.select(Evening.confirmation).where(Evening.id == evening_id))
    unconfirmed = frozenset(db.session.scalars(
        sa.select(Hand.id).where(Hand.evening_id == evening_id, Hand.number > 0, Hand.confirmed_at.is_(None)))
    ) if confirmation else frozenset()
    return _marks_of(disputes, unconfirmed)

