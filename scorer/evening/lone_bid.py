"""The common hand as quick entry records it — a declarer and a contract, everyone else
passing (or everyone passing) — made into the hand's auction, in one place for the
quick-entry page and the JSON commands' ``lone_bid`` (:meth:`Variant.lone_bid_auction`),
with one set of messages: the engine's."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from ..rules import RulesError, Text
from .file import EveningFileError, seat_reader
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


def lone_bid_hand(data: dict[str, Any], ledger: Ledger, dealer: int, seated: Sequence[int]) -> dict[str, Any]:
    """The common hand as quick entry sends it (``"lone_bid": {"declarer", "contract"}``,
    both ``null`` when everyone passed) made into the evening file's hand: the auction
    is the variant's own (:meth:`Variant.lone_bid_auction`: the declarer's bid, everyone
    else passing, in the variant's speaking order from ``dealer`` or the hand's dealer,
    among the players ``seated`` for the hand). The JSON commands (scorer/web/views/api.py)
    and the phone's provisional rulings (:mod:`scorer.evening.provisional`) both read it here.
    Raises :class:`~scorer.evening.file.EveningFileError` and :class:`~scorer.rules.RulesError`."""
    lone = data["lone_bid"]
    if ("auction" in data or not isinstance(lone, dict) or set(lone) - {"declarer", "contract", "nap", "wellington"}
            or (lone.get("declarer") is None) != (lone.get("contract") is None)
            or not isinstance(lone.get("contract"), str | None)):
        raise EveningFileError(Text("lone_bid must name the declarer and the contract (both null: everyone passed), "
                                    "and the hand then has no auction."))
    names = ledger.setup.players
    seat_of = seat_reader(names)
    if "dealer" in data:
        dealer = seat_of(data["dealer"], "facts.dealer")
    declarer = None if lone.get("declarer") is None else seat_of(lone["declarer"], "facts.lone_bid.declarer")
    # a Wellington or Blücher names who bid Nap (and Wellington) before it (P-7, H-7)
    earlier = {bid: seat_of(lone[bid], f"facts.lone_bid.{bid}") for bid in ("nap", "wellington") if bid in lone}
    auction = lone_bid_auction(ledger, seated, dealer, declarer, lone.get("contract"), earlier)
    hand = {k: v for k, v in data.items() if k != "lone_bid"}
    hand.update(dealer=names[dealer], auction=list(auction))
    return hand
