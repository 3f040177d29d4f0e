"""P-14, the agreed end point of a ``pagat`` evening, counted per player (pure Python).

Source: ``shared/seeds/002_8f87c281debb8ca7.txt``, «Avtal sluttpunkt som husregel»:
«Avtal derfor før start hvor mange utdelinger hver spiller skal gi» — the table agrees
how many deals *each player* gives. The evening ends after the first hand at which
every player who deals has dealt that many *counted* hands (a misdeal never counts; a
hand where everyone passed counts only if the table said so). A player whose deal was
passed out therefore deals again when the deal comes round, and nobody deals fewer.

The functions take the hands as ``(dealer seat, counted)`` pairs and the seats that
deal in clockwise order, so a table whose players change mid-evening can feed them
the seats actually dealing.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Mapping, Sequence


def deals_owed(hands: Iterable[tuple[int, bool]], dealers: Sequence[int], per_dealer: int) -> dict[int, int]:
    """Counted deals each seat of ``dealers`` still owes (P-14): ``per_dealer`` less the
    hands it dealt that counted, never below 0. ``{seat: deals}`` in ``dealers`` order.

    >>> deals_owed([(0, True), (1, False), (2, True), (0, True)], [0, 1, 2], 1)
    {0: 0, 1: 1, 2: 0}
    """
    counted = Counter(dealer for dealer, counts in hands if counts)
    return {seat: max(0, per_dealer - counted[seat]) for seat in dealers}


def hands_to_end(owed: Mapping[int, int], dealers: Sequence[int], next_dealer: int) -> int:
    """The fewest further hands before the agreed end (P-14): the deal goes round
    ``dealers`` (clockwise) from ``next_dealer``, every hand counting, until no seat owes
    a deal. More are needed if hands are passed out and do not count. 0 when nobody owes.
    A ``next_dealer`` not among ``dealers`` starts the round at the first of them.

    >>> hands_to_end({0: 0, 1: 1, 2: 0}, [0, 1, 2], 1)
    1
    >>> hands_to_end({0: 2, 1: 1}, [0, 1], 0)  # A, B, A
    3
    """
    most = max(owed.values(), default=0)
    if most == 0:
        return 0
    start = dealers.index(next_dealer) if next_dealer in dealers else 0
    order = list(dealers[start:]) + list(dealers[:start])
    last = max(i for i, seat in enumerate(order) if owed.get(seat, 0) == most)
    return (most - 1) * len(order) + last + 1
