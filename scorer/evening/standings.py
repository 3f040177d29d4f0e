"""One ranking for a club night across its tables (issue 22 item 3; pure Python).

Worked out from the tables' ledgers (:class:`~scorer.evening.ledger.Ledger`) every time,
never stored. A player is known by name across tables (capitals, spaces and accents typed
two ways do not matter, as at a table). By points (the variant's units: chips or points)
when the night plays for points, by money (units × stake, in the currency's smallest unit)
when it plays for money; never the two mixed, and never tables of different rule sets or
stakes (as the season does).

The tie-break, in order: the higher total; then more contracts made as declarer; then
more tables won (a table is won by the highest total there, equal totals sharing it,
P-14); players equal on all three share a place, and the next place counts them (1, 2,
2, 4).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from ..rules import Result, RulesError, Text, clean_text
from .ledger import Ledger

#: The tie-break, said once (the room screen and the PDF show it).
TIE_BREAK = Text("Ties are broken by contracts made as declarer, then by tables won; players equal on all three "
                 "share the place.")


class StandingsError(RulesError):
    """Tables that cannot be ranked together (points and money, two stakes, two rule sets)."""


@dataclass(frozen=True)
class Standing:
    """One player's line: ``place`` (1-based, shared by equals), ``name``, ``total`` (units,
    or the currency's smallest unit when ``money``), ``made`` contracts made as declarer,
    ``won`` tables won, ``tables`` tables played, ``hands`` hands played at them."""

    place: int
    name: str
    total: int
    made: int
    won: int
    tables: int
    hands: int


@dataclass(frozen=True)
class Standings:
    """The ranking: ``rows`` best first; ``money`` whether totals are money (then
    ``currency`` labels them), else units of ``variant``."""

    rows: tuple[Standing, ...]
    money: bool
    variant: str | None
    currency: str = ""


def _same_play(ledgers: Sequence[Ledger]) -> tuple[bool, str | None, str]:
    """``(money, variant, currency)`` of tables that may be ranked together; raises
    :class:`StandingsError`."""
    variants = {ledger.setup.variant for ledger in ledgers}
    if len(variants) > 1:
        raise StandingsError(Text("These tables play different rule sets ({variants}); they are ranked apart.",
                                  variants=", ".join(sorted(variants))))
    stakes = {ledger.setup.stake for ledger in ledgers}
    if None in stakes and len(stakes) > 1:
        raise StandingsError(Text("Some of these tables play for money and some for points; money and points are "
                                  "never added together."))
    if len(stakes) > 1:
        raise StandingsError(Text("These tables play for different stakes; they are ranked apart."))
    stake = next(iter(stakes), None)
    return stake is not None, next(iter(variants), None), "" if stake is None else stake.currency


def standings(ledgers: Sequence[Ledger]) -> Standings:
    """The night's ranking from its tables' ledgers (see the module's tie-break).
    A table with no hands yet counts for nobody's tables won. Raises
    :class:`StandingsError` for tables that cannot be ranked together."""
    money, variant, currency = _same_play(ledgers)
    lines: dict[str, list[int]] = {}  # key → [total, made, won, tables, hands]
    names: dict[str, str] = {}
    for ledger in ledgers:
        setup = ledger.setup
        totals = ledger.money_totals if money and ledger.money_totals is not None else ledger.totals
        winners = set(ledger.winners) if ledger.rows else set()
        for seat, raw in enumerate(setup.players):
            key = clean_text(raw).casefold()
            names.setdefault(key, raw)
            line = lines.setdefault(key, [0, 0, 0, 0, 0])
            line[0] += totals[seat]
            line[1] += sum(1 for row in ledger.rows
                           if row.ruling.declarer == seat and row.ruling.result is Result.MADE)
            line[2] += seat in winners
            line[3] += 1
            line[4] += sum(1 for row in ledger.rows if not row.seated or seat in row.seated)
    order = sorted(lines, key=lambda k: (-lines[k][0], -lines[k][1], -lines[k][2], names[k].casefold()))
    rows: list[Standing] = []
    for i, key in enumerate(order):
        total, made, won, tables, hands = lines[key]
        tied = rows and (rows[-1].total, rows[-1].made, rows[-1].won) == (total, made, won)
        place = rows[-1].place if tied else i + 1
        rows.append(Standing(place, names[key], total, made, won, tables, hands))
    return Standings(tuple(rows), money, variant, currency)
