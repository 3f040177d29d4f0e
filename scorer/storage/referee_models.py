"""The referee of a club night (issue 22 item 5), as rows: the referees an event names,
the phones that hold each referee's role, the calls tables make and the wrong referee
PINs. Kept apart from :mod:`scorer.storage.models` (loaded with
:mod:`scorer.storage.referees`, which every app loads through its commands and views) so
the event's own models and these grow without touching each other.

A referee is a person the event's owner names ("Mary"): the row carries that referee's
own link key and PIN, which make a phone that referee (:class:`RefereePhone`); revoking
the referee (``revoked_at``) takes the role from every phone that holds it and voids the
link and the PIN. A referee is not a player: naming one seats nobody.

A call (:class:`RefereeCall`) is made by any phone at a table of the event ("Table 3:
dispute on hand 7"); it is open until a referee takes it (``taken_by``), and closed by a
referee (``closed_by``) with an ``outcome``: "ruled" (the referee ruled on the table's
dispute ``dispute_id``), "dismissed" (the dispute was dismissed) or "settled" (nothing
to rule: settled at the table). Calls are never deleted: the event's history keeps them.
"""

from __future__ import annotations

from datetime import datetime

from sqlalchemy import DateTime, ForeignKey, String, UniqueConstraint
from sqlalchemy import Index as sa_Index
from sqlalchemy.orm import Mapped, mapped_column, relationship

from .db import db
from .models import Device, new_key, new_pin, utcnow

#: How a call can be closed (:attr:`RefereeCall.outcome`).
OUTCOMES = ("ruled", "dismissed", "settled")


class Referee(db.Model):  # type: ignore[name-defined,misc]
    """A referee the event's owner named: ``name`` (as the rulings name them), this
    referee's own ``link_key`` (``/ev/<event>/referee/<link_key>``) and six-digit ``pin``
    (unique among the event's referees not revoked). ``revoked_at``: the owner took the
    role away; the link and the PIN then make nobody a referee."""

    __tablename__ = "event_referee"
    __table_args__ = (sa_Index("uq_event_referee_link_key", "link_key", unique=True),)

    id: Mapped[int] = mapped_column(primary_key=True)
    event_id: Mapped[int] = mapped_column(ForeignKey("event.id"), index=True)
    name: Mapped[str] = mapped_column(String(40))
    link_key: Mapped[str] = mapped_column(String(32), default=new_key)
    pin: Mapped[str] = mapped_column(String(8), default=lambda: new_pin())
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=utcnow)
    revoked_at: Mapped[datetime | None] = mapped_column(DateTime(timezone=True), default=None)

    phones: Mapped[list[RefereePhone]] = relationship(order_by="RefereePhone.id", viewonly=True)


class RefereePhone(db.Model):  # type: ignore[name-defined,misc]
    """A phone that holds referee ``referee_id``'s role (``via`` "link" or "pin"), while the
    referee is not revoked."""

    __tablename__ = "referee_phone"
    __table_args__ = (UniqueConstraint("referee_id", "device_id"),)

    id: Mapped[int] = mapped_column(primary_key=True)
    referee_id: Mapped[int] = mapped_column(ForeignKey("event_referee.id"), index=True)
    device_id: Mapped[int] = mapped_column(ForeignKey("device.id"), index=True)
    via: Mapped[str] = mapped_column(String(10), default="link")
    granted_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=utcnow)

    device: Mapped[Device] = relationship()


class RefereeCall(db.Model):  # type: ignore[name-defined,misc]
    """A table calling the referee: the table (``evening_id``, its ``table_number`` in round
    ``round_number``), the hand if the caller named one (``hand_number``, its row
    ``hand_id``), the caller's ``note``, the phone (``device``, ``device_id``). Taken by a
    referee (``taken_by``, ``taken_at``), closed by one (``closed_by``, ``closed_at``) with
    an ``outcome`` (:data:`OUTCOMES`) and the dispute it ruled on or dismissed."""

    __tablename__ = "referee_call"
    __table_args__ = (sa_Index("ix_referee_call_event_closed", "event_id", "closed_at"),)

    id: Mapped[int] = mapped_column(primary_key=True)
    event_id: Mapped[int] = mapped_column(ForeignKey("event.id"))
    evening_id: Mapped[int] = mapped_column(ForeignKey("evening.id"), index=True)
    table_number: Mapped[int]
    round_number: Mapped[int]
    hand_number: Mapped[int | None] = mapped_column(default=None)
    hand_id: Mapped[int | None] = mapped_column(default=None)
    note: Mapped[str] = mapped_column(String(200), default="", server_default="")
    device: Mapped[str] = mapped_column(String(40), default="", server_default="")
    device_id: Mapped[int | None] = mapped_column(default=None)
    raised_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=utcnow)
    taken_by: Mapped[int | None] = mapped_column(ForeignKey("event_referee.id"), default=None)
    taken_at: Mapped[datetime | None] = mapped_column(DateTime(timezone=True), default=None)
    closed_by: Mapped[int | None] = mapped_column(ForeignKey("event_referee.id"), default=None)
    closed_at: Mapped[datetime | None] = mapped_column(DateTime(timezone=True), default=None)
    outcome: Mapped[str] = mapped_column(String(12), default="", server_default="")
    dispute_id: Mapped[int | None] = mapped_column(ForeignKey("dispute.id"), default=None)

    taker: Mapped[Referee | None] = relationship(foreign_keys=[taken_by], viewonly=True)
    closer: Mapped[Referee | None] = relationship(foreign_keys=[closed_by], viewonly=True)

    @property
    def state(self) -> str:
        """"open", "taken" or "closed"."""
        return "closed" if self.closed_at is not None else "taken" if self.taken_by is not None else "open"


class RefereePinMiss(db.Model):  # type: ignore[name-defined,misc]
    """A wrong referee PIN typed at an event: by which phone, from which network, when
    (the budget of :mod:`scorer.storage.referees`, as a table's PIN is bounded)."""

    __tablename__ = "referee_pin_miss"
    __table_args__ = (sa_Index("ix_referee_pin_miss_event_at", "event_id", "at"),)

    id: Mapped[int] = mapped_column(primary_key=True)
    event_id: Mapped[int] = mapped_column(ForeignKey("event.id"))
    device_id: Mapped[int | None] = mapped_column(ForeignKey("device.id"), default=None)
    network: Mapped[str] = mapped_column(String(64), default="")
    at: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=utcnow)
