"""The table's access as commands (:mod:`scorer.storage.commands`): a scorer revokes
another (never the table's owner); the owner alone renews the table's PIN and scorers'
link or hands the table over to another scorer; any phone names itself. Who this
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
from .errors import OwnerOnly, ScorerError
from .models import Change, Evening, TableAccess, db, new_key, new_pin, utcnow
from .models import Device as Phone
from .pin_budget import forget_attempts
from .roles import holds_role, is_owner_row


@dataclass(frozen=True)
class RevokeScorer(Command):
    """Take the scorer's role from the phone of row ``access_id`` (not from the sender,
    nor from the table's owner). The phone cannot come back by the PIN or the scorers'
    link it knows until they are renewed; with ``renew`` (the owner only), they are
    renewed at once, in the same unit of work (:class:`RenewCredentials`): "Remove and
    change the PIN" on the Share page."""

    key: str
    access_id: int
    token: str | None = None
    renew: bool = False
    token_kind: ClassVar[str] = "revoke"


@dataclass(frozen=True)
class RenewCredentials(Command):
    """A new PIN and scorers' link, sent by the table's owner only: phones that scored
    with the old ones can only watch; the owner stays a scorer."""

    key: str
    token: str | None = None
    token_kind: ClassVar[str] = "credentials"


@dataclass(frozen=True)
class HandOverOwnership(Command):
    """The owner makes the phone of row ``access_id`` (a scorer now, not the sender) the
    table's owner; the old owner stays a scorer as if it had the scorers' link now (a
    later renewal of the credentials makes it a viewer unless it has the new ones)."""

    key: str
    access_id: int
    token: str | None = None
    token_kind: ClassVar[str] = "owner"


@dataclass(frozen=True)
class NameDevice(Command):
    """Name the sending phone (``name`` blank: the name guessed from its browser). Naming
    is the same however often it is sent: no token is kept. ``key`` is unused ("")."""

    name: str
    key: str = ""
    scope: ClassVar[str] = ""


NOT_A_SCORER = Text("Nothing was changed: that phone is not a scorer here (or it is this phone).")
OWNER_STAYS = Text("Nothing was changed: the table's owner cannot be revoked.")
ONLY_THE_OWNER_RENEWS = Text("Only the table's owner can change the PIN and the scorers' link.")
ONLY_THE_OWNER_HANDS_OVER = Text("Only the table's owner can hand the table over.")


def phone_label(phone: Phone | None) -> str:
    """A phone as the history names it when another phone acts on it: the name it chose,
    else the make it was first seen as and its tag."""
    if phone is None:
        return ""
    if phone.name:
        return phone.name
    return f"{phone.model} ({phone.tag})" if phone.model and phone.tag else phone.model or phone.tag


@handles(RevokeScorer)
def _revoke(command: RevokeScorer, evening: Evening, device: Device) -> Saved:
    row = db.session.scalar(sa.select(TableAccess).where(TableAccess.id == command.access_id,
                                                         TableAccess.evening_id == evening.id))
    if row is None or (device.id is not None and row.device_id == device.id):
        raise ScorerError(NOT_A_SCORER)
    if is_owner_row(row):
        raise OwnerOnly(OWNER_STAYS)
    mine = owners_row(evening, device, ONLY_THE_OWNER_RENEWS) if command.renew else None
    # the generation it was removed at: it may not come back by the PIN or link of this one
    row.revoked_at, row.generation = utcnow(), evening.access_generation
    db.session.add(Change(evening_id=evening.id, kind="revoke", device=device.name[:40],
                          after={"phone": phone_label(row.device)}))
    if mine is not None:
        _new_credentials(evening, device, mine)
    return Saved(evening.key, detail=row.id)


def owners_row(evening: Evening, device: Device, refusal: Text) -> TableAccess:
    """The sender's row at ``evening`` if it is the table's owner; else :class:`OwnerOnly`
    (forbidden) with ``refusal``. Read in the command's unit, under the evening's lock."""
    row = None if device.id is None else db.session.scalar(
        sa.select(TableAccess).where(TableAccess.device_id == device.id, TableAccess.evening_id == evening.id))
    if not is_owner_row(row):
        raise OwnerOnly(refusal, forbidden=True)
    assert row is not None
    return row


@handles(RenewCredentials)
def _renew(command: RenewCredentials, evening: Evening, device: Device) -> Saved:
    _new_credentials(evening, device, owners_row(evening, device, ONLY_THE_OWNER_RENEWS))
    return Saved(evening.key)


def _new_credentials(evening: Evening, device: Device, mine: TableAccess) -> None:
    """A new PIN and scorers' link for ``evening``, in the pending unit (``mine``: the owner's row)."""
    evening.pin, evening.edit_key = new_pin(), new_key()
    evening.access_generation += 1
    forget_attempts(evening)  # a new PIN: its wrong guesses start from none
    mine.generation = evening.access_generation  # the owner's grant outlives it anyway
    db.session.add(Change(evening_id=evening.id, kind="credentials", device=device.name[:40]))


@handles(HandOverOwnership)
def _hand_over(command: HandOverOwnership, evening: Evening, device: Device) -> Saved:
    mine = owners_row(evening, device, ONLY_THE_OWNER_HANDS_OVER)
    theirs = db.session.scalar(sa.select(TableAccess).where(TableAccess.id == command.access_id,
                                                            TableAccess.evening_id == evening.id))
    if theirs is None or theirs.id == mine.id or not holds_role(theirs, evening.access_generation):
        raise ScorerError(NOT_A_SCORER)
    now = utcnow()
    theirs.via, theirs.generation, theirs.granted_at = "owner", evening.access_generation, now
    # the old owner scores on as if it had the scorers' link now; another scorer may revoke it
    mine.via, mine.generation = "link", evening.access_generation
    db.session.add(Change(evening_id=evening.id, kind="owner", device=device.name[:40],
                          after={"phone": phone_label(theirs.device)}))
    return Saved(evening.key, detail=theirs.id)


@handles(NameDevice)
def _name(command: NameDevice, evening: None, device: Device) -> Saved:
    phone = db.session.get(Phone, device.id) if device.id is not None else None
    if phone is None:
        raise ScorerError(Text("This phone is not known yet: open any page first, then name it."))
    clean = " ".join(str(command.name).split())[:40]
    changed = phone.name != clean
    phone.name = clean
    return Saved("", changed=changed)
