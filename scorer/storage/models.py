"""SQLAlchemy 2.x typed models: facts only, never a score.

An :class:`Evening` has players in seat order and hands; a :class:`Hand` is a
position in the evening whose facts live in :class:`HandVersion` rows. Correcting a
hand adds a version (the old one is kept); the highest version is the current one.
"""

from __future__ import annotations

import sqlite3
from contextvars import ContextVar
from datetime import UTC, date, datetime
from typing import Any

import sqlalchemy as sa
from sqlalchemy import JSON, DateTime, ForeignKey, String, UniqueConstraint, and_, event
from sqlalchemy import Index as sa_Index
from sqlalchemy import false as sa_false
from sqlalchemy.engine import Engine
from sqlalchemy.orm import Mapped, foreign, mapped_column, relationship

from ..rules.claims import CLAIM_KINDS
from .db import Base as Base  # re-exported: ``from .models import db`` keeps working
from .db import db as db
from .db import new_key as new_key
from .db import new_pin as new_pin
from .db import utcnow as utcnow


@event.listens_for(Engine, "connect")
def _sqlite_connect(dbapi_connection: Any, _record: Any) -> None:
    """SQLite: WAL (readers never block the writer), and let SQLAlchemy's ``begin`` event
    issue BEGIN itself (see :func:`_sqlite_begin`). How long a write waits for another's
    lock is sqlite3's ``timeout`` (its busy timeout: the app's ``SQLITE_BUSY_TIMEOUT``, 10 s
    unless configured, then 503; :mod:`scorer.web.outage`)."""
    if isinstance(dbapi_connection, sqlite3.Connection):
        dbapi_connection.isolation_level = None
        cursor = dbapi_connection.cursor()
        cursor.execute("PRAGMA journal_mode=WAL")
        cursor.execute("PRAGMA foreign_keys=ON")
        cursor.close()


#: Set while a unit of work writes (:func:`scorer.storage.units.writing`): SQLite then takes
#: the write lock as the transaction begins. Never read from the HTTP request.
WRITING: ContextVar[bool] = ContextVar("nap_writing", default=False)


@event.listens_for(Engine, "begin")
def _sqlite_begin(connection: Any) -> None:
    """SQLite: a unit of work that writes takes the write lock when its transaction
    starts (BEGIN IMMEDIATE), so a transaction that reads and then writes never fails
    with "database is locked" when another phone writes at the same moment; it waits
    its turn instead. Anything else reads in a deferred transaction: reading never
    waits for a writer (WAL), and a long read (a PDF) never holds the write lock."""
    if connection.dialect.name == "sqlite":
        connection.exec_driver_sql("BEGIN IMMEDIATE" if WRITING.get() else "BEGIN")




class Evening(db.Model):  # type: ignore[name-defined,misc]
    """One evening ("table"): the variant, options, stake and players agreed before play.

    ``stake_minor`` is the money value of one unit in the currency's smallest unit,
    ``None`` for points only. ``first_dealer`` is a seat index.
    """

    __tablename__ = "evening"
    __table_args__ = (sa_Index("uq_evening_edit_key", "edit_key", unique=True),
                      sa_Index("uq_evening_rematch_of", "rematch_of", unique=True))

    id: Mapped[int] = mapped_column(primary_key=True)
    key: Mapped[str] = mapped_column(String(32), unique=True, default=new_key)
    name: Mapped[str] = mapped_column(String(80), default="")
    #: the date where the table sits (its ``time_zone``), set when the evening starts
    played_on: Mapped[date] = mapped_column(default=lambda: datetime.now(UTC).date())
    #: The table's IANA time zone ("America/Sao_Paulo"), from the browser that started
    #: it; every date and time of the evening is shown in it ("" = UTC, before 0012).
    time_zone: Mapped[str] = mapped_column(String(64), default="", server_default="")
    place: Mapped[str] = mapped_column(String(80), default="")
    variant: Mapped[str] = mapped_column(String(20))
    options: Mapped[dict[str, Any]] = mapped_column(JSON, default=dict)
    stake_minor: Mapped[int | None] = mapped_column(default=None)
    currency: Mapped[str] = mapped_column(String(8), default="")
    first_dealer: Mapped[int] = mapped_column(default=0)
    #: H-3 / B-2: the card each seat drew for the first deal ([] when the table chose)
    draw: Mapped[list[str]] = mapped_column(JSON, default=list, server_default="[]")
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=utcnow)
    finished_at: Mapped[datetime | None] = mapped_column(DateTime(timezone=True), default=None)
    #: Bumped in the same transaction as every change to the evening's facts, so a
    #: page rendered for revision N is still right while the revision is N.
    revision: Mapped[int] = mapped_column(default=0, server_default="0")
    #: The group (season) the evening belongs to, if any (see :class:`Group`).
    group_id: Mapped[int | None] = mapped_column(ForeignKey("evening_group.id"), default=None, index=True)
    #: The scorers' link (``/e/<key>/scorer/<edit_key>``): 128 random bits, like ``key``.
    edit_key: Mapped[str] = mapped_column(String(32), default=new_key)
    #: The table's edit PIN (six digits) a viewer types to become a scorer.
    pin: Mapped[str] = mapped_column(String(8), default=lambda: new_pin())
    #: The table's PIN budget before migration 0016 (unused since: :class:`PinAttempt`).
    pin_failures: Mapped[int] = mapped_column(default=0, server_default="0")
    pin_window_start: Mapped[datetime | None] = mapped_column(DateTime(timezone=True), default=None)
    #: Bumped when a scorer changes the PIN and the scorers' link: every phone that
    #: became a scorer with an older one is a viewer again (see :class:`TableAccess`).
    access_generation: Mapped[int] = mapped_column(default=0, server_default="0")
    #: Confirmation (as bridge clubs' table terminals do): each new hand stays
    #: unconfirmed until a phone other than the one that entered it accepts or disputes it.
    confirmation: Mapped[bool] = mapped_column(default=False, server_default=sa_false())
    #: The table's line of free text about the evening (issue 25 item 7; "" for none),
    #: at most 280 characters, one line; it may be written on a finished evening too.
    note: Mapped[str] = mapped_column(String(280), default="", server_default="")
    #: The finished evening this one is the rematch of (issue 25 item 8): same players,
    #: seats, rules, stake, group and time zone. Unique: one rematch per evening.
    rematch_of: Mapped[int | None] = mapped_column(default=None)

    players: Mapped[list[Player]] = relationship(
        back_populates="evening", order_by="Player.seat", cascade="all, delete-orphan"
    )
    #: Who joined, left or was renamed between hands, in order (undone ones included).
    seat_changes: Mapped[list[SeatChangeRecord]] = relationship(
        order_by="SeatChangeRecord.id", cascade="all, delete-orphan")
    #: The hands in play, in order (an undone hand is kept but is not among them).
    hands: Mapped[list[Hand]] = relationship(
        primaryjoin=lambda: and_(Evening.id == foreign(Hand.evening_id), Hand.number > 0),
        order_by="Hand.number", cascade="all, delete-orphan",
    )


class Player(db.Model):  # type: ignore[name-defined,misc]
    """A player at an evening; ``seat`` 0… clockwise."""

    __tablename__ = "player"
    __table_args__ = (UniqueConstraint("evening_id", "seat"),)

    id: Mapped[int] = mapped_column(primary_key=True)
    evening_id: Mapped[int] = mapped_column(ForeignKey("evening.id"), index=True)
    seat: Mapped[int]
    name: Mapped[str] = mapped_column(String(40))

    evening: Mapped[Evening] = relationship(back_populates="players")


class Hand(db.Model):  # type: ignore[name-defined,misc]
    """A hand's place in the evening (``number`` from 1). Unique per evening, so two
    phones saving "hand 7" at once cannot both succeed.

    Undoing a hand never deletes it: its ``number`` becomes ``-id`` (out of play,
    still unique) and ``undone_number`` keeps the place it had.
    """

    __tablename__ = "hand"
    __table_args__ = (UniqueConstraint("evening_id", "number"),)

    id: Mapped[int] = mapped_column(primary_key=True)
    evening_id: Mapped[int] = mapped_column(ForeignKey("evening.id"), index=True)
    number: Mapped[int]
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=utcnow)
    undone_number: Mapped[int | None] = mapped_column(default=None)
    undone_at: Mapped[datetime | None] = mapped_column(DateTime(timezone=True), default=None)
    #: The phone (:class:`Device` id) that entered the hand, for confirmation.
    entered_by: Mapped[int | None] = mapped_column(default=None)
    #: When another phone accepted the hand (``None``: not confirmed), and its name.
    confirmed_at: Mapped[datetime | None] = mapped_column(DateTime(timezone=True), default=None)
    confirmed_device: Mapped[str] = mapped_column(String(40), default="", server_default="")

    evening: Mapped[Evening] = relationship(viewonly=True)
    versions: Mapped[list[HandVersion]] = relationship(
        back_populates="hand", order_by="HandVersion.version", cascade="all, delete-orphan"
    )

    @property
    def current(self) -> HandVersion:
        return self.versions[-1]


class HandVersion(db.Model):  # type: ignore[name-defined,misc]
    """The facts of a hand as recorded at one time: ``facts`` is the hand in the evening
    file's shape with seats as indices (:func:`scorer.evening.codec.encode_hand` with no names),
    read back with :func:`scorer.evening.codec.decode_hand`. ``version`` starts at 1; (hand,
    version) is unique, which makes a correction from a stale page fail instead of
    overwriting a newer one."""

    __tablename__ = "hand_version"
    __table_args__ = (UniqueConstraint("hand_id", "version"),)

    id: Mapped[int] = mapped_column(primary_key=True)
    hand_id: Mapped[int] = mapped_column(ForeignKey("hand.id"), index=True)
    version: Mapped[int]
    #: the hand's facts (see :mod:`scorer.evening.codec`): dealer, auction, tricks, claims, …
    facts: Mapped[dict[str, Any]] = mapped_column(JSON)
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=utcnow)
    #: when the phone that sent it says the hand was played (its outbox's time; ``None``: not
    #: said, or out of bounds), which is earlier than ``created_at`` when it waited offline
    played_at: Mapped[datetime | None] = mapped_column(DateTime(timezone=True), default=None)

    hand: Mapped[Hand] = relationship(back_populates="versions")


class SeatChangeRecord(db.Model):  # type: ignore[name-defined,misc]
    """A player joined (``kind`` "join": ``seat`` sits on the left of ``left_of``), left
    ("leave") or was renamed ("rename": ``name`` is the name before) between hands,
    before hand ``before_hand`` (see :class:`scorer.rules.SeatChange`). Seats are
    :attr:`Player.seat`. Undoing it sets ``undone_at``; the row is kept."""

    __tablename__ = "seat_change"

    id: Mapped[int] = mapped_column(primary_key=True)
    evening_id: Mapped[int] = mapped_column(ForeignKey("evening.id"), index=True)
    before_hand: Mapped[int]
    kind: Mapped[str] = mapped_column(String(10))
    seat: Mapped[int]
    left_of: Mapped[int | None] = mapped_column(default=None)
    name: Mapped[str] = mapped_column(String(40), default="", server_default="")
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=utcnow)
    undone_at: Mapped[datetime | None] = mapped_column(DateTime(timezone=True), default=None)


class Submission(db.Model):  # type: ignore[name-defined,misc]
    """A form's (or JSON command's) one-time token, stored in the same transaction as
    what it saved: a double tap or a retry of the same command finds its token taken
    (unique) and saves nothing twice. ``command`` is what it did ("record", "correct",
    "override", "restore", "play"; "" for tokens saved before 0010), ``hand_id`` the
    row of the hand it saved or corrected, ``hand_number`` where that hand was then.

    The forms that create ("start" an evening, "import" one, start a "group") keep
    their token too: ``evening_id`` is then the evening made, or ``group_id`` the group
    (``evening_id`` empty), and a second post finds what the first one made.

    ``digest`` is the SHA-256 of the command's content (:func:`scorer.storage.tokens.digest`):
    the same token with other content is not a retry. ``None`` for tokens kept before 0015
    (answered as a retry whatever they carry, as then)."""

    __tablename__ = "submission"

    id: Mapped[int] = mapped_column(primary_key=True)
    token: Mapped[str] = mapped_column(String(64), unique=True)
    evening_id: Mapped[int | None] = mapped_column(ForeignKey("evening.id"), index=True, default=None)
    group_id: Mapped[int | None] = mapped_column(ForeignKey("evening_group.id"), default=None)
    #: the club night a creating JSON command made ("event", migration 0024)
    event_id: Mapped[int | None] = mapped_column(ForeignKey("event.id"), default=None)
    hand_number: Mapped[int | None] = mapped_column(default=None)
    command: Mapped[str] = mapped_column(String(20), default="", server_default="")
    hand_id: Mapped[int | None] = mapped_column(default=None)
    digest: Mapped[str | None] = mapped_column(String(64), default=None)
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=utcnow)


class Change(db.Model):  # type: ignore[name-defined,misc]
    """One entry of an evening's history: every change (new hand, correction, undo,
    restore, override, record of play, finish, reopen) with when, which phone
    (``device``, the name the user set) and the facts before and after (the hand's
    facts as in the evening file, or ``None``)."""

    __tablename__ = "change"

    id: Mapped[int] = mapped_column(primary_key=True)
    evening_id: Mapped[int] = mapped_column(ForeignKey("evening.id"), index=True)
    at: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=utcnow)
    device: Mapped[str] = mapped_column(String(40), default="")
    kind: Mapped[str] = mapped_column(String(20))
    hand_number: Mapped[int | None] = mapped_column(default=None)
    before: Mapped[dict[str, Any] | None] = mapped_column(JSON, default=None)
    after: Mapped[dict[str, Any] | None] = mapped_column(JSON, default=None)


# --- Phones and what each may do at each table ---------------------------------------


class Device(db.Model):  # type: ignore[name-defined,misc]
    """A phone (a browser), known by a random id kept in a cookie for a year
    (:mod:`scorer.web.devices`); only the id's SHA-256 is stored. ``name`` is what the user
    called it ("" until then), ``model`` a guess from its browser, ``tag`` three hex
    digits that tell two phones of one make apart in the history."""

    __tablename__ = "device"

    id: Mapped[int] = mapped_column(primary_key=True)
    token_hash: Mapped[str] = mapped_column(String(64), unique=True)
    name: Mapped[str] = mapped_column(String(40), default="")
    tag: Mapped[str] = mapped_column(String(8), default="")
    #: a guess from the browser when the phone was first seen ("iPhone", "Android phone")
    model: Mapped[str] = mapped_column(String(20), default="", server_default="")
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=utcnow)


class TableAccess(db.Model):  # type: ignore[name-defined,misc]
    """A phone at a table: it has opened it (the home page lists it), and perhaps may
    score there. ``via`` says how it became a scorer ("start", "import", "link", "pin";
    "" for a viewer); a grant by link or PIN holds while its ``generation`` is the
    table's :attr:`Evening.access_generation`. ``revoked_at``: a scorer took the role
    away. ``pin_failures`` and ``pin_window_start``: this phone's wrong PINs before
    migration 0016 (unused since: :class:`PinAttempt`)."""

    __tablename__ = "table_access"
    __table_args__ = (UniqueConstraint("device_id", "evening_id"),)

    id: Mapped[int] = mapped_column(primary_key=True)
    device_id: Mapped[int] = mapped_column(ForeignKey("device.id"), index=True)
    evening_id: Mapped[int] = mapped_column(ForeignKey("evening.id"), index=True)
    via: Mapped[str] = mapped_column(String(10), default="", server_default="")
    generation: Mapped[int] = mapped_column(default=0, server_default="0")
    revoked_at: Mapped[datetime | None] = mapped_column(DateTime(timezone=True), default=None)
    granted_at: Mapped[datetime | None] = mapped_column(DateTime(timezone=True), default=None)
    seen_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=utcnow)
    pin_failures: Mapped[int] = mapped_column(default=0, server_default="0")
    pin_window_start: Mapped[datetime | None] = mapped_column(DateTime(timezone=True), default=None)
    #: The player (seat) whose phone this is at the table, from the player's own link
    #: (issue 22 item 7: either party of a settle-up payment marks it paid), while
    #: ``party_generation`` is the table's :attr:`Evening.access_generation` (new credentials
    #: revoke it); ``None``: no player's link opened here.
    party_seat: Mapped[int | None] = mapped_column(default=None)
    party_generation: Mapped[int | None] = mapped_column(default=None)

    device: Mapped[Device] = relationship()


class PinAttempt(db.Model):  # type: ignore[name-defined,misc]
    """One wrong PIN typed at a table (:mod:`scorer.storage.pin_budget`): by which phone,
    from which network (an IPv4 address or an IPv6 /64), when. Rows older than a day are
    deleted as new ones come; a table keeps at most the day's cap (issue 21 item 5)."""

    __tablename__ = "pin_attempt"
    __table_args__ = (sa_Index("ix_pin_attempt_evening_at", "evening_id", "at"),)

    id: Mapped[int] = mapped_column(primary_key=True)
    evening_id: Mapped[int] = mapped_column(ForeignKey("evening.id"))
    device_id: Mapped[int | None] = mapped_column(ForeignKey("device.id"), default=None)
    network: Mapped[str] = mapped_column(String(64), default="")
    at: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=utcnow)


# --- Groups of evenings: the season (issue 6) ---------------------------------------


class Group(db.Model):  # type: ignore[name-defined,misc]
    """A group of evenings played by the same people ("Thursday Nap club"): its
    page shows the season. ``key`` is the group's unguessable URL key, like an
    evening's. Evenings join a group through :attr:`Evening.group_id`."""

    __tablename__ = "evening_group"

    id: Mapped[int] = mapped_column(primary_key=True)
    key: Mapped[str] = mapped_column(String(32), unique=True, default=new_key)
    name: Mapped[str] = mapped_column(String(80))
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=utcnow)

    aliases: Mapped[list[GroupAlias]] = relationship(
        back_populates="group", order_by="GroupAlias.id", cascade="all, delete-orphan"
    )


class GroupAlias(db.Model):  # type: ignore[name-defined,misc]
    """Two spellings merged within a group: a player written ``alias`` counts as the
    player written ``canonical`` in the group's season. Both are name keys
    (:func:`scorer.evening.season.name_key`: trimmed, NFC, casefolded). Deleting the row
    un-merges them; no evening's own data is ever changed."""

    __tablename__ = "group_alias"
    __table_args__ = (UniqueConstraint("group_id", "alias"),)

    id: Mapped[int] = mapped_column(primary_key=True)
    group_id: Mapped[int] = mapped_column(ForeignKey("evening_group.id"), index=True)
    alias: Mapped[str] = mapped_column(String(120))
    canonical: Mapped[str] = mapped_column(String(120))
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=utcnow)

    group: Mapped[Group] = relationship(back_populates="aliases")


#: The kinds of dispute a phone may raise: the referee's claims (H-13 to H-16, R-18,
#: P-16, B-16/B-17; the registry :data:`~scorer.rules.claims.CLAIM_KINDS`), a misdeal
#: found after the hand was saved, or "the score is wrong".
DISPUTE_KINDS = (*CLAIM_KINDS, "misdeal", "score")


class Dispute(db.Model):  # type: ignore[name-defined,misc]
    """A hand disputed from any phone, a viewer's included (issue 12).

    It is shown as disputed on every phone until a scorer rules on it: the claim goes
    into the hand's facts as a new version and the referee rules on it citing the rule
    (``resolution`` "ruled"), or the scorer finds nothing to change ("dismissed").
    ``accused`` and ``raised_by`` are seats (``raised_by`` ``None``: someone watching);
    ``trick`` is the trick the claim is about (1–5), if given.
    """

    __tablename__ = "dispute"

    id: Mapped[int] = mapped_column(primary_key=True)
    evening_id: Mapped[int] = mapped_column(ForeignKey("evening.id"), index=True)
    hand_id: Mapped[int] = mapped_column(ForeignKey("hand.id"), index=True)
    kind: Mapped[str] = mapped_column(String(20))
    accused: Mapped[int | None] = mapped_column(default=None)
    raised_by: Mapped[int | None] = mapped_column(default=None)
    trick: Mapped[int | None] = mapped_column(default=None)
    note: Mapped[str] = mapped_column(String(200), default="", server_default="")
    device: Mapped[str] = mapped_column(String(40), default="", server_default="")
    device_id: Mapped[int | None] = mapped_column(default=None)
    raised_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=utcnow)
    resolved_at: Mapped[datetime | None] = mapped_column(DateTime(timezone=True), default=None)
    resolution: Mapped[str] = mapped_column(String(20), default="", server_default="")
    resolved_device: Mapped[str] = mapped_column(String(40), default="", server_default="")

    hand: Mapped[Hand] = relationship(viewonly=True)



class SettledResult(db.Model):  # type: ignore[name-defined,misc]
    """A cache, never the truth: what the season reads of an evening settled at
    ``revision`` (:class:`scorer.evening.season.EveningResult`), kept where every process
    finds it (issue 23 item 4). Used only while the evening's revision is still
    ``revision`` (every change to its hands, players, options or finishing bumps it);
    otherwise the evening is settled again and the row replaced
    (:mod:`scorer.storage.kept_results`). ``players`` are the set-up's names by seat,
    ``totals`` the units by seat, ``winners`` seats, ``hands`` the hands in play."""

    __tablename__ = "settled_result"

    evening_id: Mapped[int] = mapped_column(ForeignKey("evening.id"), primary_key=True, autoincrement=False)
    revision: Mapped[int]
    hands: Mapped[int]
    players: Mapped[list[str]] = mapped_column(JSON)
    totals: Mapped[list[int]] = mapped_column(JSON)
    winners: Mapped[list[int]] = mapped_column(JSON)


#: :attr:`PaidTransfer.payee` of a payment into the pool (a pool the table leaves unsettled).
POOL_PAYEE = -1


class PaidTransfer(db.Model):  # type: ignore[name-defined,misc]
    """A payment of a finished money evening's settle-up marked paid (issue 22 item 7):
    ``payer`` paid ``payee`` (seats; :data:`POOL_PAYEE` for the pool) ``amount`` (the
    currency's smallest unit) — the key of the payment it marks. Unmarking ("undo") sets
    ``undone_at`` and keeps the row, so nothing is lost; at most one mark of a payment is in
    force (the partial unique index), so two phones marking at once record it once.

    A correction that changes the settle-up never touches a mark: one whose payment is no
    longer in the settle-up is shown as "was paid" beside the new payments (README)."""

    __tablename__ = "paid_transfer"
    __table_args__ = (sa_Index("uq_paid_transfer_open", "evening_id", "payer", "payee", "amount", unique=True,
                               sqlite_where=sa.text("undone_at IS NULL"),
                               postgresql_where=sa.text("undone_at IS NULL")),)

    id: Mapped[int] = mapped_column(primary_key=True)
    evening_id: Mapped[int] = mapped_column(ForeignKey("evening.id"), index=True)
    payer: Mapped[int]
    payee: Mapped[int]
    amount: Mapped[int]
    currency: Mapped[str] = mapped_column(String(8), default="")
    marked_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=utcnow)
    marked_by: Mapped[str] = mapped_column(String(40), default="")
    undone_at: Mapped[datetime | None] = mapped_column(DateTime(timezone=True), default=None)
    undone_by: Mapped[str] = mapped_column(String(40), default="")


class SheetDigest(db.Model):  # type: ignore[name-defined,misc]
    """A cache, never the truth: what the scoresheet of the table ``evening_key`` showed at
    ``revision`` to phones of one language and role (``variant``, e.g. ``"en/viewer/"``): the
    digests of its parts and rows (:func:`scorer.web.sheet_changes.digests_of`), kept where
    every app process finds them, so that a live update asked of a process that never
    rendered that revision still answers what changed (issue 23 item 1). Only the table's
    last few revisions are kept (:mod:`scorer.storage.sheet_digests`)."""

    __tablename__ = "sheet_digest"

    evening_key: Mapped[str] = mapped_column(String(32), primary_key=True)
    variant: Mapped[str] = mapped_column(String(200), primary_key=True)
    revision: Mapped[int] = mapped_column(primary_key=True, autoincrement=False)
    digests: Mapped[dict[str, Any]] = mapped_column(JSON)


# the club nights' models (issue 22), kept in their own module, named here as well
from .event_models import Event, EventAccess, EventChange, EventPlayer, EventRound, EventTable  # noqa: E402

__all__ = ["Event", "EventAccess", "EventChange", "EventPlayer", "EventRound", "EventTable"]
