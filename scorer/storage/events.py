"""Club nights (issue 22): saving an event in a group, its players, its rounds and the
tables of each round (ordinary evenings), and reading its standings and record. The
bridge between the database and the pure :mod:`scorer.evening.event`,
:mod:`scorer.evening.seating` and :mod:`scorer.evening.standings`.

Every write is one unit of work (:func:`scorer.storage.units.writing`) that takes the
event's row lock first, so two phones seating or starting a round at once queue. A
refusal raises :class:`EventRefused` (or the engine's :class:`~scorer.rules.RulesError`),
whose message is an English :class:`~scorer.rules.Text` for :func:`scorer.web.i18n.error_text`;
nothing is saved then.

The stable names other code builds on: :func:`create_event`, :func:`get_event`,
:func:`seat_first_round`, :func:`start_round`, :func:`event_of_evening`,
:func:`event_setup`, :func:`is_organiser`, :func:`grant`.
"""

from __future__ import annotations

import secrets
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from typing import Any

import sqlalchemy as sa
from sqlalchemy.exc import IntegrityError
from sqlalchemy.orm import selectinload

from ..evening import chain, seating
from ..evening import event as engine
from ..evening.standings import Standings, standings
from ..evening.zones import valid_zone
from ..rules import RulesError, Stake, Text, clean_text, get_variant
from . import tokens
from .errors import ScorerError, TokenReused
from .evening_writes import AFTER_FINISH, OPTION_CHECKS, start_evening
from .models import (
    Device,
    Evening,
    Event,
    EventAccess,
    EventChange,
    EventPlayer,
    EventRound,
    EventTable,
    Group,
    Submission,
    db,
    utcnow,
)
from .units import reading, valid_key, writing

#: The roles a phone may hold at an event (the referee's is added by its own module).
OWNER, ORGANISER = "owner", "organiser"
STYLES = ("together", "spread")


#: What the room screen shows as open referee calls: each function, given the event, gives the
#: calls' texts (the referee's module adds one, and moves the event's revision with
#: :func:`touch` when a call is made or closed, so the room screen shows it at once).
ROOM_CALLS: list[Callable[[Event], Iterable[str]]] = []


class EventRefused(ScorerError):
    """A change the event refuses; ``message`` is an English :class:`~scorer.rules.Text`."""


# --------------------------------------------------------------------------- reading
def get_event(key: str) -> Event | None:
    """The event with URL key ``key`` (players, rounds and tables loaded), or ``None``."""
    if not valid_key(key):
        return None
    return db.session.scalar(sa.select(Event).where(Event.key == key).options(
        selectinload(Event.players), selectinload(Event.round_rows).selectinload(EventRound.tables)
        .selectinload(EventTable.evening)))


def lock_event(event: Event) -> Event:
    """Take the event's row lock and read it again (as :func:`scorer.storage.units.lock`)."""
    db.session.execute(sa.select(Event.id).where(Event.id == event.id).with_for_update())
    fresh = db.session.scalar(sa.select(Event).where(Event.id == event.id).options(
        selectinload(Event.players), selectinload(Event.round_rows).selectinload(EventRound.tables)
        .selectinload(EventTable.evening)).execution_options(populate_existing=True))
    assert fresh is not None  # events are never deleted
    return fresh


def stake_of(event: Event) -> Stake | None:
    return None if event.stake_minor is None else Stake(event.stake_minor, event.currency)


def event_setup(event: Event) -> engine.EventSetup:
    """The engine's view of ``event``: every player who came (a leaver included)."""
    return engine.EventSetup(event.variant, tuple(p.name for p in event.players), event.rounds, event.length,
                             event.amount, dict(event.options or {}), stake_of(event))


def playing(event: Event) -> list[str]:
    """The names of the players still playing (not left), in the order they came."""
    return [p.name for p in event.players if p.left is None]


def current_round(event: Event) -> EventRound | None:
    """The last round seated, or ``None`` before the first seating."""
    return event.round_rows[-1] if event.round_rows else None


@dataclass(frozen=True)
class Place:
    """Where an evening sits in an event."""

    event: Event
    round: EventRound
    table: EventTable


def event_of_evening(evening: Evening | int) -> Place | None:
    """The event, round and table of an evening (or its id), or ``None`` for an evening of no event."""
    evening_id = evening if isinstance(evening, int) else evening.id
    table = db.session.scalar(sa.select(EventTable).where(EventTable.evening_id == evening_id))
    if table is None:
        return None
    event = db.session.get(Event, table.event_id)
    round_ = db.session.get(EventRound, table.round_id)
    assert event is not None and round_ is not None
    return Place(event, round_, table)


def events_of_group(group: Group) -> list[Event]:
    return list(db.session.scalars(sa.select(Event).where(Event.group_id == group.id).order_by(Event.id)))


# --------------------------------------------------------------------------- roles
def _role_row(event: Event, device: Device, role: str) -> EventAccess | None:
    return db.session.scalar(sa.select(EventAccess).where(
        EventAccess.event_id == event.id, EventAccess.device_id == device.id, EventAccess.role == role))


def is_organiser(event: Event, device: Device | None) -> bool:
    """Whether ``device`` may run ``event``: its owner, or an organiser by the event's link or
    PIN while they are current."""
    if device is None:
        return False
    rows = db.session.scalars(sa.select(EventAccess).where(
        EventAccess.event_id == event.id, EventAccess.device_id == device.id,
        EventAccess.role.in_((OWNER, ORGANISER)), EventAccess.revoked_at.is_(None)))
    return any(r.role == OWNER or r.generation == event.access_generation for r in rows)


def is_owner(event: Event, device: Device | None) -> bool:
    row = None if device is None else _role_row(event, device, OWNER)
    return row is not None and row.revoked_at is None


def grant(event: Event, device: Device, role: str, via: str) -> None:
    """Give ``device`` ``role`` at ``event`` (in the pending unit of work, or one of its own)."""
    with writing():
        row = _role_row(event, device, role)
        if row is None:
            row = EventAccess(event_id=event.id, device_id=device.id, role=role)
            db.session.add(row)
        row.via, row.generation, row.revoked_at, row.granted_at = via, event.access_generation, None, utcnow()


def renew_credentials(event: Event) -> None:
    """A new organisers' link and PIN: every organiser by the old ones is a viewer again."""
    with writing():
        event = lock_event(event)
        event.edit_key = secrets.token_urlsafe(16)
        event.pin = f"{secrets.randbelow(10**6):06d}"
        event.access_generation += 1
        _bump(event)


# --------------------------------------------------------------------------- writes
def _bump(event: Event) -> None:
    db.session.execute(sa.update(Event).where(Event.id == event.id).values(revision=Event.revision + 1))


def touch(event: Event) -> None:
    """Move the event's revision in the pending unit of work: its room screen and pages are
    shown again (for a change kept elsewhere, such as a referee call)."""
    _bump(event)


def log_change(event: Event, kind: str, round_number: int | None, data: dict[str, Any], device: str) -> None:
    db.session.add(EventChange(event_id=event.id, kind=kind, round=round_number, data=data,
                               device=(device or "")[:40]))


def create_event(group: Group, *, name: str, variant: str, options: dict[str, Any], stake: Stake | None,
                 players: Sequence[str], rounds: int, length: str, amount: int | None,
                 style: str = "together", time_zone: str = "", device: Device | None = None,
                 device_name: str = "") -> Event:
    """Save a new event in ``group`` (one unit of work), its set-up checked by the engine
    (:func:`scorer.evening.event.check_event`); ``device`` becomes its owner. Raises
    :class:`~scorer.evening.event.EventError` (a :class:`~scorer.rules.RulesError`) or
    :class:`EventRefused`, and saves nothing."""
    if style not in STYLES:
        raise EventRefused(Text("Seat later rounds \"together\" or \"spread\", not {style}.", style=repr(style)))
    setup = engine.check_event(engine.EventSetup(variant, tuple(players), rounds, length, amount, options, stake))
    with writing():
        event = Event(group_id=group.id, name=" ".join((name or "").split())[:80] or group.name, variant=variant,
                      options=dict(setup.options), stake_minor=None if stake is None else stake.minor,
                      currency="" if stake is None else stake.currency, rounds=setup.rounds, length=setup.length,
                      amount=setup.amount, style=style, time_zone=valid_zone(time_zone or ""),
                      players=[EventPlayer(name=p, arrived=0) for p in setup.players])
        db.session.add(event)
        db.session.flush()
        log_change(event, "setup", None, engine.setup_change(setup).data, device_name)
        if device is not None:
            grant(event, device, OWNER, "start")
    return event


def create_event_once(group: Group, token: str, content: str, **setup: Any) -> tuple[Event, bool]:
    """:func:`create_event` with a client's one-time ``token`` (the JSON command's), kept with
    the event it made and the command's digest ``content``: ``(event, True)`` when made now,
    ``(the first one's event, False)`` for a retry (the same token and content, even two posts
    at once: the second one's token row collides and its unit saves nothing). The same token
    with other content, or used by another command, raises :class:`TokenReused`."""

    def first() -> Event | None:
        used = db.session.scalar(sa.select(Submission).where(Submission.token == token))
        if used is None:
            return None
        if used.command != "event" or used.event_id is None or (used.digest is not None and used.digest != content):
            raise TokenReused(tokens.REUSED)
        return db.session.get(Event, used.event_id)

    with reading():
        made = first()
    if made is not None:
        return made, False
    try:
        with writing():
            event = create_event(group, **setup)
            db.session.add(Submission(token=token, event_id=event.id, command="event", digest=content))
            db.session.flush()  # two at once: the second one's token collides here, its event is not saved
    except IntegrityError:
        with reading():
            made = first()
        if made is None:
            raise
        return made, False
    return event, True


def refuse_finished(event: Event) -> None:
    if event.finished_at is not None:
        raise EventRefused(Text("This event is finished."))


def add_players(event: Event, names: Sequence[str], *, device_name: str = "") -> list[str]:
    """Add players before the first round is seated (later: :func:`arrive`). Raises
    :class:`EventRefused` or :class:`~scorer.evening.seating.SeatingError`; nothing saved."""
    with writing():
        event = lock_event(event)
        refuse_finished(event)
        if event.round_rows:
            raise EventRefused(Text("The first round is seated: add a late arrival instead."))
        cleaned = seating.unique_names([p.name for p in event.players] + list(names))[len(event.players):]
        for name in cleaned:
            if len(name) > 40:
                raise EventRefused(Text("Give a name of 1 to 40 characters."))
            event.players.append(EventPlayer(name=name, arrived=0))
        log_change(event, "players", None, {"added": cleaned}, device_name)
        _bump(event)
    return cleaned


def seat_first_round(event: Event, *, how: str, seed: str | None = None,
                     tables: Sequence[Sequence[str]] | None = None, device_name: str = "") -> EventRound:
    """Seat round 1: ``how`` "draw" (a seeded draw: ``seed`` given, or a new random one,
    recorded, so the same seed gives the same seating) or "typed" (``tables``, checked).
    A seating not yet started may be made again. Raises :class:`EventRefused` or
    :class:`~scorer.evening.seating.SeatingError`; nothing saved."""
    with writing():
        event = lock_event(event)
        refuse_finished(event)
        if any(r.started_at is not None for r in event.round_rows):
            raise EventRefused(Text("The first round has begun; its seating can no longer be made again."))
        names = playing(event)
        if how == "draw":
            seed = clean_text(seed or "")[:40] or str(secrets.randbelow(10**9))
            made = seating.draw(names, event.variant, seed)
        elif how == "typed":
            if not tables:
                raise EventRefused(Text("Type the players of each table."))
            made = seating.check_seating(tables, names, event.variant)
            seed = None
        else:
            raise EventRefused(Text("Seat the first round by draw or as typed."))
        for old in list(event.round_rows):
            event.round_rows.remove(old)
        db.session.flush()
        round_ = EventRound(event_id=event.id, number=1, how=how, seed=seed, seating=[list(t) for t in made])
        event.round_rows.append(round_)
        log_change(event, "seating", 1, engine.seating_change(1, made, how, seed).data, device_name)
        _bump(event)
        db.session.flush()
    return round_


def make_tables(event: Event, round_: EventRound, device_name: str) -> list[Evening]:
    """The evenings of ``round_`` (one per table of its seating), in the event's group,
    with the event's rule set, options and stake; in the pending unit of work."""
    setup = event_setup(event)
    made = []
    for number, table in enumerate(round_.seating, start=1):
        engine.table_setup(setup, table)  # the rule set's own check of the table (player count)
        evening = start_evening(variant=event.variant, players=table, first_dealer=0, options=dict(event.options),
                                stake=stake_of(event), name=f"{event.name} {round_.number}.{number}"[:80],
                                device=device_name, group_id=event.group_id, time_zone=event.time_zone)
        round_.tables.append(EventTable(event_id=event.id, number=number, evening_id=evening.id))
        made.append(evening)
    round_.started_at = utcnow()
    log_change(event, "start", round_.number, {"round": round_.number, "tables": len(made)}, device_name)
    _bump(event)
    db.session.flush()
    return made


def start_round(event: Event, *, device_name: str = "") -> list[Evening]:
    """Begin the seated round not yet begun: one evening per table. Raises
    :class:`EventRefused` (no seating, already begun, event finished); nothing saved."""
    with writing():
        event = lock_event(event)
        refuse_finished(event)
        round_ = current_round(event)
        if round_ is None:
            raise EventRefused(Text("Seat the first round first."))
        if round_.started_at is not None:
            raise EventRefused(Text("Round {round} has begun already.", round=round_.number))
        return make_tables(event, round_, device_name)


def table_finished(evening: Evening, *, device_name: str = "") -> None:
    """An evening was just finished (in the pending unit of work, by
    :func:`scorer.storage.evening_writes.set_finished`): when it is the last table of its
    event's current round to finish, the round is over; the next round is seated from the
    standings (the event's style) and its evenings made at once, so every phone of the event
    sees its new table; after the last round the event is finished."""
    place = event_of_evening(evening)
    if place is None:
        return
    db.session.flush()
    event = lock_event(place.event)
    round_ = current_round(event)
    if round_ is None or round_.id != place.round.id or round_.finished_at is not None:
        return
    if any(t.evening.finished_at is None for t in round_.tables):
        return
    round_.finished_at = utcnow()
    if round_.number >= event.rounds or event.finished_at is not None:
        event.finished_at = utcnow()
        log_change(event, "finished", round_.number, {}, device_name)
        _bump(event)
        return
    names = ranking_names(event, round_.number, fresh=True)
    made = seating.by_standings(names, event.variant, event.style)
    number = round_.number + 1
    next_round = EventRound(event_id=event.id, number=number, how=event.style, seating=[list(t) for t in made])
    event.round_rows.append(next_round)
    log_change(event, "seating", number, engine.seating_change(number, made, event.style).data, device_name)
    db.session.flush()
    make_tables(event, next_round, device_name)
    _tell_tables(round_)


def _tell_tables(round_: EventRound) -> None:
    """Bump the revision of every table of a finished round: their phones' live pages learn
    of a change and ask for the event's line again (the next table of each player)."""
    from .units import bump

    for table in round_.tables:
        bump(table.evening)


def finish_event(event: Event, *, device_name: str = "") -> None:
    """End the event now (its organiser: the night is over early). Tables still playing
    play on; no round is seated after."""
    with writing():
        event = lock_event(event)
        if event.finished_at is not None:
            raise EventRefused(Text("This event is finished."))
        event.finished_at = utcnow()
        log_change(event, "finished", None, {}, device_name)
        _bump(event)


def check_table_options(evening: Evening, options: dict[str, Any]) -> None:
    """Refuse (:class:`~scorer.evening.event.EventError`) options that differ from the event's
    for a table of an event: a table may not change the event's rules."""
    place = event_of_evening(evening)
    if place is None:
        return
    event = place.event
    variant = get_variant(event.variant)
    from ..rules.options import resolve_options

    if dict(resolve_options(variant.option_specs, options)) != dict(event.options or {}):
        raise engine.EventError(Text("Every table of this event plays the event's options; a table may not "
                                     "change them."))


# --------------------------------------------------------------------------- standings and record
def table_ledgers(event: Event, through_round: int | None = None, *, fresh: bool = False) -> list[Any]:
    """The ledgers of the event's tables (of rounds up to ``through_round``), settled as the
    scoresheets settle them (kept ledgers); ``fresh``: from the hands the current unit of
    work sees (inside a write)."""
    from .evenings import ledger_of
    from .kept_ledgers import settled
    from .units import get_evening

    out = []
    for round_ in event.round_rows:
        if through_round is not None and round_.number > through_round:
            continue
        for table in round_.tables:
            if fresh:
                evening = get_evening(table.evening.key)
                if evening is not None:
                    out.append(ledger_of(evening))
                continue
            found = settled(table.evening.key)
            if found is not None:
                out.append(found.ledger)
    return out


def standings_of(event: Event, through_round: int | None = None, *, fresh: bool = False) -> Standings:
    """The event's one ranking, worked out from its tables' ledgers now (never stored)."""
    return standings(table_ledgers(event, through_round, fresh=fresh))


def ranking_names(event: Event, through_round: int, *, fresh: bool = False) -> list[str]:
    """The players still playing, best first by the standings after ``through_round``;
    those without a table yet (a late arrival) last, in the order they came."""
    ranked = [row.name for row in standings_of(event, through_round, fresh=fresh).rows]
    known = {n.casefold(): n for n in playing(event)}
    out = [known[n.casefold()] for n in ranked if n.casefold() in known]
    out += [n for n in playing(event) if n not in out]
    return out


def record_of(event: Event) -> list[chain.Change]:
    """The event's chained record: its set-up and players added before play, each round's
    seating and moves as they happened (its history), then each finished table of the round
    by its evening's last link (every hand of it), then the finish."""
    from .kept_ledgers import settled

    logged = list(db.session.scalars(sa.select(EventChange).where(EventChange.event_id == event.id)
                                     .order_by(EventChange.id)))
    changes = [chain.Change(row.kind, None, row.data) for row in logged
               if row.round is None and row.kind in ("setup", "players")]
    for round_ in event.round_rows:
        changes += [chain.Change(row.kind, row.round, row.data) for row in logged
                    if row.round == round_.number and row.kind in ("seating", "moves")]
        for table in round_.tables:
            evening = table.evening
            found = settled(evening.key) if evening.finished_at is not None else None
            if found is None:
                continue
            links = chain.links(chain.of_ledger(found.ledger, draw=tuple(evening.draw or ()), finished=True))
            changes.append(engine.table_change(round_.number, table.number - 1, links[-1]))
    if event.finished_at is not None:
        changes.append(chain.FINISHED)
    return changes


def fingerprint_of(event: Event) -> tuple[str, int]:
    """``(fingerprint, number of changes)`` of the event's record (:func:`record_of`)."""
    return chain.summary(record_of(event))


__all__ = ["EventRefused", "RulesError", "add_players", "create_event", "event_of_evening", "event_setup",
           "get_event", "get_variant", "seat_first_round", "start_round"]


# what a table of an event does as it finishes, and may not change (:mod:`scorer.storage.evening_writes`)
AFTER_FINISH.append(lambda evening, device: table_finished(evening, device_name=device))
OPTION_CHECKS.append(check_table_options)
