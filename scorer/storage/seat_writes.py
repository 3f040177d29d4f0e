"""Players come and go (issue 12): a player joins, leaves or is renamed before the next
hand, and the last change of seats can be undone; and their handlers as commands
(:mod:`scorer.storage.commands`). Each is one unit of work; none commits by hand."""

from __future__ import annotations

from ..evening.file import dump_seat_change
from ..evening.ledger import HandError, settle_evening
from ..evening.limits import MAX_PLAYERS, MAX_SEAT_CHANGES
from ..rules import IllegalSetup, SeatChange, Text, clean_text
from .commands import ChangeSeats, Device, Saved, UndoSeatChange, handles
from .errors import TABLE_CHANGED, EveningFinished, EveningFull, HandConflict
from .evenings import current_facts, ledger_of, seat_changes_of, setup_of
from .models import Change, Evening, Player, SeatChangeRecord, db, utcnow
from .units import bump, write_locked

FINISHED = Text("This evening is finished: reopen it to change who is at the table.")


def _check(evening: Evening, base_revision: int | None) -> None:
    if base_revision is not None and evening.revision != base_revision:
        raise HandConflict(TABLE_CHANGED, 0)
    if evening.finished_at is not None:
        raise EveningFinished(FINISHED)


def _settles(evening: Evening, changes: list[SeatChange]) -> None:
    try:
        settle_evening(setup_of(evening, changes), current_facts(evening), changes)
    except HandError as error:
        raise error.error from None


def _change(evening: Evening, kind: str, name: str, seat: int | None, left_of: int | None) -> SeatChange:
    """The change asked for (a newcomer's seat added to the evening), or a refusal."""
    players = {p.seat: p for p in evening.players}
    if kind != "leave" and not 1 <= len(name) <= 40:
        raise IllegalSetup(Text("Give a name of 1 to 40 characters."))
    same = next((p for p in evening.players if p.name.casefold() == name.casefold()), None) if name else None
    before_hand = len(evening.hands) + 1
    if kind == "join":
        if same is not None and same.seat in ledger_of(evening).seated:
            raise IllegalSetup(Text("{name} is already at the table.", name=same.name))
        if same is None:
            if len(evening.players) >= MAX_PLAYERS:
                raise EveningFull(Text("An evening names at most {limit} players: nothing was saved. Start a new "
                                       "evening for a new player.", limit=MAX_PLAYERS))
            same = Player(seat=max(players) + 1, name=name)
            evening.players.append(same)
        return SeatChange(before_hand, "join", same.seat, left_of)
    if kind == "leave" and seat in players:
        return SeatChange(before_hand, "leave", seat)
    if kind == "rename" and seat in players:
        if same is not None and same.seat != seat:
            raise IllegalSetup(Text("{name} is already a player at this table.", name=name))
        return SeatChange(before_hand, "rename", seat, name=players[seat].name)
    raise IllegalSetup(Text("That player is not one of the players."))


@write_locked
def change_seats(evening: Evening, kind: str, *, name: str = "", seat: int | None = None,
                 left_of: int | None = None, base_revision: int | None = None, device: str = "") -> SeatChange:
    """Record, before the next hand, that a player joins (``name``, sitting on the left of
    seat ``left_of``: a new name takes a new seat and starts at 0, the name of a player who
    left brings them back with their total), leaves (``seat``, who keeps their total) or is
    renamed (``seat`` is called ``name`` from now on; allowed at any time, but, as every
    write, not on a finished evening). One unit of work, logged in the history.

    Raises :class:`HandConflict` when the table changed since ``base_revision``,
    :class:`EveningFinished` on a finished evening (reopen it first), :class:`EveningFull`
    for the 501st change of seats or the 21st player (:mod:`scorer.evening.limits`), and
    :class:`~scorer.rules.IllegalSetup` (nothing saved) for a name that is empty, too
    long or taken, or a change the rules refuse (P-1, H-1, R-1, B-1: a seventh player).
    A rename to the same name saves nothing.
    """
    _check(evening, base_revision)
    if len(seat_changes_of(evening)) >= MAX_SEAT_CHANGES:  # the live ones: those an export holds
        raise EveningFull(Text("An evening holds at most {limit} changes of seats, and this one has them all: "
                               "nothing was saved. Start a new evening to change who plays.",
                               limit=MAX_SEAT_CHANGES))
    name = clean_text(name or "")
    change = _change(evening, kind, name, seat, left_of)
    db.session.flush()
    if kind == "rename":
        player = next(p for p in evening.players if p.seat == seat)
        if player.name == name:
            return change
        player.name = name
    else:
        _settles(evening, seat_changes_of(evening) + [change])
    evening.seat_changes.append(SeatChangeRecord(before_hand=change.before_hand, kind=change.kind, seat=change.seat,
                                                 left_of=change.left_of, name=change.name))
    bump(evening)
    names = tuple(p.name for p in evening.players)
    db.session.add(Change(evening_id=evening.id, kind=kind, hand_number=change.before_hand,
                          device=(device or "")[:40], after=dump_seat_change(change, names)))
    return change


@write_locked
def undo_seat_change(evening: Evening, change_id: int | None, *, device: str = "",
                     base_revision: int | None = None) -> None:
    """Undo the last change of seats (``change_id`` is its row, as the page showed it):
    the row is kept, marked undone; a newcomer's seat is given up, a rename is reversed.

    Raises :class:`HandConflict` (nothing changed) unless it is the last change of seats
    still in play and no hand has been recorded after it (undo that hand first; a rename
    can be undone at any time while it is the last), and :class:`EveningFinished`.
    ``change_id`` ``None``: the last change, if the table is still at ``base_revision``."""
    _check(evening, base_revision)
    live = [r for r in evening.seat_changes if r.undone_at is None]
    record = live[-1] if live else None
    if record is None or (change_id is not None and record.id != change_id) or (
            record.kind != "rename" and record.before_hand != len(evening.hands) + 1):
        raise HandConflict(Text("Only the last change of seats, with no hand after it, can be undone."), 0)
    players = {p.seat: p for p in evening.players}
    names = tuple(p.name for p in evening.players)
    change = SeatChange(record.before_hand, record.kind, record.seat, record.left_of, record.name)
    if record.kind == "rename":
        taken = any(p.name.casefold() == record.name.casefold() for p in evening.players if p.seat != record.seat)
        if taken:
            raise IllegalSetup(Text("{name} is already a player at this table.", name=record.name))
        players[record.seat].name = record.name
    record.undone_at = utcnow()
    if record.kind == "join" and not any(r.seat == record.seat for r in live[:-1]):
        evening.players.remove(players[record.seat])  # a newcomer who never played: the seat is given up
    _settles(evening, seat_changes_of(evening))
    bump(evening)
    db.session.add(Change(evening_id=evening.id, kind="undo_seat", hand_number=record.before_hand,
                          device=(device or "")[:40], before=dump_seat_change(change, names)))


@handles(ChangeSeats)
def _seats(command: ChangeSeats, evening: Evening, device: Device) -> Saved:
    change = change_seats.on_locked(evening, command.kind, name=command.name, seat=command.seat,
                                    left_of=command.left_of, base_revision=command.revision, device=device.name)
    return Saved(evening.key, detail=change)


@handles(UndoSeatChange)
def _undo_seats(command: UndoSeatChange, evening: Evening, device: Device) -> Saved:
    undo_seat_change.on_locked(evening, command.change_id, device=device.name, base_revision=command.revision)
    return Saved(evening.key)
