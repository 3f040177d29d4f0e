"""The end of an evening, from its ledger (pure Python): the settle-up — who pays whom
how much, in as few payments as possible, with the pool shared or kept — and each
player's statistics (hands dealt, contracts declared and made, the biggest swings,
claims)."""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass

from ..rules import POOL
from .ledger import Ledger


@dataclass(frozen=True)
class Payment:
    """One payment of the settle-up: ``payer`` pays ``payee`` ``amount`` (in the
    settle-up's unit: see :class:`SettleUp`). Each is a seat, or
    :data:`~scorer.rules.POOL` for chips paid into a pool the table leaves unsettled."""

    payer: int | str
    payee: int | str
    amount: int


@dataclass(frozen=True)
class SettleUp:
    """The end of an evening: what each seat is owed or owes (``balances``), including
    its share of the pool when the table shares it, the pool's ``pool_share`` each and
    what stays in it (``pool_left``: all of it when the table leaves it, else 0), and the
    ``payments`` that clear every balance.

    Every figure is in the settle-up's unit: the currency's smallest unit (pence,
    kopecks, centavos) when ``money`` is true (a money evening is settled in money, to
    the penny), else the variant's units (chips). ``odd`` lists the seats that received
    one more smallest unit than the others because the pool did not divide equally.
    """

    balances: tuple[int, ...]
    pool_share: int
    pool_left: int
    payments: tuple[Payment, ...]
    money: bool = False
    odd: tuple[int, ...] = ()


def settle_up(ledger: Ledger) -> SettleUp:
    """Who pays whom how much, in as few payments as possible.

    A money evening is settled in the currency's smallest unit, an evening without a
    stake in units. When the table shares the pool (``pool_at_end`` ``"share"``: H-16
    adopted; the treasure, R-2 adopted) it is shared equally in that unit among the
    players seated at the end, and nothing is owed to it: the last smallest units that
    do not divide equally (fewer than the players seated) go one each to them in dealing
    order from the next dealer. Adopted readings: Peel, *Round Games with Cards* (1891),
    has a pool left at the end «divided equally or drawn for»
    (shared/rules/other-sources.md): divided equally to the penny, and the deal's turn
    stands in for the draw of the odd pennies; the source is silent on players who left,
    and a player who left took no part in the pool's last hands (issue 12). When the
    table leaves the pool, the players who owe pay what it holds into it.

    The fewest payments that clear the balances are ``parties − g``, where ``g`` is the
    largest number of groups of parties whose balances sum to zero; with at most six
    players and the pool every grouping is tried. At most ``n − 1`` payments when
    nothing is paid into the pool.
    """
    n = ledger.setup.n
    seated = ledger.seated or tuple(range(n))
    stake = ledger.setup.stake
    scale = stake.minor if stake is not None else 1
    pool = ledger.pool * scale
    share, left, odd = 0, pool, ()
    if ledger.pool > 0 and ledger.variant.pool_at_end(ledger.setup.options) == "share":
        share, rest = divmod(pool, len(seated))
        start = seated.index(ledger.next_dealer) if ledger.next_dealer in seated else 0
        odd = tuple(seated[(start + i) % len(seated)] for i in range(rest))
        left = 0
    balances = tuple(t * scale + (share if s in seated else 0) + (s in odd) for s, t in enumerate(ledger.totals))
    parties = balances + (left,)  # the pool is the last party: it keeps what is left in it
    payments: list[Payment] = []
    for group in _zero_sum_groups(parties):
        for p in _settle_group(parties, group):
            payments.append(Payment(*(POOL if x == n else x for x in (p.payer, p.payee)), p.amount))
    return SettleUp(balances, share, left, tuple(payments), money=stake is not None, odd=odd)


def _zero_sum_groups(balances: tuple[int, ...]) -> list[list[int]]:
    """Split the seats with a non-zero balance into the most groups that each sum to zero."""
    seats = [s for s, b in enumerate(balances) if b]
    full = (1 << len(seats)) - 1
    total = {0: 0}
    for mask in range(1, full + 1):
        low = mask & -mask
        total[mask] = total[mask ^ low] + balances[seats[low.bit_length() - 1]]
    best: dict[int, tuple[int, list[int]]] = {0: (0, [])}
    for mask in range(1, full + 1):
        if total[mask] != 0:
            continue
        low = mask & -mask
        choice: tuple[int, list[int]] = (1, [mask])
        sub = mask
        while sub:
            if sub & low and sub != mask and total[sub] == 0 and (mask ^ sub) in best:
                count, parts = best[mask ^ sub]
                if count + 1 > choice[0]:
                    choice = (count + 1, parts + [sub])
            sub = (sub - 1) & mask
        best[mask] = choice
    if full == 0:
        return []
    parts = best[full][1] if full in best else [full]
    return [[seats[i] for i in range(len(seats)) if part >> i & 1] for part in parts]


def _settle_group(balances: tuple[int, ...], group: list[int]) -> list[Payment]:
    """Clear one zero-sum group with ``len(group) − 1`` payments or fewer: the biggest
    debtor pays the biggest creditor as much as one of them can settle."""
    owed = {s: balances[s] for s in group}
    payments = []
    while any(owed.values()):
        debtor = min(owed, key=lambda s: (owed[s], s))
        creditor = max(owed, key=lambda s: (owed[s], -s))
        amount = min(-owed[debtor], owed[creditor])
        payments.append(Payment(debtor, creditor, amount))
        owed[debtor] += amount
        owed[creditor] -= amount
    return payments


@dataclass(frozen=True)
class PlayerStats:
    """One player's evening: ``dealt`` hands dealt (misdeals included), contracts
    ``declared`` and ``made``, Naps and higher made (``naps``), the biggest gain and
    loss in one hand (units), claims made (``claims_made``) and claims upheld against
    the player (``claims_upheld_against``)."""

    dealt: int
    declared: int
    made: int
    naps: int
    biggest_gain: int
    biggest_loss: int
    claims_made: int
    claims_upheld_against: int

    @property
    def made_share(self) -> int | None:
        """Contracts made as a whole percentage of those declared, or ``None``."""
        return None if not self.declared else (100 * self.made + self.declared // 2) // self.declared


def statistics(ledger: Ledger, start: int = 0, stop: int | None = None,
               before: tuple[PlayerStats, ...] | None = None) -> tuple[PlayerStats, ...]:
    """Per-player statistics of the evening, in seat order (one pass over the hands): of
    ``ledger.rows[start:stop]`` added to ``before``, the statistics of the hands before
    ``start`` (so that a view can keep them and add only the hands that are new)."""
    n = ledger.setup.n
    rulings = [row.ruling for row in ledger.rows[start:stop]]
    dealt = Counter(r.dealer for r in rulings)
    declared = Counter(r.declarer for r in rulings)
    made = [r for r in rulings if r.declarer is not None and r.result.value == "made"]
    naps = Counter(r.declarer for r in made if r.contract is not None and r.contract.tricks == 5)
    made_by = Counter(r.declarer for r in made)
    columns = list(zip(*(r.units for r in rulings), strict=True)) or [()] * n
    claims = [c for r in rulings for c in r.claims]
    claims_made = Counter(c.by for c in claims)
    against = Counter(c.accused for c in claims if c.upheld)
    earlier = before or (PlayerStats(0, 0, 0, 0, 0, 0, 0, 0),) * n
    return tuple(PlayerStats(dealt=e.dealt + dealt[s], declared=e.declared + declared[s], made=e.made + made_by[s],
                             naps=e.naps + naps[s], biggest_gain=max((e.biggest_gain, *columns[s])),
                             biggest_loss=min((e.biggest_loss, *columns[s])),
                             claims_made=e.claims_made + claims_made[s],
                             claims_upheld_against=e.claims_upheld_against + against[s])
                 for s, e in enumerate(earlier))
