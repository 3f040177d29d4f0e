"""The evening's writes: start one, import one from its file (and export it), change its
settings, close or reopen it; and their commands (:mod:`scorer.storage.commands`):
:class:`NewEvening` and :class:`ImportEvening` (scope "": they make the evening they
write), :class:`~scorer.storage.commands.ChangeSettings` and
:class:`~scorer.storage.commands.SetFinished`. Each is one unit of work; none commits by hand."""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from datetime import date
from typing import Any, ClassVar

from ..evening.file import EveningFile, EveningFileError, loads
from ..evening.ledger import Fold, HandError, settle_evening
from ..evening.zones import today_in, valid_zone
from ..rules import EveningSetup, RulesError, SeatChange, Stake, Text, get_variant
from . import kept_ledgers as settled
from . import kept_results, tokens
from .commands import ChangeSettings, Command, Device, Saved, SetFinished, handles
from .errors import TABLE_CHANGED, EveningFinished, HandConflict
from .evenings import after_write, current_facts, log, normalise, seat_changes_of, setup_of, version_of
from .models import Change, Evening, Hand, Player, SeatChangeRecord, db, utcnow
from .tokens import creating, keep_created
from .units import bump, on_commit, write_locked

#: Called with ``(evening, device name)`` once an evening is finished, in the same unit of work
#: (:mod:`scorer.storage.events` adds the club night's: the last table of a round seats the next).
AFTER_FINISH: list[Callable[[Evening, str], None]] = []
#: Called with ``(evening, new options)`` before a table's options change; raises to refuse
#: (:mod:`scorer.storage.events`: a table of a club night keeps the event's options).
OPTION_CHECKS: list[Callable[[Evening, dict[str, Any]], None]] = []


@creating("start")
def create_evening(
    *,
    variant: str,
    players: Sequence[str],
    first_dealer: int,
    options: dict,
    stake: Stake | None,
    name: str = "",
    draw: Sequence[str] = (),
    device: str = "",
    group_id: int | None = None,
    time_zone: str = "",
    token: str | None = None,
) -> Evening:
    """Check the set-up with the engine and save a new evening (one unit of work),
    in the group ``group_id`` if given (the season, :mod:`scorer.storage.groups`).

    ``time_zone`` is the table's IANA zone (the browser's; "" = UTC): the evening's date
    is today there. ``token`` is the form's one-time token, saved in the same unit:
    if it started an evening before (the form posted twice),
    :class:`~scorer.storage.errors.AlreadyCreated` is raised with that evening and
    nothing new is saved (:func:`scorer.storage.tokens.creating`).
    Raises :class:`~scorer.rules.IllegalSetup` and saves nothing if the variant refuses it.
    The web starts evenings with the command :class:`NewEvening` instead.
    """
    evening = start_evening(variant=variant, players=players, first_dealer=first_dealer, options=options,
                            stake=stake, name=name, draw=draw, device=device, group_id=group_id,
                            time_zone=time_zone)
    keep_created(token, "start", evening_id=evening.id)
    return evening


def start_evening(*, variant: str, players: Sequence[str], first_dealer: int, options: dict,
                  stake: Stake | None, name: str = "", draw: Sequence[str] = (), device: str = "",
                  group_id: int | None = None, time_zone: str = "") -> Evening:
    """The write of :func:`create_evening` in the caller's unit of work, without its token."""
    setup = get_variant(variant).check_setup(
        EveningSetup(variant, tuple(p.strip() for p in players), first_dealer, options, stake)
    )
    today = today_in(time_zone)
    evening = Evening(
        name=name.strip() or f"Nap {today.isoformat()}",
        played_on=today,
        time_zone=valid_zone(time_zone),
        variant=variant,
        options=dict(setup.options),
        stake_minor=None if stake is None else stake.minor,
        currency="" if stake is None else stake.currency,
        first_dealer=setup.first_dealer,
        draw=list(draw),
        players=[Player(seat=i, name=n) for i, n in enumerate(setup.players)],
        group_id=group_id,
    )
    db.session.add(evening)
    db.session.flush()
    log(evening, "start", None, None, None, device)
    return evening


@creating("import")
def import_evening(data: EveningFile, *, device: str = "", time_zone: str = "", token: str | None = None) -> Evening:
    """Save an evening read from a file (already checked by the engine), in one unit of work.

    ``time_zone``: the importing browser's zone ("" = UTC), kept as the table's unless the
    file names the table's own; a file without a date is dated today there. ``token``: as
    for :func:`create_evening`. The web imports with the command :class:`ImportEvening` instead."""
    evening = save_imported(data, device=device, time_zone=time_zone)
    keep_created(token, "import", evening_id=evening.id)
    return evening


def save_imported(data: EveningFile, *, device: str = "", time_zone: str = "") -> Evening:
    """The write of :func:`import_evening` in the caller's unit of work, without its token."""
    time_zone = data.time_zone or time_zone
    setup = data.setup
    today = today_in(time_zone)
    evening = Evening(
        name=data.name or f"Nap {today.isoformat()}",
        played_on=today,
        time_zone=valid_zone(time_zone),
        variant=setup.variant,
        options=dict(setup.options),
        stake_minor=None if setup.stake is None else setup.stake.minor,
        currency="" if setup.stake is None else setup.stake.currency,
        first_dealer=setup.first_dealer,
        players=[Player(seat=i, name=n) for i, n in enumerate(setup.players)],
        finished_at=utcnow() if data.finished else None,
        place=data.place or "",
        draw=list(data.draw),
        note=data.note,
    )
    if data.date:
        evening.played_on = date.fromisoformat(data.date)
    for change in data.changes:
        evening.seat_changes.append(SeatChangeRecord(before_hand=change.before_hand, kind=change.kind,
                                                     seat=change.seat, left_of=change.left_of, name=change.name))
    for number, facts in enumerate(data.hands, start=1):
        hand = Hand(number=number)
        hand.versions.append(version_of(1, normalise(facts)))
        evening.hands.append(hand)
    db.session.add(evening)
    db.session.flush()
    log(evening, "import", None, None, None, device)
    return evening


def export_evening(evening: Evening) -> EveningFile:
    """The evening's current facts as an :class:`EveningFile` (for JSON export)."""
    return EveningFile(
        setup=setup_of(evening),
        hands=current_facts(evening),
        name=evening.name,
        date=evening.played_on.isoformat() if evening.played_on else None,
        place=evening.place or None,
        finished=evening.finished_at is not None,
        draw=list(evening.draw or ()),
        changes=_in_hand_order(seat_changes_of(evening), len(evening.hands)),
        time_zone=evening.time_zone or None,
        note=evening.note or "",
    )


def _in_hand_order(changes: Sequence[SeatChange], hands: int) -> list[SeatChange]:
    """The seat changes as the engine applies them (:func:`scorer.evening.ledger.settle_evening`:
    by the hand they come before, in the order made within a hand; those after the last
    hand before the next one), as the evening file wants them. Only a rename can be out of
    place: one saved before :func:`~scorer.storage.hand_writes.undo_last_hand` moved renames back with the hands
    undone."""
    ordered = sorted(changes, key=lambda c: c.before_hand)
    return [c if c.before_hand <= hands + 1 else dataclasses.replace(c, before_hand=hands + 1) for c in ordered]


@write_locked
def change_settings(evening: Evening, base_revision: int, *, name: str, place: str, options: dict,
                    device: str = "") -> bool:
    """Change the table's name, place and options; every hand is ruled again under the
    new options before anything is saved (one unit of work, logged with before and after).
    ``False`` when nothing changes (nothing is saved).

    Raises :class:`EveningFinished` for a finished evening (reopen it first),
    :class:`HandConflict` if the table changed since the page was shown
    (``base_revision``), :class:`~scorer.rules.IllegalSetup` for a bad option, and
    :class:`~scorer.rules.RulesError` when a hand already played would be refused or
    would fall after the end the new options set (P-14 and the variants' end rules).
    """
    if evening.finished_at is not None:  # finished is final until reopened: the totals cannot move
        raise EveningFinished(Text("This evening is finished: reopen it to change its settings."))
    if evening.revision != base_revision:
        raise HandConflict(TABLE_CHANGED, 0)
    old = setup_of(evening)
    new = get_variant(evening.variant).check_setup(dataclasses.replace(old, options=dict(options)))
    for check in OPTION_CHECKS:  # a table of a club night keeps the event's options
        check(evening, dict(new.options))
    hands, changes = current_facts(evening), seat_changes_of(evening)
    try:
        ledger = settle_evening(new, hands, changes)
        if changes:  # a change of seats in play: as it always was
            ended = bool(hands) and settle_evening(
                new, hands[:-1], [c for c in changes if c.before_hand < len(hands)]).end_reached
        else:
            ended = bool(hands) and Fold.resume(ledger, len(hands) - 1).ledger().end_reached
        if ended:
            raise RulesError(Text("With these options the evening would have ended before hand {number}; "
                                  "nothing was changed.", number=len(hands)))
    except HandError as error:
        raise RulesError(Text("With these options, {error}; nothing was changed.", error=error.message),
                         error.rule) from None
    before = {"name": evening.name, "place": evening.place, "options": dict(evening.options or {})}
    after = {"name": name.strip() or evening.name, "place": place.strip(), "options": dict(new.options)}
    if before == after:
        return False  # nothing changed
    evening.name, evening.place, evening.options = after["name"], after["place"], after["options"]
    revision = bump(evening)
    db.session.add(Change(evening_id=evening.id, kind="options", device=(device or "")[:40], before=before,
                          after=after))
    kept = after_write(evening, revision, ledger, settled.fingerprint_of(evening))
    kept_results.keep(evening.id, revision, ledger)  # for every process, with this change or not at all
    on_commit(lambda: settled.remember(*kept))  # a ledger with changes of seats is not kept
    return True


@write_locked
def set_finished(evening: Evening, finished: bool, *, device: str = "", base_revision: int | None = None) -> bool:
    """Close the evening (no more hands) or reopen it; the history keeps which phone did.
    ``False`` when it already was (a double tap: nothing to record).

    ``base_revision`` (the JSON commands give it): :class:`HandConflict` if the table
    changed since; ``None`` does not check (the HTML button, where a double tap is harmless)."""
    if base_revision is not None and evening.revision != base_revision:
        raise HandConflict(TABLE_CHANGED, 0)
    if (evening.finished_at is not None) == finished:
        return False
    evening.finished_at = utcnow() if finished else None
    bump(evening)
    log(evening, "finish" if finished else "reopen", None, None, None, device)
    if finished:  # the last table of a club night's round to finish seats the next round
        for after in AFTER_FINISH:
            after(evening, device)
    return True


@handles(ChangeSettings)
def _settings(command: ChangeSettings, evening: Evening, device: Device) -> Saved:
    changed = change_settings.on_locked(evening, command.revision, name=command.name, place=command.place,
                              options=command.options, device=device.name)
    return Saved(evening.key, changed=changed)


@handles(SetFinished)
def _finished(command: SetFinished, evening: Evening, device: Device) -> Saved:
    changed = set_finished.on_locked(evening, command.finished, device=device.name, base_revision=command.revision)
    return Saved(evening.key, changed=changed)


# --------------------------------------------------------------------------- making an evening
@dataclass(frozen=True)
class NewEvening(Command):
    """Start an evening of ``variant``: ``players`` in seating order, seat ``first_dealer``
    deals first; ``stake`` ``None`` plays for points; ``group_id`` the group it starts in;
    ``time_zone`` the table's (the browser's). ``key`` is unused (""): the outcome's
    :class:`~scorer.storage.commands.Saved` names the evening made (a retry's
    :class:`~scorer.storage.commands.AlreadySaved` the first one's)."""

    variant: str
    players: tuple[str, ...]
    first_dealer: int
    options: dict[str, Any]
    stake: Stake | None = None
    name: str = ""
    draw: tuple[str, ...] = ()
    group_id: int | None = None
    time_zone: str = ""
    token: str | None = None
    key: str = ""
    token_kind: ClassVar[str] = "start"
    scope: ClassVar[str] = ""


@dataclass(frozen=True)
class ImportEvening(Command):
    """Make an evening from an evening file (``docs/evening-format.md``): ``file`` is its
    text (or its bytes, as uploaded), read by the engine (:func:`scorer.evening.file.loads`)
    in the handler; a file it cannot read is refused (where in the file, with the rule).
    ``time_zone`` and ``key`` as for :class:`NewEvening`."""

    file: str | bytes
    time_zone: str = ""
    token: str | None = None
    key: str = ""
    token_kind: ClassVar[str] = "import"
    scope: ClassVar[str] = ""


def unreadable(error: EveningFileError) -> RulesError:
    """The refusal of a file the engine cannot read: ``where: message``, with the rule
    (the command's :class:`~scorer.storage.commands.Refused`)."""
    message = Text("{where}: {message}", where=error.where, message=error.message) if error.where else error.message
    return RulesError(message, error.rule)


@handles(NewEvening)
def _start(command: NewEvening, evening: None, device: Device) -> Saved:
    tokens.creation_retry(command.token, command.token_kind)  # posted twice: AlreadyCreated, nothing made
    made = start_evening(variant=command.variant, players=command.players, first_dealer=command.first_dealer,
                         options=dict(command.options), stake=command.stake, name=command.name,
                         draw=command.draw, device=device.name, group_id=command.group_id,
                         time_zone=command.time_zone)
    keep_created(command.token, command.token_kind, evening_id=made.id)
    db.session.flush()  # two at once: the second one's token collides here (the runner answers the first's)
    return Saved(made.key)


@handles(ImportEvening)
def _import(command: ImportEvening, evening: None, device: Device) -> Saved:
    tokens.creation_retry(command.token, command.token_kind)
    try:
        data = loads(command.file)
    except EveningFileError as error:  # the engine's reading of the file, refused as a rule's refusal
        raise unreadable(error) from None
    made = save_imported(data, device=device.name, time_zone=command.time_zone)
    keep_created(command.token, command.token_kind, evening_id=made.id)
    db.session.flush()
    return Saved(made.key)
