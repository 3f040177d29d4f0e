"""Storage on SQLite and PostgreSQL: migrations, one transaction per hand, versions,
conflicts, and the JSON round trip through the database."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
import sqlalchemy as sa

from scorer.evening.file import dumps, loads
from scorer.evening.ledger import settle_evening
from scorer.rules import HandFacts, IllegalAuction, Stake
from scorer.storage import errors, evening_writes, evenings, hand_writes, units
from scorer.storage.models import Evening, Hand, HandVersion, db

EXAMPLES = Path(__file__).resolve().parent.parent / "examples"


def _count(model: Any) -> int:
    return db.session.scalar(sa.select(sa.func.count()).select_from(model)) or 0


def test_migrations_build_the_schema(any_db_app: Any) -> None:
    with any_db_app.app_context():
        tables = set(sa.inspect(db.engine).get_table_names())
        assert {"evening", "player", "hand", "hand_version", "alembic_version"} <= tables


def test_record_correct_and_reload(any_db_app: Any) -> None:
    with any_db_app.app_context():
        evening = evening_writes.create_evening(variant="hoyle", players=["Анна", "Bjørn", "João"], first_dealer=0,
                                          options={}, stake=Stake(50, "RUB"))
        key = evening.key
        hand_writes.record_hand(evening, 1, HandFacts(0, ("four", "pass", "pass"), 4))  # Bjørn +8
        db.session.expire_all()
        evening = units.get_evening(key)
        assert evening is not None
        hand_writes.correct_hand(evening, 1, 1, HandFacts(0, ("four", "pass", "pass"), 2))  # now −8
        db.session.expire_all()
        evening = units.get_evening(key)
        assert evening is not None
        ledger = evenings.ledger_of(evening)
        assert ledger.totals == (4, -8, 4) and ledger.money_totals == (200, -400, 200)
        assert [v.version for v in evening.hands[0].versions] == [1, 2]
        assert evening.hands[0].versions[0].facts["tricks"] == 4  # the old facts are kept
        assert [p.name for p in evening.players] == ["Анна", "Bjørn", "João"]


def test_a_refused_hand_writes_nothing(any_db_app: Any) -> None:
    with any_db_app.app_context():
        evening = evening_writes.create_evening(variant="pagat", players=["A", "B", "C"], first_dealer=0, options={},
                                          stake=None)
        with pytest.raises(IllegalAuction):
            hand_writes.record_hand(evening, 1, HandFacts(0, ("two", "pass", "pass"), 2))
        assert (_count(Hand), _count(HandVersion)) == (0, 0)


def test_the_same_hand_number_is_saved_once(any_db_app: Any) -> None:
    with any_db_app.app_context():
        evening = evening_writes.create_evening(variant="pagat", players=["A", "B", "C"], first_dealer=0, options={},
                                          stake=None)
        key = evening.key
        hand_writes.record_hand(evening, 1, HandFacts(0, ("three", "pass", "pass"), 3))
        # a second phone that loaded the evening before the first save tries hand 1 too:
        # the unique constraint refuses it inside the same transaction
        db.session.add(Hand(evening_id=evening.id, number=1, versions=[
            HandVersion(version=1, facts={"dealer": 0, "auction": ["pass", "pass", "pass"]})]))
        with pytest.raises(sa.exc.IntegrityError):
            db.session.commit()
        db.session.rollback()
        evening = units.get_evening(key)
        assert evening is not None
        with pytest.raises(errors.HandConflict):
            hand_writes.record_hand(evening, 1, HandFacts(0, ("three", "pass", "pass"), 3))
        assert (_count(Hand), _count(HandVersion)) == (1, 1)


def test_stale_correction_is_refused(any_db_app: Any) -> None:
    with any_db_app.app_context():
        evening = evening_writes.create_evening(variant="pagat", players=["A", "B", "C"], first_dealer=0, options={},
                                          stake=None)
        hand_writes.record_hand(evening, 1, HandFacts(0, ("three", "pass", "pass"), 3))
        hand_writes.correct_hand(evening, 1, 1, HandFacts(0, ("three", "pass", "pass"), 1))
        with pytest.raises(errors.HandConflict):
            hand_writes.correct_hand(evening, 1, 1, HandFacts(0, ("four", "pass", "pass"), 4))
        assert _count(HandVersion) == 2


@pytest.mark.parametrize("name", ["pagat-thursday", "hoyle-five"])
def test_import_export_reproduces_the_ledger(any_db_app: Any, name: str) -> None:
    original = loads((EXAMPLES / f"{name}.json").read_bytes())
    with any_db_app.app_context():
        evening = evening_writes.import_evening(original)
        key = evening.key
        db.session.expire_all()
        stored = units.get_evening(key)
        assert stored is not None
        exported = evening_writes.export_evening(stored)
        again = loads(dumps(exported))
    first = settle_evening(original.setup, original.hands)
    second = settle_evening(again.setup, again.hands)
    assert [r.ruling for r in first.rows] == [r.ruling for r in second.rows]
    assert first.totals == second.totals and again.setup == original.setup


def test_evening_keys_are_unguessable(any_db_app: Any) -> None:
    with any_db_app.app_context():
        keys = {evening_writes.create_evening(variant="pagat", players=["A", "B", "C"], first_dealer=0, options={},
                                        stake=None).key for _ in range(5)}
        assert len(keys) == 5 and all(len(k) >= 22 for k in keys)  # 16 random bytes, base64url
        assert _count(Evening) == 5


def test_upgrading_keeps_an_evening_saved_before_the_change(any_db_app: Any) -> None:
    """An evening saved under migration 0001 survives the upgrade to the newest schema."""
    from flask_migrate import downgrade, upgrade

    with any_db_app.app_context():
        downgrade(revision="0001_initial")
        db.session.execute(sa.text(
            "INSERT INTO evening (key, name, played_on, place, variant, options, stake_minor, currency, "
            "first_dealer, created_at, revision) VALUES ('k1', 'Old', '2026-01-01', '', 'pagat', '{}', NULL, '', 0, "
            "'2026-01-01 20:00:00+00', 1)"))
        evening_id = db.session.scalar(sa.text("SELECT id FROM evening WHERE key = 'k1'"))
        for seat, name in enumerate(("A", "B", "C")):
            db.session.execute(sa.text("INSERT INTO player (evening_id, seat, name) VALUES (:e, :s, :n)"),
                               {"e": evening_id, "s": seat, "n": name})
        db.session.execute(sa.text("INSERT INTO hand (evening_id, number, created_at) VALUES (:e, 1, "
                                   "'2026-01-01 20:05:00+00')"), {"e": evening_id})
        hand_id = db.session.scalar(sa.text("SELECT id FROM hand"))
        db.session.execute(sa.text(
            "INSERT INTO hand_version (hand_id, version, dealer, misdeal, auction, tricks, created_at) VALUES "
            "(:h, 1, 0, false, :auction, 4, '2026-01-01 20:05:00+00')"),
            {"h": hand_id, "auction": '["four", "pass", "pass"]'})
        db.session.commit()
        upgrade()
        db.session.expire_all()
        evening = units.get_evening("k1")
        assert evening is not None
        ledger = evenings.ledger_of(evening)
        assert ledger.totals == (-4, 8, -4)  # dealer A: B bids Four and makes it
        assert evening.hands[0].current.facts == {"dealer": 0, "auction": ["four", "pass", "pass"], "tricks": 4}
        # the upgrade gave the old evening its own scorers' link and PIN
        assert len(evening.edit_key) >= 22 and evening.edit_key != evening.key
        assert evening.pin.isdigit() and len(evening.pin) == 6


def test_the_sharing_migration_goes_down_and_up_with_data(any_db_app: Any) -> None:
    """0008 can be undone on a database holding hands, history and tokens, and redone."""
    from flask_migrate import downgrade, upgrade

    with any_db_app.app_context():
        evening = evening_writes.create_evening(variant="pagat", players=["A", "B", "C"], first_dealer=0, options={},
                                          stake=None)
        hand_writes.record_hand(evening, 1, HandFacts(0, ("three", "pass", "pass"), 3), token="t-1", device="x")
        hand_writes.undo_last_hand(evening, 1, 1)
        key = evening.key
        db.session.remove()
        downgrade(revision="0007_groups")
        assert db.session.scalar(sa.text("SELECT count(*) FROM hand")) == 1
        db.session.remove()  # end the reading transaction before the DDL
        upgrade()
        db.session.remove()
        again = units.get_evening(key)
        assert again is not None and again.hands == [] and len(again.edit_key) >= 22


def test_a_long_read_on_sqlite_never_holds_the_write_lock(app: Any) -> None:
    """A page view (a GET, e.g. a PDF being rendered) reads in a deferred transaction,
    so a phone saving a hand meanwhile does not wait for it (it waited 10 s, then failed
    with "database is locked", while the reader held BEGIN IMMEDIATE).

    No clock: the reader keeps its transaction open until the write has finished. Had
    the write needed the reader's lock, it would have failed with "database is locked"
    after SQLite's busy timeout, or the reader would have given up first (its wait is far
    longer), and ``still_reading`` would be false."""
    import threading

    with app.app_context():
        evening = evening_writes.create_evening(variant="pagat", players=["A", "B", "C"], first_dealer=0, options={},
                                          stake=None)
        key = evening.key
    reading = threading.Event()
    done = threading.Event()
    released = threading.Event()

    def long_read() -> None:
        with app.test_request_context("/e/x", method="GET"):
            assert units.get_evening(key) is not None  # the transaction is open from here
            reading.set()
            done.wait(timeout=600)
            db.session.rollback()
            released.set()

    reader = threading.Thread(target=long_read)
    reader.start()
    assert reading.wait(timeout=600)
    try:
        with app.test_request_context("/e/x/quick", method="POST"):
            hand_writes.record_hand(units.get_evening(key), 1, HandFacts(0, ("three", "pass", "pass"), 3))
        still_reading = not released.is_set()
    finally:
        done.set()
        reader.join()
    assert still_reading  # the write finished while the reader still held its transaction
    with app.app_context():
        assert len(units.get_evening(key).hands) == 1  # type: ignore[union-attr]


@pytest.mark.parametrize("name", ["hoyle-referee", "pagat-thursday"])
def test_the_facts_column_migration_goes_down_and_up_with_real_hands(any_db_app: Any, name: str) -> None:
    """0009 moves every version's facts into one JSON column and back: an evening with
    claims, a record of play and an override (hoyle-referee) exports the same file after
    going down to the eleven columns of 0008 and up again, and settles the same."""
    from flask_migrate import downgrade, upgrade

    with any_db_app.app_context():
        evening = evening_writes.import_evening(loads((EXAMPLES / f"{name}.json").read_bytes()))
        key = evening.key
        before = dumps(evening_writes.export_evening(units.get_evening(key)))  # type: ignore[arg-type]
        totals = evenings.ledger_of(units.get_evening(key)).totals  # type: ignore[arg-type]
        db.session.remove()
        downgrade(revision="0008_sharing")
        rows = db.session.execute(sa.text(
            "SELECT v.dealer, v.override, v.claims, v.record FROM hand_version v JOIN hand h ON h.id = v.hand_id "
            "ORDER BY h.number")).all()
        assert len(rows) == len(loads(before).hands)
        if name == "hoyle-referee":  # the old columns hold the old shapes again
            overrides = [json.loads(r.override) if isinstance(r.override, str) else r.override for r in rows]
            assert [o for o in overrides if o] and all(isinstance(o["units"], list) for o in overrides if o)
            claims = [json.loads(r.claims) if isinstance(r.claims, str) else r.claims for r in rows]
            assert any(c and "before_speaking" in c[0] for c in claims)
        db.session.remove()
        upgrade()
        db.session.remove()
        again = units.get_evening(key)
        assert again is not None
        assert dumps(evening_writes.export_evening(again)) == before
        assert evenings.ledger_of(again).totals == totals


def test_a_hand_saved_in_the_old_columns_reads_the_same_after_0009(any_db_app: Any) -> None:
    """Rows written under 0008 (claims as full dicts, override as a units list) come out
    of the upgrade in the codec's shape and give the facts they held."""
    from flask_migrate import downgrade, upgrade

    from scorer.rules import Claim, Override

    with any_db_app.app_context():
        evening = evening_writes.create_evening(variant="hoyle", players=["A", "B", "C", "D"], first_dealer=0,
                                          options={}, stake=None)
        key, evening_id = evening.key, evening.id
        db.session.remove()
        downgrade(revision="0008_sharing")
        db.session.execute(sa.text("INSERT INTO hand (evening_id, number, created_at) VALUES (:e, 1, "
                                   "'2026-01-01 20:05:00+00')"), {"e": evening_id})
        hand_id = db.session.scalar(sa.text("SELECT id FROM hand"))
        claim = {"kind": "revoke", "accused": 2, "upheld": True, "by": 1, "trick": 3, "suit_led": "H",
                 "card": "2C", "evidence": "5H", "cards_held": None, "before_speaking": False}
        db.session.execute(sa.text(
            "INSERT INTO hand_version (hand_id, version, dealer, misdeal, auction, tricks, trump, purchase, widow, "
            "peeks, claims, override, record, created_at) VALUES (:h, 1, 0, false, :auction, 2, NULL, false, false, "
            "'[]', :claims, :override, '[]', '2026-01-01 20:05:00+00')"),
            {"h": hand_id, "auction": '["pass", "three", "pass", "pass"]', "claims": json.dumps([claim]),
             "override": json.dumps({"units": [1, 2, -3, 0], "pool": 0, "reason": "agreed"})})
        db.session.commit()
        db.session.remove()
        upgrade()
        db.session.remove()
        stored = units.get_evening(key)
        assert stored is not None
        assert stored.hands[0].current.facts == {
            "dealer": 0, "auction": ["pass", "three", "pass", "pass"], "tricks": 2,
            "claims": [{"kind": "revoke", "accused": 2, "upheld": True, "by": 1, "trick": 3, "suit_led": "H",
                        "card": "2C", "evidence": "5H"}],
            "override": {"entries": {"0": 1, "1": 2, "2": -3, "3": 0}, "pool": 0, "reason": "agreed"},
        }
        assert evenings.current_facts(stored) == [HandFacts(
            0, ("pass", "three", "pass", "pass"), 2,
            claims=(Claim("revoke", 2, True, by=1, trick=3, suit_led="H", card="2C", evidence="5H"),),
            override=Override((1, 2, -3, 0), "agreed"))]
        assert evenings.ledger_of(stored).totals == (1, 2, -3, 0)  # the override stands


def test_a_unit_of_work_outside_any_request_takes_the_write_lock_only_when_it_writes(app: Any) -> None:
    """units.writing() / reading() choose the transaction, not the HTTP method: a
    worker writing outside a request holds SQLite's write lock (another writer cannot
    begin), and reading() leaves it free and ends its transaction."""
    import sqlite3

    path = app.config["SQLALCHEMY_DATABASE_URI"].removeprefix("sqlite:///")

    def other_writer_can_begin() -> bool:
        other = sqlite3.connect(path, timeout=0, isolation_level=None)
        try:
            other.execute("BEGIN IMMEDIATE")
            other.execute("ROLLBACK")
            return True
        except sqlite3.OperationalError:
            return False
        finally:
            other.close()

    with app.app_context():
        with units.reading():
            assert db.session.scalar(sa.select(sa.func.count()).select_from(Evening)) == 0
            assert other_writer_can_begin()
        assert not db.session().in_transaction()
        with units.writing():
            db.session.scalar(sa.select(sa.func.count()).select_from(Evening))
            assert not other_writer_can_begin()
        assert other_writer_can_begin()
        with pytest.raises(RuntimeError), units.writing():
            db.session.add(Evening(variant="pagat", name="never saved"))
            db.session.flush()
            raise RuntimeError("refused")
        assert _count(Evening) == 0  # the unit of work saved nothing
