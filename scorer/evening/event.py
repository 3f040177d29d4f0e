"""A club night (an event, issue 22 item 1) in pure Python: what every table of it plays,
the tables' set-ups made from it, and its record, chained like an evening's (item 6).

An event has one rule set, one set of options and one stake for all its tables (a table
may not change them: :func:`check_table`), its players, a number of rounds and a length for
each round: a number of hands a table (``"hands"``), the pagat end point (``"end_point"``,
P-14: every player has dealt the agreed hands) or a time (``"minutes"``). Each table of a
round is an evening of its own, scored as any evening; the event keeps the seatings
(:mod:`scorer.evening.seating`) and each table's result, and its standings are worked out
from the tables' ledgers (:mod:`scorer.evening.standings`).

The event's record (:func:`event_record`) chains its set-up, each round's seating (with
the seed of a draw), each late arrival and early leaver, and each table's evening as it
finished (the last link of that evening's record: its every hand), then the event's
finish, by SHA-256 as :mod:`scorer.evening.chain` does; its fingerprint is read as an
evening's is.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from ..rules import EveningSetup, RulesError, Stake, Text, get_variant
from ..rules.options import resolve_options
from . import chain
from .seating import CLUB_FLOOR, Move, Seating, SeatingError, unique_names

#: How a round ends: a number of hands at each table, the pagat end point (P-14), a time.
LENGTHS = ("hands", "end_point", "minutes")
MAX_ROUNDS = 20


class EventError(RulesError):
    """An event's set-up, or a table of it, that cannot be."""


@dataclass(frozen=True)
class EventSetup:
    """What a club night agreed: ``variant``, resolved ``options`` and ``stake`` (``None``:
    points) for every table; ``players`` (names, unique ignoring case); ``rounds``; each
    round's ``length`` (one of :data:`LENGTHS`) and its ``amount`` (hands, or minutes;
    ``None`` for the end point)."""

    variant: str
    players: tuple[str, ...]
    rounds: int
    length: str
    amount: int | None
    options: Mapping[str, Any] = field(default_factory=dict)
    stake: Stake | None = None


def check_event(setup: EventSetup) -> EventSetup:
    """``setup`` with its options resolved and names cleaned. Raises :class:`EventError`:
    an unknown rule set, options or a stake the rule set refuses, a player named twice,
    fewer players than a table needs, rounds outside 1–20, a length that is not one of
    :data:`LENGTHS` or the end point for a rule set without one (P-14 is pagat's)."""
    try:
        variant = get_variant(setup.variant)
    except (KeyError, ValueError):
        raise EventError(Text("{variant} is not a rule set this app knows.", variant=repr(setup.variant))) from None
    options = resolve_options(variant.option_specs, setup.options)  # raises IllegalSetup, a RulesError
    if variant.points_only and setup.stake is not None:
        raise EventError(Text("{name} is scored in points; it has no money stake.", name=variant.name),
                         variant.rule_settle)
    try:
        players = tuple(unique_names(setup.players))
    except SeatingError as error:
        raise EventError(error.message) from None
    if len(players) < max(CLUB_FLOOR, variant.min_players):
        raise EventError(Text("A table of {name} needs at least {low} players; there are {n}.", name=variant.name,
                              low=max(CLUB_FLOOR, variant.min_players), n=len(players)), variant.rule_players)
    if not 1 <= setup.rounds <= MAX_ROUNDS:
        raise EventError(Text("An event has 1 to {most} rounds, not {n}.", most=MAX_ROUNDS, n=setup.rounds))
    if setup.length not in LENGTHS:
        raise EventError(Text("A round lasts a number of hands, the agreed end point or a time, not {length}.",
                              length=repr(setup.length)))
    if setup.length == "end_point" and variant.deals_each(EveningSetup(setup.variant, ("a", "b", "c"), 0, options)) \
            is None:
        raise EventError(Text("{name} has no agreed end point; give a number of hands or a time.", name=variant.name))
    if setup.length != "end_point" and not (isinstance(setup.amount, int) and 1 <= setup.amount <= 500):
        raise EventError(Text("A round lasts 1 to 500 hands or minutes."))
    amount = None if setup.length == "end_point" else setup.amount
    return EventSetup(setup.variant, players, setup.rounds, setup.length, amount, options, setup.stake)


def table_setup(event: EventSetup, table: Sequence[str], first_dealer: int = 0) -> EveningSetup:
    """The evening set-up of one table of ``event``: its rule set, options and stake, the
    table's players in seat order. Raises what the rule set's ``check_setup`` raises."""
    variant = get_variant(event.variant)
    return variant.check_setup(EveningSetup(event.variant, tuple(table), first_dealer, dict(event.options),
                                            event.stake))


def check_table(event: EventSetup, setup: EveningSetup) -> None:
    """Refuse (:class:`EventError`) a table whose rule set, options or stake are not the
    event's: a table may not change them."""
    variant = get_variant(event.variant)
    if setup.variant != event.variant:
        raise EventError(Text("Every table of this event plays {name}.", name=variant.name))
    if dict(resolve_options(variant.option_specs, setup.options)) != dict(event.options):
        raise EventError(Text("Every table of this event plays the event's options; a table may not change them."))
    if setup.stake != event.stake:
        raise EventError(Text("Every table of this event plays for the event's stake; a table may not change it."))


# --------------------------------------------------------------------------- the record
def setup_change(event: EventSetup) -> chain.Change:
    """Change 0 of an event's record: its set-up."""
    stake = None if event.stake is None else {"minor": event.stake.minor, "currency": event.stake.currency}
    return chain.Change("setup", None, {
        "scheme": "nap-event/1", "variant": event.variant, "options": dict(event.options), "stake": stake,
        "players": list(event.players), "rounds": event.rounds, "length": event.length, "amount": event.amount,
    })


def seating_change(round_number: int, seating: Seating, how: str, seed: int | str | None = None) -> chain.Change:
    """A round's seating: ``how`` it was made (``"draw"`` with its ``seed``, ``"typed"``,
    ``"together"``, ``"spread"``)."""
    return chain.Change("seating", round_number, {"round": round_number, "tables": [list(t) for t in seating],
                                                  "how": how, "seed": seed})


def moves_change(round_number: int, moves: Sequence[Move]) -> chain.Change:
    """A late arrival or an early leaver placed during round ``round_number``."""
    return chain.Change("moves", round_number, {"round": round_number, "moves": [
        {"player": m.player, "from": m.from_table, "to": m.to_table} for m in moves]})


def table_change(round_number: int, table: int, last_link: bytes) -> chain.Change:
    """Table ``table`` (0-based) of round ``round_number`` finished: its evening's record,
    by its last link (every hand of it)."""
    return chain.Change("table", round_number, {"round": round_number, "table": table, "evening": last_link.hex()})


def event_record(event: EventSetup, changes: Sequence[chain.Change], finished: bool = False) -> list[chain.Change]:
    """The event's record: its set-up, ``changes`` in the order they happened (seatings,
    moves, tables finished), then the finish."""
    return [setup_change(event), *changes, *((chain.FINISHED,) if finished else ())]
