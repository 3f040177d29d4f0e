"""A hand as the table that played it saw it (issue 12): only the players seated for
it, numbered ``0…`` clockwise, and how its record of play is read (pure Python)."""

from __future__ import annotations

import dataclasses

from ..rules.play import PlayRules
from .ledger import Ledger, LedgerRow, table_ledger, to_table


def play_rules(ledger: Ledger, row: LedgerRow) -> PlayRules:
    """How the record of play of hand ``row`` is read (its declarer, contract, the
    variant's pack and trump rules, and the cards a player held after an upheld
    wrong-cards claim). The hand must have a declarer. Seats are those of the table that
    played the hand (:func:`table_row`: the players seated for it, ``0…``)."""
    ledger, row = table_row(ledger, row)
    setup, variant, r = ledger.setup, ledger.variant, row.ruling
    assert r.declarer is not None and r.contract is not None
    held = {c.accused: c.cards_held for c in row.facts.claims
            if c.upheld and c.kind == "wrong_cards" and c.cards_held is not None}
    return PlayRules(setup.n, r.declarer, r.contract.tricks, pack_size=variant.pack_size,
                     named_trump=row.facts.trump if variant.names_trump else None, must_trump=variant.must_trump,
                     misere=r.contract.id == "misere", held=held)


def table_row(ledger: Ledger, row: LedgerRow) -> tuple[Ledger, LedgerRow]:
    """The ledger and hand ``row`` as the table that played it sees them (issue 12): only
    the players seated for it, numbered ``0…`` clockwise (:func:`~scorer.evening.ledger.table_ledger`);
    both unchanged when everyone was seated."""
    seated = row.seated or tuple(range(ledger.setup.n))
    if seated == tuple(range(ledger.setup.n)):
        return ledger, row
    local = {seat: i for i, seat in enumerate(seated)}
    facts = to_table(row.facts, seated, ledger.setup.players)
    r = row.ruling
    ruling = dataclasses.replace(
        r, dealer=local[r.dealer], declarer=None if r.declarer is None else local[r.declarer],
        units=tuple(r.units[s] for s in seated),
        claims=tuple(dataclasses.replace(c, accused=local[c.accused], by=None if c.by is None else local[c.by])
                     for c in r.claims),
        next_dealer=local.get(r.next_dealer, 0),
        overruled=None if r.overruled is None else (tuple(r.overruled[0][s] for s in seated), r.overruled[1]))
    return table_ledger(ledger, seated), dataclasses.replace(
        row, facts=facts, ruling=ruling, totals=tuple(row.totals[s] for s in seated), seated=tuple(local.values()))
