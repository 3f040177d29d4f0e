"""Seating a club night's players at its tables (issue 22 item 2; pure Python).

A seating is a tuple of tables, each a tuple of player names in seat order, clockwise
(the first is seat 0, as :class:`~scorer.rules.EveningSetup` numbers them). Tables are
numbered from 1 in what is shown; indices here are 0-based.

Table sizes come from the rule set's own player counts (P-1, H-1, R-1, B-1), with a floor
of 3 at a club table (two-handed Nap is a home game, not a club night's table): the
fewest tables that seat everyone, as even as can be, larger tables first (14 players of
``pagat``, 3 to 6 a table: 5, 5, 4). The first round is drawn (:func:`draw`: a seeded
Fisher–Yates shuffle, so a recorded seed gives the same seating on any machine and any
Python) or typed (:func:`check_seating`); later rounds follow the standings
(:func:`by_standings`: the top players together, or spread in snake order). A late arrival
(:func:`arrive`) and an early leaver (:func:`leave`) are placed with as few moves as can
be. Every refusal is a :class:`SeatingError` with a message in words (a
:class:`~scorer.rules.Text`), and nothing is changed.
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from dataclasses import dataclass

from ..rules import RulesError, Text, clean_text, get_variant

#: The fewest players at a club night's table, whatever a rule set allows.
CLUB_FLOOR = 3

Seating = tuple[tuple[str, ...], ...]


class SeatingError(RulesError):
    """A seating the rules or the club night refuse (``rule``: the rule set's player
    count rule, P-1, H-1, R-1, B-1, where that is what is broken)."""


@dataclass(frozen=True)
class Move:
    """A player moved to another table: ``from_table`` ``None`` for one who arrives,
    ``to_table`` ``None`` for one who leaves (0-based: ``from_table`` in the seating
    before, ``to_table`` in the seating after)."""

    player: str
    from_table: int | None
    to_table: int | None


def bounds(variant_id: str) -> tuple[int, int]:
    """``(fewest, most)`` players at a club table of ``variant_id``: the rule set's range,
    at least :data:`CLUB_FLOOR`. Raises ``KeyError`` for an unknown variant."""
    variant = get_variant(variant_id)
    return max(CLUB_FLOOR, variant.min_players), variant.max_players


def table_sizes(players: int, variant_id: str) -> tuple[int, ...]:
    """The sizes of the tables for ``players`` players: the fewest tables, as even as can
    be, larger first (14 of ``pagat`` → ``(5, 5, 4)``; 7 → ``(4, 3)``; 6 → ``(6,)``).
    Raises :class:`SeatingError` for fewer players than a table needs."""
    low, high = bounds(variant_id)
    if players < low:
        variant = get_variant(variant_id)
        raise SeatingError(Text("A table of {name} needs at least {low} players; there are {n}.",
                                name=variant.name, low=low, n=players), variant.rule_players)
    tables = -(-players // high)
    base, extra = divmod(players, tables)
    if base < low:  # only for a rule set whose range is narrower than twice its floor
        raise SeatingError(Text("{n} players cannot be seated at tables of {low} to {high}.",
                                n=players, low=low, high=high))
    return tuple(base + 1 if i < extra else base for i in range(tables))


def fisher_yates(items: Sequence[str], seed: int | str) -> list[str]:
    """``items`` shuffled by Fisher–Yates on ``random.Random(seed).random()``: from the last
    place down, place ``i`` swaps with place ``floor(random() × (i + 1))``. Written out
    because ``random.shuffle``'s algorithm is not promised to stay the same across Python
    versions, and a recorded draw must give the same seating again."""
    rng = random.Random(seed)
    out = list(items)
    for i in range(len(out) - 1, 0, -1):
        j = int(rng.random() * (i + 1))
        out[i], out[j] = out[j], out[i]
    return out


def unique_names(players: Sequence[str]) -> list[str]:
    """The names of ``players`` cleaned (:func:`~scorer.rules.clean_text`); raises
    :class:`SeatingError` for an empty name or two alike (ignoring case)."""
    names = [clean_text(p) for p in players]
    seen: set[str] = set()
    for name in names:
        if not name:
            raise SeatingError(Text("Every player needs a name."))
        if name.casefold() in seen:
            raise SeatingError(Text("{name} is named twice.", name=name))
        seen.add(name.casefold())
    return names


def deal_out(order: Sequence[str], sizes: Sequence[int]) -> Seating:
    """``order`` cut into tables of ``sizes``, in order."""
    tables, at = [], 0
    for size in sizes:
        tables.append(tuple(order[at:at + size]))
        at += size
    return tuple(tables)


def draw(players: Sequence[str], variant_id: str, seed: int | str) -> Seating:
    """The first round by draw: ``players`` shuffled (:func:`fisher_yates` with ``seed``)
    and dealt out to :func:`table_sizes` in that order. Raises :class:`SeatingError`."""
    names = unique_names(players)
    return deal_out(fisher_yates(names, seed), table_sizes(len(names), variant_id))


def check_seating(tables: Sequence[Sequence[str]], players: Sequence[str], variant_id: str) -> Seating:
    """A seating typed by the club: every one of ``players`` at exactly one table, nobody
    else, each table within :func:`bounds`. Returns it with names cleaned (as ``players``
    spell them). Raises :class:`SeatingError` naming the table (1-based) or player."""
    low, high = bounds(variant_id)
    known = {name.casefold(): name for name in unique_names(players)}
    seated: dict[str, int] = {}
    out = []
    for number, table in enumerate(tables, start=1):
        if not low <= len(table) <= high:
            raise SeatingError(Text("Table {table} has {n} players; a table seats {low} to {high}.",
                                    table=number, n=len(table), low=low, high=high),
                               get_variant(variant_id).rule_players)
        row = []
        for raw in table:
            name = clean_text(raw)
            if name.casefold() not in known:
                raise SeatingError(Text("{name} at table {table} is not one of the players.", name=name,
                                        table=number))
            if name.casefold() in seated:
                raise SeatingError(Text("{name} is seated at table {first} and at table {table}.",
                                        name=known[name.casefold()], first=seated[name.casefold()], table=number))
            seated[name.casefold()] = number
            row.append(known[name.casefold()])
        out.append(tuple(row))
    missing = [name for key, name in known.items() if key not in seated]
    if missing:
        raise SeatingError(Text("{names} have no table.", names=", ".join(missing)))
    return tuple(out)


def by_standings(ranking: Sequence[str], variant_id: str, style: str = "together") -> Seating:
    """A later round from the standings, ``ranking`` best first, at :func:`table_sizes`:
    ``"together"`` seats the top players together (table 1 the first five of 14, table 2
    the next five, table 3 the last four); ``"spread"`` deals them out in snake order (1st
    to table 1, 2nd to 2, 3rd to 3, 4th to 3, 5th to 2, 6th to 1, 7th to 1, …, a full table
    skipped), so each table has a fair share of the strong. Within a table, in rank order.
    Raises :class:`SeatingError` (also for another ``style``)."""
    names = unique_names(ranking)
    sizes = table_sizes(len(names), variant_id)
    if style == "together":
        return deal_out(names, sizes)
    if style != "spread":
        raise SeatingError(Text("Seat a round \"together\" or \"spread\", not {style}.", style=repr(style)))
    tables: list[list[str]] = [[] for _ in sizes]
    order = list(range(len(sizes))) + list(range(len(sizes) - 1, -1, -1))
    step = 0
    for name in names:
        while len(tables[order[step % len(order)]]) >= sizes[order[step % len(order)]]:
            step += 1
        tables[order[step % len(order)]].append(name)
        step += 1
    return tuple(tuple(t) for t in tables)


def arrive(seating: Seating, player: str, variant_id: str) -> tuple[Seating, tuple[Move, ...]]:
    """A late arrival: seated at the smallest table with room (the first such table when
    two are as small), at its last seat; when every table is full, a new table is made of
    the arrival and players from the largest tables (one from each of the two largest,
    their last seats: a new table of 3, moves 3), none left below the floor. Returns the
    seating and the moves. Raises :class:`SeatingError` (a name already seated; no table can
    be made)."""
    low, high = bounds(variant_id)
    name = clean_text(player)
    if not name:
        raise SeatingError(Text("Every player needs a name."))
    already = next((p for t in seating for p in t if p.casefold() == name.casefold()), None)
    if already is not None:
        raise SeatingError(Text("{name} is already seated.", name=already))
    tables = [list(t) for t in seating]
    with_room = [i for i, t in enumerate(tables) if len(t) < high]
    if with_room:
        to = min(with_room, key=lambda i: (len(tables[i]), i))
        tables[to].append(name)
        return tuple(tuple(t) for t in tables), (Move(name, None, to),)
    new: list[str] = [name]
    moves = [Move(name, None, len(tables))]
    while len(new) < low:
        donor = max(range(len(tables)), key=lambda i: (len(tables[i]), -i))
        if len(tables[donor]) <= low:
            raise SeatingError(Text("{name} cannot be seated: no table has room, and a new one cannot be made.",
                                    name=name))
        moved = tables[donor].pop()
        new.insert(len(new) - 1, moved)  # the arrival takes the last seat
        moves.insert(len(moves) - 1, Move(moved, donor, len(tables)))
    tables.append(new)
    return tuple(tuple(t) for t in tables), tuple(moves)


def leave(seating: Seating, player: str, variant_id: str) -> tuple[Seating, tuple[Move, ...]]:
    """An early leaver taken off their table with the fewest moves: none while the table
    keeps its floor; else one player brought from the largest table that can spare one
    (the first such, its last seat); else the table is closed and its players go, one by
    one, to the smallest tables with room (an empty table is dropped; later tables move up
    one number). Returns the seating and the moves (the leaver's own first). Raises
    :class:`SeatingError` for a player not seated, or when those left cannot be seated."""
    low, high = bounds(variant_id)
    name = clean_text(player).casefold()
    tables = [list(t) for t in seating]
    at = next((i for i, t in enumerate(tables) if any(p.casefold() == name for p in t)), None)
    if at is None:
        raise SeatingError(Text("{name} is not seated.", name=clean_text(player)))
    gone = next(p for p in tables[at] if p.casefold() == name)
    tables[at].remove(gone)
    moves = [Move(gone, at, None)]
    if len(tables[at]) >= low:
        return tuple(tuple(t) for t in tables), tuple(moves)
    donors = [i for i, t in enumerate(tables) if i != at and len(t) > low]
    if donors:
        donor = max(donors, key=lambda i: (len(tables[i]), -i))
        moved = tables[donor].pop()
        tables[at].append(moved)
        moves.append(Move(moved, donor, at))
        return tuple(tuple(t) for t in tables), tuple(moves)
    left, rest = tables[at], tables[:at] + tables[at + 1:]
    if sum(high - len(t) for t in rest) < len(left) or not rest:
        raise SeatingError(Text("Without {name} the players left cannot be seated at tables of {low} to {high}.",
                                name=gone, low=low, high=high))
    for moved in left:
        to = min((i for i, t in enumerate(rest) if len(t) < high), key=lambda i: (len(rest[i]), i))
        rest[to].append(moved)
        moves.append(Move(moved, at, to))
    return tuple(tuple(t) for t in rest), tuple(moves)
