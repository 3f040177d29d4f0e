"""The ledger: the fold of an evening's rulings, hand after hand (pure Python).

Shapes: totals are tuples of units per seat (chips or points, the variant's unit);
money is units × stake in the currency's smallest unit. Nothing here stores
anything: the same facts always give the same ledger.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass

from .rules import POOL, EveningSetup, HandFacts, RulesError, Ruling, TableState, Variant, get_variant


class HandError(RulesError):
    """A hand of the evening that the rules refuse; ``number`` is its 1-based position."""

    def __init__(self, number: int, error: RulesError) -> None:
        super().__init__(f"Hand {number}: {error.message}", error.rule)
        self.number = number
        self.error = error


@dataclass(frozen=True)
class LedgerRow:
    """One hand in the ledger: its facts, its ruling, the running totals (units) and the
    pool after it, and how many hands counted towards the agreed end so far (P-14)."""

    number: int
    facts: HandFacts
    ruling: Ruling
    totals: tuple[int, ...]
    pool: int
    counted: int = 0


@dataclass(frozen=True)
class Ledger:
    """An evening settled so far.

    ``totals`` are units per seat; ``pool`` the units in the pool (0 for variants
    without one); ``next_dealer`` the seat to deal next and ``shuffle`` whether
    that dealer shuffles; ``hands_counted`` counts the hands that count towards the
    agreed end (P-14), ``hands_to_play`` is that agreed number or ``None``.
    """

    setup: EveningSetup
    variant: Variant
    rows: tuple[LedgerRow, ...]
    totals: tuple[int, ...]
    pool: int
    next_dealer: int
    shuffle: bool
    hands_counted: int
    hands_to_play: int | None

    @property
    def hands_remaining(self) -> int | None:
        """Counted hands still to play before the agreed end, or ``None`` if open-ended."""
        if self.hands_to_play is None:
            return None
        return max(0, self.hands_to_play - self.hands_counted)

    @property
    def end_reached(self) -> bool:
        """True once the agreed number of hands has been played (P-14, B-14) or a
        player has reached the target score (B-14)."""
        if self.hands_remaining == 0:
            return True
        target = self.variant.target_score(self.setup.options)
        return target is not None and bool(self.rows) and max(self.totals) >= target

    @property
    def winners(self) -> tuple[int, ...]:
        """Seats with the highest total; equal totals share the win (P-14)."""
        best = max(self.totals)
        return tuple(s for s, t in enumerate(self.totals) if t == best)

    @property
    def money_totals(self) -> tuple[int, ...] | None:
        """Totals in minor currency units, or ``None`` for a points-only evening."""
        if self.setup.stake is None:
            return None
        return tuple(t * self.setup.stake.minor for t in self.totals)


class Fold:
    """An evening folded hand by hand: the one fold every reader of an evening uses
    (:func:`settle_evening`, the evening file's reader, the services' checks).

    ``Fold(setup)`` starts the evening (the set-up is checked first:
    :class:`~scorer.rules.IllegalSetup`); :meth:`add` rules on the next hand with the
    state the hands before it left (the pool, the treasure, the dealer) and adds it;
    :meth:`ledger` is the evening so far. Units are the variant's (chips or points).
    """

    def __init__(self, setup: EveningSetup) -> None:
        variant = get_variant(setup.variant)
        self._begin(variant, variant.check_setup(setup))

    def _begin(self, variant: Variant, setup: EveningSetup) -> None:
        """The state before the first hand, for a set-up already checked."""
        self.variant = variant
        self.setup = setup
        self.totals = [0] * self.setup.n
        self.pool = 0
        self.counted = 0
        self.rows: list[LedgerRow] = []
        self.next_dealer = self.setup.first_dealer
        self.shuffle = True  # P-4: the cards are shuffled at the start of play
        self.state = TableState()

    @classmethod
    def resume(cls, ledger: Ledger, keep: int | None = None) -> Fold:
        """A fold that goes on from the first ``keep`` hands of ``ledger`` (all of them by
        default): the state those hands left (totals, pool, treasure, dealer, shuffle,
        counted hands) is taken from their rows, so nothing before hand ``keep + 1`` is
        ruled on again, and :meth:`add` rules on the next hand exactly as a fold from the
        start would. ``ledger`` is not changed (its rows are shared, never altered).

        This is what lets a stored evening settle only what changed: a new hand is one
        :meth:`add`, a correction of hand ``k`` resumes from ``keep = k − 1``. Raises
        ``ValueError`` if ``keep`` is not between 0 and the ledger's number of hands.
        """
        count = len(ledger.rows) if keep is None else keep
        if not 0 <= count <= len(ledger.rows):
            raise ValueError(f"cannot keep {count} of {len(ledger.rows)} hands")
        fold = cls.__new__(cls)
        fold._begin(ledger.variant, ledger.setup)  # the set-up was checked when the ledger began
        fold.rows = list(ledger.rows[:count])
        if fold.rows:
            last = fold.rows[-1]
            fold.totals = list(last.totals)
            fold.pool = last.pool
            fold.counted = last.counted
            fold.next_dealer = last.ruling.next_dealer
            fold.shuffle = last.ruling.shuffle
            fold.state = last.ruling.state_after
        return fold

    def add(self, facts: HandFacts) -> LedgerRow:
        """Rule on ``facts`` as the next hand and fold it in; returns its row.

        Raises :class:`HandError` (with the hand's number) if the rules refuse it; the
        fold is then unchanged. Does not check the agreed end (see :meth:`ledger`).
        """
        number = len(self.rows) + 1
        try:
            ruling = self.variant.settle(facts, self.setup, self.state)
        except RulesError as error:
            raise HandError(number, error) from error
        self.state = ruling.state_after
        for seat, units in enumerate(ruling.units):
            self.totals[seat] += units
        self.pool += ruling.pool
        self.counted += ruling.counts
        self.next_dealer = ruling.next_dealer
        self.shuffle = ruling.shuffle
        row = LedgerRow(number, facts, ruling, tuple(self.totals), self.pool, self.counted)
        self.rows.append(row)
        return row

    def ledger(self) -> Ledger:
        """The evening as folded so far."""
        return Ledger(
            setup=self.setup,
            variant=self.variant,
            rows=tuple(self.rows),
            totals=tuple(self.totals),
            pool=self.pool,
            next_dealer=self.next_dealer,
            shuffle=self.shuffle,
            hands_counted=self.counted,
            hands_to_play=self.variant.hands_to_play(self.setup),
        )


def settle_evening(setup: EveningSetup, hands: Sequence[HandFacts]) -> Ledger:
    """Settle every hand of an evening in order and fold the rulings into totals.

    Raises :class:`~scorer.rules.IllegalSetup` for a bad set-up and
    :class:`HandError` (with the hand's number) for the first hand the rules refuse.
    """
    fold = Fold(setup)
    for facts in hands:
        fold.add(facts)
    return fold.ledger()


@dataclass(frozen=True)
class Payment:
    """One payment of the settle-up: ``payer`` pays ``payee`` ``amount`` units. Each is a
    seat, or :data:`~scorer.rules.POOL` for chips that stay in the pool (kept for
    another evening, or the remainder of an equal share)."""

    payer: int | str
    payee: int | str
    amount: int


@dataclass(frozen=True)
class SettleUp:
    """The end of an evening: what each seat is owed or owes (``balances``, units),
    including its share of the pool when the table shares it (H-16, adopted), the
    chips left in the pool (``pool_left``: all of it when the table leaves it, or
    the remainder that does not divide equally), and the ``payments`` that clear
    every balance."""

    balances: tuple[int, ...]
    pool_share: int
    pool_left: int
    payments: tuple[Payment, ...]


def settle_up(ledger: Ledger) -> SettleUp:
    """Who pays whom how much, in as few payments as possible.

    The pool is shared equally when the variant's option says so (``pool_at_end``
    ``"share"``; a remainder smaller than the number of players stays in it), and
    whatever stays in the pool is paid into it by the players who owe. The fewest
    payments that clear the balances are ``parties − g``, where ``g`` is the largest
    number of groups of parties whose balances sum to zero; with at most six players
    and the pool every grouping is tried. At most ``n − 1`` payments when the pool
    is empty.
    """
    n = ledger.setup.n
    share, left = 0, ledger.pool
    if ledger.pool > 0 and ledger.variant.pool_at_end(ledger.setup.options) == "share":
        share, left = divmod(ledger.pool, n)
    balances = tuple(t + share for t in ledger.totals)
    parties = balances + (left,)  # the pool is the last party: it keeps what is left in it
    payments: list[Payment] = []
    for group in _zero_sum_groups(parties):
        for p in _settle_group(parties, group):
            payments.append(Payment(*(POOL if x == n else x for x in (p.payer, p.payee)), p.amount))
    return SettleUp(balances, share, left, tuple(payments))


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


def statistics(ledger: Ledger) -> tuple[PlayerStats, ...]:
    """Per-player statistics of the evening, in seat order (one pass over the hands)."""
    n = ledger.setup.n
    rulings = [row.ruling for row in ledger.rows]
    dealt = Counter(r.dealer for r in rulings)
    declared = Counter(r.declarer for r in rulings)
    made = [r for r in rulings if r.declarer is not None and r.result.value == "made"]
    naps = Counter(r.declarer for r in made if r.contract is not None and r.contract.tricks == 5)
    made_by = Counter(r.declarer for r in made)
    columns = list(zip(*(r.units for r in rulings), strict=True)) or [()] * n
    claims = [c for r in rulings for c in r.claims]
    claims_made = Counter(c.by for c in claims)
    against = Counter(c.accused for c in claims if c.upheld)
    return tuple(PlayerStats(dealt=dealt[s], declared=declared[s], made=made_by[s], naps=naps[s],
                             biggest_gain=max((0, *columns[s])), biggest_loss=min((0, *columns[s])),
                             claims_made=claims_made[s], claims_upheld_against=against[s])
                 for s in range(n))
