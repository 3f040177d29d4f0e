"""Settled evenings kept between requests: the first view after a change costs the change,
not the evening.

Each process keeps the last settled :class:`~scorer.evening.ledger.Ledger` of the evenings it
has shown (:data:`ledgers`), labelled with what it was folded from: the evening's set-up
and, for every hand in play, its row id and current version (``(hand id, version)``;
versions are never changed once saved, so this pair names the hand's facts exactly).
Reading an evening again (:func:`settled`, :func:`settled_many`) then costs:

- the revision unchanged: one small query (the evening's revision and group; none when
  the caller has read the evening's row, :data:`HEAD_COLUMNS`, as the scoresheet does);
- a new hand, a correction, an undo, new options: at most three more (the evening's
  row, unless the caller gave it; the players and the hands' ids and versions with the
  revision, in one statement; the facts of the hands from the first that differs), and
  the fold resumed from there (:meth:`scorer.evening.ledger.Fold.resume`): a new hand settles
  one hand, a correction of hand ``k`` settles ``k`` onwards, an undo or finishing
  nothing, new options everything. An evening this process never kept costs all of it.

Evenings with a change of seats in play (issue 12: a join, a leave or a rename not
undone) are never resumed nor kept: they are settled in full every time, as
:func:`scorer.storage.evenings.ledger_of` does (``settle_evening(setup_of(evening), facts,
seat_changes_of(evening))``), which is simple and safe; such evenings are rare and short.

Nothing here can be stale: a kept ledger is only reused for the hands whose ids and
versions it was folded from, under the same set-up; the revision is only a shortcut,
read in the same statement as those ids and versions. Several processes (or a restart)
each keep their own; a miss only costs time. The writes in :mod:`scorer.storage.hand_writes` hand
their new ledger over after they commit (:func:`remember`), so the phone that saved a
hand finds it settled already. What a group's season reads of each evening is also kept
in the database, for every process (:mod:`scorer.storage.kept_results`).

Units are the ledger's (chips or points, the variant's unit).
"""

from __future__ import annotations

import dataclasses
import threading
from collections import OrderedDict
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import date, datetime
from typing import Any, TypeVar, cast

import sqlalchemy as sa
from sqlalchemy.orm import selectinload

from ..evening.codec import decode_hand
from ..evening.ledger import Fold, HandError, Ledger, settle_evening
from ..rules import EveningSetup, HandFacts, SeatChange, Stake
from .fingerprints import Fingerprint, HandMarks, common_prefix, fingerprints, hand_facts
from .models import Evening, Hand, db

#: The most hands the kept ledgers of one process hold together (the least recently
#: used evenings are forgotten first): a hand's ledger row is about 3 KB (measured on a
#: 500-hand evening), about 4 KB with its rendered scoresheet row, so at most about 240 MB;
#: a club night of 1,000 tables of 60 hands fits (issue 23 item 2: with 20,000, a room of
#: 1,000 tables of 30 hands pushed each table out before its next hand, and every view
#: settled it again).
HANDS_KEPT = 60_000

T = TypeVar("T")



@dataclass(frozen=True)
class EveningHead:
    """An evening's own columns without its hands (what a scoresheet shows besides the
    ledger): the same names as :class:`~scorer.storage.models.Evening`'s; ``players`` in seat
    order; ``revision`` the one the ledger beside it belongs to."""

    id: int
    key: str
    name: str
    place: str
    played_on: date
    variant: str
    options: dict[str, Any]
    stake_minor: int | None
    currency: str
    first_dealer: int
    draw: list[str]
    finished_at: datetime | None
    revision: int
    group_id: int | None
    players: tuple[str, ...]
    confirmation: bool = False
    #: the table's note on the evening (issue 25 item 7)
    note: str = ""

    @property
    def setup(self) -> EveningSetup:
        """The engine's view of the set-up, every player seated from the start (as
        :func:`setup_of` for an evening without changes of seats: the only ones kept)."""
        return setup_from(self.variant, self.players, self.first_dealer, self.options, self.stake_minor,
                          self.currency)


def setup_from(variant: str, players: Sequence[str], first_dealer: int, options: dict[str, Any] | None,
               stake_minor: int | None, currency: str) -> EveningSetup:
    """An evening's stored columns as the engine's :class:`~scorer.rules.EveningSetup`."""
    stake = None if stake_minor is None else Stake(stake_minor, currency)
    return EveningSetup(variant=variant, players=tuple(players), first_dealer=first_dealer,
                        options=dict(options or {}), stake=stake)


@dataclass(frozen=True)
class Settled:
    """An evening settled at one revision: its ``head``, the ``ledger`` and the
    ``fingerprint`` it was folded from (``(hand id, version)`` per hand in play).

    ``revision`` is the revision the fingerprint was read at (``-1`` when it is not
    known, e.g. folded from hands loaded by the ORM). :meth:`per_hand` keeps what the
    views make of each hand (a rendered row), carried over to the next revision for
    the hands before the first change. ``error``: a stored hand the rules refuse (it
    should not happen: every save is ruled first); ``ledger`` then holds the hands
    before it, and nothing of it is kept."""

    head: EveningHead
    ledger: Ledger
    fingerprint: Fingerprint
    revision: int
    error: HandError | None = None
    marks: HandMarks | None = None
    _per_hand: dict[Any, tuple[Any, ...]] = field(default_factory=dict, compare=False, repr=False)

    def per_hand(self, name: Any, make: Callable[[int, int], Sequence[T]]) -> tuple[T, ...]:
        """A value for every hand of the ledger, in order, each made once: ``make(start,
        stop)`` gives those of ``ledger.rows[start:stop]``, and is only asked for the hands
        not made yet. The values of the hands before the first change were made at an
        earlier revision (the same rows: the same facts, state and running totals).
        ``name`` tells kinds of value apart (e.g. a rendered row, with its language);
        ``make`` must depend on nothing but the rows, the set-up, the evening's key and
        ``name``. Thread-safe: two threads may both make a value, one of them is kept."""
        have = self._per_hand.get(name, ())
        count = len(self.ledger.rows)
        if len(have) < count:
            made = tuple(make(len(have), count))
            if len(made) != count - len(have):
                raise ValueError(f"made {len(made)} values for {count - len(have)} hands")
            have = have + made
            self._per_hand[name] = have  # one assignment: a reader sees the old or the new tuple
        return have

    def running(self, name: Any, fold: Callable[[T | None, int, int], T]) -> T:
        """A value of all the ledger's hands made up hand after hand (a sum, a maximum),
        made once per hand: ``fold(before, start, stop)`` gives the value of
        ``ledger.rows[:stop]`` from ``before``, the value of ``ledger.rows[:start]``
        (``None`` when ``start`` is 0). Kept among the per-hand values (:meth:`per_hand`,
        at the last hand of each revision), so a new hand folds one hand and a
        correction of hand ``k`` folds from the last value kept before ``k``. ``fold``
        must depend on nothing but the rows, set-up and ``name``."""
        count = len(self.ledger.rows)
        have = self._per_hand.get(name, ())[:count]
        if not count:
            return fold(None, 0, 0)
        if len(have) == count and have[-1] is not None:
            return cast(T, have[-1])
        known = len(have)
        while known and have[known - 1] is None:  # an undo or a correction: back to the last value kept
            known -= 1
        value = fold(have[known - 1] if known else None, known, count)
        self._per_hand[name] = (*have, *(None,) * (count - len(have)))[:count - 1] + (value,)
        return value

    def _carry(self, previous: Settled | None, keep: int) -> Settled:
        """Take over ``previous``'s per-hand values of its first ``keep`` hands."""
        if previous is not None and keep:
            for name, values in list(previous._per_hand.items()):
                self._per_hand[name] = values[:keep]
        return self


class LedgerCache:
    """The kept :class:`Settled` evenings of this process, at most :data:`HANDS_KEPT`
    hands together, by (database, evening key); thread-safe. ``enabled = False`` makes
    every lookup a miss (the benchmark's "before")."""

    def __init__(self, hands: int = HANDS_KEPT) -> None:
        self.hands = hands
        self.enabled = True
        self._data: OrderedDict[tuple[str, str], Settled] = OrderedDict()
        self._held = 0
        self._lock = threading.Lock()

    def get(self, key: tuple[str, str]) -> Settled | None:
        if not self.enabled:
            return None
        with self._lock:
            value = self._data.get(key)
            if value is not None:
                self._data.move_to_end(key)
            return value

    def put(self, key: tuple[str, str], value: Settled) -> None:
        """Keep ``value`` unless a later revision of that evening is kept already."""
        if not self.enabled:
            return
        with self._lock:
            old = self._data.get(key)
            if old is not None:
                if old.revision > value.revision >= 0:
                    return
                self._held -= len(old.ledger.rows)
            self._data[key] = value
            self._data.move_to_end(key)
            self._held += len(value.ledger.rows)
            while self._held > self.hands and len(self._data) > 1:
                _, gone = self._data.popitem(last=False)
                self._held -= len(gone.ledger.rows)

    def clear(self) -> None:
        with self._lock:
            self._data.clear()
            self._held = 0


#: This process's kept ledgers.
ledgers = LedgerCache()


def _where() -> str:
    """Which database the current app reads (tests run many, one process)."""
    return str(db.engine.url)


#: An evening's own columns, as :class:`EveningHead` names them (without its players): a
#: caller that reads them anyway (the scoresheet, with its group) hands the row to
#: :func:`settled_many`, which then reads nothing more for an evening kept at that revision.
HEAD_COLUMNS = (Evening.id, Evening.key, Evening.name, Evening.place, Evening.played_on, Evening.variant,
                Evening.options, Evening.stake_minor, Evening.currency, Evening.first_dealer, Evening.draw,
                Evening.finished_at, Evening.revision, Evening.group_id, Evening.confirmation, Evening.note)


def _heads(keys: Sequence[str]) -> dict[str, dict[str, Any]]:
    """The evenings' own columns (:data:`HEAD_COLUMNS`) by key."""
    rows = db.session.execute(sa.select(*HEAD_COLUMNS).where(Evening.key.in_(keys))).all()
    return {row.key: row._asdict() for row in rows}


def fold_from(previous: Settled | None, setup: EveningSetup, fingerprint: Fingerprint,
              facts_of: Callable[[Sequence[tuple[int, int]]], dict[tuple[int, int], HandFacts]]
              ) -> tuple[Ledger, int, HandError | None]:
    """The ledger of ``fingerprint``'s hands under ``setup``, reusing ``previous`` for the
    hands it shares from the first; ``facts_of`` gives the facts of the others. Returns
    the ledger, how many hands were reused, and the :class:`~scorer.evening.ledger.HandError` of
    the first hand the rules refuse (the ledger then ends before it), or ``None``."""
    keep = _reusable(previous, setup, fingerprint)
    fold = Fold.resume(previous.ledger, keep) if previous is not None and keep else Fold(setup)
    rest = fingerprint[keep:]
    facts = facts_of(rest) if rest else {}
    try:
        for pair in rest:
            fold.add(facts[pair])
    except HandError as error:
        return fold.ledger(), keep, error
    return fold.ledger(), keep, None


#: The columns that tell whether a kept evening is current: every change to the others
#: (name, place, options, finished) bumps the revision; the group does not.
_CURRENT = sa.text("SELECT key, id, revision, group_id FROM evening WHERE key IN :keys").bindparams(
    sa.bindparam("keys", expanding=True, type_=sa.String))


def settled_many(keys: Sequence[str], heads: Mapping[str, Mapping[str, Any]] | None = None) -> dict[str, Settled]:
    """The evenings with these URL keys, each settled at its current revision (with its
    ``error`` if a stored hand the rules refuse); unknown keys are left out. Kept ledgers
    are reused (see the module's notes): one small query when every one is kept; the
    others are read with at most three more queries in all, however many evenings.
    ``heads``: the rows of :data:`HEAD_COLUMNS` the caller has just read, by key (a
    dict per evening, the columns' names as keys); those evenings are not read again."""
    if not keys:
        return {}
    where = _where()
    given = {key: dict(heads[key]) for key in keys if heads and key in heads}
    ask = [key for key in dict.fromkeys(keys) if key not in given]
    current = [(key, row["revision"], row["group_id"]) for key, row in given.items()]
    if ask:
        current += [(key, revision, group_id) for key, _id, revision, group_id
                    in db.session.execute(_CURRENT, {"keys": ask})]
    out: dict[str, Settled] = {}
    missed: list[str] = []
    for key, revision, group_id in current:
        kept = ledgers.get((where, key))
        if kept is not None and kept.revision == revision and kept.head.group_id == group_id:
            out[key] = kept
        else:
            missed.append(key)
    if missed:
        rows = {key: given[key] for key in missed if key in given}
        unread = [key for key in missed if key not in given]
        if unread:
            rows.update(_heads(unread))
        out.update(_settle(where, {row["id"]: row for row in rows.values()}))
    return out


def _head(row: dict[str, Any], players: tuple[str, ...]) -> EveningHead:
    return EveningHead(players=players, **row)


def resumable(ledger: Ledger) -> bool:
    """Whether ``ledger`` may be kept and resumed (:meth:`scorer.evening.ledger.Fold.resume`): an
    evening without changes of seats (issue 12), all of its players seated from the start."""
    return not ledger.changes and ledger.setup.seated is None


def _reusable(previous: Settled | None, setup: EveningSetup, fingerprint: Fingerprint) -> int:
    """How many hands of ``previous`` a fold of ``fingerprint`` under ``setup`` can keep."""
    if previous is None or previous.error is not None or previous.head.setup != setup \
            or not resumable(previous.ledger) or setup.seated is not None:
        return 0
    return common_prefix(previous.fingerprint, fingerprint)


def _settle(where: str, missed: dict[int, dict[str, Any]]) -> dict[str, Settled]:
    """Settle the evenings not kept at their revision: the fingerprints with the players,
    and the facts of every hand from each one's first change are read with one query
    each, however many evenings; an evening with a
    change of seats in play is settled in full and not kept (:func:`_settle_in_full`)."""
    previous = {evening_id: ledgers.get((where, row["key"])) for evening_id, row in missed.items()}
    # the facts of the hands saved since the kept ledgers come with the fingerprints
    after = min((max((hand_id for hand_id, _ in kept.fingerprint), default=0) if kept is not None else 0
                 for kept in previous.values()), default=0)
    printed = fingerprints(list(missed), after)
    prints = printed.prints
    out: dict[str, Settled] = {}
    for i in printed.seats & set(prints):
        row = missed.pop(i)
        out[row["key"]] = _settle_in_full(row["key"], prints[i])
    heads = {i: _head(row, printed.players.get(i, ())) for i, row in missed.items()}
    wanted: dict[tuple[int, int], int] = {}
    for i, head in heads.items():
        fingerprint = prints.get(i, (0, ()))[1]
        for pair in fingerprint[_reusable(previous[i], head.setup, fingerprint):]:
            wanted[pair] = len(head.players)
    facts = hand_facts(wanted, printed.facts) if wanted else {}
    for i, head in heads.items():
        if i not in prints:  # gone between the two statements (evenings are never deleted)
            continue
        revision, fingerprint = prints[i]
        consistent = revision == head.revision  # else a write came between: settle, but keep nothing
        ledger, keep, error = fold_from(previous[i], head.setup, fingerprint, lambda pairs: facts)
        value = Settled(head, ledger, fingerprint, revision if consistent and error is None else -1, error,
                        marks=printed.marks.get(i))
        value._carry(previous[i], keep)
        if value.revision >= 0:
            ledgers.put((where, head.key), value)
        out[head.key] = value
    return out


def seat_changes_of(evening: Evening) -> list[SeatChange]:
    """The evening's seat changes in play (not undone), in order, as the engine's facts
    (:func:`scorer.storage.evenings.seat_changes_of`)."""
    return [SeatChange(r.before_hand, r.kind, r.seat, r.left_of, r.name)
            for r in evening.seat_changes if r.undone_at is None]


def setup_of(evening: Evening, changes: Sequence[SeatChange] | None = None) -> EveningSetup:
    """The engine's view of an evening's set-up (:func:`scorer.storage.evenings.setup_of`): every
    player who sits at the table during the evening (by :attr:`~scorer.storage.models.Player.seat`),
    those at the first deal ``seated`` (the others join by one of ``changes``, by default
    the evening's in play)."""
    first: dict[int, str] = {}
    for change in seat_changes_of(evening) if changes is None else changes:
        first.setdefault(change.seat, change.kind)
    newcomers = {seat for seat, kind in first.items() if kind == "join"}
    seated = tuple(p.seat for p in evening.players if p.seat not in newcomers)
    return dataclasses.replace(
        setup_from(evening.variant, [p.name for p in evening.players], evening.first_dealer, evening.options,
                   evening.stake_minor, evening.currency),
        seated=None if not newcomers else seated)


def _settle_in_full(key: str, printed: tuple[int, Fingerprint]) -> Settled:
    """An evening with a change of seats in play, settled from the start as
    :func:`scorer.storage.evenings.ledger_of` does, and not kept: its ``revision`` is the one read
    with ``printed`` (the revision and fingerprint) when the ORM read the same, else
    ``-1``. Its ``error`` is the first stored hand the rules refuse (the ledger is then
    the evening before its first hand)."""
    evening = db.session.scalar(sa.select(Evening).where(Evening.key == key).options(
        selectinload(Evening.players), selectinload(Evening.seat_changes),
        selectinload(Evening.hands).selectinload(Hand.versions)))
    assert evening is not None  # evenings are never deleted
    changes = seat_changes_of(evening)
    setup = setup_of(evening, changes)
    fingerprint = fingerprint_of(evening)
    consistent = printed == (evening.revision, fingerprint)
    head = head_of(evening)
    try:
        n = len(evening.players)
        ledger = settle_evening(setup, [decode_hand(h.current.facts, n) for h in evening.hands], changes)
    except HandError as error:
        return Settled(head, Fold(setup).ledger(), fingerprint, -1, error)
    return Settled(head, ledger, fingerprint, evening.revision if consistent else -1)


def settled(key: str, head: Mapping[str, Any] | None = None) -> Settled | None:
    """The evening with URL key ``key`` settled at its current revision, or ``None`` if
    there is none. Raises :class:`~scorer.evening.ledger.HandError` for a stored hand the rules
    refuse. An unchanged evening costs one small query, none if ``head`` is the
    evening's row (:data:`HEAD_COLUMNS`) as the caller has just read it."""
    found = settled_many([key], None if head is None else {key: head}).get(key)
    if found is not None and found.error is not None:
        raise found.error
    return found


def head_row(evening: Evening) -> dict[str, Any]:
    """An ORM evening's own columns (:data:`HEAD_COLUMNS`), as :func:`settled` takes them."""
    row = {c.key: getattr(evening, c.key) for c in HEAD_COLUMNS}
    row["options"], row["draw"] = dict(row["options"] or {}), list(row["draw"] or ())
    return row


def head_of(evening: Evening, players: tuple[str, ...] | None = None) -> EveningHead:
    """An ORM evening's :class:`EveningHead` (``players``: their names, when known without
    reading the evening's players)."""
    return EveningHead(**head_row(evening), players=tuple(p.name for p in evening.players) if players is None
                       else players)


def kept_at(key: str, revision: int, group_id: int | None) -> Settled | None:
    """The evening ``key`` as this process keeps it settled at ``revision`` (in group
    ``group_id``), to be resumed (no change of seats in play, no hand the rules refuse);
    else ``None``. No query: for a write that has read the revision under the evening's
    row lock, so that its hands, players and set-up are the kept ones (every change to them
    bumps the revision), without reading them again."""
    kept = ledgers.get((_where(), key))
    if (kept is None or kept.revision < 0 or kept.revision != revision or kept.head.group_id != group_id
            or kept.error is not None or not resumable(kept.ledger)):
        return None
    return kept


def fingerprint_of(evening: Evening) -> Fingerprint:
    """``(hand id, version)`` of the loaded evening's hands in play."""
    return tuple((h.id, h.current.version) for h in evening.hands)


def ledger_of_loaded(evening: Evening, setup: EveningSetup) -> Ledger:
    """The ledger of an evening loaded with its hands (the ORM's), reusing the kept ledger
    for the hands it shares; the result is kept (without a revision: the hands were not
    read in the revision's statement) when nothing is kept for the evening yet."""
    where = _where()
    fingerprint = fingerprint_of(evening)
    if not resumable_setup(setup):
        raise ValueError("an evening with seat changes is settled in full")
    previous = ledgers.get((where, evening.key))
    by_pair = {(h.id, h.current.version): h for h in evening.hands}
    n = len(setup.players)
    ledger, keep, error = fold_from(previous, setup, fingerprint,
                                    lambda pairs: {p: decode_hand(by_pair[p].current.facts, n) for p in pairs})
    if error is not None:
        raise error
    if previous is None:
        ledgers.put((where, evening.key), Settled(head_of(evening), ledger, fingerprint, -1))
    return ledger


def resumable_setup(setup: EveningSetup) -> bool:
    """Whether an evening of this set-up starts with every player seated (issue 12)."""
    return setup.seated is None


def remember(head: EveningHead, ledger: Ledger, fingerprint: Fingerprint) -> None:
    """Keep the ledger a write has just committed: ``head`` is the evening as the write
    left it (``head.revision`` the revision after the write) and ``fingerprint`` its
    hands then (the write held the evening's row lock, so nothing else changed it in
    between). Call it after the commit only: a write that failed must leave nothing.
    A ledger with changes of seats is not kept (:func:`resumable`)."""
    if not resumable(ledger):
        return
    where = _where()
    previous = ledgers.get((where, head.key))
    keep = common_prefix(previous.fingerprint, fingerprint) \
        if previous is not None and previous.error is None and previous.head.setup == head.setup else 0
    ledgers.put((where, head.key), Settled(head, ledger, fingerprint, head.revision)._carry(previous, keep))
