"""The referee of a club night (issue 22 item 5): the event's owner names referees, each
with a link and a PIN of their own; any phone at a table of the event calls the referee;
the call reaches every referee's phone and the room screen at once (it bumps the
revision of the event and of the table, which the live pages poll or are pushed); a
referee takes the call, rules on the table's dispute as a scorer does (the ruling names
the referee) or dismisses it, and the call is closed. Calls are never deleted.

Every write is a command (:mod:`scorer.storage.commands`). The table's commands
(:class:`CallReferee`, :class:`RefereeRule`, :class:`RefereeDismiss`) run under the
table's row lock; the event's (:class:`NameReferee`, :class:`RevokeReferee`,
:class:`TakeCall`, :class:`CloseCall`) lock the event's row themselves. Who may do what
is checked inside the command, under the lock: a revoked referee, or a phone that is no
referee, is refused there even if it passed the door a moment before. Two referees at
once: each change of a call is a conditional UPDATE (``WHERE closed_at IS NULL AND
(taken_by IS NULL OR taken_by = me)``), and a ruling is also the hand's correction of
the version the referee saw under the table's lock, so the second is refused and
nothing of it is saved.
"""

from __future__ import annotations

import hmac
import re
from dataclasses import dataclass
from datetime import timedelta
from typing import ClassVar

import sqlalchemy as sa

from ..rules import Text
from . import disputes
from .commands import Command, CorrectHand, Device, Saved, handles
from .errors import EveningFinished, HandConflict, OwnerOnly, ScorerError
from .evenings import normalise
from .hand_writes import named_hand, save_version
from .models import Change, Dispute, Evening, Event, EventAccess, EventRound, EventTable, db, new_pin, utcnow
from .referee_models import OUTCOMES, Referee, RefereeCall, RefereePhone, RefereePinMiss
from .units import bump, valid_key, writing

#: Wrong referee PINs one phone may type per :data:`WINDOW`, and an event per day.
PHONE_TRIES = 5
EVENT_CAP = 100
WINDOW = timedelta(minutes=15)
#: At most this many referees an event (revoked ones included).
MAX_REFEREES = 20


class RefereeRefused(ScorerError):
    """A referee's command or a call the event refuses (bad input, a closed call)."""


# --------------------------------------------------------------------------- texts
NO_SUCH_DISPUTE = Text("There is no such dispute at this table.")
NOT_AN_EVENT_TABLE = Text("This table is not a table of a club night: there is no referee to call.")
OTHER_EVENT = Text("That table is not a table of this event; nothing was changed.")
FINISHED = Text("This table is finished: the referee can no longer be called to it.")
NOT_A_REFEREE = Text("Only the event's referees can do that; this phone is not one of them (or its role was "
                     "revoked).")
ONLY_THE_OWNER = Text("Only the event's owner can name or revoke referees.")
NO_SUCH_CALL = Text("There is no such call at this event.")
CALL_CLOSED = Text("This call was already closed by {name}; nothing was changed.")
CALL_TAKEN = Text("{name} has taken this call; nothing was changed.")
PLAYS_HERE = Text("{name} plays at this table: another referee rules here.")


# --------------------------------------------------------------------------- reading
def event_by_key(key: str) -> Event | None:
    """The event with URL key ``key``, or ``None``."""
    return db.session.scalar(sa.select(Event).where(Event.key == key)) if valid_key(key) else None


def table_of(evening_id: int) -> tuple[EventTable, EventRound] | None:
    """The event table the evening ``evening_id`` is (and its round), or ``None``."""
    found = db.session.execute(sa.select(EventTable, EventRound).join(EventRound, EventRound.id == EventTable.round_id)
                               .where(EventTable.evening_id == evening_id)).first()
    return None if found is None else (found[0], found[1])


def table_of_key(key: str) -> Event | None:
    """The event of the table with URL key ``key``, or ``None`` (no such table, or one of no event)."""
    if not valid_key(key):
        return None
    return db.session.scalar(sa.select(Event).join(EventTable, EventTable.event_id == Event.id)
                             .join(Evening, Evening.id == EventTable.evening_id).where(Evening.key == key))


def referee_of(device_id: int | None, event_id: int) -> Referee | None:
    """The referee (not revoked) whose role the phone ``device_id`` holds at event ``event_id``."""
    if device_id is None:
        return None
    return db.session.scalar(
        sa.select(Referee).join(RefereePhone, RefereePhone.referee_id == Referee.id)
        .where(Referee.event_id == event_id, Referee.revoked_at.is_(None), RefereePhone.device_id == device_id)
        .order_by(Referee.id).limit(1))


def is_owner(device_id: int | None, event_id: int) -> bool:
    """Whether the phone ``device_id`` is the event's owner."""
    return device_id is not None and db.session.scalar(
        sa.select(EventAccess.id).where(EventAccess.event_id == event_id, EventAccess.device_id == device_id,
                                        EventAccess.role == "owner", EventAccess.revoked_at.is_(None)).limit(1)
    ) is not None


def referees(event_id: int) -> list[Referee]:
    """The event's referees, revoked ones included, in the order they were named."""
    return list(db.session.scalars(sa.select(Referee).where(Referee.event_id == event_id).order_by(Referee.id)))


def calls(event_id: int, *, open_only: bool = False) -> list[RefereeCall]:
    """The event's calls: the open and taken ones first (oldest first), then the closed
    ones (newest first); ``open_only``: not the closed ones."""
    query = sa.select(RefereeCall).where(RefereeCall.event_id == event_id)
    if open_only:
        query = query.where(RefereeCall.closed_at.is_(None))
    found = list(db.session.scalars(query.order_by(RefereeCall.id)))
    return [c for c in found if c.closed_at is None] + [c for c in reversed(found) if c.closed_at is not None]


def table_calls(evening_id: int) -> list[RefereeCall]:
    """The calls of one table not closed yet, oldest first."""
    return list(db.session.scalars(sa.select(RefereeCall).where(RefereeCall.evening_id == evening_id,
                                                                RefereeCall.closed_at.is_(None))
                                   .order_by(RefereeCall.id)))


def call_of(event_id: int, call_id: int) -> RefereeCall | None:
    """Call ``call_id`` if it is one of event ``event_id``'s."""
    call = db.session.get(RefereeCall, call_id) if 0 < call_id < 2**31 else None
    return call if call is not None and call.event_id == event_id else None


def event_revision(key: str) -> int | None:
    """The event's revision (one query), or ``None`` for no such event."""
    return db.session.scalar(sa.select(Event.revision).where(Event.key == key)) if valid_key(key) else None


# --------------------------------------------------------------------------- writing helpers
def bump_event(event_id: int) -> None:
    """One more revision of the event, in the pending unit: the room screen and the
    referees' phones see the change at their next poll."""
    db.session.execute(sa.update(Event).where(Event.id == event_id).values(revision=Event.revision + 1))


def _lock_event(key: str) -> Event:
    """Take the event's row lock and read it; refused for no such event."""
    event_id = db.session.scalar(sa.select(Event.id).where(Event.key == key).with_for_update()) \
        if valid_key(key) else None
    if event_id is None:
        raise RefereeRefused(Text("There is no such event."))
    event = db.session.get(Event, event_id, populate_existing=True)
    assert event is not None
    return event


def _referee_or_refuse(device: Device, event_id: int) -> Referee:
    referee = referee_of(device.id, event_id)
    if referee is None:
        raise OwnerOnly(NOT_A_REFEREE, forbidden=True)
    return referee


def _name_of(referee_id: int | None) -> str:
    row = db.session.get(Referee, referee_id) if referee_id is not None else None
    return row.name if row is not None else "?"


def _claim(call: RefereeCall, referee: Referee, *, close: str | None = None, dispute_id: int | None = None) -> None:
    """Take ``call`` for ``referee`` (and close it with outcome ``close``) by one
    conditional UPDATE: refused when another referee has it, or it is closed already
    (another referee was first, even at the same moment)."""
    now = utcnow()
    values: dict[str, object] = {"taken_by": sa.func.coalesce(RefereeCall.taken_by, referee.id),
                                 "taken_at": sa.func.coalesce(RefereeCall.taken_at, now)}
    if close is not None:
        values.update(closed_by=referee.id, closed_at=now, outcome=close, dispute_id=dispute_id)
    done = db.session.execute(
        sa.update(RefereeCall).where(RefereeCall.id == call.id, RefereeCall.closed_at.is_(None),
                                     sa.or_(RefereeCall.taken_by.is_(None), RefereeCall.taken_by == referee.id))
        .values(**values).execution_options(synchronize_session=False))
    if done.rowcount != 1:
        fresh = db.session.get(RefereeCall, call.id, populate_existing=True)
        assert fresh is not None
        if fresh.closed_at is not None:
            raise HandConflict(Text(str(CALL_CLOSED), name=_name_of(fresh.closed_by)), fresh.hand_number or 0)
        raise HandConflict(Text(str(CALL_TAKEN), name=_name_of(fresh.taken_by)), fresh.hand_number or 0)
    db.session.expire(call)


def _log(evening_id: int, kind: str, number: int | None, device: str, detail: dict[str, object]) -> None:
    db.session.add(Change(evening_id=evening_id, kind=kind, hand_number=number, device=(device or "")[:40],
                          after=detail))


# --------------------------------------------------------------------------- the owner's commands
@dataclass(frozen=True)
class NameReferee(Command):
    """The event's owner names a referee ``name`` (1–40 characters, not the name of another
    referee of the event not revoked): a new link and PIN of the referee's own."""

    key: str
    name: str
    token: str | None = None
    token_kind: ClassVar[str] = "referee"
    scope: ClassVar[str] = ""


@dataclass(frozen=True)
class RevokeReferee(Command):
    """The event's owner revokes referee ``referee_id``: every phone holding the role loses
    it, the referee's link and PIN make nobody a referee any more."""

    key: str
    referee_id: int
    scope: ClassVar[str] = ""


def _owner_or_refuse(device: Device, event: Event) -> None:
    if not is_owner(device.id, event.id):
        raise OwnerOnly(ONLY_THE_OWNER, forbidden=True)


@handles(NameReferee)
def _name(command: NameReferee, evening: None, device: Device) -> Saved:
    event = _lock_event(command.key)
    _owner_or_refuse(device, event)
    name = " ".join(str(command.name).split())
    if not 1 <= len(name) <= 40:
        raise RefereeRefused(Text("A referee's name has 1 to 40 characters."))
    named = referees(event.id)
    if len(named) >= MAX_REFEREES:
        raise RefereeRefused(Text("An event names at most {n} referees.", n=MAX_REFEREES))
    active = [r for r in named if r.revoked_at is None]
    if any(r.name.casefold() == name.casefold() for r in active):
        raise RefereeRefused(Text("{name} is a referee of this event already.", name=name))
    pins = {r.pin for r in active}
    pin = new_pin()
    while pin in pins:  # each referee's PIN names that referee alone
        pin = new_pin()
    referee = Referee(event_id=event.id, name=name, pin=pin)
    db.session.add(referee)
    bump_event(event.id)
    db.session.flush()
    return Saved(event.key, detail=referee.id)


@handles(RevokeReferee)
def _revoke(command: RevokeReferee, evening: None, device: Device) -> Saved:
    event = _lock_event(command.key)
    _owner_or_refuse(device, event)
    referee = db.session.get(Referee, command.referee_id) if 0 < command.referee_id < 2**31 else None
    if referee is None or referee.event_id != event.id:
        raise RefereeRefused(Text("There is no such referee at this event."))
    if referee.revoked_at is not None:
        return Saved(event.key, changed=False, detail=referee.id)
    referee.revoked_at = utcnow()
    bump_event(event.id)
    return Saved(event.key, detail=referee.id)


# --------------------------------------------------------------------------- becoming a referee
def join_by_link(device_id: int, event: Event, link_key: str) -> Referee | None:
    """Make the phone ``device_id`` the referee whose link key is ``link_key`` at ``event``;
    ``None`` (nothing changed) when the link names no referee of the event not revoked."""
    with writing():
        _lock_event(event.key)
        referee = next((r for r in referees(event.id) if r.revoked_at is None
                        and hmac.compare_digest(r.link_key.encode(), str(link_key)[:64].encode())), None)
        if referee is not None:
            _hold(referee, device_id, "link")
    return referee


def _hold(referee: Referee, device_id: int, via: str) -> None:
    found = db.session.scalar(sa.select(RefereePhone).where(RefereePhone.referee_id == referee.id,
                                                            RefereePhone.device_id == device_id))
    if found is None:
        db.session.add(RefereePhone(referee_id=referee.id, device_id=device_id, via=via))
        bump_event(referee.event_id)


@dataclass(frozen=True)
class PinTry:
    """What :func:`join_by_pin` found: the ``referee`` the PIN names, or none; ``refused``
    "phone" (wait ``waits`` minutes) or "event" when the PIN was not checked at all."""

    referee: Referee | None = None
    refused: str = ""
    waits: int = 0


def join_by_pin(device_id: int, event: Event, network: str, pin: str) -> PinTry:
    """Check ``pin`` against the PINs of the event's referees (not revoked) and make the
    phone that referee if one matches. At most :data:`PHONE_TRIES` wrong PINs a phone per
    :data:`WINDOW`, :data:`EVENT_CAP` an event a day; a wrong PIN is written down."""
    now = utcnow()
    candidate = re.sub(r"\s+", "", str(pin))[:12]
    with writing():
        _lock_event(event.key)
        misses = sa.select(sa.func.count()).select_from(RefereePinMiss).where(RefereePinMiss.event_id == event.id)
        if (db.session.scalar(misses.where(RefereePinMiss.at >= now - timedelta(days=1))) or 0) >= EVENT_CAP:
            return PinTry(refused="event")
        mine = db.session.execute(sa.select(sa.func.count(), sa.func.min(RefereePinMiss.at)).where(
            RefereePinMiss.event_id == event.id, RefereePinMiss.device_id == device_id,
            RefereePinMiss.at >= now - WINDOW)).one()
        if mine[0] >= PHONE_TRIES:
            first = mine[1] if mine[1].tzinfo is not None else mine[1].replace(tzinfo=now.tzinfo)
            return PinTry(refused="phone", waits=max(1, int((WINDOW - (now - first)).total_seconds() // 60) + 1))
        referee = next((r for r in referees(event.id) if r.revoked_at is None
                        and hmac.compare_digest(r.pin.encode(), candidate.encode())), None)
        if referee is None:
            db.session.add(RefereePinMiss(event_id=event.id, device_id=device_id, network=network[:64], at=now))
        else:
            _hold(referee, device_id, "pin")
    return PinTry(referee=referee)


# --------------------------------------------------------------------------- calling the referee
@dataclass(frozen=True)
class CallReferee(Command):
    """A phone at table ``key`` calls the referee: about hand ``number`` (``None``: the
    table), with ``note``. ``event``: the event the phone means (its key; ``None``: the
    table's own), refused when the table is not one of its tables."""

    key: str
    number: int | None = None
    note: str = ""
    event: str | None = None
    token: str | None = None
    token_kind: ClassVar[str] = "call"


@handles(CallReferee)
def _call(command: CallReferee, evening: Evening, device: Device) -> Saved:
    found = table_of(evening.id)
    if found is None:
        raise RefereeRefused(NOT_AN_EVENT_TABLE)
    table, round_ = found
    event = db.session.get(Event, table.event_id)
    assert event is not None
    if command.event is not None and command.event != event.key:
        raise RefereeRefused(OTHER_EVENT)
    if evening.finished_at is not None or round_.finished_at is not None:
        raise EveningFinished(FINISHED)
    hand_id = None
    if command.number is not None:
        if not 1 <= command.number <= len(evening.hands):
            raise RefereeRefused(Text("There is no hand {number} at this table.", number=command.number))
        hand_id = evening.hands[command.number - 1].id
    if any(c.hand_number == command.number for c in table_calls(evening.id)):
        raise RefereeRefused(Text("The referee is already called to this table for that; the call is on every "
                                  "referee's phone."))
    call = RefereeCall(event_id=event.id, evening_id=evening.id, table_number=table.number,
                       round_number=round_.number, hand_number=command.number, hand_id=hand_id,
                       note=" ".join(str(command.note).split())[:200], device=(device.name or "")[:40],
                       device_id=device.id)
    db.session.add(call)
    bump(evening)  # the table's phones show the call
    bump_event(event.id)  # every referee's phone and the room screen show it
    _log(evening.id, "referee", command.number, device.name, {"table": table.number, "note": call.note})
    db.session.flush()
    return Saved(evening.key, hand_id, command.number, detail=call.id)


@dataclass(frozen=True)
class TakeCall(Command):
    """A referee of event ``key`` takes call ``call_id`` ("on my way"): the other referees
    see who has it."""

    key: str
    call_id: int
    scope: ClassVar[str] = ""


@dataclass(frozen=True)
class CloseCall(Command):
    """A referee of event ``key`` closes call ``call_id`` with nothing to rule ("settled")."""

    key: str
    call_id: int
    scope: ClassVar[str] = ""


def _event_call(command: TakeCall | CloseCall, device: Device) -> tuple[Event, Referee, RefereeCall]:
    event = _lock_event(command.key)
    referee = _referee_or_refuse(device, event.id)
    call = call_of(event.id, command.call_id)
    if call is None:
        raise RefereeRefused(NO_SUCH_CALL)
    return event, referee, call


@handles(TakeCall)
def _take(command: TakeCall, evening: None, device: Device) -> Saved:
    event, referee, call = _event_call(command, device)
    if call.taken_by == referee.id and call.closed_at is None:
        return Saved(event.key, changed=False, detail=call.id)
    _claim(call, referee)
    _touch_table(call, event, "referee-taken", referee, device)
    return Saved(event.key, detail=call.id)


@handles(CloseCall)
def _close(command: CloseCall, evening: None, device: Device) -> Saved:
    event, referee, call = _event_call(command, device)
    _claim(call, referee, close="settled")
    _touch_table(call, event, "referee-closed", referee, device)
    return Saved(event.key, detail=call.id)


def _touch_table(call: RefereeCall, event: Event, kind: str, referee: Referee, device: Device) -> None:
    """The table of ``call`` shows the change too: its revision, and its history."""
    evening = db.session.get(Evening, call.evening_id)
    assert evening is not None
    bump(evening)
    bump_event(event.id)
    _log(evening.id, kind, call.hand_number, device.name, {"referee": referee.name, "table": call.table_number})


# --------------------------------------------------------------------------- ruling
@dataclass(frozen=True)
class RefereeRule(CorrectHand):
    """A referee rules on dispute ``dispute_id`` of the table ``key`` for call ``call_id``:
    the hand's correction to ``facts`` (a scorer's "Rule on it" is a :class:`CorrectHand`),
    which closes the dispute and the call in its unit of work and names the referee."""

    call_id: int = 0


@dataclass(frozen=True)
class RefereeDismiss(Command):
    """A referee finds nothing to change: dispute ``dispute_id`` of table ``key`` is
    dismissed and call ``call_id`` closed."""

    key: str
    dispute_id: int
    call_id: int
    token: str | None = None
    token_kind: ClassVar[str] = "dismiss"


def _ruling_referee(evening: Evening, call_id: int, device: Device,
                    dispute_id: int | None = None) -> tuple[Event, Referee, RefereeCall]:
    """The referee ruling at ``evening`` for call ``call_id`` (under the table's lock) on
    dispute ``dispute_id``, which must be one of the table's: looked up before the call is
    claimed (an id past the database's integers is no dispute, never its error)."""
    found = table_of(evening.id)
    if found is None:
        raise RefereeRefused(NOT_AN_EVENT_TABLE)
    event = db.session.get(Event, found[0].event_id)
    assert event is not None
    referee = _referee_or_refuse(device, event.id)
    call = call_of(event.id, call_id)
    if call is None or call.evening_id != evening.id:
        raise RefereeRefused(NO_SUCH_CALL)
    if any(p.name.casefold() == referee.name.casefold() for p in evening.players):
        raise RefereeRefused(Text(str(PLAYS_HERE), name=referee.name))
    if dispute_id is not None:
        dispute = db.session.get(Dispute, dispute_id) if 0 < dispute_id < 2**31 else None
        if dispute is None or dispute.evening_id != evening.id:
            raise RefereeRefused(NO_SUCH_DISPUTE)
    return event, referee, call


@handles(RefereeRule)
def _rule(command: RefereeRule, evening: Evening, device: Device) -> Saved:
    event, referee, call = _ruling_referee(evening, command.call_id, device, command.dispute_id)
    hand = named_hand(evening, command)
    assert command.facts is not None
    assert command.dispute_id is not None
    _claim(call, referee, close="ruled", dispute_id=command.dispute_id)  # a second referee is refused here
    disputes.close_ruled_on(evening, hand, command.dispute_id, normalise(command.facts), device.name,
                            referee=referee.name)
    saved = save_version(evening, hand, command, command.facts, "correct", device)
    bump_event(event.id)
    return saved


@handles(RefereeDismiss)
def _dismiss(command: RefereeDismiss, evening: Evening, device: Device) -> Saved:
    event, referee, call = _ruling_referee(evening, command.call_id, device, command.dispute_id)
    _claim(call, referee, close="dismissed", dispute_id=command.dispute_id)
    dispute = disputes.settle_dispute.on_locked(evening, command.dispute_id, "dismissed", device=device.name,
                                                referee=referee.name)
    bump_event(event.id)
    return Saved(evening.key, dispute.hand_id, call.hand_number, detail=dispute.id)


__all__ = ["OUTCOMES", "CallReferee", "CloseCall", "NameReferee", "RefereeDismiss", "RefereeRule", "RevokeReferee",
           "TakeCall"]
