"""The table's access as commands (:mod:`scorer.storage.commands`): a manager revokes a
scorer or renews the table's PIN and scorers' link; any phone names itself. Who this
phone is (its cookie, its row) is the web's (:mod:`scorer.web.access`); what is written
is here, in the command's one unit of work.

Joining with the PIN is not a command: it counts wrong PINs even when it refuses, so
it is several short units of work by design (:func:`scorer.web.access.try_pin`)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

import sqlalchemy as sa

from ..rules import Text
from .commands import Command, Device, Saved, handles
from .errors import ScorerError
from .models import Change, Evening, TableAccess, db, new_key, new_pin, utcnow
from .models import Device as Phone


@dataclass(frozen=True)
class RevokeScorer(Command):
    """Take the scorer's role from the phone of row ``access_id`` (not from the sender)."""

    key: str
    access_id: int
    token: str | None = None
    token_kind: ClassVar[str] = "revoke"


@dataclass(frozen=True)
class RenewCredentials(Command):
    """A new PIN and scorers' link: phones that scored with the old ones can only watch;
    the sender and the table's creator stay scorers."""

    key: str
    token: str | None = None
    token_kind: ClassVar[str] = "credentials"


@dataclass(frozen=True)
class NameDevice(Command):
    """Name the sending phone (``name`` blank: the name guessed from its browser). Naming
    is the same however often it is sent: no token is kept. ``key`` is unused ("")."""

    name: str
    key: str = ""
    scope: ClassVar[str] = ""


NOT_A_SCORER = Text("Nothing was changed: that phone is not a scorer here (or it is this phone).")


def phone_label(phone: Phone | None) -> str:
    """A phone as the history names it when another phone acts on it: the name it chose,
    else the make it was first seen as and its tag."""
    if phone is None:
        return ""
    return phone.name or " ".join(part for part in (phone.model, phone.tag) if part)


def access_row(evening: Evening, device_id: int) -> TableAccess:
    """Phone ``device_id``'s row at ``evening`` in the pending unit of work, made if missing."""
    row = db.session.scalar(sa.select(TableAccess).where(TableAccess.device_id == device_id,
                                                         TableAccess.evening_id == evening.id))
    if row is None:
        row = TableAccess(device_id=device_id, evening_id=evening.id, seen_at=utcnow(), via="", generation=0,
                          pin_failures=0)
        db.session.add(row)
    return row


@handles(RevokeScorer)
def _revoke(command: RevokeScorer, evening: Evening, device: Device) -> Saved:
    row = db.session.scalar(sa.select(TableAccess).where(TableAccess.id == command.access_id,
                                                         TableAccess.evening_id == evening.id))
    if row is None or (device.id is not None and row.device_id == device.id):
        raise ScorerError(NOT_A_SCORER)
    row.revoked_at = utcnow()
    db.session.add(Change(evening_id=evening.id, kind="revoke", device=device.name[:40],
                          after={"phone": phone_label(row.device)}))
    return Saved(evening.key, detail=row.id)


@handles(RenewCredentials)
def _renew(command: RenewCredentials, evening: Evening, device: Device) -> Saved:
    evening.pin, evening.edit_key = new_pin(), new_key()
    evening.access_generation += 1
    evening.pin_failures, evening.pin_window_start = 0, None
    if device.id is not None:  # the sender stays a scorer
        access_row(evening, device.id).generation = evening.access_generation
    db.session.add(Change(evening_id=evening.id, kind="credentials", device=device.name[:40]))
    return Saved(evening.key)


@handles(NameDevice)
def _name(command: NameDevice, evening: None, device: Device) -> Saved:
    phone = db.session.get(Phone, device.id) if device.id is not None else None
    if phone is None:
        raise ScorerError(Text("This phone is not known yet: open any page first, then name it."))
    clean = " ".join(str(command.name).split())[:40]
    changed = phone.name != clean
    phone.name = clean
    return Saved("", changed=changed)
