"""Late arrivals and early leavers at a club night (issue 22 item 2): placed by the pure
:func:`scorer.evening.seating.arrive` and :func:`~scorer.evening.seating.leave`, and, once a
round has begun, carried to its tables' evenings as changes of seats between hands (a
player who goes leaves their evening keeping their total there; one who comes joins theirs;
a new table is a new evening; a closed table's evening is finished). Each is one unit of
work under the event's row lock; a refusal changes nothing."""

from __future__ import annotations

from collections.abc import Sequence

from ..evening import event as engine
from ..evening import seating
from ..rules import Text, clean_text
from .evening_writes import set_finished, start_evening
from .evenings import ledger_of
from .events import EventRefused, current_round, lock_event, log_change, refuse_finished, stake_of, touch
from .models import Evening, Event, EventPlayer, EventRound, EventTable
from .seat_writes import change_seats
from .units import get_evening, writing


def _live(round_: EventRound) -> list[int]:
    """The indices of the round's tables still seated (a closed table keeps an empty list)."""
    return [i for i, table in enumerate(round_.seating) if table]


def _seat_of(evening: Evening, name: str) -> int | None:
    seated = ledger_of(evening).seated
    return next((p.seat for p in evening.players if p.name.casefold() == name.casefold() and p.seat in seated), None)


def _apply_moves(event: Event, round_: EventRound, before: list[list[str]], after: seating.Seating,
                 moves: Sequence[seating.Move], closed: int | None, device_name: str) -> None:
    """Carry ``moves`` of a started round to its evenings: a player who goes leaves their
    evening (keeping their total there), one who comes joins theirs; a new table is a new
    evening; a closed table's evening is finished once everyone has left it."""
    live = _live(round_)
    tables = {t.number - 1: t for t in round_.tables}
    if closed is not None:
        live_after = [i for i in live if i != live[closed]]
    else:
        live_after = list(live)
    new_index = None
    if len(after) > len(live_after):  # a new table was made
        new_index = len(round_.seating)
        live_after.append(new_index)
    seating_now = [list(t) for t in round_.seating] + ([[]] if new_index is not None else [])
    if closed is not None:
        seating_now[live[closed]] = []
    for index, table in zip(live_after, after, strict=True):
        seating_now[index] = list(table)
    for move in moves:  # leaving first: a player moved is off their old table before they sit at the new one
        if move.from_table is None or move.from_table == closed:  # a closed table's evening is finished below
            continue
        old = tables[live[move.from_table]].evening
        evening = get_evening(old.key)
        assert evening is not None
        seat = _seat_of(evening, move.player)
        if seat is not None and evening.finished_at is None:
            change_seats(evening, "leave", seat=seat, device=device_name)
    if new_index is not None:
        players = seating_now[new_index]
        evening = start_evening(variant=event.variant, players=players, first_dealer=0,
                                options=dict(event.options), stake=stake_of(event),
                                name=f"{event.name} {round_.number}.{new_index + 1}"[:80], device=device_name,
                                group_id=event.group_id, time_zone=event.time_zone)
        round_.tables.append(EventTable(event_id=event.id, number=new_index + 1, evening_id=evening.id))
    for move in moves:
        if move.to_table is None or live_after[move.to_table] == new_index:
            continue
        target = tables[live_after[move.to_table]].evening
        evening = get_evening(target.key)
        assert evening is not None
        seated = ledger_of(evening).seated  # clockwise: the newcomer takes the last seat
        change_seats(evening, "join", name=move.player, left_of=seated[-1] if seated else None, device=device_name)
    round_.seating = seating_now
    if closed is not None:
        evening = get_evening(tables[live[closed]].evening.key)
        if evening is not None and evening.finished_at is None:
            set_finished(evening, True, device=device_name)


def _moved(event: Event, player: str, arriving: bool, device_name: str) -> tuple[seating.Move, ...]:
    """A late arrival or an early leaver placed (see :func:`arrive`, :func:`leave`)."""
    event = lock_event(event)
    refuse_finished(event)
    round_ = current_round(event)
    name = clean_text(player)
    known = next((p for p in event.players if p.name.casefold() == name.casefold()), None)
    if arriving:
        if not 1 <= len(name) <= 40:
            raise EventRefused(Text("Give a name of 1 to 40 characters."))
        if known is not None and known.left is None:
            raise EventRefused(Text("{name} is already playing.", name=known.name))
    elif known is None or known.left is not None:
        raise EventRefused(Text("{name} is not playing.", name=name))
    number = 0 if round_ is None else round_.number
    moves: tuple[seating.Move, ...] = ()
    if round_ is not None:
        live = _live(round_)
        current = tuple(tuple(round_.seating[i]) for i in live)
        if arriving:
            after, moves = seating.arrive(current, name, event.variant)
            closed = None
        else:
            after, moves = seating.leave(current, name, event.variant)
            closed = moves[0].from_table if len(after) < len(current) else None
        if round_.started_at is None:
            round_.seating = [list(t) for t in after]
        else:
            _apply_moves(event, round_, [list(t) for t in current], after, moves, closed, device_name)
        log_change(event, "moves", number, engine.moves_change(number, moves).data, device_name)
    if arriving:
        if known is not None:
            known.left = None
            known.arrived = number
        else:
            event.players.append(EventPlayer(name=name, arrived=number))
    else:
        assert known is not None
        known.left = number
    if round_ is None:
        log_change(event, "players", None, {"added" if arriving else "removed": [name]}, device_name)
    touch(event)
    return moves


def arrive(event: Event, player: str, *, device_name: str = "") -> tuple[seating.Move, ...]:
    """A late arrival: before the first seating, one more player; once seated, placed at the
    smallest table with room (or a new table made, :func:`scorer.evening.seating.arrive`),
    joining that table's evening before its next hand when the round has begun. Returns the
    moves. Raises :class:`EventRefused` or :class:`~scorer.evening.seating.SeatingError`;
    nothing saved."""
    with writing():
        return _moved(event, player, True, device_name)


def leave(event: Event, player: str, *, device_name: str = "") -> tuple[seating.Move, ...]:
    """An early leaver taken off their table (:func:`scorer.evening.seating.leave`): they keep
    what they won at the tables they played; a player moved to keep a table at its floor
    leaves one evening and joins another. Raises as :func:`arrive`; nothing saved."""
    with writing():
        return _moved(event, player, False, device_name)
