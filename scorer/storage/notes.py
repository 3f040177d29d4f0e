"""The table's notes and the rematch (issue 25 items 7 and 8), as commands
(:mod:`scorer.storage.commands`).

- :class:`~scorer.storage.commands.SetHandNote` (its handler in
  :mod:`scorer.storage.hand_writes`, with the other hand changes): a line of free text
  on a hand ("replayed after a spilled drink"): a fact of the hand, so writing it is a
  new version of the hand (nothing lost; the ruling never depends on it).
- :class:`SetEveningNote`: a line of free text on the evening; allowed on a finished
  evening too (it changes no total).
- :class:`StartRematch`: a new evening from a closed one (finished, or at the agreed
  end): the same players seated at the end, clockwise, the same rule set, options,
  stake, group and time zone; the next dealer in turn deals first. One rematch per
  evening: a second tap finds the one made (:attr:`~scorer.storage.models.Evening.rematch_of`
  is unique). The closed evening's revision is bumped, so every phone on it hears
  "Rematch started" through the live update.

A note is cleaned as every text the app keeps (:func:`~scorer.rules.clean_text`: no
control characters, one line) and is at most :data:`~scorer.evening.limits.NOTE_LIMIT`
(280) characters; longer is refused, never cut.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

import sqlalchemy as sa

from ..evening.limits import NOTE_LIMIT
from ..rules import Text, clean_text
from .commands import Command, Device, Saved, handles
from .errors import TABLE_CHANGED, HandConflict, ScorerError
from .evening_writes import start_evening
from .evenings import is_closed, ledger_of, log
from .models import Change, Evening, TableAccess, db, utcnow
from .roles import holds_role
from .units import bump

#: A name the app gave the evening itself ("Nap 2026-12-06"): a rematch gets its own date.
_DEFAULT_NAME = re.compile(r"Nap \d{4}-\d{2}-\d{2}")


def clean_note(text: str) -> str:
    """``text`` as a note: cleaned (:func:`~scorer.rules.clean_text`: NFKC, no control or
    invisible characters, runs of spaces and line breaks made one space). Raises
    :class:`~scorer.storage.errors.ScorerError` when it is longer than :data:`NOTE_LIMIT`."""
    cleaned = clean_text(text)
    if len(cleaned) > NOTE_LIMIT:
        raise ScorerError(Text("A note is at most {limit} characters; this one has {count}.", limit=NOTE_LIMIT,
                               count=len(cleaned)))
    return cleaned


@dataclass(frozen=True)
class SetEveningNote(Command):
    """Write ``note`` on the evening ("" removes it); ``revision`` the table the phone
    saw (``None`` does not check). Allowed on a finished evening."""

    key: str
    note: str
    revision: int | None = None


@dataclass(frozen=True)
class StartRematch(Command):
    """Start the rematch of the closed evening ``key`` (see the module). The outcome's
    ``detail`` is the new evening's key; ``changed`` ``False`` when it was made before."""

    key: str


@handles(SetEveningNote)
def _evening_note(command: SetEveningNote, evening: Evening, device: Device) -> Saved:
    if command.revision is not None and evening.revision != command.revision:
        raise HandConflict(TABLE_CHANGED, 0)
    note = clean_note(command.note)
    if note == evening.note:
        return Saved(evening.key, changed=False)
    db.session.add(Change(evening_id=evening.id, kind="evening-note", device=(device.name or "")[:40],
                          before={"note": evening.note}, after={"note": note}))
    evening.note = note
    bump(evening)
    return Saved(evening.key)


def rematch_of(evening_id: int) -> str | None:
    """The key of the rematch started from evening ``evening_id``, if there is one."""
    return db.session.scalar(sa.select(Evening.key).where(Evening.rematch_of == evening_id))


def in_event(evening_id: int) -> bool:
    """Whether evening ``evening_id`` is a table of a club night (an event)."""
    from .event_models import EventTable

    return db.session.scalar(sa.select(EventTable.id).where(EventTable.evening_id == evening_id).limit(1)) is not None


@handles(StartRematch)
def _rematch(command: StartRematch, evening: Evening, device: Device) -> Saved:
    made = rematch_of(evening.id)
    if made is not None:  # a second tap, or another phone first: the one made
        return Saved(evening.key, changed=False, detail=made)
    if in_event(evening.id):  # a new evening outside the night's rotation: the next round seats them
        raise ScorerError(Text("A table of a club night has no rematch: the club night seats the next round."))
    ledger = ledger_of(evening)
    if not is_closed(evening, ledger) or not ledger.rows:
        raise ScorerError(Text("A rematch starts from a finished evening: finish this one first."))
    seated = list(ledger.seated or range(ledger.setup.n))
    first = seated.index(ledger.next_dealer) if ledger.next_dealer in seated else 0
    new = start_evening(
        variant=evening.variant, players=[ledger.setup.players[s] for s in seated], first_dealer=first,
        options=dict(evening.options or {}), stake=ledger.setup.stake,
        name="" if _DEFAULT_NAME.fullmatch(evening.name) else evening.name, device=device.name,
        group_id=evening.group_id, time_zone=evening.time_zone)
    new.rematch_of = evening.id
    _carry_scorers(evening, new, device)
    bump(evening)  # every phone on the closed evening hears of the rematch
    log(evening, "rematch", None, None, None, device.name)
    db.session.flush()  # two at once: the second one collides on the unique rematch_of
    return Saved(evening.key, detail=new.key)


def _carry_scorers(old: Evening, new: Evening, device: Device) -> None:
    """The phone that started the rematch owns it ("start"); every other phone that is a
    scorer at ``old`` is a scorer at ``new`` (a "link" grant of its first credentials)."""
    now = utcnow()
    for row in db.session.scalars(sa.select(TableAccess).where(TableAccess.evening_id == old.id)):
        if row.device_id == device.id or not holds_role(row, old.access_generation):
            continue
        db.session.add(TableAccess(device_id=row.device_id, evening_id=new.id, via="link", generation=0,
                                   granted_at=now, seen_at=now, pin_failures=0))
    if device.id is not None:
        db.session.add(TableAccess(device_id=device.id, evening_id=new.id, via="start", generation=0,
                                   granted_at=now, seen_at=now, pin_failures=0))
