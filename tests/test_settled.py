"""Kept ledgers (scorer/settled.py) and the resumable fold (scorer/ledger.py Fold.resume):
whatever a process kept, the ledger it shows equals the evening settled from scratch.

Every example evening (each rule set; claims, the widow, the pool and the treasure
among them) is stored half-played, then changed as phones do — new hands, a table's
override, a restore, an undo, new settings, finish and reopen — and after each change
the ledger is read in three "processes": the one that wrote (its ledger handed over by
the write), one that kept an older revision (it reads the hands from the first change),
and one that folds from the ORM's hands. Each must equal ``settle_evening`` of the
stored facts, and the second must have ruled on exactly the hands from the change on.
On SQLite and PostgreSQL.
"""

from __future__ import annotations

import contextlib
import dataclasses
from collections.abc import Iterator
from datetime import date, timedelta
from pathlib import Path
from typing import Any

import pytest

from scorer.evening.file import EveningFile, loads
from scorer.evening.ledger import Fold, settle_evening
from scorer.evening.settle import PlayerStats, statistics
from scorer.rules import HandFacts, Override, RulesError, get_variant
from scorer.storage import evening_writes, evenings, hand_writes, roles, seat_writes, units
from scorer.storage import kept_ledgers as settled
from scorer.storage.models import db

EXAMPLES = Path(__file__).resolve().parent.parent / "examples"
FILES = sorted(p for p in EXAMPLES.glob("*.json") if not p.name.endswith(".expected.json"))


def _example(path: Path) -> EveningFile:
    return loads(path.read_bytes())


# --- the engine: a fold resumed from any hand is the fold from the start ---------------


@pytest.mark.parametrize("path", FILES, ids=[p.stem for p in FILES])
def test_a_resumed_fold_equals_the_fold_from_the_start(path: Path) -> None:
    evening = _example(path)
    full = settle_evening(evening.setup, evening.hands)
    rows = full.rows
    for keep in range(len(evening.hands) + 1):
        fold = Fold.resume(full, keep)
        for facts in evening.hands[keep:]:
            fold.add(facts)
        assert fold.ledger() == full, keep
    assert full.rows is rows and Fold.resume(full).ledger() == full  # the ledger resumed from is not changed
    with pytest.raises(ValueError):
        Fold.resume(full, len(evening.hands) + 1)


def test_a_resumed_fold_carries_the_state_of_the_hands_kept() -> None:
    # hoyle-peep-pool: the pool carried from hand to hand (H-16), the next dealer and the counted hands
    evening = _example(EXAMPLES / "hoyle-peep-pool.json")
    full = settle_evening(evening.setup, evening.hands)
    for keep in range(1, len(evening.hands)):
        ledger = Fold.resume(full, keep).ledger()
        row = full.rows[keep - 1]
        assert (ledger.totals, ledger.pool, ledger.next_dealer) == (row.totals, row.pool, row.ruling.next_dealer)
        assert ledger.hands_counted == sum(r.ruling.counts for r in full.rows[:keep])


def _statistics_by_definition(ledger: Any) -> tuple[PlayerStats, ...]:
    """The per-player statistics as first written (seat by seat), the oracle of the one-pass version."""
    out = []
    for seat in range(ledger.setup.n):
        rulings = [row.ruling for row in ledger.rows]
        mine = [r for r in rulings if r.declarer == seat]
        made = [r for r in mine if r.result.value == "made"]
        claims = [c for row in ledger.rows for c in row.ruling.claims]
        changes = [r.units[seat] for r in rulings]
        out.append(PlayerStats(
            dealt=sum(1 for r in rulings if r.dealer == seat), declared=len(mine), made=len(made),
            naps=sum(1 for r in made if r.contract is not None and r.contract.tricks == 5),
            biggest_gain=max([0, *changes]), biggest_loss=min([0, *changes]),
            claims_made=sum(1 for c in claims if c.by == seat),
            claims_upheld_against=sum(1 for c in claims if c.accused == seat and c.upheld)))
    return tuple(out)


@pytest.mark.parametrize("path", FILES, ids=[p.stem for p in FILES])
def test_statistics_in_one_pass_equal_their_definition(path: Path) -> None:
    evening = _example(path)
    for count in (0, 1, len(evening.hands)):
        ledger = settle_evening(evening.setup, evening.hands[:count])
        assert statistics(ledger) == _statistics_by_definition(ledger)


@pytest.mark.parametrize("path", FILES, ids=[p.stem for p in FILES])
def test_statistics_added_up_from_any_hand_equal_those_of_the_whole_evening(path: Path) -> None:
    evening = _example(path)
    ledger = settle_evening(evening.setup, evening.hands)
    whole = _statistics_by_definition(ledger)
    for split in range(len(ledger.rows) + 1):
        before = statistics(ledger, 0, split)
        assert before == _statistics_by_definition(dataclasses.replace(ledger, rows=ledger.rows[:split]))
        assert statistics(ledger, split, None, before) == whole, split


# --- stored evenings: every way to read them gives the ledger settled from scratch --------


@contextlib.contextmanager
def process(cache: settled.LedgerCache) -> Iterator[None]:
    """Read as another process would: with its own kept ledgers."""
    own = settled.ledgers
    settled.ledgers = cache
    try:
        yield
    finally:
        settled.ledgers = own


@contextlib.contextmanager
def counting(monkeypatch: pytest.MonkeyPatch) -> Iterator[list[int]]:
    """How many hands the engine rules on inside the block."""
    ruled = [0]
    add = Fold.add

    def counted(self: Fold, facts: HandFacts) -> Any:
        ruled[0] += 1
        return add(self, facts)

    with monkeypatch.context() as patch:
        patch.setattr(Fold, "add", counted)
        yield ruled


class Table:
    """One stored evening and the three processes that read it."""

    def __init__(self, key: str, monkeypatch: pytest.MonkeyPatch) -> None:
        self.key = key
        self.monkeypatch = monkeypatch
        self.older = settled.LedgerCache()  # a process that read the evening before the last change

    def evening(self) -> Any:
        db.session.remove()
        found = units.get_evening(self.key)
        assert found is not None
        return found

    def check(self, ruled_elsewhere: int | None = None) -> None:
        """The ledger from scratch, and the same from each process. ``ruled_elsewhere``:
        the hands the older process must rule on to catch up (None: not checked)."""
        evening = self.evening()
        scratch = settle_evening(evenings.setup_of(evening), evenings.current_facts(evening))
        fingerprint = tuple((h.id, h.current.version) for h in evening.hands)
        with counting(self.monkeypatch) as ruled:
            found = settled.settled(self.key)  # the process that wrote: handed over by the write
        assert found is not None and found.ledger == scratch
        assert (found.fingerprint, found.head.revision, found.revision) == (fingerprint, evening.revision,
                                                                             evening.revision)
        assert found.head.name == evening.name and found.head.finished_at == evening.finished_at
        with process(self.older), counting(self.monkeypatch) as ruled:
            elsewhere = settled.settled(self.key)
        assert elsewhere is not None and elsewhere.ledger == scratch and elsewhere.fingerprint == fingerprint
        if ruled_elsewhere is not None:
            assert ruled[0] == ruled_elsewhere
        with process(settled.LedgerCache()):
            assert evenings.ledger_of(evening) == scratch  # folded from the ORM's hands, nothing kept
        assert evenings.ledger_of(evening) == scratch  # from the ORM's hands, with this process's kept ledger


def _override(facts: HandFacts, n: int, ledger: Any, number: int) -> HandFacts:
    """The hand overruled by the table: one unit moved from seat 0 to seat 1 of the
    ruling's own figures, the pool as ruled (every later hand stays legal, every later
    running total moves)."""
    units = list(ledger.rows[number - 1].ruling.units)
    units[0], units[1] = units[0] + 1, units[1] - 1
    return dataclasses.replace(facts, override=Override(tuple(units), "Agreed at the table",
                                                         ledger.rows[number - 1].ruling.pool))


def _new_options(evening: Any) -> dict | None:
    """Other options under which the stored hands still settle, or None."""
    variant = get_variant(evening.variant)
    setup = evenings.setup_of(evening)
    for spec in variant.option_specs:
        value = setup.options.get(spec.key)
        choices = [not value] if spec.kind == "bool" else [c[0] for c in spec.choices if c[0] != value]
        for choice in choices:
            options = {**setup.options, spec.key: choice}
            try:
                new = variant.check_setup(dataclasses.replace(setup, options=options))
                facts = evenings.current_facts(evening)
                ledger = settle_evening(new, facts)
                if facts and settle_evening(new, facts[:-1]).end_reached:
                    continue
            except RulesError:
                continue
            if ledger != settle_evening(setup, facts):
                return options
    return None


@pytest.mark.parametrize("path", FILES, ids=[p.stem for p in FILES])
def test_kept_ledgers_equal_a_settle_from_scratch(any_db_app: Any, path: Path,
                                                  monkeypatch: pytest.MonkeyPatch) -> None:
    data = _example(path)
    half = max(2, len(data.hands) // 2)
    with any_db_app.app_context():
        key = evening_writes.import_evening(dataclasses.replace(data, hands=data.hands[:half], finished=False)).key
        table = Table(key, monkeypatch)
        table.check(ruled_elsewhere=half)
        for number, facts in enumerate(data.hands[half:], start=half + 1):  # new hands: one hand each
            with counting(monkeypatch) as ruled:
                hand_writes.record_hand(table.evening(), number, facts)
            assert ruled[0] == 1  # the save rules on the new hand only
            table.check(ruled_elsewhere=1)
        n = len(data.hands)
        evening = table.evening()
        second = evening.hands[1]
        ledger = evenings.ledger_of(evening)
        overruled = _override(evenings.facts_of(second.current, len(evening.players)), len(evening.players), ledger, 2)
        hand_writes.correct_hand(evening, 2, second.current.version, overruled, kind="override")
        table.check(ruled_elsewhere=n - 1)  # a correction of hand 2: hands 2 to n again
        evening = table.evening()
        hand_writes.correct_hand(evening, 2, evening.hands[1].current.version, data.hands[1], kind="restore")
        table.check(ruled_elsewhere=n - 1)
        evening = table.evening()
        last = evening.hands[-1]
        hand_writes.undo_last_hand(evening, last.number, last.current.version)
        table.check(ruled_elsewhere=0)  # an undo rules on nothing
        hand_writes.record_hand(table.evening(), n, data.hands[-1])
        table.check(ruled_elsewhere=1)
        evening = table.evening()
        evening_writes.change_settings(evening, evening.revision, name="Renamed", place="Club",
                                 options=dict(evening.options))
        table.check(ruled_elsewhere=0)  # the name alone: nothing to rule on
        evening = table.evening()
        options = _new_options(evening)
        if options is not None and options != evening.options:
            evening_writes.change_settings(evening, evening.revision, name=evening.name, place="", options=options)
            table.check(ruled_elsewhere=n)  # new options: every hand again
        evening_writes.set_finished(table.evening(), True)
        table.check(ruled_elsewhere=0)
        evening_writes.set_finished(table.evening(), False)
        table.check(ruled_elsewhere=0)


def test_an_evening_changed_twice_elsewhere_is_caught_up_from_its_first_change(any_db_app: Any,
                                                                               monkeypatch: pytest.MonkeyPatch
                                                                               ) -> None:
    data = _example(EXAMPLES / "hoyle-referee.json")  # claims upheld and rejected
    with any_db_app.app_context():
        key = evening_writes.import_evening(dataclasses.replace(data, hands=data.hands[:3], finished=False)).key
        table = Table(key, monkeypatch)
        table.check(ruled_elsewhere=3)
        for number in (4, 5):  # two hands saved while the other process looked away
            hand_writes.record_hand(table.evening(), number, data.hands[number - 1])
        evening = table.evening()
        third = evening.hands[2]
        ledger = evenings.ledger_of(evening)
        hand_writes.correct_hand(evening, 3, third.current.version,
                              _override(data.hands[2], len(evening.players), ledger, 3))
        table.check(ruled_elsewhere=3)  # hands 3, 4 and 5: from the first that differs from what it kept


# --- what the views keep with the ledger: the pages equal pages made from nothing ------


def _clear_view_caches() -> None:
    from scorer.web import caches
    from scorer.web.views import groups

    for cache in (caches.sheet_cache, caches.page_cache, caches.frame_cache, caches.chart_cache, groups.season_cache,
                  groups.fragment_cache, groups.chart_cache, groups.piece_cache):
        cache.clear()
    settled.ledgers.clear()


def test_the_scoresheet_with_kept_rows_equals_one_made_from_nothing(app: Any) -> None:
    data = _example(EXAMPLES / "hoyle-peep-pool.json")  # the pool: a correction moves every later row
    client = app.test_client()  # a viewer: no forms, the page is the same for every viewer
    with app.app_context():
        key = evening_writes.import_evening(dataclasses.replace(data, hands=data.hands[:3], finished=False)).key

    def page() -> str:
        return _page(client, f"/e/{key}")

    assert page() == _clear_and(page)
    with app.app_context():
        for number in range(4, len(data.hands) + 1):
            page()  # each revision seen, its rows kept
            hand_writes.record_hand(units.get_evening(key), number, data.hands[number - 1])
    kept = page()
    assert kept == _clear_and(page) and kept.count('<tbody id="hand-') == len(data.hands)
    page()
    with app.app_context():
        evening = units.get_evening(key)
        assert evening is not None
        ledger = evenings.ledger_of(evening)
        hand_writes.correct_hand(evening, 2, 1, _override(data.hands[1], len(evening.players), ledger, 2))
    kept = page()
    assert kept == _clear_and(page)
    assert "overruled" in kept
    for _ in range(2):  # undo twice: the statistics kept at the last hand of each revision are gone
        page()
        with app.app_context():
            evening = units.get_evening(key)
            hand_writes.undo_last_hand(evening, evening.hands[-1].number, evening.hands[-1].current.version)
    kept = page()
    assert kept == _clear_and(page) and kept.count('<tbody id="hand-') == len(data.hands) - 2


def test_the_scoresheet_frame_kept_across_revisions_carries_each_revision_and_any_name(app: Any) -> None:
    # the page around the scoresheet is kept (web/caches.frame_cache): the revision the
    # live poll compares with is filled in per revision, whatever the evening is called
    import re

    data = _example(EXAMPLES / "hoyle-peep-pool.json")
    client = app.test_client()
    name = 'Tom\'s <!--revision--> & "-revision-" <!--sheet-->'
    with app.app_context():
        key = evening_writes.import_evening(dataclasses.replace(data, name=name, hands=data.hands[:2],
                                                          finished=False)).key

    for number in (3, 4):
        html = _page(client, f"/e/{key}")
        with app.app_context():
            revision = units.evening_revision(key)
        assert re.findall(r'data-revision="([^"]*)"', html) == [str(revision)]
        assert "<!--revision-->" not in html and "<!--sheet-->" not in html
        assert html.count("Tom&#39;s &lt;!--revision--&gt; &amp; &#34;-revision-&#34; &lt;!--sheet--&gt;") == 2
        assert html == _clear_and(lambda: _page(client, f"/e/{key}"))
        with app.app_context():
            hand_writes.record_hand(units.get_evening(key), number, data.hands[number - 1])


def test_the_season_with_kept_rows_equals_one_made_from_nothing(app: Any) -> None:
    from scorer.storage.groups import create_group

    data = _example(EXAMPLES / "pagat-thursday.json")
    client = app.test_client()
    with app.app_context():
        group = create_group("Thursday club")
        group_key, keys = group.key, []
        for week in range(4):
            evening = evening_writes.import_evening(dataclasses.replace(data, hands=data.hands[:3], finished=False))
            evening.group_id, evening.played_on = group.id, date(2026, 9, 3) + timedelta(weeks=week)
            keys.append(evening.key)
            db.session.commit()  # before the next import, which begins with a rollback

    def page() -> str:
        return _page(client, f"/g/{group_key}")

    first = page()
    assert first == _clear_and(page) and first.count("<tr><td><a href=") == 4  # four evenings in the book
    with app.app_context():
        hand_writes.record_hand(units.get_evening(keys[-1]), 4, data.hands[3])  # tonight's evening
    assert page() == _clear_and(page)
    page()
    with app.app_context():  # the oldest evening: every later evening's season total moves
        evening = units.get_evening(keys[0])
        assert evening is not None
        ledger = evenings.ledger_of(evening)
        hand_writes.correct_hand(evening, 1, 1, _override(data.hands[0], len(evening.players), ledger, 1))
    kept = page()
    assert kept == _clear_and(page)


# --- the cache itself ----------------------------------------------------------------


def _kept(key: str, hands: int, revision: int) -> settled.Settled:
    data = _example(EXAMPLES / "hoyle-five.json")
    ledger = settle_evening(data.setup, data.hands[:hands])
    head = settled.EveningHead(id=1, key=key, name="", place="", played_on=date(2026, 1, 1), variant="hoyle",
                               options=dict(data.setup.options), stake_minor=None, currency="", first_dealer=0,
                               draw=[], finished_at=None, revision=revision, group_id=None,
                               players=data.setup.players)
    return settled.Settled(head, ledger, tuple((i, 1) for i in range(hands)), revision)


def test_the_cache_keeps_at_most_its_hands_and_never_an_older_revision() -> None:
    cache = settled.LedgerCache(hands=10)
    cache.put(("db", "a"), _kept("a", 4, 1))
    cache.put(("db", "b"), _kept("b", 4, 1))
    cache.put(("db", "a"), _kept("a", 3, 0))  # an older revision (a slow reader) does not replace a newer one
    assert cache.get(("db", "a")).revision == 1  # type: ignore[union-attr]
    cache.put(("db", "c"), _kept("c", 4, 1))  # 12 hands: the least recently used evening goes
    assert cache.get(("db", "b")) is None and cache.get(("db", "a")) is not None
    cache.enabled = False
    assert cache.get(("db", "a")) is None


def test_values_made_per_hand_are_made_once_and_carried_for_the_hands_before_a_change() -> None:
    made: list[tuple[int, int]] = []

    def maker(kept: settled.Settled) -> Any:
        def make(start: int, stop: int) -> list[int]:
            made.append((start, stop))
            return [kept.ledger.rows[i].totals[0] for i in range(start, stop)]

        return make

    first = _kept("a", 4, 1)
    assert first.per_hand("x", maker(first)) == tuple(r.totals[0] for r in first.ledger.rows)
    assert first.per_hand("x", maker(first)) and made == [(0, 4)]
    second = _kept("a", 5, 2)._carry(first, 3)  # hand 4 changed, hand 5 new
    made.clear()
    assert second.per_hand("x", maker(second)) == tuple(r.totals[0] for r in second.ledger.rows)
    assert made == [(3, 5)]
    assert second.per_hand("y", maker(second)) and made == [(3, 5), (0, 5)]  # another kind: made afresh


def test_a_running_value_folds_only_the_hands_after_the_last_one_kept() -> None:
    folded: list[tuple[int | None, int, int]] = []

    def total_of_seat_0(kept: settled.Settled) -> Any:
        def fold(before: int | None, start: int, stop: int) -> int:
            folded.append((before, start, stop))
            return (before or 0) + sum(kept.ledger.rows[i].ruling.units[0] for i in range(start, stop))

        return fold

    first = _kept("a", 4, 1)
    want = first.ledger.rows[3].totals[0]
    assert first.running("t", total_of_seat_0(first)) == want
    assert first.running("t", total_of_seat_0(first)) == want and folded == [(None, 0, 4)]
    second = _kept("a", 5, 2)._carry(first, 4)  # one new hand: one hand folded onto the four kept
    folded.clear()
    assert second.running("t", total_of_seat_0(second)) == second.ledger.rows[4].totals[0]
    assert folded == [(want, 4, 5)]
    third = _kept("a", 5, 3)._carry(second, 3)  # hand 4 changed: no value kept at hand 3, so from the start
    folded.clear()
    assert third.running("t", total_of_seat_0(third)) == third.ledger.rows[4].totals[0]
    assert folded == [(None, 0, 5)]
    undone = _kept("a", 3, 4)._carry(second, 3)  # two hands undone: nothing kept at hand 3
    folded.clear()
    assert undone.running("t", total_of_seat_0(undone)) == undone.ledger.rows[2].totals[0]
    assert folded == [(None, 0, 3)]
    assert undone.running("t", total_of_seat_0(undone)) == undone.ledger.rows[2].totals[0] and len(folded) == 1
    again = _kept("a", 4, 5)._carry(second, 4)  # one hand undone: the value at hand 4 was kept
    folded.clear()
    assert again.running("t", total_of_seat_0(again)) == want and folded == []
    empty = _kept("b", 0, 1)
    assert empty.running("t", total_of_seat_0(empty)) == 0


def test_a_group_without_evenings_and_unknown_keys_settle_to_nothing(any_db_app: Any) -> None:
    with any_db_app.app_context():
        assert settled.settled_many([]) == {} and settled.settled_many(["nosuchkey"]) == {}
        assert settled.settled("nosuchkey") is None


# --- evenings with changes of seats are settled in full, never resumed nor kept --------


def test_a_fold_with_changes_of_seats_is_never_resumed() -> None:
    from scorer.rules import EveningSetup, SeatChange

    setup = EveningSetup("hoyle", ("A", "B", "C", "D"), 0, {"pool": True, "pool_opening": 4, "pool_top_up": 1},
                         seated=(0, 1, 2))
    # D sits on the left of C before hand 2 (as tests/test_seat_changes.py's stored evening)
    ledger = settle_evening(setup, [HandFacts(0, ("two", "pass", "pass"), 2),
                                    HandFacts(1, ("pass", "three", "pass", "pass"), 3)],
                            [SeatChange(2, "join", 3, 2, "")])
    assert ledger.seated == (0, 1, 2, 3) and not settled.resumable(ledger)
    with pytest.raises(ValueError, match="seat changes"):
        Fold.resume(ledger, 1)


def test_an_evening_with_changes_of_seats_is_settled_in_full_and_kept_again_once_undone(
        any_db_app: Any) -> None:
    with any_db_app.app_context():
        evening = evening_writes.create_evening(variant="hoyle", players=["A", "B", "C"], first_dealer=0,
                                          options={"pool": True, "pool_opening": 4, "pool_top_up": 1}, stake=None)
        key = evening.key
        where = settled._where()

        def check(kept: bool) -> Any:
            db.session.remove()
            evening = units.get_evening(key)
            changes = evenings.seat_changes_of(evening)
            scratch = settle_evening(evenings.setup_of(evening), evenings.current_facts(evening), changes)
            for cache in (settled.ledgers, settled.LedgerCache()):  # this process, and one that never saw it
                with process(cache):
                    found = settled.settled(key)
                    assert found is not None and found.ledger == scratch and found.revision == evening.revision
                    assert evenings.ledger_of(evening) == scratch
                    assert (cache.get((where, key)) is not None
                            and cache.get((where, key)).revision == evening.revision) == kept
            return scratch

        # H-16: the pool opens at 4 from each and A, dealing, tops up 1; B (eldest) Two made, 2 from each
        hand_writes.record_hand(evening, 1, HandFacts(0, ("two", "pass", "pass"), 2))
        assert check(kept=True).totals == (-7, 0, -6)  # as tests/test_seat_changes.py's first hand
        seat_writes.change_seats(units.get_evening(key), "join", name="D", left_of=2)
        check(kept=False)
        hand_writes.record_hand(units.get_evening(key), 2, HandFacts(1, ("pass", "three", "pass", "pass"), 3))
        seat_writes.change_seats(units.get_evening(key), "leave", seat=0)
        seat_writes.change_seats(units.get_evening(key), "rename", seat=3, name="Dora")
        hand_writes.record_hand(units.get_evening(key), 3, HandFacts(2, ("pass", "pass", "pass")))
        ledger = check(kept=False)
        assert ledger.totals == (-10, -4, -10, 9) and ledger.seated == (1, 2, 3)  # as tests/test_seat_changes.py
        evening = units.get_evening(key)
        hand_writes.correct_hand(evening, 3, 1, HandFacts(2, ("pass", "pass", "pass"), misdeal=True))
        assert check(kept=False).rows[-1].ruling.next_dealer == 2  # a misdeal: C deals again
        # a join with no hand after it, then undone: the evening is as before it, and kept again
        seat_writes.change_seats(units.get_evening(key), "join", name="Eve", left_of=1)
        check(kept=False)
        evening = units.get_evening(key)
        for record in sorted((r for r in evening.seat_changes if r.undone_at is None), key=lambda r: -r.id)[:1]:
            seat_writes.undo_seat_change(evening, record.id)
        check(kept=False)  # the three earlier changes are still in play

        other = evening_writes.create_evening(variant="hoyle", players=["A", "B", "C"], first_dealer=0,
                                        options={}, stake=None)
        key = other.key
        hand_writes.record_hand(other, 1, HandFacts(0, ("two", "pass", "pass"), 2))
        seat_writes.change_seats(units.get_evening(key), "rename", seat=1, name="Bea")
        check(kept=False)
        evening = units.get_evening(key)
        seat_writes.undo_seat_change(evening, evening.seat_changes[0].id)
        assert check(kept=True).setup.players == ("A", "B", "C")  # no change in play: kept again


def test_the_scoresheet_of_an_evening_with_changes_of_seats_equals_one_made_from_nothing(app: Any) -> None:
    client = app.test_client()
    with app.app_context():
        evening = evening_writes.create_evening(variant="hoyle", players=["A", "B", "C"], first_dealer=0,
                                          options={"pool": True, "pool_opening": 4, "pool_top_up": 1}, stake=None)
        key = evening.key

    def page() -> str:
        return _page(client, f"/e/{key}")

    with app.app_context():
        hand_writes.record_hand(units.get_evening(key), 1, HandFacts(0, ("two", "pass", "pass"), 2))
        page()
        seat_writes.change_seats(units.get_evening(key), "join", name="D", left_of=2)
        page()
        hand_writes.record_hand(units.get_evening(key), 2, HandFacts(1, ("pass", "three", "pass", "pass"), 3))
        page()
        seat_writes.change_seats(units.get_evening(key), "leave", seat=0)
    kept = page()
    assert kept == _clear_and(page)
    # newest first: the leave before hand 3 above hand 2, the join before hand 2 between hands 2 and 1
    order = [kept.index(s) for s in ("A left before hand 3", 'id="hand-2"',
                                     "D joined before hand 2, sitting on the left of C", 'id="hand-1"')]
    assert order == sorted(order)


# --- the marks of disputes and confirmation change without any hand changing -----------


def test_the_scoresheet_shows_a_dispute_raised_and_dismissed_on_the_next_view(any_db_app: Any) -> None:
    # the marks come with the hands' ids when the evening is read again (a dispute, a
    # confirmation), and from their own queries after a save handed its ledger over
    from scorer.storage import disputes

    app = any_db_app
    data = _example(EXAMPLES / "hoyle-peep-pool.json")
    client = app.test_client()
    with app.app_context():
        key = evening_writes.import_evening(dataclasses.replace(data, hands=data.hands[:4], finished=False)).key

    def page(lang: str = "en") -> str:
        return _page(client, f"/e/{key}", lang)

    def hand(html: str, number: int) -> str:
        start = html.index(f'id="hand-{number}"')
        return html[start:html.index("</tbody>", start)]

    before = page()
    assert "badge" not in hand(before, 2) and "badge" not in hand(before, 3)
    with app.app_context():
        evening = units.get_evening(key)
        dispute = disputes.raise_dispute(evening, 2, hand_id=evening.hands[1].id, kind="score", note="")
        dispute_id = dispute.id
    marked = page()
    assert "⚑ disputed" in hand(marked, 2) and "#disputes" in hand(marked, 2)
    assert hand(marked, 3) == hand(before, 3) and "badge" not in hand(marked, 1)
    assert marked == _clear_and(page)
    russian = page("ru")  # the rows are kept by language: the mark is there in Russian too
    assert "#disputes" in hand(russian, 2) and "#disputes" not in hand(russian, 3)
    assert russian == _clear_and(lambda: page("ru"))
    with app.app_context():
        disputes.settle_dispute(units.get_evening(key), dispute_id, "dismissed")
    after = page()
    assert "badge" not in hand(after, 2) and hand(after, 2) == hand(before, 2)
    assert after == _clear_and(page)
    # confirmation on: a new hand waits for another phone, and is accepted
    with app.app_context():
        disputes.set_confirmation(units.get_evening(key), True)
        other = roles.add_device("another-phone-at-the-table", "a60", "phone")  # seen before hand 5 is entered
        assert other is not None
        other_id = other.id
        hand_writes.record_hand(units.get_evening(key), 5, data.hands[4], device_id=None)
    waiting = page()
    assert "unconfirmed" in hand(waiting, 5) and "unconfirmed" not in hand(waiting, 4)
    assert waiting == _clear_and(page)
    with app.app_context():
        evening = units.get_evening(key)
        disputes.confirm_hand(evening, 5, hand_id=evening.hands[4].id, device_id=other_id)
    accepted = page()
    assert "unconfirmed" not in hand(accepted, 5) and accepted == _clear_and(page)


def _page(client: Any, path: str, lang: str = "en") -> str:
    """The page at ``path`` in language ``lang``, which must answer 200."""
    response = client.get(path, headers={"Accept-Language": lang})
    assert response.status_code == 200, (path, response.status_code)
    return response.get_data(as_text=True)


def _clear_and(view: Any) -> Any:
    _clear_view_caches()
    return view()
