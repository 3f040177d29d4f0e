"""The club nights' models (issue 22): an :class:`Event` in a group, its players, rounds,
tables (each an ordinary :class:`~scorer.storage.models.Evening`), history and the phones'
roles there. Also named in :mod:`scorer.storage.models`, with the other models."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from sqlalchemy import JSON, DateTime, ForeignKey, String, UniqueConstraint
from sqlalchemy import Index as sa_Index
from sqlalchemy.orm import Mapped, mapped_column, relationship

from .db import db, new_key, new_pin, utcnow


class Event(db.Model):  # type: ignore[name-defined,misc]
    """A club night in a :class:`Group`: one rule set (``variant``), ``options`` and stake
    (``stake_minor``/``currency``, ``None`` for points) for all its tables, which a table may
    not change; ``rounds`` rounds, each lasting ``length`` ("hands", "end_point" or
    "minutes", :data:`scorer.evening.event.LENGTHS`) with its ``amount`` (``None`` for the
    end point); later rounds seated from the standings ``style`` ("together" or "spread").

    The event's owner is the phone that created it (:class:`EventAccess`, role "owner");
    ``edit_key`` (the organisers' link) and ``pin`` make another phone an organiser, while
    their ``access_generation`` is the event's. ``revision`` is bumped at every change of
    the event itself (a seating, a player, a round started): the room screen polls it with
    its tables' revisions. Standings are never stored: they are worked out from the tables'
    ledgers (:mod:`scorer.evening.standings`)."""

    __tablename__ = "event"
    __table_args__ = (sa_Index("uq_event_edit_key", "edit_key", unique=True),)

    id: Mapped[int] = mapped_column(primary_key=True)
    key: Mapped[str] = mapped_column(String(32), unique=True, default=new_key)
    group_id: Mapped[int] = mapped_column(ForeignKey("evening_group.id"), index=True)
    name: Mapped[str] = mapped_column(String(80), default="")
    time_zone: Mapped[str] = mapped_column(String(64), default="", server_default="")
    variant: Mapped[str] = mapped_column(String(20))
    options: Mapped[dict[str, Any]] = mapped_column(JSON, default=dict)
    stake_minor: Mapped[int | None] = mapped_column(default=None)
    currency: Mapped[str] = mapped_column(String(8), default="")
    rounds: Mapped[int] = mapped_column(default=1)
    length: Mapped[str] = mapped_column(String(10), default="hands")
    amount: Mapped[int | None] = mapped_column(default=None)
    style: Mapped[str] = mapped_column(String(10), default="together", server_default="together")
    edit_key: Mapped[str] = mapped_column(String(32), default=new_key)
    pin: Mapped[str] = mapped_column(String(8), default=lambda: new_pin())
    access_generation: Mapped[int] = mapped_column(default=0, server_default="0")
    revision: Mapped[int] = mapped_column(default=0, server_default="0")
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=utcnow)
    finished_at: Mapped[datetime | None] = mapped_column(DateTime(timezone=True), default=None)

    # Group, Evening and Device are the models' own (SQLAlchemy finds them by name; importing
    # scorer.storage.models here would make a cycle: it names these classes too)
    group: Mapped[Group] = relationship()  # noqa: F821
    players: Mapped[list[EventPlayer]] = relationship(order_by="EventPlayer.id", cascade="all, delete-orphan")
    round_rows: Mapped[list[EventRound]] = relationship(order_by="EventRound.number", cascade="all, delete-orphan")


class EventPlayer(db.Model):  # type: ignore[name-defined,misc]
    """A player of an event, by name (unique in the event, ignoring case, checked by the
    engine). ``arrived`` is the round they joined in (0: before the first round was seated;
    a late arrival's round otherwise), ``left`` the round they left in (``None``: still
    playing)."""

    __tablename__ = "event_player"

    id: Mapped[int] = mapped_column(primary_key=True)
    event_id: Mapped[int] = mapped_column(ForeignKey("event.id"), index=True)
    name: Mapped[str] = mapped_column(String(40))
    arrived: Mapped[int] = mapped_column(default=0, server_default="0")
    left: Mapped[int | None] = mapped_column(default=None)


class EventRound(db.Model):  # type: ignore[name-defined,misc]
    """Round ``number`` (from 1) of an event: its ``seating`` as made (tables of names in
    seat order), ``how`` it was made ("draw" with its ``seed``, "typed", "together",
    "spread"); ``started_at`` when its evenings were made (``None``: the seating is shown,
    play has not begun), ``finished_at`` when its last table finished."""

    __tablename__ = "event_round"
    __table_args__ = (UniqueConstraint("event_id", "number"),)

    id: Mapped[int] = mapped_column(primary_key=True)
    event_id: Mapped[int] = mapped_column(ForeignKey("event.id"), index=True)
    number: Mapped[int]
    how: Mapped[str] = mapped_column(String(10))
    seed: Mapped[str | None] = mapped_column(String(40), default=None)
    seating: Mapped[list[list[str]]] = mapped_column(JSON, default=list)
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=utcnow)
    started_at: Mapped[datetime | None] = mapped_column(DateTime(timezone=True), default=None)
    finished_at: Mapped[datetime | None] = mapped_column(DateTime(timezone=True), default=None)

    tables: Mapped[list[EventTable]] = relationship(order_by="EventTable.number", cascade="all, delete-orphan")


class EventTable(db.Model):  # type: ignore[name-defined,misc]
    """Table ``number`` (from 1) of a round: an ordinary :class:`Evening`, made with the
    event's rule set, options and stake. ``evening_id`` is unique: an evening belongs to at
    most one event."""

    __tablename__ = "event_table"
    __table_args__ = (UniqueConstraint("round_id", "number"),)

    id: Mapped[int] = mapped_column(primary_key=True)
    event_id: Mapped[int] = mapped_column(ForeignKey("event.id"), index=True)
    round_id: Mapped[int] = mapped_column(ForeignKey("event_round.id"), index=True)
    number: Mapped[int]
    evening_id: Mapped[int] = mapped_column(ForeignKey("evening.id"), unique=True)

    evening: Mapped[Evening] = relationship()  # noqa: F821


class EventChange(db.Model):  # type: ignore[name-defined,misc]
    """One entry of an event's history, in order: "setup", "seating" (a round seated),
    "start" (a round's evenings made), "moves" (a late arrival or an early leaver placed),
    "finished"; ``data`` what happened (JSON), ``round`` the round, ``device`` the phone's
    name. The event's chained record (:mod:`scorer.evening.event`) is worked out from the
    "seating" and "moves" entries and the tables' evenings."""

    __tablename__ = "event_change"

    id: Mapped[int] = mapped_column(primary_key=True)
    event_id: Mapped[int] = mapped_column(ForeignKey("event.id"), index=True)
    at: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=utcnow)
    kind: Mapped[str] = mapped_column(String(20))
    round: Mapped[int | None] = mapped_column(default=None)
    data: Mapped[dict[str, Any]] = mapped_column(JSON, default=dict)
    device: Mapped[str] = mapped_column(String(40), default="", server_default="")


class EventAccess(db.Model):  # type: ignore[name-defined,misc]
    """A phone's role at an event: ``role`` "owner" (the phone that created it) or
    "organiser" (by the event's link or PIN, while ``generation`` is the event's
    :attr:`Event.access_generation`); other roles (a referee) may be added. ``revoked_at``:
    the owner took the role away."""

    __tablename__ = "event_access"
    __table_args__ = (UniqueConstraint("event_id", "device_id", "role"),)

    id: Mapped[int] = mapped_column(primary_key=True)
    event_id: Mapped[int] = mapped_column(ForeignKey("event.id"), index=True)
    device_id: Mapped[int] = mapped_column(ForeignKey("device.id"), index=True)
    role: Mapped[str] = mapped_column(String(10))
    via: Mapped[str] = mapped_column(String(10), default="", server_default="")
    generation: Mapped[int] = mapped_column(default=0, server_default="0")
    granted_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=utcnow)
    revoked_at: Mapped[datetime | None] = mapped_column(DateTime(timezone=True), default=None)

    device: Mapped[Device] = relationship()  # noqa: F821
