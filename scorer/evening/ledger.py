"""The ledger: the fold of an evening's rulings, hand after hand (pure Python).

Shapes: totals are tuples of units per seat (chips or points, the variant's unit);
money is units × stake in the currency's smallest unit. Nothing here stores
anything: the same facts always give the same ledger.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence
from dataclasses import dataclass

from ..rules import (
    Claim,
    EveningSetup,
    HandFacts,
    IllegalFacts,
    IllegalSetup,
    RulesError,
    Ruling,
    SeatChange,
    TableState,
    Text,
    Variant,
    get_variant,
)
from ..rules.endpoint import deals_owed, hands_to_end


class HandError(RulesError):
    """A hand of the evening that the rules refuse; ``number`` is its 1-based position."""

    def __init__(self, number: int, error: RulesError) -> None:
        super().__init__(f"Hand {number}: {error.message}", error.rule)
        self.number = number
        self.error = error


@dataclass(frozen=True)
class LedgerRow:
    """One hand in the ledger: its facts, its ruling, the running totals (units) and the
    pool after it, and how many hands counted towards the agreed end so far (P-14).

    ``seated`` are the seats that played the hand, clockwise from seat order (issue 12):
    the hand was ruled as if only they were at the table (P-14's count of deals per
    player can be fed from it)."""

    number: int
    facts: HandFacts
    ruling: Ruling
    totals: tuple[int, ...]
    pool: int
    seated: tuple[int, ...] = ()
    counted: int = 0


@dataclass(frozen=True)
class Ledger:
    """An evening settled so far.

    ``totals`` are units per seat; ``pool`` the units in the pool (0 for variants
    without one); ``next_dealer`` the seat to deal next and ``shuffle`` whether
    that dealer shuffles; ``hands_counted`` counts the hands that count towards the
    agreed end, ``hands_to_play`` is the agreed number of hands (B-14) or ``None``;
    ``deals_owed`` is, per seat, the counted deals still owed before the agreed end
    (P-14, counted per player among those seated: :mod:`scorer.rules.endpoint`) or ``None``.
    ``seated`` are the seats at the table now, clockwise (everyone in ``setup.players``
    who has not left; see :class:`~scorer.rules.SeatChange`), and ``changes`` the seat
    changes folded in, in order.
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
    seated: tuple[int, ...] = ()
    changes: tuple[SeatChange, ...] = ()
    deals_owed: tuple[int, ...] | None = None

    @property
    def hands_remaining(self) -> int | None:
        """Counted hands still to play before the agreed end, or ``None`` if open-ended.
        Under P-14 the fewest: the deal going round until every player has dealt the
        agreed number of counted hands (more if hands are passed out and do not count)."""
        if self.deals_owed is not None:
            dealers = self.seated or tuple(range(self.setup.n))  # clockwise: who deals in turn
            return hands_to_end({s: self.deals_owed[s] for s in dealers}, dealers, self.next_dealer)
        if self.hands_to_play is None:
            return None
        return max(0, self.hands_to_play - self.hands_counted)

    @property
    def still_to_deal(self) -> tuple[tuple[int, int], ...]:
        """``(seat, counted deals owed)`` for each player who still has to deal (P-14),
        in seat order; empty when there is no such end point or it is reached."""
        return tuple((s, d) for s, d in enumerate(self.deals_owed or ()) if d)

    @property
    def end_reached(self) -> bool:
        """True once the agreed number of hands has been played (P-14, B-14) or a
        player has reached the target score (B-14)."""
        if self.hands_remaining == 0:
            return True
        target = self.variant.target_score(self.setup.options)
        return target is not None and bool(self.rows) and max(self.totals) >= target

    def on_left(self, seat: int) -> int:
        """The seated player on the left of ``seat`` (eldest hand when ``seat`` deals)."""
        seated = self.seated or tuple(range(self.setup.n))
        return seated[(seated.index(seat) + 1) % len(seated)] if seat in seated else seat

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
    :meth:`change_seats` seats or unseats a player between hands; :meth:`ledger` is the
    evening so far. Units are the variant's (chips or points).

    The rules follow the seats (issue 12): each hand is ruled as if only the players
    seated for it were at the table, so the player count (P-1, H-1, R-1, B-1), the
    auction's order, the ante (R-2) and the pool's payments are theirs; the deal passes
    left among them (the player seated on the left of the last dealer deals next, or the
    same dealer again after a misdeal; one who has left is skipped).
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
        self.changes: list[SeatChange] = []
        #: everyone who has sat at the table, clockwise; ``present`` those seated now
        self.ring = list(self.setup.seated_at_start)
        self.present = set(self.ring)
        #: the deal goes to the first seated player from ``anchor`` round to the left
        #: (``anchor`` itself included when ``redeal``: the first deal, a misdeal)
        self.anchor, self.redeal = self.setup.first_dealer, True
        self.shuffle = True  # P-4: the cards are shuffled at the start of play
        self.state = TableState()

    @property
    def seated(self) -> tuple[int, ...]:
        """The seats at the table now, clockwise."""
        return tuple(s for s in self.ring if s in self.present)

    @property
    def next_dealer(self) -> int:
        """The seat that deals the next hand."""
        start = self.ring.index(self.anchor) + (0 if self.redeal else 1)
        for step in range(len(self.ring)):
            seat = self.ring[(start + step) % len(self.ring)]
            if seat in self.present:
                return seat
        return self.anchor  # nobody is seated: the next hand is refused anyway

    def change_seats(self, change: SeatChange) -> None:
        """Seat (``"join"``) or unseat (``"leave"``) a player before the next hand; a
        ``"rename"`` is kept but changes nothing here.

        Raises :class:`~scorer.rules.IllegalSetup`, changing nothing, for a seat that is
        not a player, a join of someone already seated (or on the left of someone who is
        not), one player too many for the variant (``rule_players``), a leave of someone
        not seated, or a change dated before a hand already folded in.
        """
        seat = change.seat
        if change.kind == "rename":  # names are the set-up's: a rename is kept for the record only
            self.changes.append(change)
            return
        if change.before_hand != len(self.rows) + 1:
            raise IllegalSetup(Text("A change of seats comes between hands, before the next one."))
        if not 0 <= seat < self.setup.n:
            raise IllegalSetup(Text("That player is not one of the players."))
        name = self.setup.players[seat]
        if change.kind == "join":
            if seat in self.present:
                raise IllegalSetup(Text("{name} is already at the table.", name=name))
            if change.left_of not in self.present:
                raise IllegalSetup(Text("A new player sits on the left of a player at the table."))
            self.variant.check_count(len(self.present) + 1)
            if seat in self.ring:
                self.ring.remove(seat)
            self.ring.insert(self.ring.index(change.left_of) + 1, seat)
            self.present.add(seat)
        elif change.kind == "leave":
            if seat not in self.present:
                raise IllegalSetup(Text("{name} is not at the table.", name=name))
            self.present.discard(seat)
        self.changes.append(change)

    @classmethod
    def resume(cls, ledger: Ledger, keep: int | None = None) -> Fold:
        """A fold that goes on from the first ``keep`` hands of ``ledger`` (all of them by
        default): the state those hands left (totals, pool, treasure, dealer, shuffle,
        counted hands) is taken from their rows, so nothing before hand ``keep + 1`` is
        ruled on again, and :meth:`add` rules on the next hand exactly as a fold from the
        start would (the ledger's ``deals_owed``, P-14, is counted from the rows again).
        ``ledger`` is not changed (its rows are shared, never altered).

        This is what lets a stored evening settle only what changed: a new hand is one
        :meth:`add`, a correction of hand ``k`` resumes from ``keep = k − 1``.

        Only for evenings without seat changes (issue 12): an evening whose seats change,
        or that begins with some players not seated, is always folded from the start
        (simple and safe). Raises ``ValueError`` for such a ledger, or if ``keep`` is not
        between 0 and the ledger's number of hands.
        """
        if ledger.changes or ledger.setup.seated is not None:
            raise ValueError("an evening with seat changes is folded from the start")
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
            # everyone is seated throughout: the deal stays with the dealer after a misdeal
            # (the ruling's next dealer is the dealer) and passes to the left otherwise
            fold.anchor, fold.redeal = last.ruling.dealer, last.ruling.next_dealer == last.ruling.dealer
            fold.shuffle = last.ruling.shuffle
            fold.state = last.ruling.state_after
        return fold

    def add(self, facts: HandFacts) -> LedgerRow:
        """Rule on ``facts`` as the next hand and fold it in; returns its row.

        Raises :class:`HandError` (with the hand's number) if the rules refuse it,
        also when the players seated are too few or too many for the variant or the
        facts name a player who is not seated; the fold is then unchanged. Does not
        check the agreed end (see :meth:`ledger`).
        """
        number = len(self.rows) + 1
        seated = self.seated
        try:
            ruling = self._rule(facts, seated)
        except RulesError as error:
            raise HandError(number, error) from error
        self.state = ruling.state_after
        for seat, units in enumerate(ruling.units):
            self.totals[seat] += units
        self.pool += ruling.pool
        self.counted += ruling.counts
        self.anchor, self.redeal = ruling.dealer, ruling.next_dealer == ruling.dealer
        ruling = dataclasses.replace(ruling, next_dealer=self.next_dealer)
        self.shuffle = ruling.shuffle
        row = LedgerRow(number, facts, ruling, tuple(self.totals), self.pool, seated, self.counted)
        self.rows.append(row)
        return row

    def _rule(self, facts: HandFacts, seated: tuple[int, ...]) -> Ruling:
        """The variant's ruling on ``facts`` played by ``seated``, in the evening's seats."""
        self.variant.check_count(len(seated))
        if seated == tuple(range(self.setup.n)):
            return self.variant.settle(facts, self.setup, self.state)
        return _seated_ruling(self.variant, self.setup, seated, facts, self.state)

    def current_setup(self) -> EveningSetup:
        """The set-up as if only the players seated now were at the table."""
        return _seated_setup(self.setup, self.seated, self.seated[0] if self.seated else 0)

    def ledger(self) -> Ledger:
        """The evening as folded so far."""
        seated = self.seated
        each = self.variant.deals_each(self.current_setup()) if seated else None
        owed = None
        if each is not None:  # P-14: the players seated now are the ones who deal (issue 12)
            by_seat = deals_owed(((r.ruling.dealer, r.ruling.counts) for r in self.rows), seated, each)
            owed = tuple(by_seat.get(s, 0) for s in range(self.setup.n))
        return Ledger(
            setup=self.setup,
            variant=self.variant,
            rows=tuple(self.rows),
            totals=tuple(self.totals),
            pool=self.pool,
            next_dealer=self.next_dealer,
            shuffle=self.shuffle,
            hands_counted=self.counted,
            hands_to_play=self.variant.hands_to_play(self.current_setup()) if seated else None,
            seated=seated,
            changes=tuple(self.changes),
            deals_owed=owed,
        )


def _seated_setup(setup: EveningSetup, seated: tuple[int, ...], dealer: int) -> EveningSetup:
    """``setup`` with only ``seated`` at the table (their names in that order)."""
    return EveningSetup(setup.variant, tuple(setup.players[s] for s in seated), seated.index(dealer)
                        if dealer in seated else 0, setup.options, setup.stake)


def to_table(facts: HandFacts, seated: Sequence[int], names: Sequence[str]) -> HandFacts:
    """``facts`` in the evening's seats as the table ``seated`` (clockwise) sees them: seat
    ``seated[i]`` becomes ``i`` (the dealer, peeks, claims, an override's entries).

    Raises :class:`~scorer.rules.IllegalFacts` when the facts name a player not seated
    (``names`` are the evening's, for the message)."""
    local = {seat: i for i, seat in enumerate(seated)}

    def inner(seat: int | None) -> int | None:
        if seat is None:
            return None
        if seat not in local:
            name = names[seat] if 0 <= seat < len(names) else str(seat)
            raise IllegalFacts(Text("{name} is not at the table for this hand.", name=name))
        return local[seat]

    override = facts.override
    if override is not None:
        units = tuple(override.units)
        if any(u for s, u in enumerate(units) if s not in local):
            raise IllegalFacts(Text("An override gives units only to the players at the table for this hand."))
        override = dataclasses.replace(override, units=tuple(units[s] if s < len(units) else 0 for s in seated))
    return dataclasses.replace(
        facts, dealer=inner(facts.dealer), peeks=tuple(inner(s) for s in facts.peeks),
        claims=tuple(_claim_seats(c, inner) for c in facts.claims), override=override)


def to_evening(facts: HandFacts, seated: Sequence[int], n: int) -> HandFacts:
    """The inverse of :func:`to_table`: facts entered at the table ``seated`` in the
    evening's seats (``n`` players; an override gives 0 to those not seated)."""
    def outer(i: int | None) -> int | None:
        return None if i is None else seated[i]

    override = facts.override
    if override is not None:
        override = dataclasses.replace(override, units=_spread(override.units, seated, n))
    return dataclasses.replace(
        facts, dealer=seated[facts.dealer], peeks=tuple(seated[i] for i in facts.peeks),
        claims=tuple(_claim_seats(c, outer) for c in facts.claims), override=override)


def _claim_seats(claim: Claim, to: object) -> Claim:
    return dataclasses.replace(claim, accused=to(claim.accused), by=to(claim.by))  # type: ignore[operator]


def _spread(units: Sequence[int], seated: Sequence[int], n: int) -> tuple[int, ...]:
    full = [0] * n
    for i, u in enumerate(units):
        full[seated[i]] = u
    return tuple(full)


def _seated_ruling(variant: Variant, setup: EveningSetup, seated: tuple[int, ...], facts: HandFacts,
                   state: TableState) -> Ruling:
    """Rule on ``facts`` (in the evening's seats) as a hand of the table ``seated`` alone,
    and give the ruling back in the evening's seats (those not seated: 0).

    Raises :class:`~scorer.rules.IllegalFacts` when the facts name a player not seated
    (the dealer, a claim, a peek, an override's entry) and the variant's errors."""
    ruling = variant.settle(to_table(facts, seated, setup.players), _seated_setup(setup, seated, facts.dealer), state)

    def outer(i: int | None) -> int | None:
        return None if i is None else seated[i]

    overruled = None if ruling.overruled is None else (_spread(ruling.overruled[0], seated, setup.n),
                                                       ruling.overruled[1])
    return dataclasses.replace(
        ruling, dealer=outer(ruling.dealer), declarer=outer(ruling.declarer), next_dealer=outer(ruling.next_dealer),
        units=_spread(ruling.units, seated, setup.n), overruled=overruled,
        claims=tuple(_claim_seats(c, outer) for c in ruling.claims))


def table_ledger(ledger: Ledger, seated: Sequence[int] | None = None) -> Ledger:
    """The ledger as the table ``seated`` (default: the players seated now) sees it, for the
    forms that enter a hand: its set-up has only those players, in that order (seat
    ``seated[i]`` is ``i``), with their totals and the next dealer among them; the rows
    are the evening's (their count gives the next hand's number). The ledger itself when
    everyone is seated. Facts entered on it go back with :func:`to_evening`."""
    seated = tuple(ledger.seated if seated is None else seated)
    if seated == tuple(range(ledger.setup.n)) or not seated:
        return ledger
    local = {seat: i for i, seat in enumerate(seated)}
    return dataclasses.replace(
        ledger, setup=_seated_setup(ledger.setup, seated, ledger.next_dealer),
        totals=tuple(ledger.totals[s] for s in seated), next_dealer=local.get(ledger.next_dealer, 0),
        seated=tuple(range(len(seated))), changes=())


def settle_evening(setup: EveningSetup, hands: Sequence[HandFacts], changes: Sequence[SeatChange] = ()) -> Ledger:
    """Settle every hand of an evening in order and fold the rulings into totals, with
    the seat ``changes`` between them (each before its ``before_hand``; several before
    one hand in the order given; those after the last hand at the end).

    Raises :class:`~scorer.rules.IllegalSetup` for a bad set-up or seat change and
    :class:`HandError` (with the hand's number) for the first hand the rules refuse.
    """
    fold = Fold(setup)
    pending = sorted(changes, key=lambda c: c.before_hand)  # stable: the order given within a hand
    for number, facts in enumerate(hands, start=1):
        while pending and pending[0].before_hand <= number:
            fold.change_seats(pending.pop(0))
        fold.add(facts)
    for change in pending:
        fold.change_seats(change)
    return fold.ledger()
