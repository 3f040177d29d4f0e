"""The common hand as quick entry records it — a declarer and a contract, everyone else
passing (or everyone passing) — made into the hand's auction, in one place for the
quick-entry page and the JSON commands' ``lone_bid`` (:meth:`Variant.lone_bid_auction`),
with one set of messages: the engine's."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from ..rules import RulesError, Text
from .ledger import Ledger, table_ledger


def lone_bid_auction(ledger: Ledger, seated: Sequence[int], dealer: int, declarer: int | None,
                     contract: str | None, earlier: Mapping[str, int] | None = None) -> tuple[str, ...]:
    """The auction of a hand dealt by ``dealer`` in which ``declarer`` bid ``contract`` and
    everyone else passed (``declarer`` ``None``: everyone passed), among the players
    ``seated`` for the hand (all of them when empty), in the variant's speaking order.
    ``earlier`` names who bid the overcalled bids before a Wellington or Blücher (P-7,
    H-7): bid id → seat. Seats are the evening's. Raises :class:`~scorer.rules.RulesError`
    for someone not at the table and whatever the variant refuses (with its rule)."""
    seated = tuple(seated) or tuple(range(ledger.setup.n))
    local = {seat: i for i, seat in enumerate(seated)}
    earlier = dict(earlier or {})
    for seat in (dealer, declarer, *earlier.values()):
        if seat is not None and seat not in local:
            raise RulesError(Text("{name} is not at the table for this hand.", name=ledger.setup.players[seat]))
    table = table_ledger(ledger, seated)
    return ledger.variant.lone_bid_auction(table.setup, local[dealer], None if declarer is None else local[declarer],
                                           contract, {bid: local[seat] for bid, seat in earlier.items()})
