"""A stored evening's record fingerprint (issue 22 item 6, :mod:`scorer.evening.chain`),
worked out from the stored facts on each read, never stored: so every process and both
databases show the same. A kept ledger's links are kept with it (one link a hand, the
last one of each revision: :meth:`~scorer.storage.kept_ledgers.Settled.running`), so a
new hand costs one hash and a correction of hand ``k`` rehashes from ``k``."""

from __future__ import annotations

from ..evening import chain
from .kept_ledgers import Settled, resumable


def record_of(found: Settled) -> tuple[str, int]:
    """``(fingerprint, number of changes)`` of the evening ``found``: the same as the
    evening file exported at that revision carries (:func:`scorer.evening.file.dump`)."""
    ledger, head = found.ledger, found.head
    draw = tuple(head.draw or ())
    finished = head.finished_at is not None
    if not resumable(ledger):  # changes of seats: the whole record, every time (as the ledger is)
        return chain.summary(chain.of_ledger(ledger, draw=draw, finished=finished))
    seats = chain.Seats(ledger.setup)
    setup = chain.setup_change(ledger.setup, seats, draw)

    def fold(before: bytes | None, start: int, stop: int) -> bytes:
        last = before if before is not None else chain.link(chain.GENESIS, setup)
        for row in ledger.rows[start:stop]:
            last = chain.link(last, chain.hand_change(row.number, row.facts, seats))
        return last

    last = found.running(("record", draw), fold)
    count = 1 + len(ledger.rows)
    if finished:
        last, count = chain.link(last, chain.FINISHED), count + 1
    return chain.fingerprint(last), count
